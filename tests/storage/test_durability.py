"""WAL, busy timeout, concurrent writers in real processes, reopening, schema version."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from zenbrain import MemoryCoordinator, SchemaVersionError
from zenbrain._storage.schema import SCHEMA_VERSION

WRITER = textwrap.dedent(
    """
    import sys
    from zenbrain import MemoryCoordinator
    path, tag, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with MemoryCoordinator(path) as memory:
        for i in range(count):
            if i % 10 == 0:
                memory.store_many([f"{tag} batch item {i} {j}" for j in range(5)])
            else:
                memory.store(f"{tag} single item {i}")
    """
)


def test_two_processes_storing_concurrently_lose_nothing(db_path: Path) -> None:
    MemoryCoordinator(db_path).close()  # create the schema first
    count = 150
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(db_path), tag, str(count)])
        for tag in ("alpha", "beta")
    ]
    for proc in procs:
        assert proc.wait(timeout=300) == 0
    expected_per_writer = count - count // 10 + (count // 10) * 5
    with MemoryCoordinator(db_path) as memory:
        assert memory.health().semantic["count"] == 2 * expected_per_writer
        assert (
            memory.recall("alpha single item 149", min_score=0.5)[0].content
            == "alpha single item 149"
        )
        assert memory.recall("beta batch item 140", min_score=0.5)[0].content.startswith(
            "beta batch item 140"
        )


def test_data_survives_reopening(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        fid = memory.store("Persistent fact about otters")
        memory.set_core_block("persona", "likes otters")
        memory.start_session("chat")
        memory.add_interaction("user", "hi")
    with MemoryCoordinator(store_location) as memory:
        assert memory.get(fid) is not None
        assert memory.recall("otters", layers=["semantic"])[0].id == fid
        assert memory.core_context() == "[persona]: likes otters"
        assert [i.content for i in memory.conversation()] == ["hi"]


def test_wal_mode_and_busy_timeout(db_path: Path) -> None:
    with MemoryCoordinator(db_path) as memory:
        memory.store("x")
        with memory.database.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 5000
        assert Path(str(db_path) + "-wal").exists()


def test_schema_version_is_recorded_and_newer_versions_refused(db_path: Path) -> None:
    MemoryCoordinator(db_path).close()
    with sqlite3.connect(db_path) as conn:
        [(version,)] = conn.execute(
            "SELECT value FROM zb_meta WHERE key='schema_version'"
        ).fetchall()
        assert int(version) == SCHEMA_VERSION
        conn.execute(
            "UPDATE zb_meta SET value=? WHERE key='schema_version'", (str(SCHEMA_VERSION + 1),)
        )
    with pytest.raises(SchemaVersionError, match="upgrade zenbrain"):
        MemoryCoordinator(db_path)
