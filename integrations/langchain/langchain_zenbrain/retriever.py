"""``ZenBrainRetriever``: zenbrain recall as a LangChain retriever."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, field_validator

from langchain_zenbrain.documents import recall_result_to_document
from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError

__all__ = ["ZenBrainRetriever"]

# Keyword arguments ``invoke(query, **kwargs)`` may override for one call. LangChain also
# forwards its own ``verbose`` flag to the retriever; it means nothing to recall.
_PER_CALL_OPTIONS = frozenset({"k", "layers", "min_score", "min_confidence", "core", "context"})
_IGNORED_OPTIONS = frozenset({"verbose"})
# The smallest score the coordinator keeps: any match scores above 0.
_MATCHES_ONLY = 1e-9


class ZenBrainRetriever(BaseRetriever):
    """Recalls memories from a :class:`zenbrain.MemoryCoordinator` as ``Document`` objects.

    Every field below can also be given per call, e.g. ``retriever.invoke("query", k=2)``.
    Each document's ``id`` is the memory id (usable with ``coordinator.forget``); its
    metadata holds ``layer``, ``score``, ``confidence``, ``emotional_weight``,
    ``created_at`` (ISO-8601) and the memory's own metadata.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    coordinator: MemoryCoordinator
    """The memory to recall from."""
    k: int = Field(default=4, ge=1)
    """How many documents to return at most."""
    layers: list[str] | None = None
    """Layers to search; ``None`` means zenbrain's default (episodic, semantic, procedural,
    core)."""
    min_score: float = Field(default=0.0, ge=0.0, le=1.0)
    """Drop results scoring below this. Whatever its value, only memories that match the
    query are returned: zenbrain's score-0 fill-ins (recent memories offered when a layer has
    no match) are never documents."""
    min_confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    """Drop facts whose confidence is below this."""
    core: Literal["matching", "always"] = "matching"
    """How core blocks compete: ``"matching"`` (default: only blocks sharing a word with the
    query) or ``"always"`` (every block is a candidate, so an unrelated persona block can
    take the place of a matching memory)."""
    context: str | None = None
    """Cross-context domain to recall in (e.g. ``"work"``), or ``None`` for all."""

    @field_validator("layers", mode="before")
    @classmethod
    def _one_layer_is_a_list(cls, value: Any) -> Any:
        # A single layer name is a common slip; accept it as a one-element list.
        return [value] if isinstance(value, str) else value

    def _recall_options(self, overrides: dict[str, Any]) -> dict[str, Any]:
        unknown = set(overrides) - _PER_CALL_OPTIONS - _IGNORED_OPTIONS
        if unknown:
            raise InvalidInputError(
                f"ZenBrainRetriever got unknown keyword argument(s) {sorted(unknown)}; "
                f"expected some of {sorted(_PER_CALL_OPTIONS)}."
            )
        options = {name: overrides.get(name, getattr(self, name)) for name in _PER_CALL_OPTIONS}
        layers = self._one_layer_is_a_list(options["layers"])
        floor = _matches_only(options["min_score"])
        if options["core"] == "always" and floor == _MATCHES_ONLY:
            # Every core block is a candidate, like a profile: one that shares no word with
            # the query scores 0, so recall keeps its fill-ins and _kept drops the others.
            floor = 0.0
        return {
            "layers": list(layers) if isinstance(layers, Sequence) else layers,
            "limit": options["k"],
            "min_score": floor,
            "min_confidence": options["min_confidence"],
            "core": options["core"],
            "context": options["context"],
        }

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        **kwargs: Any,
    ) -> list[Document]:
        results = self.coordinator.recall(query, **self._recall_options(kwargs))
        return [recall_result_to_document(result) for result in _kept(results)]

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        **kwargs: Any,
    ) -> list[Document]:
        results = await self.coordinator.arecall(query, **self._recall_options(kwargs))
        return [recall_result_to_document(result) for result in _kept(results)]


def _kept(results: Sequence[Any]) -> list[Any]:
    """Matches, and core blocks (a profile, with ``core="always"``); never the other layers'
    score-0 fill-ins."""
    return [r for r in results if r.score > 0 or r.layer == "core"]


def _matches_only(min_score: Any) -> Any:
    """``min_score`` raised to just above 0, so recall returns matches only and never its
    score-0 fill-ins; anything but a number goes on to the coordinator, which rejects it."""
    if isinstance(min_score, int | float) and not isinstance(min_score, bool):
        return max(float(min_score), _MATCHES_ONLY)
    return min_score
