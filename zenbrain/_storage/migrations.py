"""Versioned schema migrations: ordered, named steps, each run once, each in its own
transaction, and recorded in ``zb_migrations``.

How a store is brought up to date on open (:func:`migrate`):

- A **new store** is created straight from :mod:`zenbrain._storage.schema` (which always
  describes the newest schema) and every step below is recorded as applied: there is nothing
  to migrate.
- A store written **before migrations were recorded** (schema version 1, no
  ``zb_migrations`` table) adopts the steps up to its recorded version as applied.
- Then every step not yet recorded runs, in order, each in its own write transaction that
  also records it and raises ``schema_version``; a failed step rolls back alone and the open
  fails with :class:`~zenbrain.errors.StorageError`, so the next open retries it.
- Tables that :mod:`~zenbrain._storage.schema` gained since are created (``CREATE ... IF NOT
  EXISTS``), and the lexical index installs its own tables the same way.
- Last, the text version (:data:`zenbrain.text.TEXT_VERSION`) recorded in the store is
  compared with this release's: if tokenisation changed, the lexical index is rebuilt from
  the stored content (one transaction), so old index terms never silently mismatch new
  queries. The claim index is read again the same way when the rules' version
  (:data:`zenbrain.layers._supersession.CLAIMS_VERSION`) changed.

Every write transaction here holds the store's write lock (``BEGIN IMMEDIATE`` on SQLite, a
transaction-scoped advisory lock on PostgreSQL) and re-reads what was recorded, so several
processes opening one store at once apply each step exactly once.

Adding a step (say, a new column):

1. change the table in :mod:`zenbrain._storage.schema` (new stores get it from there) and
   raise :data:`~zenbrain._storage.schema.SCHEMA_VERSION` by one;
2. write ``def _add_x(db, conn)`` that brings an *existing* store to the new shape (for
   example with :func:`add_column`; back-fill rows in the same function), and append
   ``Migration(SCHEMA_VERSION, "add_x", _add_x)`` to :data:`MIGRATIONS`; never edit, reorder
   or remove a step that has been released;
3. add a fixture store written by the previous release to ``tests/storage/fixtures/`` and a
   test that opens it (see ``tests/storage/test_migrations.py``).

A new *table* needs only step 1 (it is created on open), unless existing rows must be
back-filled into it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from sqlalchemy import (
    Column,
    Connection,
    Integer,
    MetaData,
    String,
    Table,
    bindparam,
    inspect,
    select,
    text,
    update,
)

from zenbrain._storage.dialect import POSTGRES_MIGRATION_LOCK
from zenbrain._storage.indexes import IndexedText, LexicalIndex
from zenbrain._storage.reads import pages_by_key
from zenbrain._storage.schema import (
    CONTENT_HASH_KEY_BLOCK,
    SCHEMA_VERSION,
    SUPERSEDED_BY_INDEX,
    api_keys,
    claim_backlog,
    claims,
    consolidation_links,
    core_blocks,
    memories,
    meta,
    metadata,
    procedures,
)
from zenbrain.errors import SchemaVersionError, StorageError, ZenbrainError


class Database(Protocol):
    """What migrating needs of an open store (``zenbrain._storage.database.Database``); a
    protocol, so that this module does not import the module that runs it."""

    dialect: str
    lexical: LexicalIndex
    path: Path | None

    @property
    def safe_url(self) -> str: ...

    def read(self) -> AbstractContextManager[Connection]: ...

    def write(self) -> AbstractContextManager[Connection]: ...


__all__ = [
    "MIGRATIONS",
    "Migration",
    "add_column",
    "applied_migrations",
    "migrate",
    "rebuild_claim_index",
    "rebuild_lexical_index",
]

# Its own MetaData: the bookkeeping table is created before anything else is looked at.
_bookkeeping = MetaData()
migrations_table = Table(
    "zb_migrations",
    _bookkeeping,
    Column("name", String(100), primary_key=True),
    Column("version", Integer, nullable=False),
    Column("applied_at", String(40), nullable=False),
)

#: pg_advisory_xact_lock key that serialises schema changes (advisory locks are per database).
_REINDEX_BATCH = 1000


@dataclass(frozen=True, slots=True)
class Migration:
    """One step: ``apply(db, conn)`` brings a store from ``version - 1`` towards ``version``
    inside the transaction ``conn``; ``name`` is recorded once it has run."""

    version: int
    name: str
    apply: Callable[[Database, Connection], None]


def add_column(conn: Connection, table: str, column_sql: str) -> None:
    """``ALTER TABLE table ADD COLUMN column_sql`` unless the column exists already
    (``column_sql`` starts with the column's name)."""
    name = column_sql.split()[0]
    if not _has_column(conn, table, name):
        conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN {column_sql}")


def _has_column(conn: Connection, table: str, column: str) -> bool:
    # The result's keys, not the inspector: it warns on types it does not know (xid8).
    names = conn.exec_driver_sql(f"SELECT * FROM {table} LIMIT 0").keys()
    return column in names


def _initial_schema(db: Database, conn: Connection) -> None:
    """Version 1, the schema as first released: created from schema.py for a new store,
    adopted by stores written before steps were recorded, so this never runs on its own."""
    _create_tables(db, conn)


def _postgres_lexical_counts(db: Database, conn: Connection) -> None:
    """PostgreSQL stores from before ``zb_lexical_counts`` existed read a document count of
    0 for every scope (BM25's N): create the table and count every scope from the index."""
    if db.dialect != "postgresql":
        return
    db.lexical.install(conn)
    conn.exec_driver_sql("DELETE FROM zb_lexical_counts")
    conn.exec_driver_sql(
        "INSERT INTO zb_lexical_counts (namespace, layer, count) "
        "SELECT m.namespace, m.layer, count(*) FROM zb_lexical l "
        "JOIN zb_memories m ON m.pk = l.memory_pk GROUP BY m.namespace, m.layer"
    )


def _postgres_ordered_terms(db: Database, conn: Connection) -> None:
    """PostgreSQL searches from postings held in memory, loaded from each memory's terms in
    order (``zb_lexical.ordered``), which older rows lack: index every memory again. The
    per-term counts it searched with before are dropped (the postings count terms now)."""
    if db.dialect != "postgresql":
        return
    _postgres_lexical_columns(db, conn)  # indexing writes them: a later step, run early
    conn.exec_driver_sql("DROP TABLE IF EXISTS zb_lexical_terms_df")
    rebuild_lexical_index(db, conn)


def _content_hashes(db: Database, conn: Connection) -> None:
    """Exact content is looked up by its hash (``zb_memories.content_hash``) instead of an
    index holding every memory's text again, which cost each write a random page of a large
    index: give every stored memory its hash, then swap the indexes."""
    from zenbrain._storage.records import content_hash

    add_column(conn, "zb_memories", "content_hash BIGINT NOT NULL DEFAULT 0")
    fill = (
        update(memories)
        .where(memories.c.pk == bindparam("memory_pk"))
        .values(content_hash=bindparam("hash"))
    )
    for rows in pages_by_key(conn, select(memories.c.pk, memories.c.content), _REINDEX_BATCH):
        hashes = [{"memory_pk": row.pk, "hash": content_hash(row.content)} for row in rows]
        conn.execute(fill, hashes)
    conn.exec_driver_sql("DROP INDEX IF EXISTS zb_memories_content")
    conn.exec_driver_sql(
        "CREATE INDEX IF NOT EXISTS zb_memories_content_hash ON zb_memories "
        "(namespace, content_hash)"
    )


def _sqlite_plain_terms(db: Database, conn: Connection) -> None:
    """SQLite keeps each memory's terms in a plain table (``zb_lexical``, created on open)
    instead of FTS5 (``zb_fts``), whose inverted index no search read any more: drop it and
    index every memory again."""
    if db.dialect != "sqlite":
        return
    _sqlite_lexical_changes(db, conn)  # indexing counts changes: a later step, run early
    conn.exec_driver_sql("DROP TABLE IF EXISTS zb_fts")
    rebuild_lexical_index(db, conn)


def _content_hash_by_key_block(db: Database, conn: Connection) -> None:
    """The content-hash index leads with each memory's key block (see
    :func:`~zenbrain._storage.schema.content_key_block`), so a batch's entries land on the
    newest block's few pages instead of random pages all over the index."""
    conn.exec_driver_sql("DROP INDEX IF EXISTS zb_memories_content_hash")
    conn.exec_driver_sql(
        "CREATE INDEX IF NOT EXISTS zb_memories_content_by_block ON zb_memories "
        f"(namespace, (pk / {CONTENT_HASH_KEY_BLOCK}), content_hash)"
    )


def _record_text_version(db: Database, conn: Connection) -> None:
    """Stores from before the text version was recorded were indexed with version 1 (the
    only one there was); record that, so a later change of tokenisation is noticed."""
    if _get_meta(conn, "text_version") is None:
        _set_meta(conn, "text_version", "1")


def _sqlite_lexical_changes(db: Database, conn: Connection) -> None:
    """SQLite counts each scope's changes beside its lexical counts
    (``zb_lexical_lengths.changes``), which tells a process holding the scope's postings that
    another writer changed it; stores from before it count from 0. Idempotent: an earlier
    step that indexes runs it first."""
    if db.dialect != "sqlite" or not inspect(conn).has_table("zb_lexical_lengths"):
        return
    add_column(conn, "zb_lexical_lengths", "changes INTEGER NOT NULL DEFAULT 0")


def _postgres_lexical_columns(db: Database, conn: Connection) -> None:
    """PostgreSQL's lexical index gained, per memory, its length in terms (filled from the
    ``tsvector``), its terms in order (filled by step ``postgres_ordered_terms``) and the
    transaction that changed it (with an index: other processes' postings catch up by it),
    and, per scope, the total length. Idempotent: an earlier step that indexes runs it
    first."""
    if db.dialect != "postgresql" or not inspect(conn).has_table("zb_lexical"):
        return
    if not _has_column(conn, "zb_lexical", "length"):
        conn.exec_driver_sql("ALTER TABLE zb_lexical ADD COLUMN length INTEGER")
        conn.exec_driver_sql(
            "UPDATE zb_lexical SET length = (SELECT coalesce(sum(cardinality(positions)), 0)"
            " FROM unnest(terms))"
        )
    add_column(conn, "zb_lexical", "ordered TEXT")
    add_column(conn, "zb_lexical", "changed xid8 DEFAULT pg_current_xact_id()")
    conn.exec_driver_sql(
        "CREATE INDEX IF NOT EXISTS zb_lexical_changed ON zb_lexical (changed, memory_pk)"
    )
    if not _has_column(conn, "zb_lexical_counts", "length"):
        conn.exec_driver_sql(
            "ALTER TABLE zb_lexical_counts ADD COLUMN length BIGINT NOT NULL DEFAULT 0"
        )
        conn.exec_driver_sql(
            "UPDATE zb_lexical_counts c SET length = s.length FROM ("
            " SELECT m.namespace, m.layer, sum(l.length) AS length FROM zb_lexical l"
            " JOIN zb_memories m ON m.pk = l.memory_pk GROUP BY m.namespace, m.layer) s"
            " WHERE c.namespace = s.namespace AND c.layer = s.layer"
        )


def _api_keys(db: Database, conn: Connection) -> None:
    """Version 7: the HTTP server's hashed API keys (``zb_api_keys``)."""
    api_keys.create(conn, checkfirst=True)


def _validity(db: Database, conn: Connection) -> None:
    """Long-term memories carry a validity interval and the id of the memory that replaced
    them (see :mod:`zenbrain._memory.validity`): every stored memory was valid from its own
    time and is still current."""
    add_column(conn, "zb_memories", "valid_from TIMESTAMP")
    add_column(conn, "zb_memories", "valid_to TIMESTAMP")
    add_column(conn, "zb_memories", "superseded_by VARCHAR(36)")
    conn.exec_driver_sql("UPDATE zb_memories SET valid_from = created_at WHERE valid_from IS NULL")
    conn.exec_driver_sql(SUPERSEDED_BY_INDEX)


def _claim_index(db: Database, conn: Connection) -> None:
    """Version 9: what each current episode and fact states is kept in the claim index
    (``zb_claims``), which knowledge updates look new memories up in: read every one."""
    rebuild_claim_index(conn)


def _user_metadata(db: Database, conn: Connection) -> None:
    """Version 10: the caller's metadata holds only the caller's keys. A memory names its
    conversation in a column of its own; a consolidated fact's ``consolidated_from`` key,
    which zenbrain wrote into its metadata, leaves it (the consolidation link keeps it):
    only where the link to that very episode exists, so a caller's own key stays."""
    add_column(conn, "zb_memories", "conversation VARCHAR(200)")
    linked = (
        select(memories.c.pk, memories.c.metadata, consolidation_links.c.episode_id)
        .join(
            consolidation_links,
            (consolidation_links.c.fact_id == memories.c.id)
            & (consolidation_links.c.namespace == memories.c.namespace),
        )
        .where(memories.c.layer == "semantic")
    )
    for pk, stored, episode_id in conn.execute(linked).all():
        if isinstance(stored, dict) and stored.get("consolidated_from") == episode_id:
            kept = {key: value for key, value in stored.items() if key != "consolidated_from"}
            conn.execute(update(memories).where(memories.c.pk == pk).values(metadata=kept))


#: Every step, oldest first. Append only (see the module docstring).
MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "initial_schema", _initial_schema),
    Migration(2, "postgres_lexical_counts", _postgres_lexical_counts),
    Migration(2, "record_text_version", _record_text_version),
    Migration(3, "postgres_ordered_terms", _postgres_ordered_terms),
    Migration(4, "content_hashes", _content_hashes),
    Migration(4, "sqlite_plain_terms", _sqlite_plain_terms),
    Migration(5, "content_hash_by_key_block", _content_hash_by_key_block),
    # Version 6: schema changes the lexical indexes once made on every open, as steps.
    Migration(6, "sqlite_lexical_changes", _sqlite_lexical_changes),
    Migration(6, "postgres_lexical_columns", _postgres_lexical_columns),
    Migration(7, "api_keys", _api_keys),
    Migration(8, "validity", _validity),
    Migration(9, "claim_index", _claim_index),
    Migration(10, "user_metadata", _user_metadata),
)

