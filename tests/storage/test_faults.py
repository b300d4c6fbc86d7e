"""Faults: a process killed (SIGKILL) in the middle of a large ``store_many`` and of
``consolidate()``, broken embedders, and a damaged file. Every case must leave a store that
opens, is internally consistent, and keeps working; errors are ``ZenbrainError``s."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import event, text

from zenbrain import (
    DatabaseNotWritableError,
    MemoryCoordinator,
    ProviderError,
    StorageError,
    ZenbrainError,
)
from zenbrain.providers import HashingEmbedder

BATCH = 2_000

# Stores batches of BATCH memories, each batch one store_many call, until killed.
BATCH_WRITER = textwrap.dedent(
    f"""
    import sys
    from zenbrain import MemoryCoordinator
    from zenbrain.providers import HashingEmbedder
    with MemoryCoordinator(sys.argv[1], embedder=HashingEmbedder(32)) as memory:
        for batch in range(1000):
            print("batch", batch, flush=True)
            memory.store_many(
                [{{"content": f"batch {{batch}} item {{i}} about kites", "layer": "semantic"}}
                 for i in range({BATCH})]
            )
    """
)

# Consolidates again and again (a few episodes per call with the summariser's pace).
CONSOLIDATOR = textwrap.dedent(
    """
    import sys
    from zenbrain import MemoryCoordinator
    from zenbrain.providers import HashingEmbedder
    with MemoryCoordinator(sys.argv[1], embedder=HashingEmbedder(32)) as memory:
        print("consolidating", flush=True)
        while memory.consolidate().promoted:
            pass
        print("finished", flush=True)
    """
)


def _kill_after(proc: subprocess.Popen[str], marker: str, seconds: float) -> None:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        assert line, "the child ended before it could be killed"
        if line.startswith(marker):
            break
    time.sleep(seconds)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)


def _scalar(memory: MemoryCoordinator, sql: str) -> int:
    with memory.database.read() as conn:
        return int(conn.execute(text(sql)).scalar_one())


def _assert_consistent(memory: MemoryCoordinator) -> None:
    """Rows and every index agree."""
    db = memory.database
    rows = _scalar(memory, "SELECT count(*) FROM zb_memories")
    assert _scalar(memory, "SELECT count(*) FROM zb_facts") == _scalar(
        memory, "SELECT count(*) FROM zb_memories WHERE layer = 'semantic'"
    )
    if db.dialect == "sqlite":
        with db.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"
        assert _scalar(memory, "SELECT count(*) FROM zb_lexical") == rows
        assert _scalar(memory, "SELECT count(*) FROM zb_vectors") == rows
        assert _scalar(memory, "SELECT coalesce(sum(count), 0) FROM zb_vector_versions") == rows
    else:
        assert _scalar(memory, "SELECT count(*) FROM zb_lexical") == rows
        assert _scalar(memory, "SELECT count(*) FROM zb_pgvectors") == rows
        assert _scalar(memory, "SELECT coalesce(sum(count), 0) FROM zb_lexical_counts") == rows


@pytest.mark.slow
def test_sigkill_during_store_many_loses_no_committed_batch(store_location: str) -> None:
    with MemoryCoordinator(store_location, embedder=HashingEmbedder(32)) as memory:
        kept = memory.store("committed before the crash", layer="semantic")
    proc = subprocess.Popen(
        [sys.executable, "-c", BATCH_WRITER, store_location], stdout=subprocess.PIPE, text=True
    )
    _kill_after(proc, "batch 1", 0.5)  # while the second batch is being written
    with MemoryCoordinator(store_location, embedder=HashingEmbedder(32)) as memory:
        semantic = memory.health().semantic["count"]
        assert (semantic - 1) % BATCH == 0, "a batch was half written"
        assert semantic - 1 < 1000 * BATCH
        assert memory.get(kept) is not None
        _assert_consistent(memory)
        memory.store_many(["after the crash one", "after the crash two"])
        assert memory.recall("after the crash", limit=2)
        _assert_consistent(memory)


@pytest.mark.slow
def test_sigkill_during_consolidate_leaves_links_and_facts_consistent(
    store_location: str,
) -> None:
    episodes = 300
    with MemoryCoordinator(store_location, embedder=HashingEmbedder(32)) as memory:
        memory.store_many(
            [
                {
                    "content": f"Episode {i}: the storm at sea",
                    "layer": "episodic",
                    "emotional_weight": 0.9,
                }
                for i in range(episodes)
            ]
        )
    proc = subprocess.Popen(
        [sys.executable, "-c", CONSOLIDATOR, store_location], stdout=subprocess.PIPE, text=True
    )
    _kill_after(proc, "consolidating", 1.0)
    with MemoryCoordinator(store_location, embedder=HashingEmbedder(32)) as memory:
        _assert_consistent(memory)
        orphans = _scalar(
            memory,
            "SELECT count(*) FROM zb_consolidation_links l WHERE NOT EXISTS "
            "(SELECT 1 FROM zb_memories m WHERE m.id = l.fact_id)",
        )
        assert orphans == 0
        unlinked = _scalar(
            memory,
            "SELECT count(*) FROM zb_memories m WHERE m.source = 'consolidation' AND NOT EXISTS "
            "(SELECT 1 FROM zb_consolidation_links l WHERE l.fact_id = m.id)",
        )
        assert unlinked == 0
        while memory.consolidate().promoted:
            pass
        assert _scalar(memory, "SELECT count(*) FROM zb_consolidation_links") == episodes
        facts = _scalar(memory, "SELECT count(*) FROM zb_memories WHERE source = 'consolidation'")
        assert facts == episodes  # each episode promoted exactly once
        _assert_consistent(memory)


class BrokenEmbedder:
    """An embedder that misbehaves in one chosen way once ``broken`` is set (it must work
    while the store is opened: calibration embeds a few sentences)."""

    model_id = "broken-test-embedder"
    dimension = 8

    def __init__(self, fault: str) -> None:
        self.fault = fault
        self.broken = False

    def _rows(self, texts: Sequence[str]) -> object:
        rng = np.random.default_rng(len(texts))
        good = rng.normal(size=(len(texts), self.dimension)).astype(np.float32)
        if not self.broken:
            return good
        if self.fault == "raises":
            raise RuntimeError("the model server is down")
        if self.fault == "wrong shape":
            return good[:, :4]
        if self.fault == "too few rows":
            return good[:-1]
        if self.fault == "nan":
            good[0, 0] = np.nan
            return good
        if self.fault == "inf":
            good[-1, 1] = np.inf
            return good
        if self.fault == "ragged":
            return [list(map(float, row)) for row in good[:-1]] + [[1.0, 2.0]]
        if self.fault == "strings":
            return [["a"] * self.dimension for _ in texts]
        raise AssertionError(self.fault)

    def embed_documents(self, texts: Sequence[str]) -> object:
        return self._rows(texts)

    def embed_queries(self, texts: Sequence[str]) -> object:
        return self._rows(texts)


FAULTS = ["raises", "wrong shape", "too few rows", "nan", "inf", "ragged", "strings"]


@pytest.mark.parametrize("fault", FAULTS)
def test_a_broken_embedder_stores_nothing_and_raises_a_zenbrain_error(
    store_location: str, fault: str
) -> None:
    embedder = BrokenEmbedder(fault)
    with MemoryCoordinator(store_location, embedder=embedder) as memory:  # type: ignore[arg-type]
        memory.store("stored while the embedder worked", layer="semantic")
        embedder.broken = True
        for call in (
            lambda: memory.store("a new fact", layer="semantic"),
            lambda: memory.store_many(["one", "two", "three"]),
            lambda: memory.set_core_block("persona", "someone"),
            lambda: memory.recall("stored"),
        ):
            with pytest.raises(ProviderError):
                call()
        assert memory.health().semantic["count"] == 1
        assert memory.core_blocks() == []
        embedder.broken = False
        memory.store("stored once it worked again", layer="semantic")
        assert memory.health().semantic["count"] == 2


@pytest.mark.parametrize("fault", ["raises", "nan", "wrong shape"])
def test_a_failed_open_does_not_bind_the_store_to_the_broken_model(
    store_location: str, fault: str
) -> None:
    embedder = BrokenEmbedder(fault)
    embedder.broken = True
    with pytest.raises(ZenbrainError):
        MemoryCoordinator(store_location, embedder=embedder)  # type: ignore[arg-type]
    with MemoryCoordinator(store_location, embedder=HashingEmbedder(16)) as memory:
        memory.store("the working model is accepted")
        assert memory.recall("working model")


def _damage(path: Path, fraction_from: float, fraction_to: float) -> None:
    size = path.stat().st_size
    with open(path, "r+b") as handle:
        handle.seek(int(size * fraction_from))
        handle.write(os.urandom(int(size * (fraction_to - fraction_from))))


def test_a_damaged_file_gives_storage_errors_not_driver_errors(db_path: Path) -> None:
    with MemoryCoordinator(db_path) as memory:
        memory.store_many([f"note {i} about gardening and tomatoes" for i in range(3000)])
        fid = memory.store("a fact to look up", layer="semantic")
    with sqlite3.connect(db_path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    _damage(db_path, 0.3, 0.9)
    outcomes: list[str] = []
    calls = {
        "open": lambda: MemoryCoordinator(db_path).close(),
        "recall": lambda: MemoryCoordinator(db_path).recall("tomatoes gardening", limit=50),
        "get": lambda: MemoryCoordinator(db_path).get(fid),
        "health": lambda: MemoryCoordinator(db_path).health(),
        "store": lambda: MemoryCoordinator(db_path).store("written into a damaged file"),
    }
    for name, call in calls.items():
        try:
            call()
            outcomes.append(f"{name}: worked")
        except StorageError as exc:
            assert "damaged" in str(exc) or "failed" in str(exc), str(exc)
            outcomes.append(f"{name}: StorageError")
        except Exception as exc:
            pytest.fail(f"{name} on a damaged file raised {type(exc).__name__}: {exc}")
    assert any("StorageError" in outcome for outcome in outcomes), outcomes


def _stored_counts(memory: MemoryCoordinator) -> dict[str, object]:
    health = memory.health()
    return {layer: getattr(health, layer) for layer in ("episodic", "semantic", "cross_context")}


def test_a_full_disk_rejects_a_batch_whole_and_the_store_keeps_working(db_path: Path) -> None:
    """SQLite's "database or disk is full", made by capping the file's pages on every new
    connection (``PRAGMA max_page_count``): the batch that does not fit raises a
    ZenbrainError naming the full disk, and nothing of it stays, in the file or in the
    indexes this process holds; once there is room, the store takes writes again."""
    with MemoryCoordinator(db_path, embedder=HashingEmbedder(32)) as memory:
        kept = memory.store_many(
            [f"Note {i}: Ada took the harbour ferry to Laboe." for i in range(200)]
        )
        before = _stored_counts(memory)
        recalled = [r.id for r in memory.recall("harbour ferry Laboe", limit=20)]
        with sqlite3.connect(db_path) as probe:
            cap = probe.execute("PRAGMA page_count").fetchone()[0] + 8

        def cap_pages(dbapi_connection: sqlite3.Connection, _record: object) -> None:
            dbapi_connection.execute(f"PRAGMA max_page_count = {cap}")

        engine = memory.database.engine
        event.listen(engine, "connect", cap_pages)
        engine.dispose()  # the pool's next connections open with the cap
        lost = [
            f"Lost batch {i}: Bruno rowed the harbour ferry to Laboe. {'spray ' * 60}"
            for i in range(2_000)
        ]
        with pytest.raises(DatabaseNotWritableError, match="disk is full"):
            memory.store_many(lost)
        assert _stored_counts(memory) == before
        assert [r.id for r in memory.recall("harbour ferry Laboe", limit=20)] == recalled
        assert not [r for r in memory.recall("Bruno rowed", limit=50) if "Bruno" in r.content]
        event.remove(engine, "connect", cap_pages)
        engine.dispose()
        later = memory.store("Stored once the disk had room again.")
    with MemoryCoordinator(db_path, embedder=HashingEmbedder(32)) as again:
        assert again.get(later) is not None
        assert all(again.get(memory_id) is not None for memory_id in kept)
        assert not [r for r in again.recall("Bruno rowed", limit=50) if "Bruno" in r.content]
