"""``LangChainEmbeddings``: any LangChain ``Embeddings`` as zenbrain's ``EmbeddingProvider``."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.embeddings import Embeddings

from zenbrain.errors import InvalidInputError
from zenbrain.providers.wrapped import WrappedEmbeddings

__all__ = ["LangChainEmbeddings"]


class LangChainEmbeddings(WrappedEmbeddings):
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
        super().__init__(embeddings, model_id=model_id, dimension=dimension)
        self._embeddings = embeddings

    @property
    def embeddings(self) -> Embeddings:
        """The wrapped LangChain embeddings."""
        return self._embeddings

    def _embed_documents(self, batch: list[str]) -> Sequence[Sequence[float]]:
        return self._embeddings.embed_documents(batch)

    def _embed_queries(self, batch: list[str]) -> Sequence[Sequence[float]]:
        # LangChain separates query from document embedding (some models prefix queries);
        # there is no batch call for queries, so each goes through embed_query.
        return [self._embeddings.embed_query(text) for text in batch]

    def __repr__(self) -> str:
        return (
            f"LangChainEmbeddings({type(self._embeddings).__name__}, "
            f"model_id={self._model_id!r}, dimension={self._dimension!r})"
        )
