"""SQLite connections: the pragmas every connection gets, and write transactions that
start with ``BEGIN IMMEDIATE``."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import Connection, Engine, event

__all__ = ["BUSY_TIMEOUT_MS", "PAGE_CACHE_KIB", "configure_sqlite_engine", "truncate_wal"]

BUSY_TIMEOUT_MS = 30_000
PAGE_CACHE_KIB = 16_384
"""Page cache per connection (SQLite's default is 2 MiB): at 100k memories the indexes of a
bulk write no longer fit in 2 MiB, and each insert then re-reads pages from the OS."""


def configure_sqlite_engine(engine: Engine, *, wal: bool) -> None:
    """Pragmas on every connection; transactions that write start with BEGIN IMMEDIATE, so two
    processes never deadlock upgrading a read lock (they wait on the busy timeout instead)."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute(f"PRAGMA cache_size = -{PAGE_CACHE_KIB}")  # negative: KiB, not pages
        # Deleted content is overwritten with zeros, not left in free space: a purge
        # leaves nothing in the file (docs/guide/privacy.md; it costs writes little).
        cursor.execute("PRAGMA secure_delete = ON")
        if wal:
            _enter_wal_mode(cursor)
            cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        if conn.get_execution_options().get("zenbrain_write"):
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            conn.exec_driver_sql("BEGIN")


def _enter_wal_mode(cursor: Any) -> None:
    """``PRAGMA journal_mode = WAL``, retried while another connection writes.

    Switching a file into WAL mode (once, by the first opener of a new store) reads its
    header and then upgrades to a write lock. SQLite does not call the busy handler for an
    upgrade from a read, so when another process writes at that moment, or several open a
    new store at once, the pragma fails at once with "database is locked" instead of
    waiting. It is retried here for as long as the busy timeout allows."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    pause = 0.001
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except Exception as exc:  # sqlite3's or (an encrypted store) sqlcipher3's error
            if type(exc).__name__ != "OperationalError" or "locked" not in str(exc):
                raise
            if time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def truncate_wal(engine: Engine) -> None:
    """Copy the ``-wal`` into the file and truncate it to nothing: the pages it held
    before a purge (with the purged content) go with it. Waits on the busy timeout for
    readers; a reader in another process still inside a transaction keeps the log until
    the next checkpoint (the pages are then overwritten as the log is reused)."""
    raw = engine.raw_connection()
    try:
        raw.driver_connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()  # type: ignore[union-attr]
    finally:
        raw.close()
