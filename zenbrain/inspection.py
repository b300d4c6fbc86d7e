"""Looking into a store without changing it, through its coordinator: where a memory came
from, what a forget would take with it, and what the next consolidation would promote. The
HTTP API's provenance, dry-run forget and consolidation report (:mod:`zenbrain.server`, the
inspector) are built on these; why recall results scored what they did comes with them
(``recall(..., explain=True)``).

>>> from zenbrain import MemoryCoordinator
>>> from zenbrain import inspection
>>> with MemoryCoordinator(":memory:") as memory:
...     fact = memory.store("The deploy script lives in ops/deploy.sh", layer="semantic")
...     inspection.provenance(memory, fact)["layer"]
'semantic'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zenbrain._memory import forget
from zenbrain._memory import inspection as _inspection
from zenbrain.types import ForgetResult

if TYPE_CHECKING:
    from zenbrain._coordinator import MemoryCoordinator

__all__ = [
    "consolidation_links",
    "forget_preview",
    "promotable_episodes",
    "provenance",
]


def provenance(memory: MemoryCoordinator, memory_id: str) -> dict[str, Any] | None:
    """Where a long-term memory came from and what became of it: its layer, its source, the
    consolidation links both ways and (for a fact) its review card. None when the
    namespace has no such memory."""
    return _inspection.provenance(memory._scope, memory_id)


def forget_preview(memory: MemoryCoordinator, memory_id: str, layer: str) -> ForgetResult:
    """What ``memory.forget(memory_id, layer)`` would delete, deleting nothing."""
    return forget.preview(memory._scope, memory_id, layer)


def promotable_episodes(memory: MemoryCoordinator) -> list[str]:
    """The ids of the episodes the next ``memory.consolidate()`` would promote, newest
    first."""
    return _inspection.promotable_episodes(memory._scope)


def consolidation_links(memory: MemoryCoordinator, memory_id: str) -> dict[str, list[str]]:
    """``consolidated_from``: the episodes a fact was made from; ``consolidated_into``: the
    facts made from an episode."""
    return _inspection.consolidation_links_of(memory._scope, memory_id)
