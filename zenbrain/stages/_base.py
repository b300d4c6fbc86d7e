"""What a stage is: an object the coordinator calls at fixed points of its operations.

A stage is opt-in (``MemoryCoordinator(..., stages=[...])``), keeps its state in the store,
and overrides only the hooks it needs; the defaults do nothing. Every hook runs inside the
coordinator's lock and gets a :class:`StageConnection` on the operation's transaction plus a
:class:`StageScope`, whose namespace every query must filter on (a namespace is a hard
boundary for stages too). The connection runs SQLAlchemy statements: a ``SELECT`` of any
table, an ``INSERT``, ``UPDATE`` or ``DELETE`` of the stage's own tables (:attr:`Stage.tables`)
only, so a stage cannot change zenbrain's tables by mistake; anything else is refused with
:class:`~zenbrain.errors.StorageError` (and rolls the operation back).

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

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, ClassVar, Protocol, TypeVar, cast, overload

from sqlalchemy import (
    CompoundSelect,
    Connection,
    CursorResult,
    Delete,
    Dialect,
    Executable,
    Insert,
    Select,
    Table,
    Update,
    delete,
    insert,
    select,
)
from sqlalchemy.sql.selectable import TypedReturnsRows

from zenbrain._storage.dialect import upsert_insert
from zenbrain._storage.schema import keyed_namespace_filter, memories
from zenbrain._storage.writes import insert_many
from zenbrain.errors import StorageError
from zenbrain.types import RecallResult

__all__ = [
    "LexicalCandidates",
    "RecallRequest",
    "ResultLoader",
    "Stage",
    "StageConnection",
    "StageScope",
    "StoredMemory",
    "insert_rows",
    "pks_of",
    "upsert",
    "with_notes",
]


_Row = TypeVar("_Row", bound=Any)


class StageConnection(Protocol):
    """What a hook gets of its operation's transaction (see the module docstring)."""

    @property
    def dialect(self) -> Dialect: ...

    @overload
    def execute(
        self, statement: TypedReturnsRows[_Row], parameters: Any = None
    ) -> CursorResult[_Row]: ...

    @overload
    def execute(self, statement: Executable, parameters: Any = None) -> CursorResult[Any]: ...


# Builds recall results for memory pks (with the given scores) in the scope's namespace.
ResultLoader = Callable[[StageConnection, Mapping[int, float]], dict[int, RecallResult]]
# (conn, layer, terms, limit): keys of the scope's memories holding any of the terms, best
# first by BM25, from the lexical index.
LexicalCandidates = Callable[[StageConnection, str, Sequence[str], int], list[int]]


