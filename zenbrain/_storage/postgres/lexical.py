"""PostgreSQL's lexical index: a table of record on the server, postings in each process.

Each memory's index terms are kept in ``zb_lexical``: in order (``ordered``, what the
postings are loaded from), as a ``tsvector`` with a GIN index (for anyone querying the store
with SQL), and with the transaction that wrote the row (``changed``). Searches are answered
from :class:`~zenbrain._storage.postings.ScopePostings` held in memory, as on SQLite: ranking
every row that matches a rare term on the server cost most of a recall at a million
memories (``docs/postgres.md``).

A process learns what other writers changed through transaction snapshots, which, unlike
keys drawn from a sequence, account exactly for transactions that commit out of order. Each
scope's postings remember the snapshot they were read under (``pg_current_snapshot()``, in
the same statement as the rows). Bringing them up to date reads, in one statement under a
newer snapshot:

- the rows whose writing transaction the old snapshot did not see but the new one does
  (new memories, and memories re-indexed in place: removed, then added again);
- the removals logged in ``zb_lexical_removed`` by such transactions;
- the scope's number of memories in ``zb_lexical_counts``, kept in step by every writer: the
  postings must hold exactly that many, or the scope is loaded again.

The log is pruned to its newest entries. The transaction that prunes it (or rebuilds the
index) records itself in ``zb_lexical_sync``; a copy read under a snapshot that does not see
that transaction may have missed entries, and is loaded again.

Needs PostgreSQL 13 or newer (``xid8`` and the snapshot functions).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, text

from zenbrain._storage.indexes import IndexedText
from zenbrain._storage.postings.held import HeldPostingsIndex, PostingsRow
from zenbrain._storage.postings.scope import ScopePostings
from zenbrain._storage.postings.scopes import scope_tokens, scoped_terms

__all__ = ["PostgresLexicalIndex"]

REMOVAL_LOG_KEPT = 10_000
"""Entries of ``zb_lexical_removed`` kept; a copy of postings further behind is reloaded."""
PRUNE_SLACK = 1_000
"""Entries logged past :data:`REMOVAL_LOG_KEPT` before the log is pruned: pruning in batches
keeps writers from contending for the row that records it."""
CATCH_UP_PAGE = 5_000
"""Rows written since a copy was in step that one statement reads (by the index on
``(changed, memory_pk)``); more are read a page at a time."""
_FETCH_ROWS = 10_000
_SYNCED = "zb_postings_synced"  # conn.info: the transaction and the scopes synced in it
# A memory's stored time as whole microseconds since the epoch (the column is a timestamp
# without time zone holding UTC, so the epoch is counted as UTC).
_MICROSECONDS = "(extract(epoch FROM m.created_at) * 1000000)::bigint"
_ROW_COLUMNS = f"l.memory_pk, l.ctx, l.ordered, {_MICROSECONDS}, m.conversation"
_SCOPE_ROWS = (
    "FROM zb_lexical l JOIN zb_memories m ON m.pk = l.memory_pk "
    "WHERE m.namespace = %s AND m.layer = %s"
)


def _column_exists(conn: Connection, table: str, column: str) -> bool:
    return bool(
        conn.execute(
            text(
                "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()"
                " AND table_name = :table AND column_name = :column"
            ),
            {"table": table, "column": column},
        ).scalar()
    )


def _create_index(conn: Connection, name: str, on: str) -> None:
    """``CREATE INDEX`` unless it exists: ``IF NOT EXISTS`` alone still locks the table
    against writers first, and opening a store beside other processes' writes then
    deadlocks with them."""
    if not conn.execute(text("SELECT to_regclass(:name)"), {"name": name}).scalar():
        conn.exec_driver_sql(f"CREATE INDEX IF NOT EXISTS {name} ON {on}")


def _parse_snapshot(snapshot: str) -> tuple[int, int, list[int]]:
    """``xmin:xmax:xip,...`` as its ``xmin``, its ``xmax`` and the transactions it saw
    running."""
    xmin, xmax, running = snapshot.split(":")
    return int(xmin), int(xmax), [int(xid) for xid in running.split(",") if xid]


def _unseen(snapshot: str) -> tuple[int, list[int]]:
    """A snapshot's ``xmax`` and the transactions it saw running: together, every
    transaction whose writes it did not see."""
    _, xmax, running = _parse_snapshot(snapshot)
    return xmax, running


def _xid_array(xids: Sequence[int]) -> str:
    return "{" + ",".join(map(str, xids)) + "}"


def _visible(xid: int, snapshot: str) -> bool:
    """Whether a transaction had committed as ``snapshot`` sees it."""
    xmin, xmax, running = _parse_snapshot(snapshot)
    return xid < xmin or (xid < xmax and xid not in running)


def _row(row: Sequence[Any]) -> PostingsRow:
    pk, ctx, ordered, stored_at, conversation = row
    terms = tuple(ordered.split(" ")) if ordered else ()
    return int(pk), ctx or None, terms, int(stored_at), conversation


class PostgresLexicalIndex(HeldPostingsIndex):
    """Scoped terms (see :func:`~zenbrain._storage.postings.scopes.scoped_terms`) in a
    ``tsvector`` (the 'simple' configuration: zenbrain folds, stems and drops stopwords
    itself) with a GIN index, each memory's terms in order, and postings held in memory
    (see the module docstring). ``zb_lexical_counts`` holds each scope's memories and their
    total length in terms, in step with every add and remove."""

    def __init__(self) -> None:
        super().__init__()
        self._snapshots: dict[str, str] = {}  # scope token: the snapshot its postings are at

    def install(self, conn: Connection) -> None:
        conn.exec_driver_sql(
            "CREATE TABLE IF NOT EXISTS zb_lexical ("
            " memory_pk BIGINT PRIMARY KEY REFERENCES zb_memories(pk) ON DELETE CASCADE,"
            " ctx TEXT, terms TSVECTOR NOT NULL, length INTEGER, ordered TEXT,"
            " changed xid8 DEFAULT pg_current_xact_id())"
        )
        # Stores made before the columns length, ordered and changed get them from
        # migration step "postgres_lexical_columns", which also creates their index.
        _create_index(conn, "zb_lexical_terms", "zb_lexical USING GIN (terms)")
        _create_index(conn, "zb_lexical_ctx", "zb_lexical (ctx)")
        if _column_exists(conn, "zb_lexical", "changed"):
            _create_index(conn, "zb_lexical_changed", "zb_lexical (changed, memory_pk)")
        conn.exec_driver_sql(
            "CREATE TABLE IF NOT EXISTS zb_lexical_counts ("
            " namespace TEXT NOT NULL, layer TEXT NOT NULL, count BIGINT NOT NULL,"
            " length BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (namespace, layer))"
        )
        conn.exec_driver_sql(
            "CREATE TABLE IF NOT EXISTS zb_lexical_removed ("
            " seq BIGSERIAL PRIMARY KEY, namespace TEXT NOT NULL, layer TEXT NOT NULL,"
            " pk BIGINT NOT NULL, changed xid8 NOT NULL DEFAULT pg_current_xact_id())"
        )
        _create_index(conn, "zb_lexical_removed_changed", "zb_lexical_removed (changed)")
        conn.exec_driver_sql(
            "CREATE TABLE IF NOT EXISTS zb_lexical_sync ("
            " one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one), pruned_by xid8)"
        )
        conn.exec_driver_sql(
            "INSERT INTO zb_lexical_sync (one) VALUES (true) ON CONFLICT DO NOTHING"
        )

    def add(self, conn: Connection, rows: Sequence[IndexedText]) -> None:
        if not rows:
            return
        conn.info.pop(_SYNCED, None)  # a later search in this transaction must see the rows
        pks, ctxs, scoped, ordered, lengths = [], [], [], [], []
        added: Counter[tuple[str, str]] = Counter()
        length_added: Counter[tuple[str, str]] = Counter()
        for r in rows:
            scope, ctx = scope_tokens(r.namespace, r.layer, r.context)
            pks.append(r.pk)
            ctxs.append(ctx)
            scoped.append(" ".join(scoped_terms(scope, r.terms)))
            ordered.append(" ".join(r.terms))
            lengths.append(len(r.terms))
            added[(r.namespace, r.layer)] += 1
            length_added[(r.namespace, r.layer)] += len(r.terms)
        # One statement for the batch (executemany would run one per row).
        conn.execute(
            text(
                "INSERT INTO zb_lexical (memory_pk, ctx, terms, length, ordered) "
                "SELECT pk, ctx, to_tsvector('simple', scoped), length, ordered FROM unnest("
                "CAST(:pks AS BIGINT[]), CAST(:ctxs AS TEXT[]), CAST(:scoped AS TEXT[]),"
                " CAST(:lengths AS INTEGER[]), CAST(:ordered AS TEXT[]))"
                " AS u(pk, ctx, scoped, length, ordered)"
            ),
            {"pks": pks, "ctxs": ctxs, "scoped": scoped, "lengths": lengths, "ordered": ordered},
        )
        self._count(conn, {key: (n, length_added[key]) for key, n in added.items()})

    @staticmethod
    def _count(conn: Connection, changes: dict[tuple[str, str], tuple[int, int]]) -> None:
        if not changes:
            return
        ordered = sorted(changes.items())  # one lock order for concurrent writers
        conn.execute(
            text(
                "INSERT INTO zb_lexical_counts (namespace, layer, count, length) "
                "SELECT * FROM unnest(CAST(:namespaces AS TEXT[]), CAST(:layers AS TEXT[]),"
                " CAST(:deltas AS BIGINT[]), CAST(:lengths AS BIGINT[])) "
                "ON CONFLICT (namespace, layer) DO UPDATE SET "
                "count = zb_lexical_counts.count + EXCLUDED.count, "
                "length = zb_lexical_counts.length + EXCLUDED.length"
            ),
            {
                "namespaces": [namespace for (namespace, _), _ in ordered],
                "layers": [layer for (_, layer), _ in ordered],
                "deltas": [delta for _, (delta, _) in ordered],
                "lengths": [length for _, (_, length) in ordered],
            },
        )

    def remove(self, conn: Connection, pks: Sequence[int]) -> None:
        if not pks:
            return
        conn.info.pop(_SYNCED, None)
        # Logged first (the rows are still there to say their scope), for the postings
        # other processes hold.
        removed = conn.execute(
            text(
                "INSERT INTO zb_lexical_removed (namespace, layer, pk) "
                "SELECT m.namespace, m.layer, l.memory_pk "
                "FROM zb_lexical l JOIN zb_memories m ON m.pk = l.memory_pk "
                "WHERE l.memory_pk = ANY(:pks) RETURNING namespace, layer, "
                "(SELECT coalesce(length, 0) FROM zb_lexical WHERE memory_pk = pk)"
            ),
            {"pks": list(pks)},
        ).all()
        if not removed:
            return
        conn.execute(text("DELETE FROM zb_lexical WHERE memory_pk = ANY(:pks)"), {"pks": list(pks)})
        changes: dict[tuple[str, str], tuple[int, int]] = {}
        for namespace, layer, length in removed:
            docs, total = changes.get((namespace, layer), (0, 0))
            changes[(namespace, layer)] = (docs - 1, total - int(length))
        self._count(conn, changes)
        conn.execute(
            text(
                "WITH bounds AS (SELECT min(seq) AS low, max(seq) AS high FROM zb_lexical_removed),"
                " pruned AS (DELETE FROM zb_lexical_removed"
                " WHERE seq <= (SELECT high FROM bounds) - :kept"
                " AND (SELECT high - low FROM bounds) >= :kept + :slack RETURNING 1) "
                "UPDATE zb_lexical_sync SET pruned_by = pg_current_xact_id() "
                "WHERE EXISTS (SELECT 1 FROM pruned)"
            ),
            {"kept": REMOVAL_LOG_KEPT, "slack": PRUNE_SLACK},
        )

    # ------------------------------------------------------------------ postings in memory
    @staticmethod
    def _stream(conn: Connection, statement: str, params: Sequence[Any]) -> Iterator[Any]:
        """Rows of one statement from a server-side cursor: one snapshot for all of them,
        without holding every row in memory at once."""
        driver = conn.connection.driver_connection
        with driver.cursor(name="zb_postings") as cursor:  # type: ignore[union-attr]
            cursor.itersize = _FETCH_ROWS
            cursor.execute(statement, params)
            yield from cursor

    def _load(self, conn: Connection, scope: str, namespace: str, layer: str) -> ScopePostings:
        """A scope read afresh, with the snapshot it was read under."""
        rows = self._stream(
            conn,
            "(SELECT 0, NULL::bigint, pg_current_snapshot()::text, NULL, NULL::bigint, NULL) "
            f"UNION ALL (SELECT 1, {_ROW_COLUMNS} {_SCOPE_ROWS} ORDER BY l.memory_pk)",
            (namespace, layer),
        )
        postings = ScopePostings()
        self._fill(postings, self._rows_noting_snapshot(scope, rows))
        return postings

    def _rows_noting_snapshot(self, scope: str, rows: Iterator[Any]) -> Iterator[PostingsRow]:
        for part, *row in rows:
            if part == 0:
                self._snapshots[scope] = str(row[1])
            else:
                yield _row(row)

    def _changes(
        self, scopes: Sequence[str], stale: Mapping[str, tuple[str, str]], *, first: bool
    ) -> tuple[str, list[Any]]:
        """The statement reading one page of rows written since (a key after the
        ``(changed, memory_pk)`` pair and page size passed first, then, on the first page,
        the transactions still running at the old snapshots and the lowest of their
        ``xmax``), each scope's share of them, and, on the first page, the snapshot, the
        counts and the removals.

        What a snapshot did not see is exactly the transactions from its ``xmax`` on and
        those it lists as running; the range starts at the ``xmax``, not the ``xmin``, so a
        long transaction anywhere on the server does not make every search read all rows
        written since it began.

        The page comes first, by the index on ``(changed, memory_pk)``, in a CTE the planner
        cannot fold into a join: planned from zb_memories (whose statistics lag a bulk
        write) it walked the whole scope, and a page in index order takes the index
        whatever the statistics say."""
        parts = [
            "SELECT -1, (SELECT count(*) FROM paged), r.changed::text, NULL, r.memory_pk, NULL"
            " FROM (SELECT 1) AS one LEFT JOIN LATERAL (SELECT changed, memory_pk FROM paged"
            " ORDER BY changed DESC, memory_pk DESC LIMIT 1) r ON true"
        ]
        if first:
            parts.append(
                "SELECT 0, NULL::bigint, pg_current_snapshot()::text,"
                " (SELECT pruned_by::text FROM zb_lexical_sync), NULL::bigint, NULL"
            )
        params: list[Any] = []
        for number, scope in enumerate(scopes):
            namespace, layer = stale[scope]
            old = self._snapshots[scope]
            if first:
                parts.append(
                    f"SELECT {3 * number + 1}, count, NULL, NULL, NULL, NULL FROM zb_lexical_counts"
                    " WHERE namespace = %s AND layer = %s"
                )
                params += [namespace, layer]
            # Each row's memory looked up by key (LIMIT keeps the planner from turning it
            # into a join that reads the whole scope when its statistics are stale).
            parts.append(
                f"SELECT {3 * number + 2}, {_ROW_COLUMNS} FROM recent l CROSS JOIN LATERAL"
                " (SELECT namespace, layer, created_at, conversation FROM zb_memories"
                " WHERE pk = l.memory_pk LIMIT 1) m WHERE m.namespace = %s AND m.layer = %s"
                " AND NOT pg_visible_in_snapshot(l.changed, %s::pg_snapshot)"
            )
            params += [namespace, layer, old]
            if first:
                parts.append(
                    f"SELECT {3 * number + 3}, pk, NULL, NULL, NULL, NULL FROM zb_lexical_removed"
                    " WHERE namespace = %s AND layer = %s AND (changed >= %s::xid8"
                    " OR changed = ANY(%s::xid8[]))"
                    " AND NOT pg_visible_in_snapshot(changed, %s::pg_snapshot)"
                )
                xmax, running = _unseen(old)
                params += [namespace, layer, str(xmax), _xid_array(running), old]
        # Rows of transactions running at the old snapshots are read once, on the first
        # page; later pages continue the range.
        running_rows = (
            "SELECT memory_pk, ctx, ordered, changed FROM zb_lexical"
            " WHERE changed = ANY(%s::xid8[]) AND changed < %s::xid8"
            if first
            else "SELECT memory_pk, ctx, ordered, changed FROM zb_lexical WHERE false"
        )
        statement = (
            "WITH paged AS MATERIALIZED (SELECT memory_pk, ctx, ordered, changed"
            " FROM zb_lexical WHERE (changed, memory_pk) > (%s::xid8, %s)"
            " ORDER BY changed, memory_pk LIMIT %s), "
            f"running AS MATERIALIZED ({running_rows}), "
            "recent AS (SELECT * FROM paged UNION ALL SELECT * FROM running) "
            + " UNION ALL ".join(parts)
        )
        return statement, params

    def _catch_up(
        self, conn: Connection, stale: Mapping[str, tuple[str, str]]
    ) -> tuple[dict[str, ScopePostings], list[str]]:
        """Apply what writers changed since each scope's snapshot (one statement, more when
        over :data:`CATCH_UP_PAGE` rows were written since); returns the scopes brought up
        to date and those that must be loaded again."""
        scopes = list(stale)
        driver = conn.connection.driver_connection
        # The rows of every transaction some snapshot did not see: from the lowest xmax on,
        # and those running at any of them; each scope then keeps what its own did not see.
        unseen = [_unseen(self._snapshots[scope]) for scope in scopes]
        floor = min(xmax for xmax, _ in unseen)
        running = sorted({xid for _, xids in unseen for xid in xids if xid < floor})
        after: tuple[str, int] = (str(floor), 0)
        snapshot, pruned_by = "", None
        counts: dict[int, int] = {}
        added: dict[int, list[PostingsRow]] = {}
        removed: dict[int, list[int]] = {}
        pages = 0
        while True:
            first = pages == 0
            statement, params = self._changes(scopes, stale, first=first)
            leading = [*after, CATCH_UP_PAGE]
            if first:
                leading += [_xid_array(running), str(floor)]
            found = driver.execute(statement, [*leading, *params]).fetchall()  # type: ignore[union-attr]
            pages += 1
            page_rows = 0
            for part, *row in found:
                if part == -1:
                    page_rows = int(row[0])
                    if row[1] is not None:
                        after = (str(row[1]), int(row[3]))
                elif part == 0:
                    snapshot, pruned_by = str(row[1]), row[2]
                else:
                    number, kind = divmod(part - 1, 3)
                    if kind == 0:
                        counts[number] = int(row[0])
                    elif kind == 1:
                        added.setdefault(number, []).append(_row(row))
                    else:
                        removed.setdefault(number, []).append(int(row[0]))
            if page_rows < CATCH_UP_PAGE:
                break
        current: dict[str, ScopePostings] = {}
        reload: list[str] = []
        for number, scope in enumerate(scopes):
            if pruned_by is not None and not _visible(int(pruned_by), self._snapshots[scope]):
                reload.append(scope)  # log entries this copy never saw may be gone
                continue
            postings = self._cache[scope]
            for pk in removed.get(number, ()):
                postings.discard(pk)
            # Re-indexed memories come back under their key: add() replaces them.
            self._fill(postings, sorted(added.get(number, ())))
            # Later pages were read under later snapshots (what they add again next time
            # is replaced), so only a single page is checked against the count.
            if pages == 1 and len(postings) != counts.get(number, 0):
                reload.append(scope)
                continue
            self._snapshots[scope] = snapshot
            current[scope] = postings
        return current, reload

    def _postings(
        self, conn: Connection, scopes: Mapping[str, tuple[str, str]]
    ) -> dict[str, ScopePostings]:
        # Once per transaction: a recall reads the postings several times.
        transaction = conn.get_transaction()
        synced = conn.info.get(_SYNCED)
        done: set[str] = set()
        if transaction is not None and synced is not None and synced[0] is transaction:
            done = synced[1]
        stale = {
            scope: where
            for scope, where in scopes.items()
            if scope in self._cache and scope not in done
        }
        found, reload = self._catch_up(conn, stale) if stale else ({}, [])
        for scope, (namespace, layer) in scopes.items():
            postings = found[scope] if scope in found else self._cache.get(scope)
            if postings is None or scope in reload or self._needs_compacting(postings):
                postings = self._load(conn, scope, namespace, layer)
            self._cache[scope] = postings
            found[scope] = postings
        if transaction is not None:
            conn.info[_SYNCED] = (transaction, done | set(scopes))
        return found
