"""Opening a store: resolving the location, creating and migrating the schema (see
:mod:`zenbrain._storage.migrations`), and the back end's indexes. Reads and writes go through
:meth:`Database.read` and :meth:`Database.write` (one transaction each), which turn driver
errors into :class:`~zenbrain.errors.StorageError` with a message that says what helps."""

from __future__ import annotations

import contextlib
import sqlite3
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import StaticPool

from zenbrain._storage.forking import fresh_pool_after_fork
from zenbrain._storage.indexes import LexicalIndex, VectorIndex
from zenbrain._storage.migrations import migrate
from zenbrain._storage.schema import meta
from zenbrain.errors import (
    DatabaseNotWritableError,
    InvalidInputError,
    StorageError,
    ZenbrainError,
)


def _driver_errors() -> tuple[type[BaseException], ...]:
    """What a failing driver raises: SQLAlchemy's wrappers, and the sqlite3 (or, for an
    encrypted store, sqlcipher3) errors of the statements the SQLite indexes send through
    the DB-API directly (executemany, bulk reads). Looked up when an error is caught."""
    cipher = sys.modules.get("sqlcipher3.dbapi2")
    found: tuple[type[BaseException], ...] = (SQLAlchemyError, sqlite3.Error, UnicodeError)
    return found if cipher is None else (*found, cipher.Error)


__all__ = ["Database", "storage_error"]

_PATH_ADVICE = (
    "Set ZENBRAIN_DB (or pass db=) to an absolute path or one starting with ~/, "
    "for example ~/.zenbrain/memory.db."
)


