"""Counting the work one call does, in units a faster machine does not shrink.

* ``statements``: SQL statements executed (SQLite: every statement the connection steps,
  DB-API calls included, through its trace callback; PostgreSQL: every statement a psycopg
  cursor sends, server-side cursors and COPY included).
* ``database``: the database engine's own work. SQLite: virtual machine instructions, from
  the connection's progress handler (a scan runs an instruction or more per row; an index
  lookup a few, however deep the b-tree). PostgreSQL: shared buffers touched (hit or
  read) in the store's tables, indexes, TOAST and sequences, from the statistics views,
  which every connection flushes when it goes back to the pool; the HNSW indexes apart:
* ``vector_index``: PostgreSQL only, buffers touched in the HNSW indexes (a graph walk,
  whose footprint grows until the graph outgrows ``ef_search``; see the test module).
* ``postings``: entries of the postings held in memory
  (:class:`~zenbrain._storage.postings.scope.ScopePostings`) that searches read, and the
  per-memory arrays of a scope that a search scans whole. Both back ends answer lexical
  searches from them, so no engine counter sees that work.
* ``postings_loaded``: postings added to those held in memory, loading a scope or catching
  up with writes.
* ``vector_rows``: SQLite only, rows of the vector matrix held in memory that a search
  scored or scanned, or that a removal copied.

The in-memory counts come from wrappers around the methods doing that work; each wrapper
counts what its method reads from the object's state, so a change to such a method must
change its wrapper too.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
from sqlalchemy import event, make_url

from zenbrain import MemoryCoordinator
from zenbrain._storage.postgres.hnsw import LAYER_INDEXES
from zenbrain._storage.postings.scope import ScopePostings
from zenbrain._storage.sqlite import prefilter
from zenbrain._storage.sqlite import vectors as sqlite_vectors

__all__ = ["COUNTERS", "Work", "WorkMeter", "counting_held_indexes"]

# The progress handler runs every this many instructions of a statement: a statement's
# count is exact to within this many, at one Python call per this many.
VM_STEPS_PER_CALLBACK = 8
_HNSW_INDEXES = frozenset([*LAYER_INDEXES.values(), "zb_pgvectors_hnsw"])


@dataclass
class Work:
    """What one call (or a batch of calls) did; see the module docstring."""

    statements: float = 0.0
    database: float = 0.0
    vector_index: float = 0.0
    postings: float = 0.0
    postings_loaded: float = 0.0
    vector_rows: float = 0.0
    # Where the engine's work went: SQLite, per statement; PostgreSQL, per relation.
    sources: Counter[str] = field(default_factory=Counter)

    def items(self) -> list[tuple[str, float]]:
        """Each counter's name and count."""
        return [(name, float(getattr(self, name))) for name in COUNTERS]

    @staticmethod
    def median(measured: Sequence[Work]) -> Work:
        """Each counter's median over repeated calls (one call that happens to split a
        page or merge a pending list does not decide), with the last call's sources."""
        median = Work(sources=measured[-1].sources)
        for counter in COUNTERS:
            setattr(median, counter, float(np.median([getattr(w, counter) for w in measured])))
        return median


COUNTERS = tuple(f.name for f in fields(Work) if f.name != "sources")


# The measurement in progress, for the wrappers around the in-memory indexes.
_active = threading.local()


def _add(counter: str, amount: float) -> None:
    work: Work | None = getattr(_active, "work", None)
    if work is not None:
        setattr(work, counter, getattr(work, counter) + amount)


_LITERALS = re.compile(r"'(?:[^']|'')*'|\b\d+\b")


def _statement_shape(statement: str) -> str:
    """A statement without its values (SQLite's trace shows them bound), shortened: the
    same statement with other values is the same source of work."""
    shape = _LITERALS.sub("?", " ".join(statement.split()))
    return re.sub(r"\?(?:, \?)+", "?, ...", shape)[:120]


