"""Versioned migrations: stores written by the schema-1 release (fixtures/) open, migrate
once, and keep everything; the text version is recorded and a change re-indexes."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import inspect, text
from sqlalchemy.engine import make_url

from zenbrain import MemoryCoordinator, SchemaVersionError, StorageError
from zenbrain._storage import migrations
from zenbrain._storage.migrations import MIGRATIONS, Migration, applied_migrations
from zenbrain._storage.records import content_hash
from zenbrain._storage.schema import SCHEMA_VERSION
from zenbrain.providers import HashingEmbedder
from zenbrain.testing.postgres import fresh_database
from zenbrain.text import TEXT_VERSION

FIXTURES = Path(__file__).parent / "fixtures"
FIXTURE_EMBEDDER_DIMENSION = 64  # make_fixtures.EMBEDDER_DIMENSION


def _restore_sql(url: str, script: Path) -> None:
    parsed = make_url(url)
    conninfo = (
        f"host={parsed.host} port={parsed.port} user={parsed.username} dbname={parsed.database}"
    )
    if parsed.password:
        conninfo += f" password={parsed.password}"
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute(script.read_text())  # type: ignore[arg-type]  # a trusted fixture


@pytest.fixture(
    params=[
        "v1.db",
        pytest.param("v1-postgres.sql", marks=pytest.mark.postgres),
        pytest.param("v1-postgres-before-lexical-counts.sql", marks=pytest.mark.postgres),
        pytest.param("v2-postgres.sql", marks=pytest.mark.postgres),
        "v3.db",
        pytest.param("v3-postgres.sql", marks=pytest.mark.postgres),
        "v4.db",
        pytest.param("v4-postgres.sql", marks=pytest.mark.postgres),
    ]
)
def old_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A copy of a store written by the previous release (see fixtures/README.md)."""
    name: str = request.param
    if name.endswith(".db"):
        target = tmp_path / name
        shutil.copy(FIXTURES / name, target)
        yield str(target)
        return
    server = request.getfixturevalue("postgres_url")
    with fresh_database(server) as url:
        _restore_sql(url, FIXTURES / name)
        yield url


def _meta(memory: MemoryCoordinator, key: str) -> str | None:
    return memory.database.get_meta(key)


def _steps(memory: MemoryCoordinator) -> dict[str, int]:
    with memory.database.read() as conn:
        return applied_migrations(conn)


def test_a_previous_release_store_migrates_and_keeps_everything(old_store: str) -> None:
    embedder = HashingEmbedder(FIXTURE_EMBEDDER_DIMENSION)
    with MemoryCoordinator(old_store, embedder=embedder) as memory:
        assert _steps(memory) == {step.name: step.version for step in MIGRATIONS}
        assert _meta(memory, "schema_version") == str(SCHEMA_VERSION)
        assert _meta(memory, "text_version") == str(TEXT_VERSION)
        health = memory.health()
        assert health.semantic["count"] == 6
        assert health.episodic["count"] == 1
        assert health.procedural["count"] == 1
        otters = memory.recall("otters", layers=["semantic"], limit=10)
        assert sorted(r.content for r in otters) == [
            f"Fixture fact number {i} about otters" for i in range(5)
        ]
        [episode] = memory.recall("Kiel", layers=["episodic"])
        assert episode.metadata["turn"] == 3
        assert episode.context == "personal"
        assert episode.created_at is not None and episode.created_at.year == 2024
        assert "payments engineer" in memory.core_context()
        [procedure] = memory.recall("deploy payments", layers=["procedural"])
        assert procedure.content.startswith("deploy the payments service")
        memory.start_session("fixture-session")  # resumes the stored session
        assert [i.content for i in memory.conversation()] == ["Where do I live?", "In Kiel."]
        tenant_b = memory.for_namespace("tenant-b")
        assert [r.content for r in tenant_b.recall("secrets")] == ["Tenant B keeps its own secrets"]
        assert memory.recall("secrets", layers=["semantic"], min_score=0.3) == []
        if memory.database.dialect == "postgresql":
            # Step 3 indexed every memory again, with its terms in order and its transaction
            # (what the postings are loaded from), and dropped the old per-term counts.
            with memory.database.read() as conn:
                unindexed = conn.exec_driver_sql(
                    "SELECT count(*) FROM zb_lexical WHERE ordered IS NULL OR changed IS NULL"
                ).scalar()
                dropped = conn.exec_driver_sql("SELECT to_regclass('zb_lexical_terms_df')")
                assert (unindexed, dropped.scalar()) == (0, None)
            lexical_only = MemoryCoordinator(old_store)  # no embedder: words alone
            try:
                found = lexical_only.recall("otters", layers=["semantic"], limit=10)
                assert len(found) == 5
            finally:
                lexical_only.close()
        _assert_steps_4_and_5(memory)
        # New writes work on the migrated store, with the old vectors and model.
        new_id = memory.store("A new fact about otters after the upgrade", layer="semantic")
        assert memory.get(new_id) is not None
        # Exact content is found by its hash: forgetting a memory names its twin.
        twin = memory.store("A new fact about otters after the upgrade", layer="episodic")
        forgotten = memory.forget(new_id, "semantic")
        assert forgotten.duplicates == [{"id": twin, "layer": "episodic"}]