if MIGRATIONS[-1].version != SCHEMA_VERSION:  # pragma: no cover - a developer's mistake
    raise RuntimeError("storage.schema.SCHEMA_VERSION must equal the last migration's version")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _get_meta(conn: Connection, key: str) -> str | None:
    value = conn.execute(select(meta.c.value).where(meta.c.key == key)).scalar_one_or_none()
    return None if value is None else str(value)


def _set_meta(conn: Connection, key: str, value: str) -> None:
    conn.execute(meta.delete().where(meta.c.key == key))
    conn.execute(meta.insert().values(key=key, value=value))


def _create_tables(db: Database, conn: Connection) -> None:
    tables = [
        table
        for table in metadata.sorted_tables
        # PostgreSQL keeps vectors in pgvector instead (see storage/postgres/vectors.py).
        if db.dialect == "sqlite"
        or table.name not in ("zb_vectors", "zb_vector_versions", "zb_vector_removals")
    ]
    metadata.create_all(conn, tables=tables, checkfirst=True)
    db.lexical.install(conn)


def _stored_version(conn: Connection, where: str) -> int | None:
    raw = _get_meta(conn, "schema_version")
    if raw is None:
        return None
    try:
        version = int(raw)
    except ValueError:
        version = 0
    if version < 1:
        raise SchemaVersionError(
            f"the store at {where} records the schema version {raw[:40]!r}, which is not a "
            "version zenbrain ever wrote: the file is damaged or was changed by hand. Restore "
            "it from a backup."
        )
    if version > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"the store at {where} has schema version {version}, but this zenbrain "
            f"understands up to {SCHEMA_VERSION}: upgrade zenbrain"
        )
    return version


