"""Opening a store: resolving the location, creating and migrating the schema, and the
back end's indexes. Writes go through :meth:`Database.write` (one transaction each)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, select
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlalchemy.pool import StaticPool

from zenbrain.config import DEFAULT_DB, resolve_location
from zenbrain.errors import DatabaseNotWritableError, SchemaVersionError, StorageError
from zenbrain.storage.indexes import LexicalIndex, VectorIndex
from zenbrain.storage.schema import SCHEMA_VERSION, meta, metadata

__all__ = ["DEFAULT_DB", "Database", "resolve_location"]

_PATH_ADVICE = (
    "Set ZENBRAIN_DB (or pass db=) to an absolute path or one starting with ~/, "
    "for example ~/.zenbrain/memory.db."
)


def _prepare_file(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with sqlite3.connect(path) as probe:  # fails early and clearly on unwritable paths
            probe.execute("CREATE TABLE IF NOT EXISTS zb_probe(x)")
            probe.execute("DROP TABLE zb_probe")
        probe.close()
    except (OSError, sqlite3.Error) as exc:
        where = "the working directory " + os.getcwd() if not path.is_absolute() else str(path)
        raise DatabaseNotWritableError(
            f"cannot create or write the zenbrain database at {path} ({exc}). "
            f"{_PATH_ADVICE} (resolved against {where})."
        ) from exc


class Database:
    """An engine plus the back end's lexical and vector indexes."""

    def __init__(self, url: str, path: Path | None) -> None:
        self.url = url
        self.path = path
        if url.startswith("sqlite"):
            self.engine = self._sqlite_engine(url, path)
            from zenbrain.storage.sqlite import SqliteLexicalIndex
            from zenbrain.storage.sqlite_vectors import SqliteVectorIndex

            self.lexical: LexicalIndex = SqliteLexicalIndex()
            self.vectors: VectorIndex = SqliteVectorIndex()
        elif url.startswith("postgresql"):
            from zenbrain.storage.postgres import open_postgres

            self.engine, self.lexical, self.vectors = open_postgres(url)
        else:
            raise StorageError(
                f"unsupported database URL {url!r}: use a file path, ':memory:', "
                "sqlite:///path or postgresql+psycopg://user@host/db"
            )
        self.dialect = self.engine.dialect.name
        self._migrate()

    @staticmethod
    def _sqlite_engine(url: str, path: Path | None) -> Engine:
        from zenbrain.storage.sqlite import configure_sqlite_engine

        if path is None:
            # One shared connection, or each thread would get its own empty in-memory database.
            engine = create_engine(
                url, poolclass=StaticPool, connect_args={"check_same_thread": False}
            )
            configure_sqlite_engine(engine, wal=False)
            return engine
        _prepare_file(path)
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})
        configure_sqlite_engine(engine, wal=True)
        return engine

    def _migrate(self) -> None:
        try:
            with self.write() as conn:
                meta.create(conn, checkfirst=True)
                found = conn.execute(select(meta.c.value).where(meta.c.key == "schema_version"))
                version = found.scalar_one_or_none()
                if version is not None and int(version) > SCHEMA_VERSION:
                    raise SchemaVersionError(
                        f"the store at {self.path or self.url} has schema version {version}, but "
                        f"this zenbrain understands up to {SCHEMA_VERSION}: upgrade zenbrain"
                    )
                # Version 1 is the first schema; later versions add steps here, in order.
                tables = [
                    table
                    for table in metadata.sorted_tables
                    # PostgreSQL keeps vectors in pgvector instead (see storage/postgres.py).
                    if self.dialect == "sqlite"
                    or table.name not in ("zb_vectors", "zb_vector_versions")
                ]
                metadata.create_all(conn, tables=tables, checkfirst=True)
                self.lexical.install(conn)
                if version is None:
                    conn.execute(
                        meta.insert().values(key="schema_version", value=str(SCHEMA_VERSION))
                    )
        except OperationalError as exc:
            raise DatabaseNotWritableError(
                f"cannot initialise the zenbrain database at {self.path or self.url}: {exc.orig}. "
                f"{_PATH_ADVICE}"
            ) from exc

    def allocate_keys(self, conn: Connection, count: int) -> list[int]:
        """``count`` fresh primary keys for ``zb_memories``, so a batch can be inserted
        without RETURNING (which SQLite can only do row by row). Call inside a write
        transaction: on SQLite it holds the write lock, on PostgreSQL the sequence is atomic."""
        if count <= 0:
            return []
        if self.dialect == "sqlite":
            start = conn.exec_driver_sql(
                "SELECT max("
                "coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'zb_memories'), 0),"
                " coalesce((SELECT max(pk) FROM zb_memories), 0))"
            ).scalar_one()
            return list(range(int(start) + 1, int(start) + 1 + count))
        rows = conn.exec_driver_sql(
            "SELECT nextval(pg_get_serial_sequence('zb_memories', 'pk')) "
            f"FROM generate_series(1, {int(count)})"
        )
        return sorted(int(r[0]) for r in rows)

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """One write transaction (BEGIN IMMEDIATE on SQLite); commits on success."""
        try:
            with self.engine.connect().execution_options(zenbrain_write=True) as conn, conn.begin():
                yield conn
        except SQLAlchemyError as exc:
            raise StorageError(f"writing to {self.path or self.url} failed: {exc}") from exc

    @contextmanager
    def read(self) -> Iterator[Connection]:
        with self.engine.connect() as conn, conn.begin():
            yield conn

    def get_meta(self, key: str) -> str | None:
        with self.read() as conn:
            value = conn.execute(select(meta.c.value).where(meta.c.key == key)).scalar_one_or_none()
            return None if value is None else str(value)

    def set_meta(self, conn: Connection, key: str, value: str) -> None:
        conn.execute(meta.delete().where(meta.c.key == key))
        conn.execute(meta.insert().values(key=key, value=value))

    def close(self) -> None:
        self.engine.dispose()