def _prepare_file(path: Path) -> None:
    """Create the folder. Whether the file can be written is learnt by opening it (a probe
    table shared by concurrent openers would race; see :func:`storage_error`)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatabaseNotWritableError(
            f"cannot create the folder of the zenbrain database {path} "
            f"({exc.strerror or exc}). {_PATH_ADVICE}"
        ) from exc


_MESSAGE_LIMIT = 300
_LOCKED = ("database is locked", "database is busy", "database table is locked")
_NOT_WRITABLE = (
    "unable to open database file",
    "readonly database",
    "read-only",
    "permission denied",
    "disk i/o error",
    "database or disk is full",
)
_DAMAGED = ("file is not a database", "database disk image is malformed", "malformed")


def _driver_message(exc: BaseException) -> str:
    """The driver's own message, without SQLAlchemy's quoted statement and parameters
    (which may hold megabytes of user content), cut to a readable length."""
    orig = getattr(exc, "orig", None)
    message = " ".join(str(orig if orig is not None else exc).split())
    if len(message) > _MESSAGE_LIMIT:
        message = f"{message[:_MESSAGE_LIMIT]}... ({len(message):,} characters)"
    return message or type(exc).__name__


def storage_error(exc: BaseException, action: str, where: str) -> ZenbrainError:
    """The zenbrain error for a failure of the driver while ``action`` (e.g. "reading")
    the store at ``where``: a message that says what happened and what helps."""
    if isinstance(exc, UnicodeError):
        return InvalidInputError(
            "text must be valid Unicode that can be encoded as UTF-8 (it holds a lone "
            f"surrogate such as '\\ud800'): {_driver_message(exc)}"
        )
    message = _driver_message(exc)
    lowered = message.lower()
    if any(marker in lowered for marker in _LOCKED):
        from zenbrain._storage.sqlite.engine import BUSY_TIMEOUT_MS

        return StorageError(
            f"{action} the zenbrain database at {where} failed: another process held its "
            f"write lock for more than {BUSY_TIMEOUT_MS // 1000} s ({message}). Retry when "
            "that process has finished its write."
        )
    if "read-only transaction" in lowered:  # PostgreSQL: a replica or a read-only role
        return DatabaseNotWritableError(
            f"{action} the zenbrain database at {where} failed: the server accepts only reads "
            f"there ({message}): a read replica, or default_transaction_read_only is on. "
            "Send writes to the primary (docs/postgres.md)."
        )
    if any(marker in lowered for marker in _NOT_WRITABLE):
        return DatabaseNotWritableError(
            f"cannot write the zenbrain database at {where}: {message}. Check that the file "
            f"and its folder are writable and the disk is not full. {_PATH_ADVICE}"
        )
    if any(marker in lowered for marker in _DAMAGED):
        return StorageError(
            f"the zenbrain database at {where} is damaged or not a SQLite database "
            f"({message}). Restore it from a backup (MemoryCoordinator.backup), or open "
            "another path."
        )
    return StorageError(f"{action} the zenbrain database at {where} failed: {message}")


class Database:
    """An engine plus the back end's lexical and vector indexes. ``key``: the passphrase
    of an encrypted SQLite file (:mod:`zenbrain._storage.encryption`)."""

    def __init__(self, url: str, path: Path | None, key: str | None = None) -> None:
        self.url = url
        self.path = path
        self._key = key
        # An in-memory store is one connection shared by every thread: one transaction at a
        # time (two threads' BEGINs on it would collide), whoever calls (a namespace view,
        # the server's key check).
        in_memory = path is None and url.startswith("sqlite")
        self._one_at_a_time = threading.RLock() if in_memory else contextlib.nullcontext()
        if key is not None and (path is None or not url.startswith("sqlite")):
            raise InvalidInputError(
                "a key (key=, ZENBRAIN_KEY or ZENBRAIN_KEY_FILE) encrypts SQLite files only, "
                f"not {'an in-memory store' if url.startswith('sqlite') else 'a server'}: "
                "unset it, or see docs/guide/privacy.md for PostgreSQL"
            )
        if url.startswith("sqlite"):
            self.engine = self._sqlite_engine(url, path, key)
            from zenbrain._storage.sqlite.lexical import SqliteLexicalIndex
            from zenbrain._storage.sqlite.vectors import SqliteVectorIndex

            self.lexical: LexicalIndex = SqliteLexicalIndex()
            self.vectors: VectorIndex = SqliteVectorIndex()
        elif url.startswith("postgresql"):
            from zenbrain._storage.postgres.engine import open_postgres

            self.engine, self.lexical, self.vectors = open_postgres(url)
        else:
            raise StorageError(
                f"unsupported database URL {url!r}: use a file path, ':memory:', "
                "sqlite:///path or postgresql+psycopg://user@host/db"
            )
        self.dialect = self.engine.dialect.name
        if path is not None or self.dialect != "sqlite":  # an in-memory store's one connection
            fresh_pool_after_fork(self.engine)  # is its data: a child keeps its own copy
        try:
            migrate(self)
        except BaseException:
            self.engine.dispose()
            raise

    @property
    def safe_url(self) -> str:
        """The URL with any password hidden, for messages."""
        return str(self.engine.url.render_as_string(hide_password=True))

    @property
    def where(self) -> str:
        return str(self.path or self.safe_url)

    @staticmethod
    def _sqlite_engine(url: str, path: Path | None, key: str | None) -> Engine:
        from zenbrain._storage import encryption
        from zenbrain._storage.sqlite.engine import BUSY_TIMEOUT_MS, configure_sqlite_engine

        if path is None:
            # One shared connection, or each thread would get its own empty in-memory database.
            engine = create_engine(
                url, poolclass=StaticPool, connect_args={"check_same_thread": False}
            )
            configure_sqlite_engine(engine, wal=False)
            return engine
        _prepare_file(path)
        plain = encryption.is_plain(path)
        if key is None:
            if plain is False:
                raise encryption.missing_key(path)
            engine = create_engine(
                url,
                connect_args={"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False},
            )
        else:
            if plain:
                raise encryption.not_encrypted(path)
            timeout = BUSY_TIMEOUT_MS / 1000
            engine = create_engine(
                url,  # names the file for the pool's choice; connections come from creator
                module=encryption.driver().dbapi2,
                creator=lambda: encryption.connect(path, key, timeout),
                pool_use_lifo=True,
            )
        configure_sqlite_engine(engine, wal=True)
        return engine

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
            with (
                self._one_at_a_time,
                self.engine.connect().execution_options(zenbrain_write=True) as conn,
                conn.begin(),
            ):
                yield conn
        except _driver_errors() as exc:
            raise storage_error(exc, "writing to", self.where) from exc

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """One read transaction (a consistent snapshot)."""
        try:
            with self._one_at_a_time, self.engine.connect() as conn, conn.begin():
                yield conn
        except _driver_errors() as exc:
            raise storage_error(exc, "reading", self.where) from exc

    def get_meta(self, key: str) -> str | None:
        with self.read() as conn:
            value = conn.execute(select(meta.c.value).where(meta.c.key == key)).scalar_one_or_none()
            return None if value is None else str(value)

    def set_meta(self, conn: Connection, key: str, value: str) -> None:
        conn.execute(meta.delete().where(meta.c.key == key))
        conn.execute(meta.insert().values(key=key, value=value))

    @property
    def key(self) -> str | None:
        """The passphrase this store was opened with (for an encrypted backup)."""
        return self._key

    def purge(self, namespace: str) -> None:
        """After ``forget`` or ``drop_namespace`` committed: remove what the removed memories
        left in the namespace's postings and vectors held in memory, and on a SQLite file
        truncate the ``-wal``, so that the removed content is nowhere (the file's freed space
        is zeroed by ``secure_delete``).

        Indexes that can (``scrub``: the postings, SQLite's vectors) bring what they hold in
        step with the store and remove only the removed memories' entries, so the next
        search reloads nothing: the work is the removed memories', not the namespace's.
        Others drop all they hold of the namespace (``evict``), as do all when that fails."""
        indexes = (self.lexical, self.vectors)
        try:
            with self.read() as conn:
                for index in indexes:
                    scrub = getattr(index, "scrub", None)
                    if scrub is None:
                        index.evict(namespace)
                    else:
                        scrub(conn, namespace)
        except BaseException:
            for index in indexes:  # whatever failed, no removed content stays behind
                index.evict(namespace)
            raise
        if self.dialect == "sqlite" and self.path is not None:
            from zenbrain._storage.sqlite.engine import truncate_wal

            try:
                truncate_wal(self.engine)
            except _driver_errors() as exc:
                raise storage_error(exc, "truncating the -wal of", self.where) from exc

    def close(self) -> None:
        self.engine.dispose()
