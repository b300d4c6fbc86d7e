"""A base for adapters that turn another framework's embedding model into an
:class:`~zenbrain.providers.EmbeddingProvider` (LangChain, LlamaIndex, ...).

The adapter names the model (zenbrain records the id in the store), learns the dimension
from one probe when not told, turns the framework's failures into
:class:`~zenbrain.errors.ProviderError`, and checks that every batch has one vector per text,
each of the right length. Subclasses say only how to embed documents and queries.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from zenbrain.errors import InvalidInputError, ProviderError

__all__ = ["WrappedEmbeddings"]


class WrappedEmbeddings:
    """Subclass and implement :meth:`_embed_documents` and :meth:`_embed_queries`."""

    def __init__(self, wrapped: object, *, model_id: str, dimension: int | None = None) -> None:
        if not isinstance(model_id, str) or not model_id.strip():
            raise InvalidInputError(
                f"{type(self).__name__} needs a non-empty model_id naming the embedding model, "
                f"got {model_id!r}."
            )
        if dimension is not None and (
            isinstance(dimension, bool) or not isinstance(dimension, int) or dimension < 1
        ):
            raise InvalidInputError(
                f"dimension must be a positive integer or None, got {dimension!r}."
            )
        self._wrapped = wrapped
        self._model_id = model_id
        self._dimension = dimension

    def _embed_documents(self, batch: list[str]) -> Sequence[Sequence[float]]:
        raise NotImplementedError

    def _embed_queries(self, batch: list[str]) -> Sequence[Sequence[float]]:
        raise NotImplementedError

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            probe = self._call("probe the dimension of", lambda: self._embed_queries(["dimension"]))
            self._dimension = len(probe[0])
        return self._dimension

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        batch = list(texts)
        if not batch:
            return []
        vectors = self._call("embed documents with", lambda: self._embed_documents(batch))
        return self._checked(vectors, len(batch))

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        batch = list(texts)
        if not batch:
            return []
        vectors = self._call("embed queries with", lambda: self._embed_queries(batch))
        return self._checked(vectors, len(batch))

    def _call(
        self, action: str, produce: Callable[[], Sequence[Sequence[float]]]
    ) -> list[list[float]]:
        try:
            vectors = produce()
        except Exception as exc:
            raise ProviderError(
                f"Could not {action} {type(self._wrapped).__name__} "
                f"(model {self._model_id!r}): {exc}"
            ) from exc
        return [list(map(float, vector)) for vector in vectors]

    def _checked(self, vectors: list[list[float]], expected: int) -> list[list[float]]:
        name = type(self._wrapped).__name__
        if len(vectors) != expected:
            raise ProviderError(f"{name} returned {len(vectors)} vectors for {expected} texts.")
        dimension = self.dimension
        for vector in vectors:
            if len(vector) != dimension:
                raise ProviderError(
                    f"{name} returned a vector of length {len(vector)}, expected {dimension} "
                    f"(model {self._model_id!r})."
                )
        return vectors
