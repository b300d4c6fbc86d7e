"""Embeddings from a local sentence-transformers model (extra ``zenbrain[sentence-transformers]``).

The model runs in this process on PyTorch. ``sentence_transformers`` (and so torch) is only
imported when an embedder is constructed, never by ``import zenbrain``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from zenbrain.errors import InvalidInputError, ProviderError, require
from zenbrain.providers._vectors import EmbeddingMatrix, as_text_list, l2_normalise_rows

__all__ = ["SentenceTransformerEmbedder"]


class SentenceTransformerEmbedder:
    """An :class:`~zenbrain.providers.EmbeddingProvider` on ``sentence_transformers``.

    ``model_name_or_path``: a Hugging Face model name or a local directory holding a saved
    model. With ``local_files_only=True`` (or ``HF_HUB_OFFLINE=1`` in the environment) nothing
    is downloaded. ``query_prompt``/``document_prompt``: text put before queries/documents;
    when ``None``, the prompts named ``"query"``/``"document"`` in the model's own
    configuration are used if it has them. ``model_id``: what the store records; defaults to
    the model name, or for a local directory its folder name — pass a stable id when loading
    from a path. Rows are L2-normalised.
    """

    def __init__(
        self,
        model_name_or_path: str | os.PathLike[str],
        *,
        device: str = "cpu",
        batch_size: int = 32,
        query_prompt: str | None = None,
        document_prompt: str | None = None,
        local_files_only: bool = False,
        model_id: str | None = None,
        model_kwargs: dict[str, Any] | None = None,
    ) -> None:
        name = os.fspath(model_name_or_path)
        if not isinstance(name, str) or not name.strip():
            raise InvalidInputError(
                f"model_name_or_path must be a model name or directory, got {model_name_or_path!r}"
            )
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise InvalidInputError(f"batch_size must be an int >= 1, got {batch_size!r}")
        if model_id is not None and (not isinstance(model_id, str) or not model_id.strip()):
            raise InvalidInputError(f"model_id must be a non-empty str or None, got {model_id!r}")
        module: Any = require(
            "sentence_transformers", "sentence-transformers", "SentenceTransformerEmbedder"
        )
        try:
            self._model = module.SentenceTransformer(
                name,
                device=device,
                local_files_only=local_files_only,
                **(model_kwargs or {}),
            )
        except Exception as exc:
            raise ProviderError(
                f"could not load sentence-transformers model {name!r} on device {device!r}: "
                f"{exc}. A model name is downloaded from the Hugging Face Hub unless "
                f"local_files_only=True or HF_HUB_OFFLINE=1; pass a local directory to work "
                f"offline."
            ) from exc
        self._dimension = _model_dimension(self._model, name)
        configured: dict[str, str] = dict(getattr(self._model, "prompts", None) or {})
        self._query_prompt = query_prompt if query_prompt is not None else configured.get("query")
        self._document_prompt = (
            document_prompt if document_prompt is not None else configured.get("document")
        )
        self._batch_size = batch_size
        path = Path(name)
        self._model_id = model_id or (path.resolve().name if path.is_dir() else name)

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed_documents(self, texts: Sequence[str]) -> EmbeddingMatrix:
        return self._encode(as_text_list(texts), self._document_prompt)

    def embed_queries(self, texts: Sequence[str]) -> EmbeddingMatrix:
        return self._encode(as_text_list(texts), self._query_prompt)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model_id={self._model_id!r})"

    def _encode(self, texts: list[str], prompt: str | None) -> EmbeddingMatrix:
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        try:
            vectors = self._model.encode(
                texts,
                prompt=prompt or None,
                batch_size=self._batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        except Exception as exc:
            raise ProviderError(
                f"sentence-transformers model {self._model_id!r} failed: {exc}"
            ) from exc
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.shape != (len(texts), self._dimension):
            raise ProviderError(
                f"sentence-transformers model {self._model_id!r} returned shape {matrix.shape}, "
                f"expected {(len(texts), self._dimension)}"
            )
        # encode() already normalised; re-normalising in float64 only tidies rounding.
        return l2_normalise_rows(matrix)


def _model_dimension(model: Any, name: str) -> int:
    # Renamed in sentence-transformers 5.x; support both spellings.
    getter = getattr(model, "get_embedding_dimension", None) or getattr(
        model, "get_sentence_embedding_dimension", None
    )
    dimension = getter() if getter is not None else None
    if not isinstance(dimension, int) or dimension < 1:
        raise ProviderError(
            f"sentence-transformers model {name!r} does not report its embedding dimension"
        )
    return dimension
