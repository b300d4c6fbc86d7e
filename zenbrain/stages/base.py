"""What a stage is: an object the coordinator calls at fixed points of its operations.

A stage is opt-in (``MemoryCoordinator(..., stages=[...])``), keeps its state in the store,
and overrides only the hooks it needs; the defaults do nothing. Every hook runs inside the
coordinator's lock and gets the SQLAlchemy connection of the operation's transaction plus a
:class:`StageScope`, whose namespace every query must filter on (a namespace is a hard
boundary for stages too).

Hooks, in the order an operation meets them:

- :meth:`Stage.after_store`: the memories just written, in the store transaction;
- :meth:`Stage.rerank`: the scored matches of a recall (read transaction), may rescore,
  reorder, annotate or add memories;
- :meth:`Stage.after_recall`: the final results, in a write transaction opened only when
  some stage sets ``writes_on_recall``;
- :meth:`Stage.consolidate`: one maintenance pass (write transaction); returns how many
  stored items it pruned, added to ``ConsolidationReport.pruned``.

What a stage stored for a memory is removed when the memory is forgotten, whether or not
the stage is still configured (:func:`zenbrain.stages.cleanup.forget_stage_rows`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import Connection, select

from zenbrain.storage.database import Database
from zenbrain.storage.schema import keyed_namespace_filter, memories
from zenbrain.types import RecallResult

__all__ = [
    "RecallRequest",
    "ResultLoader",
    "Stage",
    "StageScope",
    "StoredMemory",
    "pks_of",
    "with_metadata",
]

# Builds recall results for memory pks (with the given scores) in the scope's namespace.
ResultLoader = Callable[[Connection, Mapping[int, float]], dict[int, RecallResult]]


@dataclass(frozen=True, slots=True)
class StageScope:
    """What a hook may use: the namespace it works in, the configured cross-context
    domains, the database (for its lexical index), a loader of recall results and the
    coordinator's clock (``now()``: an aware UTC datetime)."""

    namespace: str
    contexts: tuple[str, ...]
    database: Database
    load_results: ResultLoader
    now: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))


@dataclass(frozen=True, slots=True)
class StoredMemory:
    """One memory as a store (or a consolidation, or a core-block update) wrote it."""

    pk: int
    id: str
    layer: str
    content: str
    context: str | None
    created_at: datetime
    confidence: float | None


@dataclass(frozen=True, slots=True)
class RecallRequest:
    """The validated arguments of one ``recall()``; ``terms`` are the folded query tokens."""

    query: str
    terms: tuple[str, ...]
    layers: tuple[str, ...]
    context: str | None
    limit: int


class Stage:
    """Base class of the stages: every hook is a no-op until overridden."""

    name: ClassVar[str] = "stage"
    #: True when :meth:`after_recall` writes; only then does recall open a write transaction.
    writes_on_recall: ClassVar[bool] = False

    def after_store(
        self, conn: Connection, scope: StageScope, stored: Sequence[StoredMemory]
    ) -> None:
        """Called with the memories just written (new, or a core block's new content)."""

    def rerank(
        self,
        conn: Connection,
        scope: StageScope,
        request: RecallRequest,
        results: list[RecallResult],
    ) -> list[RecallResult]:
        """The matches (score > 0, best first) after this stage; return them unchanged by
        default. Added results must be new ids of layers in ``request.layers``."""
        return results

    def after_recall(
        self,
        conn: Connection,
        scope: StageScope,
        request: RecallRequest,
        results: Sequence[RecallResult],
    ) -> None:
        """Called with what recall returned (only when ``writes_on_recall`` is True)."""

    def consolidate(self, conn: Connection, scope: StageScope, now: datetime) -> int:
        """One maintenance pass; returns the number of stored items pruned."""
        return 0

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def pks_of(conn: Connection, namespace: str, ids: Sequence[str]) -> dict[str, int]:
    """Memory id -> pk for ``ids`` that exist in ``namespace`` (others are left out)."""
    if not ids:
        return {}
    rows = conn.execute(
        select(memories.c.id, memories.c.pk).where(
            keyed_namespace_filter(namespace), memories.c.id.in_(list(ids))
        )
    ).all()
    return {str(row.id): int(row.pk) for row in rows}


def with_metadata(result: RecallResult, **extra: Any) -> RecallResult:
    """``result`` with ``extra`` merged into a copy of its metadata."""
    return replace(result, metadata={**result.metadata, **extra})