@dataclass(frozen=True, slots=True)
class StageScope:
    """What a hook may use: the namespace it works in, the configured cross-context
    domains, lexical candidates, a loader of recall results and the coordinator's clock
    (``now()``: an aware UTC datetime)."""

    namespace: str
    contexts: tuple[str, ...]
    candidates: LexicalCandidates
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
    #: zenbrain's own tables a built-in stage may UPDATE (a fact's card, a confidence):
    #: allowed to the stages of ``zenbrain.stages`` only.
    core_updates: ClassVar[tuple[Table, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.core_updates and not cls.__module__.startswith("zenbrain.stages."):
            raise TypeError(
                f"{cls.__name__}.core_updates: a stage outside zenbrain writes only its own "
                "tables (Stage.tables)"
            )
        # Whoever calls a hook, the stage's code sees its transaction through the guard.
        for name in ("after_store", "rerank", "after_recall", "consolidate"):
            if name in cls.__dict__:
                setattr(cls, name, _guarded_hook(cls.__dict__[name]))
        for name in ("forget", "drop_namespace"):
            found = cls.__dict__.get(name)
            if isinstance(found, classmethod):
                setattr(cls, name, classmethod(_guarded_hook(found.__func__)))

    @classmethod
    def forget(cls, conn: StageConnection, namespace: str, memory_pks: Sequence[int]) -> None:
        """Delete what this stage stored about ``memory_pks``, memories of ``namespace`` that
        are being deleted."""

    @classmethod
    def drop_namespace(cls, conn: StageConnection, namespace: str) -> None:
        """Delete every row this stage stored in ``namespace`` (children first)."""
        for table in reversed(cls.tables):
            conn.execute(delete(table).where(table.c.namespace == namespace))

    def after_store(
        self, conn: StageConnection, scope: StageScope, stored: Sequence[StoredMemory]
    ) -> None:
        """Called with the memories just written (new, or a core block's new content)."""

    def rerank(
        self,
        conn: StageConnection,
        scope: StageScope,
        request: RecallRequest,
        results: list[RecallResult],
    ) -> list[RecallResult]:
        """The matches (score > 0, best first) after this stage; return them unchanged by
        default. Added results must be new ids of layers in ``request.layers``."""
        return results

    def after_recall(
        self,
        conn: StageConnection,
        scope: StageScope,
        request: RecallRequest,
        results: Sequence[RecallResult],
    ) -> None:
        """Called with what recall returned (only when ``writes_on_recall`` is True)."""

    def consolidate(self, conn: StageConnection, scope: StageScope, now: datetime) -> int:
        """One maintenance pass; returns the number of stored items pruned."""
        return 0

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class GuardedConnection:
    """A stage's view of a transaction: it runs a ``SELECT`` of any table, and an
    ``INSERT``, ``UPDATE`` or ``DELETE`` only of the stage's own tables."""

    __slots__ = ("_conn", "_stage")

    def __init__(self, conn: Connection, stage: type[Stage]) -> None:
        self._conn = conn
        self._stage = stage

    @property
    def dialect(self) -> Dialect:
        return self._conn.dialect

    @overload
    def execute(
        self, statement: TypedReturnsRows[_Row], parameters: Any = None
    ) -> CursorResult[_Row]: ...

    @overload
    def execute(self, statement: Executable, parameters: Any = None) -> CursorResult[Any]: ...

    def execute(self, statement: Executable, parameters: Any = None) -> CursorResult[Any]:
        return self.connection_for(statement).execute(statement, parameters)

    def connection_for(self, statement: Executable) -> Connection:
        """The transaction itself, once ``statement`` is one this stage may run."""
        if isinstance(statement, Select | CompoundSelect):
            return self._conn
        stage = self._stage
        if not isinstance(statement, Insert | Update | Delete):
            raise StorageError(
                f"stage {stage.name!r} ran a {type(statement).__name__}: a stage runs SQLAlchemy "
                "select(), insert(), update() and delete() statements only"
            )
        table = getattr(statement.table, "name", None)
        own = {t.name for t in stage.tables}
        if table in own or (
            isinstance(statement, Update) and table in {t.name for t in stage.core_updates}
        ):
            return self._conn
        verb = type(statement).__name__.upper()
        raise StorageError(
            f"stage {stage.name!r} tried an {verb} of {table!r}: a stage writes only its own "
            f"tables ({', '.join(sorted(own)) or 'none'}); add the table to "
            f"{stage.__name__}.tables"
        )


def raw_connection(conn: StageConnection) -> Connection:
    """The transaction behind a hook's connection, for zenbrain's own storage calls."""
    if isinstance(conn, GuardedConnection):
        return conn._conn
    return cast(Connection, conn)


_Hook = TypeVar("_Hook", bound=Callable[..., Any])


def _guarded_hook(hook: _Hook) -> _Hook:
    @functools.wraps(hook)
    def guarded(owner: Any, conn: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(conn, Connection):
            stage = owner if isinstance(owner, type) else type(owner)
            conn = GuardedConnection(conn, stage)
        return hook(owner, conn, *args, **kwargs)

    return cast(_Hook, guarded)


def insert_rows(
    conn: StageConnection,
    table: Table,
    rows: Sequence[Mapping[str, Any]],
    *,
    ignore_conflicts_on: Sequence[str] | None = None,
) -> None:
    """Insert many rows into one of the stage's tables with one ``executemany`` (with
    ``ignore_conflicts_on``, a row colliding on those columns is skipped)."""
    if isinstance(conn, GuardedConnection):
        target = conn.connection_for(insert(table))
    else:
        target = raw_connection(conn)
    insert_many(target, table, rows, ignore_conflicts_on=ignore_conflicts_on)


def pks_of(conn: StageConnection, namespace: str, ids: Sequence[str]) -> dict[str, int]:
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
    conn: StageConnection,
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


def with_notes(result: RecallResult, **extra: Any) -> RecallResult:
    """``result`` with ``extra`` merged into a copy of its notes (what recall found on the
    way; the caller's metadata is never touched)."""
    return replace(result, notes={**result.notes, **extra})
