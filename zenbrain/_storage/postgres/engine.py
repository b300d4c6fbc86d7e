"""PostgreSQL connections: the engine and its pool, pgvector's extension and binary vectors
(the indexes: :mod:`.lexical` for words, :mod:`.vectors` for vectors).

Needs ``pip install 'zenbrain[postgres]'`` (psycopg 3 and pgvector) and a server where the
``vector`` extension is available (the library runs ``CREATE EXTENSION IF NOT EXISTS vector``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import URL, Engine, create_engine, event, make_url

from zenbrain._storage.dialect import POSTGRES_MIGRATION_LOCK
from zenbrain._storage.postgres.lexical import PostgresLexicalIndex
from zenbrain._storage.postgres.vectors import PostgresVectorIndex
from zenbrain.errors import InvalidInputError, MissingDependencyError, StorageError

__all__ = ["POOL_DEFAULTS", "open_postgres"]

POOL_DEFAULTS = {"pool_size": 8, "max_overflow": 8}
"""Connections per engine: kept open, and opened on top under load (URL parameters)."""
_POOL_MAX = 1000


def open_postgres(url: str) -> tuple[Engine, PostgresLexicalIndex, PostgresVectorIndex]:
    try:
        import pgvector.psycopg  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise MissingDependencyError(
            "PostgreSQL support needs psycopg and pgvector, which are not installed. "
            "Install them with: pip install 'zenbrain[postgres]'"
        ) from exc
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    target, pool = _pool_settings(url)
    engine = create_engine(target, pool_pre_ping=True, **pool)
    _send_vectors_in_binary(engine)
    try:
        if not _has_pgvector(engine):  # present: nothing to write (a replica can open)
            with engine.begin() as conn:
                # Concurrent CREATE EXTENSION IF NOT EXISTS can still collide: serialise
                # it with the migrations' lock, and look again under the lock.
                conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({POSTGRES_MIGRATION_LOCK})")
                present = conn.exec_driver_sql(
                    "SELECT 1 FROM pg_extension WHERE extname = 'vector'"
                ).scalar()
                if not present:
                    conn.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS vector")
    except Exception as exc:
        engine.dispose()
        raise StorageError(
            f"cannot prepare PostgreSQL at {engine.url.render_as_string(hide_password=True)}: "
            f"{exc}. The server needs the pgvector extension, and the user the right to "
            "CREATE EXTENSION (or ask an administrator to run CREATE EXTENSION vector once)."
        ) from exc
    return engine, PostgresLexicalIndex(), PostgresVectorIndex()


def _pool_settings(url: str) -> tuple[URL, dict[str, int]]:
    """The URL without zenbrain's own query parameters (``pool_size``, ``max_overflow``:
    the connection pool's size), and those settings (defaults 8 and 8)."""
    try:
        parsed = make_url(url)
    except Exception as exc:  # SQLAlchemy's ArgumentError, or a malformed port
        raise StorageError(f"cannot parse the PostgreSQL URL: {exc}") from exc
    pool = dict(POOL_DEFAULTS)
    for name, smallest in (("pool_size", 1), ("max_overflow", 0)):
        raw = parsed.query.get(name)
        if raw is None:
            continue
        value = raw[-1] if isinstance(raw, tuple) else raw
        if not value.isdigit() or not smallest <= int(value) <= _POOL_MAX:
            raise InvalidInputError(
                f"{name} in the PostgreSQL URL must be a whole number from {smallest} to "
                f"{_POOL_MAX}, got {value!r}"
            )
        pool[name] = int(value)
    return parsed.difference_update_query(POOL_DEFAULTS), pool


def _has_pgvector(engine: Engine) -> bool:
    with engine.connect() as conn:
        return bool(
            conn.exec_driver_sql("SELECT 1 FROM pg_extension WHERE extname = 'vector'").scalar()
        )


def _send_vectors_in_binary(engine: Engine) -> None:
    """Pass numpy arrays as pgvector values in binary: formatting 384 floats as text per row
    costs more than the insert itself."""
    from pgvector.psycopg import register_vector

    registered: set[int] = set()

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        try:
            register_vector(dbapi_connection)
            registered.add(id(dbapi_connection))
        except Exception:  # the extension is created after the first connection
            dbapi_connection.rollback()

    @event.listens_for(engine, "checkout")
    def _on_checkout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        if id(dbapi_connection) not in registered:
            try:
                register_vector(dbapi_connection)
            except Exception:  # the first open creates the extension on this connection
                dbapi_connection.rollback()
                return
            dbapi_connection.commit()
            registered.add(id(dbapi_connection))
