"""Opening a store while other processes write or open it, on real files and processes."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from zenbrain import DatabaseNotWritableError, MemoryCoordinator, StorageError
from zenbrain._storage.sqlite import engine as sqlite_backend
from zenbrain.testing.postgres import fresh_database

# Takes SQLite's write lock on a file and holds it for a while, like a long write elsewhere,
# in the given journal mode.
LOCK_HOLDER = textwrap.dedent(
    """
    import sqlite3, sys, time
    path, seconds, journal = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA journal_mode = {journal}")
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("CREATE TABLE IF NOT EXISTS other_program(x)")
    print("locked", flush=True)
    time.sleep(seconds)
    conn.execute("COMMIT")
    """
)

# Opens the store again and again, then stores one memory; prints how many calls failed.
OPENER = textwrap.dedent(
    """
    import sys
    from zenbrain import MemoryCoordinator
    location, tag, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    failures = 0
    for i in range(rounds):
        try:
            MemoryCoordinator(location).close()
        except Exception as exc:
            failures += 1
            print(f"{type(exc).__name__}: {exc}"[:300], file=sys.stderr)
    try:
        with MemoryCoordinator(location) as memory:
            memory.store(f"{tag} stored after {rounds} opens")
    except Exception as exc:
        failures += 1
        print(f"{type(exc).__name__}: {exc}"[:300], file=sys.stderr)
    print(failures)
    """
)


@contextmanager
def lock_held(path: Path, seconds: float, journal: str = "WAL") -> Iterator[subprocess.Popen[str]]:
    holder = subprocess.Popen(
        [sys.executable, "-c", LOCK_HOLDER, str(path), str(seconds), journal],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "locked"
        yield holder
    finally:
        holder.wait(timeout=60)


@pytest.mark.slow
def test_creating_a_store_waits_while_another_process_holds_the_write_lock(
    db_path: Path,
) -> None:
    """The busy timeout is 30 s; the old writability probe gave up after sqlite3's 5 s."""
    with lock_held(db_path, seconds=7.0):
        started = time.monotonic()
        with MemoryCoordinator(db_path) as memory:
            waited = time.monotonic() - started
            memory_id = memory.store("stored once the other writer finished")
    assert waited > 5.0  # it really waited past the old limit instead of failing
    with MemoryCoordinator(db_path) as memory:
        assert memory.get(memory_id) is not None


@pytest.mark.slow
def test_opening_an_existing_store_waits_for_a_writer(db_path: Path) -> None:
    MemoryCoordinator(db_path).close()
    with lock_held(db_path, seconds=6.0), MemoryCoordinator(db_path) as memory:
        memory_id = memory.store("written after the lock was released")
    with MemoryCoordinator(db_path) as memory:
        assert memory.get(memory_id) is not None


def test_a_new_store_waits_to_enter_wal_mode_while_another_program_writes(
    db_path: Path,
) -> None:
    """The first opener switches the file to WAL mode: a read, then a write lock. SQLite
    fails that upgrade at once, without its busy handler, while another connection writes
    (as when several processes create one store at once); the open must wait instead."""
    with lock_held(db_path, seconds=1.5, journal="DELETE"), MemoryCoordinator(db_path) as memory:
        memory_id = memory.store("stored once the other program committed")
    with MemoryCoordinator(db_path) as memory:
        assert memory.get(memory_id) is not None
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_entering_wal_mode_waits_no_longer_than_the_busy_timeout(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_backend, "BUSY_TIMEOUT_MS", 300)
    with lock_held(db_path, seconds=4.0, journal="DELETE"):
        started = time.monotonic()
        with pytest.raises(StorageError, match="another process held its write lock"):
            MemoryCoordinator(db_path)
        waited = time.monotonic() - started
    assert 0.3 <= waited < 3.0


def test_a_lock_held_too_long_gives_an_error_that_does_not_blame_the_path(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    MemoryCoordinator(db_path).close()
    monkeypatch.setattr(sqlite_backend, "BUSY_TIMEOUT_MS", 300)
    with lock_held(db_path, seconds=4.0), pytest.raises(StorageError) as raised:
        MemoryCoordinator(db_path)
    message = str(raised.value)
    assert "another process held its write lock" in message
    assert "ZENBRAIN_DB" not in message
    assert not isinstance(raised.value, DatabaseNotWritableError)


def _run_openers(location: str, processes: int, rounds: int) -> tuple[int, list[str]]:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", OPENER, location, f"p{n}", str(rounds)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(processes)
    ]
    failures, errors = 0, []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        failures += int(out.split()[-1])
        errors += [line for line in err.splitlines() if line.strip()]
    return failures, errors


@pytest.mark.slow
def test_concurrent_opens_of_a_new_store_never_fail(store_location: str) -> None:
    """Four processes create and reopen one store at once (the old probe table raced:
    "no such table: zb_probe"; PostgreSQL's CREATE ... IF NOT EXISTS races too)."""
    processes, rounds = 4, (30 if "://" not in store_location else 12)
    failures, errors = _run_openers(store_location, processes, rounds)
    assert (failures, errors) == (0, []), "\n".join(errors)
    with MemoryCoordinator(store_location) as memory:
        assert memory.health().semantic["count"] == processes


def test_a_damaged_file_is_named_as_damaged(db_path: Path) -> None:
    db_path.write_bytes(b"this is not a database, just some bytes " * 200)
    with pytest.raises(StorageError) as raised:
        MemoryCoordinator(db_path)
    assert "damaged or not a SQLite database" in str(raised.value)
    assert "ZENBRAIN_DB" not in str(raised.value)


def test_an_impossible_folder_advises_another_path(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(DatabaseNotWritableError, match="ZENBRAIN_DB"):
        MemoryCoordinator(blocker / "memory.db")


@pytest.mark.slow
@pytest.mark.postgres
def test_concurrent_first_opens_of_a_database_without_pgvector_never_fail(
    postgres_url: str,
) -> None:
    """The first opens also create the vector extension; that must not race either."""
    with fresh_database(postgres_url, required_extensions=(), optional_extensions=()) as url:
        failures, errors = _run_openers(url, processes=4, rounds=5)
        assert (failures, errors) == (0, [])
