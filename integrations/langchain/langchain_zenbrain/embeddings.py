"""``LangChainEmbeddings``: any LangChain ``Embeddings`` as zenbrain's ``EmbeddingProvider``."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from langchain_core.embeddings import Embeddings

from zenbrain.errors import InvalidInputError, ProviderError

__all__ = ["LangChainEmbeddings"]


class LangChainEmbeddings:
    """Wraps a LangChain ``Embeddings`` object so a :class:`zenbrain.MemoryCoordinator` can
    use it (``MemoryCoordinator(db, embedder=LangChainEmbeddings(...))``).

    ``model_id`` is required: LangChain embeddings do not name their model in a uniform
    way, and zenbrain records the id in the store to refuse a later mismatch. ``dimension``
    is probed with one query embedding when not given.
    """

    def __init__(
        self,
        embeddings: Embeddings,
        *,
        model_id: str,
        dimension: int | None = None,
    ) -> None:
        if not isinstance(embeddings, Embeddings):
            raise InvalidInputError(
                "LangChainEmbeddings expects a langchain_core.embeddings.Embeddings instance, "
                f"got {type(embeddings).__name__}."
            )
        if not isinstance(model_id, str) or not model_id.strip():
            raise InvalidInputError(
                "LangChainEmbeddings needs a non-empty model_id naming the embedding model, "
                f"got {model_id!r}."
            )
        if dimension is not None and (
            isinstance(dimension, bool) or not isinstance(dimension, int) or dimension < 1
        ):
            raise InvalidInputError(
                f"dimension must be a positive integer or None, got {dimension!r}."
            )
        self._embeddings = embeddings
        self._model_id = model_id
        self._dimension = dimension

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            probe = self._call("probe the dimension of", lambda: [self._query("dimension")])
            self._dimension = len(probe[0])
        return self._dimension

    @property
    def embeddings(self) -> Embeddings:
        """The wrapped LangChain embeddings."""
        return self._embeddings

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        batch = list(texts)
        if not batch:
            return []
        vectors = self._call(
            "embed documents with", lambda: self._embeddings.embed_documents(batch)
        )
        return self._checked(vectors, len(batch))

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        batch = list(texts)
        # LangChain separates query from document embedding (some models prefix queries);
        # there is no batch call for queries, so each goes through embed_query.
        vectors = self._call("embed queries with", lambda: [self._query(text) for text in batch])
        return self._checked(vectors, len(batch))

    def _query(self, text: str) -> list[float]:
        return self._embeddings.embed_query(text)

    def _call(
        self, action: str, produce: Callable[[], Sequence[Sequence[float]]]
    ) -> list[list[float]]:
        try:
            vectors = produce()
        except Exception as exc:
            raise ProviderError(
                f"Could not {action} {type(self._embeddings).__name__} "
                f"(model {self._model_id!r}): {exc}"
            ) from exc
        return [list(map(float, vector)) for vector in vectors]

    def _checked(self, vectors: list[list[float]], expected: int) -> list[list[float]]:
        if len(vectors) != expected:
            raise ProviderError(
                f"{type(self._embeddings).__name__} returned {len(vectors)} vectors for "
                f"{expected} texts."
            )
        dimension = self.dimension
        for vector in vectors:
            if len(vector) != dimension:
                raise ProviderError(
                    f"{type(self._embeddings).__name__} returned a vector of length "
                    f"{len(vector)}, expected {dimension} (model {self._model_id!r})."
                )
        return vectors

    def __repr__(self) -> str:
        return (
            f"LangChainEmbeddings({type(self._embeddings).__name__}, "
            f"model_id={self._model_id!r}, dimension={self._dimension!r})"
        )