class WorkMeter:
    """Counts the statements and engine work of the calls made on one coordinator's store
    inside :meth:`measure`. Create it right after the coordinator, before the store is
    filled: on PostgreSQL every connection then flushes its statistics when it goes back to
    the pool, so none of the filling is left pending, to be counted with a later call."""

    def __init__(self, coordinator: MemoryCoordinator) -> None:
        self.database = coordinator.database
        self.dialect = self.database.dialect
        self._work: Work | None = None
        self._statement = ""  # SQLite: the statement running, to which its steps go
        self._plain_cursors: dict[int, tuple[type, type]] = {}
        self._counting_cursors: dict[type, type] = {}
        self.stats: Any = None  # PostgreSQL: a connection of its own, to read the statistics
        if self.dialect == "postgresql":
            import psycopg

            url = make_url(self.database.url).set(drivername="postgresql")
            self.stats = psycopg.connect(url.render_as_string(hide_password=False))
            self.stats.autocommit = True
        event.listen(self.database.engine, "checkout", self._on_checkout)
        event.listen(self.database.engine, "checkin", self._on_checkin)

    def close(self) -> None:
        event.remove(self.database.engine, "checkout", self._on_checkout)
        event.remove(self.database.engine, "checkin", self._on_checkin)
        if self.stats is not None:
            self.stats.close()

    # ------------------------------------------------------------------ measuring
    @contextmanager
    def measure(self) -> Iterator[Work]:
        """Count what the calls inside the block do into the :class:`Work` it yields."""
        work = Work()
        before = self.relation_buffers() if self.dialect == "postgresql" else {}
        self._work = _active.work = work
        try:
            yield work
        finally:
            self._work = _active.work = None
        if self.dialect == "postgresql":
            for name, count in self.relation_buffers().items():
                touched = count - before.get(name, 0)
                if name in _HNSW_INDEXES:
                    work.vector_index += touched
                elif touched:
                    work.database += touched
                    work.sources[name] += touched

    def call(self, function: Callable[[], Any]) -> tuple[Any, Work]:
        with self.measure() as work:
            result = function()
        return result, work

    def relation_buffers(self) -> dict[str, int]:
        """Buffers touched so far in each table (with its TOAST), index and sequence of the
        store (PostgreSQL)."""
        with self.stats.cursor() as cursor:
            cursor.execute("SELECT pg_stat_clear_snapshot()")
            cursor.execute(
                "SELECT relname, coalesce(heap_blks_hit, 0) + coalesce(heap_blks_read, 0)"
                " + coalesce(toast_blks_hit, 0) + coalesce(toast_blks_read, 0)"
                " + coalesce(tidx_blks_hit, 0) + coalesce(tidx_blks_read, 0)"
                " FROM pg_statio_user_tables"
                " UNION ALL SELECT indexrelname, coalesce(idx_blks_hit, 0)"
                " + coalesce(idx_blks_read, 0) FROM pg_statio_user_indexes"
                " UNION ALL SELECT relname, coalesce(blks_hit, 0) + coalesce(blks_read, 0)"
                " FROM pg_statio_user_sequences"
            )
            return {str(name): int(count) for name, count in cursor.fetchall()}

    # ------------------------------------------------------------------ connection hooks
    def _on_checkout(self, dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        measuring = self._work is not None
        if self.dialect == "sqlite":
            # Off while not measuring: filling a store runs millions of instructions.
            dbapi_connection.set_progress_handler(
                self._on_vm_steps if measuring else None, VM_STEPS_PER_CALLBACK
            )
            dbapi_connection.set_trace_callback(self._on_statement if measuring else None)
        elif measuring:
            plain = self._plain_cursors.setdefault(
                id(dbapi_connection),
                (dbapi_connection.cursor_factory, dbapi_connection.server_cursor_factory),
            )
            dbapi_connection.cursor_factory = self._counting(plain[0])
            dbapi_connection.server_cursor_factory = self._counting(plain[1])

    def _on_checkin(self, dbapi_connection: Any, _record: Any) -> None:
        if self.dialect != "postgresql" or dbapi_connection is None or dbapi_connection.closed:
            return
        plain = self._plain_cursors.get(id(dbapi_connection))
        if plain is not None:
            dbapi_connection.cursor_factory, dbapi_connection.server_cursor_factory = plain
        # The backend's statistics reach the shared views when it goes idle after this
        # transaction, before the rollback returns: a read of the views then sees them.
        with dbapi_connection.cursor() as cursor:
            cursor.execute("SELECT pg_stat_force_next_flush()")
        dbapi_connection.rollback()

    def _on_vm_steps(self) -> int:
        if self._work is not None:
            self._work.database += VM_STEPS_PER_CALLBACK
            self._work.sources[self._statement] += VM_STEPS_PER_CALLBACK
        return 0  # go on

    def _on_statement(self, statement: object = "") -> None:
        if self._work is not None:
            self._work.statements += 1
            if isinstance(statement, str):
                self._statement = _statement_shape(statement)

    def _counting(self, base: type) -> type:
        """``base`` (a psycopg cursor class) counting every statement it sends."""
        found = self._counting_cursors.get(base)
        if found is None:
            count = self._on_statement

            class Counting(base):
                def execute(self, *args: Any, **kwargs: Any) -> Any:
                    count()
                    return super().execute(*args, **kwargs)

                def executemany(self, *args: Any, **kwargs: Any) -> Any:
                    count()
                    return super().executemany(*args, **kwargs)

                def copy(self, *args: Any, **kwargs: Any) -> Any:
                    count()
                    return super().copy(*args, **kwargs)

            found = self._counting_cursors[base] = Counting
        return found


# ---------------------------------------------------------------------- in-memory indexes
def _postings_of(postings: ScopePostings, terms: Sequence[str]) -> int:
    found = (postings._found(term) for term in dict.fromkeys(terms))
    return sum(len(entry[0]) for entry in found if entry is not None)


def _best_reads(postings: ScopePostings, terms: Sequence[str], *_args: Any, **_kw: Any) -> int:
    """What :meth:`ScopePostings.best` reads: every posting of each term it scores."""
    return _postings_of(postings, terms)


def _terms_added(_postings: ScopePostings, _pk: int, _ctx: Any, terms: Any, _at: int) -> int:
    return len(terms)


def _rows_added(_postings: ScopePostings, rows: Sequence[Any]) -> int:
    return sum(len(row[2]) for row in rows)


def _counts_reads(postings: ScopePostings, terms: Sequence[str], context: str | None) -> int:
    """What :meth:`ScopePostings.counts` reads: each term's postings when some memory is
    dead or a context is asked (document counts are then counted memory by memory), and
    then, for a context, every memory's flags (its mask of the scope)."""
    if postings.dead == 0 and context is None:
        return 0  # the lengths of the terms' postings
    mask = len(postings._alive) if context is not None else 0
    return mask + _postings_of(postings, terms)


@contextmanager
def counting_held_indexes() -> Iterator[None]:
    """Count, into the measurement in progress, the work of the indexes held in memory
    (see the module docstring)."""
    patches: list[tuple[Any, str, Any]] = []

    def wrap(
        owner: Any, name: str, counter: str, counted: Callable[..., float], *, whole: bool = False
    ) -> None:
        """Count ``counted(...)`` into ``counter`` at each call of ``owner.name``; a
        ``whole`` count covers the calls the method makes itself (not counted again)."""
        original = getattr(owner, name)

        def counting(*args: Any, **kwargs: Any) -> Any:
            if getattr(_active, "inside", None) == counter:
                return original(*args, **kwargs)
            _add(counter, counted(*args, **kwargs))
            if not whole:
                return original(*args, **kwargs)
            _active.inside = counter
            try:
                return original(*args, **kwargs)
            finally:
                _active.inside = None

        patches.append((owner, name, original))
        setattr(owner, name, counting)

    # Searches: every posting of each term scored, the statistics, the candidates' terms.
    wrap(ScopePostings, "best", "postings", _best_reads)
    wrap(ScopePostings, "counts", "postings", _counts_reads)
    wrap(ScopePostings, "documents", "postings", lambda self, pks: len(pks))
    # Loading a scope and catching up with writes: every posting written (keys out of
    # order make extend() add them one by one: counted once).
    wrap(ScopePostings, "add", "postings_loaded", _terms_added)
    wrap(ScopePostings, "extend", "postings_loaded", _rows_added, whole=True)
    # SQLite vectors: every row a product scores (the exact search, the re-ranking, the
    # exact re-scoring), every row the sign-bit pre-filter scans, every row a removal copies.
    wrap(sqlite_vectors, "dot_rows", "vector_rows", lambda rows, _query: len(rows))
    wrap(prefilter, "dot_rows", "vector_rows", lambda rows, _query: len(rows))
    wrap(sqlite_vectors, "prefilter_candidates", "vector_rows", lambda rows, *_a, **_k: len(rows))
    wrap(sqlite_vectors._Rows, "keep", "vector_rows", lambda self, _mask: self.size)
    try:
        yield
    finally:
        for owner, name, original in reversed(patches):
            setattr(owner, name, original)
