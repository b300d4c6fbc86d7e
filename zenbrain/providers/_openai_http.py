"""Embeddings from any server that speaks OpenAI's ``POST /embeddings``.

That is OpenAI itself and the local servers that copy its API: Ollama
(``http://localhost:11434/v1``), vLLM (``http://localhost:8000/v1``), LM Studio
(``http://localhost:1234/v1``) and others. Only the standard library is used.
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from zenbrain.errors import InvalidInputError, ProviderError
from zenbrain.providers._http import JsonHttpClient, resolve_api_key
from zenbrain.providers._vectors import (
    EmbeddingMatrix,
    as_text_list,
    check_dimension,
    l2_normalise_rows,
)

__all__ = ["OpenAIEmbeddings"]

_DIMENSION_PROBE_TEXT = "dimension probe"


class OpenAIEmbeddings:
    """An :class:`~zenbrain.providers.EmbeddingProvider` over an OpenAI-compatible HTTP API.

    ``model``: the server's model name (``"text-embedding-3-small"``, ``"nomic-embed-text"``).
    ``api_key``: sent as a Bearer token; defaults to the ``OPENAI_API_KEY`` environment
    variable; local servers usually need none. ``dimension``: when given, sent as the
    ``dimensions`` request field (models that can shorten their vectors honour it) and every
    answer is checked against it; when not, it is learnt from the first answer (reading
    :attr:`dimension` before any embedding sends one short probe request).
    ``query_prefix``/``document_prefix``: prepended to queries/documents, for models trained
    with instructions such as e5's ``"query: "``/``"passage: "``.
    ``model_id``: what the store records; defaults to ``model``.
    Rows are L2-normalised (``normalize=False`` keeps the server's vectors as they are).
    Transient failures (HTTP 408/429/5xx, connection errors, timeouts) are retried up to
    ``max_retries`` times with exponential backoff from ``retry_backoff`` seconds.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str = "https://api.openai.com/v1",
        api_key: str | None = None,
        dimension: int | None = None,
        batch_size: int = 64,
        timeout: float = 60.0,
        max_retries: int = 3,
        retry_backoff: float = 0.5,
        query_prefix: str = "",
        document_prefix: str = "",
        normalize: bool = True,
        model_id: str | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise InvalidInputError(f"model must be a non-empty model name, got {model!r}")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise InvalidInputError(f"batch_size must be an int >= 1, got {batch_size!r}")
        for name, prefix in (("query_prefix", query_prefix), ("document_prefix", document_prefix)):
            if not isinstance(prefix, str):
                raise InvalidInputError(f"{name} must be a str, got {type(prefix).__name__}")
        if model_id is not None and (not isinstance(model_id, str) or not model_id.strip()):
            raise InvalidInputError(f"model_id must be a non-empty str or None, got {model_id!r}")
        self._model = model
        self._requested_dimension = None if dimension is None else check_dimension(dimension)
        self._dimension = self._requested_dimension
        self._batch_size = batch_size
        self._query_prefix = query_prefix
        self._document_prefix = document_prefix
        self._normalize = normalize
        self._model_id = model_id or model
        self._client = JsonHttpClient(
            base_url,
            api_key=resolve_api_key(api_key),
            timeout=timeout,
            max_retries=max_retries,
            retry_backoff=retry_backoff,
        )
        self._dimension_lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._embed([_DIMENSION_PROBE_TEXT])
        assert self._dimension is not None
        return self._dimension

    @property
    def base_url(self) -> str:
        return self._client.base_url

    def embed_documents(self, texts: Sequence[str]) -> EmbeddingMatrix:
        return self._embed([self._document_prefix + text for text in as_text_list(texts)])

    def embed_queries(self, texts: Sequence[str]) -> EmbeddingMatrix:
        return self._embed([self._query_prefix + text for text in as_text_list(texts)])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self._model!r}, base_url={self.base_url!r})"

    def _embed(self, texts: list[str]) -> EmbeddingMatrix:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        batches = [
            self._embed_batch(texts[start : start + self._batch_size])
            for start in range(0, len(texts), self._batch_size)
        ]
        matrix = np.vstack(batches)
        return l2_normalise_rows(matrix) if self._normalize else matrix.astype(np.float32)

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        payload: dict[str, Any] = {"model": self._model, "input": texts}
        if self._requested_dimension is not None:
            payload["dimensions"] = self._requested_dimension
        answer = self._client.post("/embeddings", payload)
        vectors = self._parse(answer, expected_count=len(texts))
        self._check_dimension(vectors.shape[1])
        return vectors

    def _parse(self, answer: Any, *, expected_count: int) -> np.ndarray:
        where = f"{self.base_url}/embeddings"
        data = answer.get("data") if isinstance(answer, dict) else None
        if not isinstance(data, list):
            raise ProviderError(
                f"{where} answered without a 'data' list of embeddings; got {_preview(answer)}"
            )
        if len(data) != expected_count:
            raise ProviderError(
                f"{where} returned {len(data)} embeddings for {expected_count} inputs"
            )
        rows: list[np.ndarray | None] = [None] * expected_count
        for item in data:
            index = item.get("index") if isinstance(item, dict) else None
            if isinstance(index, bool) or not isinstance(index, int):
                raise ProviderError(f"{where} returned an item without an integer 'index'")
            if not 0 <= index < expected_count or rows[index] is not None:
                raise ProviderError(
                    f"{where} returned index {index}, expected each of 0..{expected_count - 1} once"
                )
            rows[index] = _vector(item.get("embedding"), where, index)
        lengths = {row.shape[0] for row in rows if row is not None}
        if len(lengths) != 1:
            raise ProviderError(
                f"{where} returned embeddings of differing lengths {sorted(lengths)}"
            )
        return np.vstack([row for row in rows if row is not None])

    def _check_dimension(self, got: int) -> None:
        with self._dimension_lock:
            if self._dimension is None:
                self._dimension = got
                return
        if got != self._dimension:
            raise ProviderError(
                f"{self.base_url}/embeddings returned vectors of dimension {got}, expected "
                f"{self._dimension} for model {self._model!r}"
            )


def _vector(embedding: object, where: str, index: int) -> np.ndarray:
    """One embedding as float64; accepts a list of numbers or base64-packed float32."""
    if isinstance(embedding, str):
        try:
            vector = np.frombuffer(base64.b64decode(embedding, validate=True), dtype="<f4")
        except ValueError:
            raise ProviderError(
                f"{where} returned an embedding at index {index} that is neither a list of "
                f"numbers nor base64"
            ) from None
    elif isinstance(embedding, list) and all(
        isinstance(x, int | float) and not isinstance(x, bool) for x in embedding
    ):
        vector = np.asarray(embedding, dtype=np.float64)
    else:
        raise ProviderError(
            f"{where} returned an embedding at index {index} that is not a list of numbers"
        )
    if vector.size == 0 or not np.all(np.isfinite(vector)):
        raise ProviderError(f"{where} returned an empty or non-finite embedding at index {index}")
    return vector.astype(np.float64)


def _preview(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."
