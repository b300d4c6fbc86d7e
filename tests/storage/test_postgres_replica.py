"""Opening a store on a PostgreSQL server that accepts only reads (as a read replica does),
on the real server: a role with ``default_transaction_read_only`` stands in for a replica,
which refuses every write, DDL included, the same way."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, make_url, text

from zenbrain import MemoryCoordinator
from zenbrain.errors import DatabaseNotWritableError, StorageError
from zenbrain.providers import HashingEmbedder
from zenbrain.testing.postgres import fresh_database

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg_url(postgres_url: str) -> Iterator[str]:
    with fresh_database(postgres_url) as url:
        yield url


@pytest.fixture
def reader_url(pg_url: str) -> Iterator[str]:
    """The same database through a login role whose transactions are read-only."""
    role = f"zb_reader_{os.getpid()}"
    engine = create_engine(pg_url, isolation_level="AUTOCOMMIT")
    database = make_url(pg_url).database
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql(f"DROP ROLE IF EXISTS {role}")
            conn.exec_driver_sql(f"CREATE ROLE {role} LOGIN")
            conn.exec_driver_sql(f"ALTER ROLE {role} SET default_transaction_read_only = on")
            conn.exec_driver_sql(f'GRANT CONNECT ON DATABASE "{database}" TO {role}')
            conn.exec_driver_sql(f"GRANT USAGE ON SCHEMA public TO {role}")
            # Every right a writer has: only the read-only mode refuses its writes.
            conn.exec_driver_sql(
                "ALTER DEFAULT PRIVILEGES IN SCHEMA public "
                f"GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {role}"
            )
            conn.exec_driver_sql(
                f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE ON SEQUENCES TO {role}"
            )
        yield make_url(pg_url).set(username=role).render_as_string(hide_password=False)
    finally:
        with engine.connect() as conn:
            conn.exec_driver_sql(f"DROP OWNED BY {role}")
            conn.exec_driver_sql(f"DROP ROLE IF EXISTS {role}")
        engine.dispose()


def _memories(url: str) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(text("SELECT count(*) FROM zb_memories")).scalar_one())
    finally:
        engine.dispose()


def test_a_read_only_server_opens_a_current_store_and_recalls(pg_url: str, reader_url: str) -> None:
    embedder = HashingEmbedder(dimension=32)
    with MemoryCoordinator(pg_url, namespace="anna", embedder=embedder) as primary:
        primary.store("Anna's staging database runs PostgreSQL 17")
        primary.store_many([f"unrelated note {i} about gardening" for i in range(20)])
    with MemoryCoordinator(reader_url, namespace="anna", embedder=embedder) as replica:
        with replica.database.engine.connect() as conn:
            assert conn.exec_driver_sql("SHOW transaction_read_only").scalar() == "on"
        found = replica.recall("which PostgreSQL does staging run", limit=3)
        assert found[0].content == "Anna's staging database runs PostgreSQL 17"
        assert replica.find(limit=100)
        # Every call that only reads works there.
        assert replica.health()
        assert replica.namespaces() == ["anna"]
        replica.core_blocks()
        replica.core_context()
        replica.review_queue()
        replica.merge_candidates()
        with pytest.raises(DatabaseNotWritableError, match="accepts only reads"):
            replica.forget(found[0].id, found[0].layer)
        with pytest.raises(DatabaseNotWritableError, match="accepts only reads"):
            replica.store("a write sent to the replica")
    assert _memories(pg_url) == 21


def test_a_read_only_server_refuses_to_open_a_missing_store(reader_url: str) -> None:
    with pytest.raises(StorageError, match="open it once on the primary"):
        MemoryCoordinator(reader_url)


def test_a_read_only_server_refuses_to_open_a_store_that_needs_migrating(
    pg_url: str, reader_url: str
) -> None:
    with MemoryCoordinator(pg_url) as primary:
        primary.store("a note")
        with primary.database.engine.begin() as conn:  # as if a step had not run yet
            conn.exec_driver_sql("DELETE FROM zb_migrations WHERE name = 'record_text_version'")
    with pytest.raises(StorageError, match="open it once on the primary"):
        MemoryCoordinator(reader_url)
    with MemoryCoordinator(pg_url):  # the primary migrates it
        pass
    with MemoryCoordinator(reader_url) as replica:
        assert replica.recall("note", limit=1)[0].content == "a note"