def applied_migrations(conn: Connection) -> dict[str, int]:
    """The recorded steps, name to version (empty before the table exists)."""
    if not inspect(conn).has_table(migrations_table.name):
        return {}
    rows = conn.execute(select(migrations_table.c.name, migrations_table.c.version))
    return {str(name): int(version) for name, version in rows}


def _record(conn: Connection, step: Migration) -> None:
    conn.execute(
        migrations_table.insert().values(name=step.name, version=step.version, applied_at=_now())
    )


@contextmanager
def _locked(db: Database) -> Iterator[Connection]:
    """A write transaction holding the store's migration lock."""
    with db.write() as conn:
        if db.dialect == "postgresql":
            conn.execute(
                text("SELECT pg_advisory_xact_lock(:key)"), {"key": POSTGRES_MIGRATION_LOCK}
            )
        yield conn


_DERIVED_POSTGRES_TABLES = (
    "zb_lexical",
    "zb_lexical_counts",
    "zb_lexical_removed",
    "zb_lexical_sync",
)


def _current_on_read_only_server(db: Database, where: str) -> bool:
    """True when ``db`` is a PostgreSQL server that accepts only reads (a hot standby, or a
    role or database with ``default_transaction_read_only``) and its store is current, so
    opening needs no write; a read-only server whose store is missing or older fails with a
    message saying to open it once where writes are accepted."""
    from zenbrain.text import TEXT_VERSION

    if db.dialect != "postgresql":
        return False
    with db.read() as conn:
        if conn.exec_driver_sql("SHOW transaction_read_only").scalar() != "on":
            return False
        tables = [meta.name, migrations_table.name, *_DERIVED_POSTGRES_TABLES]
        present = all(
            conn.execute(text("SELECT to_regclass(:name) IS NOT NULL"), {"name": name}).scalar()
            for name in tables
        )
        current = (
            present
            and _stored_version(conn, where) == SCHEMA_VERSION
            and set(applied_migrations(conn)) >= {step.name for step in MIGRATIONS}
            and _get_meta(conn, "text_version") == str(TEXT_VERSION)
            and _get_meta(conn, "claims_version") == _claims_version()
        )
    if not current:
        raise StorageError(
            f"the PostgreSQL server at {where} accepts only reads (a read replica, or "
            "default_transaction_read_only is on), and the zenbrain store there is missing or "
            f"older than this version (schema {SCHEMA_VERSION}): open it once on the primary "
            "with this zenbrain version, then on the replica."
        )
    return True


