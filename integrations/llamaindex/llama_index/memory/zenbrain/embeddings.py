"""``LlamaIndexEmbedding``: any LlamaIndex ``BaseEmbedding`` as zenbrain's
``EmbeddingProvider``."""

from __future__ import annotations

from collections.abc import Sequence

from llama_index.core.base.embeddings.base import BaseEmbedding

from zenbrain.errors import InvalidInputError
from zenbrain.providers.wrapped import WrappedEmbeddings

__all__ = ["LlamaIndexEmbedding"]


class LlamaIndexEmbedding(WrappedEmbeddings):
    """Wraps a LlamaIndex embedding model so a :class:`zenbrain.MemoryCoordinator` can use it
    (``MemoryCoordinator(db, embedder=LlamaIndexEmbedding(embed_model))``).

    Documents go through ``get_text_embedding_batch`` (which honours the model's
    ``embed_batch_size``), queries through ``get_query_embedding``, so models that embed
    queries differently keep doing so. ``model_id`` defaults to ``"<class>:<model_name>"``;
    ``dimension`` is probed with one query embedding when not given.
    """

    def __init__(
        self,
        embed_model: BaseEmbedding,
        *,
        model_id: str | None = None,
        dimension: int | None = None,
    ) -> None:
        if not isinstance(embed_model, BaseEmbedding):
            raise InvalidInputError(
                "LlamaIndexEmbedding expects a llama_index BaseEmbedding instance, "
                f"got {type(embed_model).__name__}."
            )
        if model_id is None:
            model_id = f"{embed_model.class_name()}:{embed_model.model_name}"
        super().__init__(embed_model, model_id=model_id, dimension=dimension)
        self._embed_model = embed_model

    @property
    def embed_model(self) -> BaseEmbedding:
        """The wrapped LlamaIndex embedding model."""
        return self._embed_model

    def _embed_documents(self, batch: list[str]) -> Sequence[Sequence[float]]:
        return self._embed_model.get_text_embedding_batch(batch)

    def _embed_queries(self, batch: list[str]) -> Sequence[Sequence[float]]:
        return [self._embed_model.get_query_embedding(text) for text in batch]

    def __repr__(self) -> str:
        return f"LlamaIndexEmbedding(model_id={self._model_id!r}, dimension={self._dimension!r})"