def _assert_steps_4_and_5(memory: MemoryCoordinator) -> None:
    """Every memory has its content's hash, exact content is looked up by it through an index
    that leads with the key block (step 5), and SQLite holds its terms in ``zb_lexical``
    (FTS5's ``zb_fts`` is gone), one row per memory."""
    db = memory.database
    with db.read() as conn:
        stored = conn.exec_driver_sql("SELECT content, content_hash FROM zb_memories").all()
        assert stored and all(hashed == content_hash(body) for body, hashed in stored)
        # Read from the catalogue: SQLAlchemy's reflection skips indexes on expressions.
        indexes = set(
            conn.exec_driver_sql(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'zb_memories'"
                if db.dialect == "sqlite"
                else "SELECT indexname FROM pg_indexes WHERE tablename = 'zb_memories'"
            ).scalars()
        )
        assert "zb_memories_content_by_block" in indexes
        assert not indexes & {"zb_memories_content_hash", "zb_memories_content"}
        lexical_rows = conn.exec_driver_sql("SELECT count(*) FROM zb_lexical").scalar()
        assert lexical_rows == len(stored)
        if db.dialect == "sqlite":
            assert not inspect(conn).has_table("zb_fts")


def test_validity_is_backfilled_and_works(old_store: str) -> None:
    """Step 6 ("validity"): every stored memory was valid from its own time and is current;
    a new statement then closes an old one on the migrated store."""
    with MemoryCoordinator(old_store) as memory:
        found = memory.find()
        assert found and all(
            r.valid_from == r.created_at and r.valid_to is None and r.superseded_by is None
            for r in found
        )
        first = found[0]
        newer = memory.store("a newer version", supersedes=[first.id], layer=first.layer)
        assert [r.id for r in memory.history(first.id)] == [first.id, newer]


def test_every_step_runs_once(old_store: str) -> None:
    MemoryCoordinator(old_store).close()
    with MemoryCoordinator(old_store) as memory, memory.database.read() as conn:
        first = conn.execute(text("SELECT name, applied_at FROM zb_migrations")).all()
    MemoryCoordinator(old_store).close()
    with MemoryCoordinator(old_store) as memory, memory.database.read() as conn:
        again = conn.execute(text("SELECT name, applied_at FROM zb_migrations")).all()
    assert sorted(first) == sorted(again)
    assert len(first) == len(MIGRATIONS)


@pytest.mark.postgres
def test_postgres_document_counts_are_backfilled(postgres_url: str) -> None:
    """Before the migration step, a store from before ``zb_lexical_counts`` read N = 0."""
    with fresh_database(postgres_url) as url:
        _restore_sql(url, FIXTURES / "v1-postgres-before-lexical-counts.sql")
        with MemoryCoordinator(url) as memory, memory.database.read() as conn:
            counts = dict(
                conn.execute(
                    text("SELECT layer, count FROM zb_lexical_counts WHERE namespace = 'default'")
                ).all()
            )
            assert counts == {"semantic": 6, "episodic": 1, "procedural": 1, "core": 1}
            lexical = memory.database.lexical
            [counted] = lexical.statistics(conn, "tenant-b", ["semantic"], [], None).values()
            assert counted.documents == 1


def _columns(memory: MemoryCoordinator, table: str) -> set[str]:
    with memory.database.read() as conn:
        return set(conn.execute(text(f"SELECT * FROM {table} LIMIT 0")).keys())


def test_a_version_5_store_gets_its_lexical_columns_from_version_6(store_location: str) -> None:
    """The columns the lexical indexes once added on every open come from migration steps."""
    with MemoryCoordinator(store_location) as memory:
        memory.store("Penguins huddle together in the Antarctic winter", layer="semantic")
        postgres = memory.database.dialect == "postgresql"
        with memory.database.write() as conn:  # back to what a version-5 store could lack
            if postgres:
                conn.execute(text("DROP INDEX zb_lexical_changed"))
                conn.execute(text("ALTER TABLE zb_lexical DROP COLUMN changed"))
                conn.execute(text("ALTER TABLE zb_lexical_counts DROP COLUMN length"))
            else:
                conn.execute(text("ALTER TABLE zb_lexical_lengths DROP COLUMN changes"))
            conn.execute(text("DELETE FROM zb_migrations WHERE version >= 6"))
            conn.execute(text("UPDATE zb_meta SET value = '5' WHERE key = 'schema_version'"))
    with MemoryCoordinator(store_location) as memory:
        step = "postgres_lexical_columns" if postgres else "sqlite_lexical_changes"
        assert _steps(memory)[step] == 6
        assert _meta(memory, "schema_version") == str(SCHEMA_VERSION)
        if postgres:
            assert "changed" in _columns(memory, "zb_lexical")
            assert "zb_lexical_changed" in {
                index["name"] for index in inspect_indexes(memory, "zb_lexical")
            }
            with memory.database.read() as conn:
                length = conn.execute(text("SELECT sum(length) FROM zb_lexical_counts")).scalar()
            assert length == 5  # penguin huddl togeth antarct winter: filled from the index
        else:
            assert "changes" in _columns(memory, "zb_lexical_lengths")
        memory.store("Penguins dive for krill", layer="semantic")
        assert len(memory.recall("penguins", layers=["semantic"], limit=10)) == 2