def migrate(db: Database) -> None:
    """Create or upgrade the store behind ``db`` (see the module docstring). On a read-only
    PostgreSQL server (a replica) a current store is opened without writing anything."""
    from zenbrain.text import TEXT_VERSION

    where = str(db.path or db.safe_url)
    if _current_on_read_only_server(db, where):
        return
    with _locked(db) as conn:
        meta.create(conn, checkfirst=True)
        migrations_table.create(conn, checkfirst=True)
        version = _stored_version(conn, where)
        if version is None:  # a new store: the newest schema, every step recorded
            _create_tables(db, conn)
            for step in MIGRATIONS:
                _record(conn, step)
            _set_meta(conn, "schema_version", str(SCHEMA_VERSION))
            _set_meta(conn, "text_version", str(TEXT_VERSION))
            _set_meta(conn, "claims_version", _claims_version())
            return
        applied = applied_migrations(conn)
        if not applied:  # written before steps were recorded: adopt what its version implies
            for step in MIGRATIONS:
                if step.version <= version:
                    _record(conn, step)
                    applied[step.name] = step.version
        _create_tables(db, conn)
        pending = [step for step in MIGRATIONS if step.name not in applied]
        if (
            not pending
            and _get_meta(conn, "text_version") == str(TEXT_VERSION)
            and _get_meta(conn, "claims_version") == _claims_version()
        ):
            return
    for step in pending:
        with _locked(db) as conn:
            if step.name in applied_migrations(conn):  # another process ran it meanwhile
                continue
            try:
                step.apply(db, conn)
            except ZenbrainError:
                raise
            except Exception as exc:  # rolled back with this step's transaction
                raise StorageError(
                    f"migrating the store at {where} failed in step {step.name!r} (to schema "
                    f"version {step.version}): {exc}. Nothing of this step was applied; the "
                    "next open retries it."
                ) from exc
            _record(conn, step)
            if (_stored_version(conn, where) or 0) < step.version:
                _set_meta(conn, "schema_version", str(step.version))
    with _locked(db) as conn:
        if _get_meta(conn, "text_version") != str(TEXT_VERSION):
            rebuild_lexical_index(db, conn)
            _set_meta(conn, "text_version", str(TEXT_VERSION))
        if _get_meta(conn, "claims_version") != _claims_version():
            rebuild_claim_index(conn)


