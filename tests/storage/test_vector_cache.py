"""The SQLite vector cache stays correct across writes in this process and in others."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from zenbrain import MemoryCoordinator
from zenbrain.providers import HashingEmbedder


def ids(memory: MemoryCoordinator, query: str) -> list[str]:
    return [r.content for r in memory.recall(query, layers=["semantic"], limit=3, min_score=0.01)]


def test_cache_follows_writes_and_deletes_in_process(db_path: Path) -> None:
    with MemoryCoordinator(db_path, embedder=HashingEmbedder(dimension=64)) as memory:
        memory.store_many([f"filler note number {i}" for i in range(100)])
        assert "quasar telescope observation" not in ids(memory, "quasar telescope")
        memory.recall("warm the cache", layers=["semantic"])
        cached = memory.database.vectors._cache[(memory.namespace, "semantic")]  # type: ignore[attr-defined]
        new = memory.store("quasar telescope observation")
        assert memory.database.vectors._cache[(memory.namespace, "semantic")] is cached  # type: ignore[attr-defined]
        assert ids(memory, "quasar telescope")[0] == "quasar telescope observation"
        memory.forget(new, "semantic")
        assert "quasar telescope observation" not in ids(memory, "quasar telescope")


def test_cache_picks_up_another_process(db_path: Path) -> None:
    with MemoryCoordinator(db_path, embedder=HashingEmbedder(dimension=64)) as memory:
        memory.store_many([f"filler note number {i}" for i in range(50)])
        memory.recall("warm the cache", layers=["semantic"])
        script = textwrap.dedent(
            f"""
            from zenbrain import MemoryCoordinator
            from zenbrain.providers import HashingEmbedder
            with MemoryCoordinator({str(db_path)!r}, embedder=HashingEmbedder(dimension=64)) as m:
                m.store("pulsar radio signal")
                doomed = m.recall("filler note number 7", layers=["semantic"], limit=1)[0]
                m.forget(doomed.id, "semantic")
            """
        )
        subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
        assert ids(memory, "pulsar radio signal")[0] == "pulsar radio signal"
        remaining = memory.recall("filler note number 7", layers=["semantic"], limit=60)
        assert "filler note number 7" not in [r.content for r in remaining]
        assert memory.health().semantic["count"] == 50
