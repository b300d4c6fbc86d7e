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

A stage owns its tables (:attr:`Stage.tables`) and their clean-up: :meth:`Stage.forget`
removes what it stored about memories being deleted and :meth:`Stage.drop_namespace`
everything of a namespace. Both are class methods, and the coordinator calls them for every
known stage type whether or not it is configured now
(:func:`zenbrain.stages.forget_stage_rows`, :func:`zenbrain.stages.drop_stage_rows`): a
stage that was on yesterday may have left rows. Stages write with :func:`upsert` (one
``INSERT ... ON CONFLICT`` statement), never select-then-insert.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import Connection, Table, delete, select

from zenbrain.storage.database import Database
from zenbrain.storage.dialect import upsert_insert
from zenbrain.storage.schema import keyed_namespace_filter, memories
from zenbrain.types import RecallResult

__all__ = [
    "RecallRequest",
    "ResultLoader",
    "Stage",
    "StageScope",
    "StoredMemory",
    "pks_of",
    "upsert",
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
    #: The tables this stage keeps its rows in, parents before children.
    tables: ClassVar[tuple[Table, ...]] = ()

    @classmethod
    def forget(cls, conn: Connection, namespace: str, memory_pks: Sequence[int]) -> None:
        """Delete what this stage stored about ``memory_pks``, memories of ``namespace`` that
        are being deleted."""

    @classmethod
    def drop_namespace(cls, conn: Connection, namespace: str) -> None:
        """Delete every row this stage stored in ``namespace`` (children first)."""
        for table in reversed(cls.tables):
            conn.execute(delete(table).where(table.c.namespace == namespace))

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


def upsert(
    conn: Connection,
    table: Table,
    rows: Sequence[Mapping[str, Any]],
    *,
    on: Sequence[str] | None = None,
    update: Sequence[str] | Mapping[str, Any] = (),
) -> None:
    """Insert ``rows`` into ``table`` in one statement; a row that collides with an existing
    one on the columns ``on`` (default: the primary key) updates it instead.

    ``update`` names the columns that then take the new row's value, or maps columns to SQL
    expressions over the existing row (``{"replays": table.c.replays + 1}``); without it an
    existing row is left as it is (insert if absent).
    """
    if not rows:
        return
    statement = upsert_insert(conn.dialect.name, table).values([dict(row) for row in rows])
    keys = list(on) if on is not None else [column.name for column in table.primary_key]
    if not update:
        conn.execute(statement.on_conflict_do_nothing(index_elements=keys))
        return
    changes = (
        dict(update)
        if isinstance(update, Mapping)
        else {name: statement.excluded[name] for name in update}
    )
    conn.execute(statement.on_conflict_do_update(index_elements=keys, set_=changes))


def with_metadata(result: RecallResult, **extra: Any) -> RecallResult:
    """``result`` with ``extra`` merged into a copy of its metadata."""
    return replace(result, metadata={**result.metadata, **extra})