def _claims_version() -> str:
    from zenbrain.layers._supersession import CLAIMS_VERSION

    return str(CLAIMS_VERSION)


def rebuild_claim_index(conn: Connection) -> int:
    """Read the claims of every current episode and fact into the claim index again, in
    ``conn``'s transaction, and record the rules' version; returns how many memories were
    read. Any backlog (memories stored with knowledge updates off) is read with them."""
    # The rules live with the other layers' pure logic; imported here only, when needed.
    from zenbrain._storage import claims as claim_index
    from zenbrain.layers._supersession import RULE_LAYERS, claim_keys

    conn.execute(claims.delete())
    conn.execute(claim_backlog.delete())
    done = claim_index.fill(conn, claim_keys, RULE_LAYERS)
    _set_meta(conn, "claims_version", _claims_version())
    return done


def rebuild_lexical_index(db: Database, conn: Connection) -> int:
    """Re-tokenise every stored memory into the lexical index, in ``conn``'s transaction;
    returns how many memories were indexed. Used when :data:`~zenbrain.text.TEXT_VERSION`
    changed, so that stored index terms and the terms of new queries agree again."""
    from zenbrain._storage.records import row_indexed_text
    from zenbrain.text import tokenize

    # Start from an empty index (and the counts kept beside it), then add every memory:
    # the counts are then right by construction, whatever state the old index was in.
    if inspect(conn).has_table("zb_lexical"):
        conn.exec_driver_sql("DELETE FROM zb_lexical")
    if db.dialect == "sqlite" and inspect(conn).has_table("zb_lexical_lengths"):
        # Emptied, not deleted: each scope's change count must only grow, so that postings
        # held by other processes see that every memory changed (storage/sqlite/lexical.py).
        conn.exec_driver_sql("UPDATE zb_lexical_lengths SET documents = 0, length = 0")
    if db.dialect == "postgresql":
        conn.exec_driver_sql("DELETE FROM zb_lexical_counts")
        # Every process holding postings loads them again once it sees this transaction
        # (storage/postgres/lexical.py): the rows were replaced without logging removals.
        conn.exec_driver_sql("UPDATE zb_lexical_sync SET pruned_by = pg_current_xact_id()")
    done = 0
    query = (
        select(
            memories.c.pk,
            memories.c.namespace,
            memories.c.layer,
            memories.c.context,
            memories.c.content,
            procedures.c.steps,
            procedures.c.outcome,
            core_blocks.c.label,
        )
        .outerjoin(procedures, procedures.c.memory_pk == memories.c.pk)
        .outerjoin(core_blocks, core_blocks.c.memory_pk == memories.c.pk)
    )
    for rows in pages_by_key(conn, query, _REINDEX_BATCH):
        indexed = [
            IndexedText(
                int(row.pk),
                row.namespace,
                row.layer,
                row.context,
                tokenize(row_indexed_text(row)),
            )
            for row in rows
        ]
        db.lexical.add(conn, indexed)
        done += len(rows)
    # Counts kept beside the index are derived again, whatever state the old index was in.
    _postgres_lexical_counts(db, conn)
    return done