def inspect_indexes(memory: MemoryCoordinator, table: str) -> list[dict[str, object]]:
    with memory.database.read() as conn:
        return list(inspect(conn).get_indexes(table))  # type: ignore[arg-type]


def test_a_garbled_schema_version_is_refused_clearly(store_location: str) -> None:
    MemoryCoordinator(store_location).close()
    with MemoryCoordinator(store_location) as memory, memory.database.write() as conn:
        conn.execute(text("UPDATE zb_meta SET value = 'two' WHERE key = 'schema_version'"))
    with pytest.raises(SchemaVersionError, match=r"'two'.*damaged"):
        MemoryCoordinator(store_location)


def test_a_new_store_records_every_step_and_the_text_version(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        assert _steps(memory) == {step.name: step.version for step in MIGRATIONS}
        assert _meta(memory, "text_version") == str(TEXT_VERSION)


def test_a_changed_text_version_rebuilds_the_lexical_index(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        memory.store("Penguins huddle together in the Antarctic winter", layer="semantic")
        memory.store("check the pumps", layer="procedural", steps=["open valve"], outcome="dry")
        memory.set_core_block("persona", "likes penguins")
        with memory.database.write() as conn:
            # As if the index had been written by an older tokeniser: its terms are gone.
            conn.execute(text("DELETE FROM zb_lexical"))
            conn.execute(text("UPDATE zb_meta SET value = '0' WHERE key = 'text_version'"))
    with MemoryCoordinator(store_location) as memory:
        assert _meta(memory, "text_version") == str(TEXT_VERSION)
        with memory.database.read() as conn:
            lexical = memory.database.lexical
            found = lexical.candidates(conn, "default", "semantic", ["penguin"], None, 10)
            assert len(found) == 1
            assert lexical.candidates(conn, "default", "procedural", ["valv"], None, 10)
            assert lexical.candidates(conn, "default", "core", ["persona"], None, 10)
            [counted] = lexical.statistics(conn, "default", ["semantic"], [], None).values()
            assert counted.documents == 1


def test_a_failing_step_rolls_back_alone_and_runs_on_the_next_open(
    store_location: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    MemoryCoordinator(store_location).close()
    calls: list[str] = []

    def add_column_then_fail(db: object, conn: object) -> None:
        migrations.add_column(conn, "zb_sessions", "title TEXT")  # type: ignore[arg-type]
        calls.append("ran")
        if len(calls) == 1:
            raise RuntimeError("disk on fire")

    step = Migration(SCHEMA_VERSION + 1, "add_session_title", add_column_then_fail)
    monkeypatch.setattr(migrations, "MIGRATIONS", (*MIGRATIONS, step))
    monkeypatch.setattr(migrations, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(StorageError, match=r"add_session_title.*disk on fire"):
        MemoryCoordinator(store_location)
    with MemoryCoordinator(store_location) as memory:
        assert _steps(memory)["add_session_title"] == SCHEMA_VERSION + 1
        assert _meta(memory, "schema_version") == str(SCHEMA_VERSION + 1)
        with memory.database.read() as conn:
            conn.execute(text("SELECT title FROM zb_sessions")).all()
    MemoryCoordinator(store_location).close()
    assert calls == ["ran", "ran"]  # once failed and rolled back, once applied, then never


def test_the_version_4_sqlite_fixture_is_still_the_old_schema() -> None:
    with sqlite3.connect(FIXTURES / "v4.db") as conn:
        version = conn.execute("SELECT value FROM zb_meta WHERE key='schema_version'").fetchone()
        indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert version == ("4",)
    assert "zb_memories_content_hash" in indexes
    assert "zb_memories_content_by_block" not in indexes


def test_the_version_3_sqlite_fixture_is_still_the_old_schema() -> None:
    with sqlite3.connect(FIXTURES / "v3.db") as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        version = conn.execute("SELECT value FROM zb_meta WHERE key='schema_version'").fetchone()
        columns = {r[1] for r in conn.execute("PRAGMA table_info(zb_memories)")}
    assert version == ("3",)
    assert "zb_fts" in tables and "zb_lexical" not in tables
    assert "content_hash" not in columns


def test_the_sqlite_fixture_is_still_the_old_schema() -> None:
    """Guards the fixture itself: it must keep holding what the previous release wrote."""
    with sqlite3.connect(FIXTURES / "v1.db") as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        version = conn.execute("SELECT value FROM zb_meta WHERE key='schema_version'").fetchone()
    assert "zb_migrations" not in tables
    assert version == ("1",)
