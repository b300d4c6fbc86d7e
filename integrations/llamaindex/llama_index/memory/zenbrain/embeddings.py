"""``LlamaIndexEmbedding``: any LlamaIndex ``BaseEmbedding`` as zenbrain's
``EmbeddingProvider``."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from llama_index.core.base.embeddings.base import BaseEmbedding

from zenbrain.errors import InvalidInputError, ProviderError

__all__ = ["LlamaIndexEmbedding"]


class LlamaIndexEmbedding:
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
        if not isinstance(model_id, str) or not model_id.strip():
            raise InvalidInputError(f"model_id must be a non-empty string, got {model_id!r}.")
        if dimension is not None and (
            isinstance(dimension, bool) or not isinstance(dimension, int) or dimension < 1
        ):
            raise InvalidInputError(
                f"dimension must be a positive integer or None, got {dimension!r}."
            )
        self._embed_model = embed_model
        self._model_id = model_id
        self._dimension = dimension

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            probe = self._call(
                "probe the dimension of", lambda: [self._embed_model.get_query_embedding("x")]
            )
            self._dimension = len(probe[0])
        return self._dimension

    @property
    def embed_model(self) -> BaseEmbedding:
        """The wrapped LlamaIndex embedding model."""
        return self._embed_model

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        batch = list(texts)
        if not batch:
            return []
        vectors = self._call(
            "embed documents with",
            lambda: self._embed_model.get_text_embedding_batch(batch),
        )
        return self._checked(vectors, len(batch))

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        batch = list(texts)
        vectors = self._call(
            "embed queries with",
            lambda: [self._embed_model.get_query_embedding(text) for text in batch],
        )
        return self._checked(vectors, len(batch))

    def _call(
        self, action: str, produce: Callable[[], Sequence[Sequence[float]]]
    ) -> list[list[float]]:
        try:
            vectors = produce()
        except Exception as exc:
            raise ProviderError(
                f"Could not {action} {type(self._embed_model).__name__} "
                f"(model {self._model_id!r}): {exc}"
            ) from exc
        return [list(map(float, vector)) for vector in vectors]

    def _checked(self, vectors: list[list[float]], expected: int) -> list[list[float]]:
        if len(vectors) != expected:
            raise ProviderError(
                f"{type(self._embed_model).__name__} returned {len(vectors)} vectors for "
                f"{expected} texts."
            )
        dimension = self.dimension
        for vector in vectors:
            if len(vector) != dimension:
                raise ProviderError(
                    f"{type(self._embed_model).__name__} returned a vector of length "
                    f"{len(vector)}, expected {dimension} (model {self._model_id!r})."
                )
        return vectors

    def __repr__(self) -> str:
        return f"LlamaIndexEmbedding(model_id={self._model_id!r}, dimension={self._dimension!r})"
