"""The embedder as the store knows it: the model check, the calibration floor (measured
once per store and model, kept in the store's settings), and validated vectors.

A store is bound to the first model that opened it, and only once that model has been
calibrated: a failing embedder leaves the store unbound. Views made by
``for_namespace()`` share the bound :class:`Embedding`; reopening with the same model
reads the floor back instead of embedding the calibration sentences again.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from zenbrain._storage.repository import Repository
from zenbrain.errors import EmbeddingMismatchError, ProviderError
from zenbrain.providers import EmbeddingProvider

__all__ = [
    "CALIBRATION",
    "Embedding",
    "Progress",
    "bind_embedder",
    "to_unit_matrix",
]

MODEL_KEY = "embedding_model"
DIMENSION_KEY = "embedding_dimension"
FLOOR_KEY = "embedding_similarity_floor"

# Unrelated sentences: their mean pairwise similarity is the embedder's "no relation" floor.
CALIBRATION = (
    "The invoice is due at the end of the month.",
    "Penguins live mostly in the southern hemisphere.",
    "She tuned the guitar before the concert.",
    "Der Zug nach Hamburg hat Verspätung.",
    "Add two cups of flour and stir slowly.",
    "The server restarted after the kernel update.",
    "My grandmother grew tomatoes in her garden.",
    "Quarterly revenue rose by eight percent.",
)

#: ``progress(done, total)``, called after each batch of a long operation.
Progress = Callable[[int, int], object]


def to_unit_matrix(raw: object, count: int, dimension: int) -> np.ndarray:
    """What an embedder returned, as a ``(count, dimension)`` float32 matrix of unit rows.
    Ragged rows, non-numbers, NaN and infinity raise :class:`ProviderError`."""
    try:
        matrix = np.asarray(raw)
    except (TypeError, ValueError) as exc:  # ragged rows
        raise ProviderError(
            f"the embedding provider returned rows that are not one rectangular matrix ({exc})"
        ) from exc
    if matrix.dtype.kind not in "fiu":
        raise ProviderError(
            "the embedding provider returned values that are not numbers "
            f"(dtype {matrix.dtype}); expected ({count}, {dimension}) floats"
        )
    if matrix.ndim != 2 or matrix.shape != (count, dimension):
        raise ProviderError(
            f"the embedding provider returned shape {matrix.shape}, expected ({count}, {dimension})"
        )
    matrix = matrix.astype(np.float32)
    if not np.isfinite(matrix).all():
        raise ProviderError(
            "the embedding provider returned NaN or infinite values; nothing was stored"
        )
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


class Embedding:
    """An embedding provider bound to a store, with the store's similarity floor."""

    def __init__(self, provider: EmbeddingProvider, similarity_floor: float) -> None:
        self.provider = provider
        self.model_id, self.dimension = _identity(provider)
        self.similarity_floor = similarity_floor

    def documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, query=False)

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, query=True)

    def _embed(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        return _embed(self.provider, self.dimension, texts, query=query)


def _identity(provider: EmbeddingProvider) -> tuple[str, int]:
    try:
        model, dimension = str(provider.model_id), provider.dimension
    except Exception as exc:
        raise ProviderError(
            f"the embedding provider has no usable model_id/dimension: {exc}"
        ) from exc
    if isinstance(dimension, bool) or not isinstance(dimension, int) or dimension < 1:
        raise ProviderError(
            f"the embedding provider's dimension must be a positive int, got {dimension!r}"
        )
    return model, dimension


def _embed(
    provider: EmbeddingProvider, dimension: int, texts: Sequence[str], *, query: bool
) -> np.ndarray:
    try:
        raw = (
            provider.embed_queries(list(texts)) if query else provider.embed_documents(list(texts))
        )
    except ProviderError:
        raise
    except Exception as exc:
        raise ProviderError(f"the embedding provider failed: {exc}") from exc
    return to_unit_matrix(raw, len(texts), dimension)


def calibrate(provider: EmbeddingProvider, dimension: int) -> float:
    """The mean similarity of unrelated sentences: below it, a match means nothing."""
    matrix = _embed(provider, dimension, CALIBRATION, query=False)
    sims = matrix @ matrix.T
    off_diagonal = sims[~np.eye(len(CALIBRATION), dtype=bool)]
    return float(np.clip(off_diagonal.mean(), -1.0, 0.95))


def _check_model(
    recorded_model: str | None, recorded_dimension: str | None, model: str, dimension: int
) -> None:
    if recorded_model is not None and (recorded_model, recorded_dimension) != (
        model,
        str(dimension),
    ):
        raise EmbeddingMismatchError(
            f"this store was embedded with model {recorded_model!r} "
            f"(dimension {recorded_dimension}), "
            f"but the embedder given is {model!r} (dimension {dimension}). Open it with the "
            "same model, or use a new store for the new model."
        )


def bind_embedder(repo: Repository, provider: EmbeddingProvider) -> Embedding:
    """Check ``provider`` against the model the store records, and bind the store to it
    (model, dimension, floor) once its calibration succeeded."""
    model, dimension = _identity(provider)
    with repo.read() as conn:
        recorded_model = repo.get_setting(conn, MODEL_KEY)
        recorded_dimension = repo.get_setting(conn, DIMENSION_KEY)
        floor = repo.get_setting(conn, FLOOR_KEY)
    _check_model(recorded_model, recorded_dimension, model, dimension)
    if recorded_model is not None and floor is not None and _is_number(floor):
        return Embedding(provider, float(floor))
    measured = calibrate(provider, dimension)
    with repo.write() as conn:
        # Another process may have bound the store meanwhile: check again, in the write.
        recorded_model = repo.get_setting(conn, MODEL_KEY)
        recorded_dimension = repo.get_setting(conn, DIMENSION_KEY)
        _check_model(recorded_model, recorded_dimension, model, dimension)
        if recorded_model is None:
            repo.put_setting(conn, MODEL_KEY, model)
            repo.put_setting(conn, DIMENSION_KEY, str(dimension))
            repo.database.vectors.install(conn, dimension)
        repo.put_setting(conn, FLOOR_KEY, repr(measured))
    return Embedding(provider, measured)


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False
