"""The ``index`` configuration of :class:`~langchain_zenbrain.ZenBrainStore`: which fields
of a value are indexed, and the embedder that makes search hybrid."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from langchain_core.embeddings import Embeddings
from langgraph.store.base.embed import ensure_embeddings

from langchain_zenbrain.embeddings import LangChainEmbeddings
from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError

__all__ = ["checked_fields", "checked_index", "with_embedder"]


def checked_fields(fields: object, name: str) -> list[str] | None:
    if fields is None:
        return None
    if isinstance(fields, str) or not isinstance(fields, Sequence):
        raise InvalidInputError(f"{name} must be a list of field paths, got {fields!r}.")
    if not all(isinstance(field, str) and field for field in fields):
        raise InvalidInputError(f"{name} must be a list of field paths, got {fields!r}.")
    return list(fields)


def checked_index(index: object) -> tuple[list[str] | None, LangChainEmbeddings | None]:
    if not isinstance(index, Mapping):
        raise InvalidInputError(f"index must be a LangGraph IndexConfig dict, got {index!r}.")
    unknown = set(index) - {"dims", "embed", "fields", "ann_index_config", "distance_type"}
    if unknown:
        raise InvalidInputError(f"index has unknown key(s) {sorted(map(str, unknown))}.")
    fields = checked_fields(index.get("fields"), "index['fields']")
    embed = index.get("embed")
    if embed is None:
        return fields, None
    dims = index.get("dims")
    if isinstance(dims, bool) or not isinstance(dims, int) or dims < 1:
        raise InvalidInputError(
            f"index['dims'] must be the embedding dimension (a positive integer), got {dims!r}."
        )
    embeddings = ensure_embeddings(embed)
    return fields, LangChainEmbeddings(embeddings, model_id=_model_id(embed), dimension=dims)


def _model_id(embed: object) -> str:
    """A stable name for the embedding model, which zenbrain records in the database."""
    if isinstance(embed, str):
        return embed
    if isinstance(embed, Embeddings):
        kind = type(embed)
        model = getattr(embed, "model", None) or getattr(embed, "model_name", None)
        name = f"{kind.__module__}.{kind.__qualname__}"
        return f"langchain:{name}:{model}" if isinstance(model, str) else f"langchain:{name}"
    module = getattr(embed, "__module__", None) or "?"
    qualname = getattr(embed, "__qualname__", None) or type(embed).__qualname__
    return f"langgraph-embed:{module}.{qualname}"


def with_embedder(
    coordinator: MemoryCoordinator, embedder: LangChainEmbeddings
) -> MemoryCoordinator:
    if coordinator.embedder is not None:
        raise InvalidInputError(
            "index['embed'] names an embedding model, but the coordinator already embeds with "
            f"{coordinator.embedder.model_id!r}: zenbrain keeps one model per database. Leave "
            "'embed' out of index, or open the coordinator without an embedder."
        )
    location = coordinator.location
    if location is None:
        raise InvalidInputError(
            "index['embed'] needs a database the store can open again (a file or PostgreSQL), "
            "not ':memory:'; or open the coordinator with "
            "embedder=LangChainEmbeddings(...) and leave 'embed' out of index."
        )
    return MemoryCoordinator(
        location,
        namespace=coordinator.namespace,
        embedder=embedder,
        summarizer=coordinator.summarizer,
        contexts=coordinator.contexts,
        stages=coordinator.stages,
    )
