"""The content-hash index comparison (benchmarks/speed/content_index.py) on small stores: each
layout really is the one measured, and the write-ahead log's pages are attributed to their
tables."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from benchmarks.common.synthetic_corpus import make_corpus
from benchmarks.speed import content_index


def test_each_layout_writes_its_own_index(tmp_path: Path) -> None:
    size = 3000
    texts = make_corpus(size + content_index.EXTRA_BATCHES * content_index.BATCH, 1).memories
    old = content_index.measure_layout(texts, size, 4, tmp_path)
    new = content_index.measure_layout(texts, size, 5, tmp_path)
    assert "zb_memories_content_hash" in old.pages_by_owner
    assert "zb_memories_content_by_block" not in old.pages_by_owner
    assert "zb_memories_content_by_block" in new.pages_by_owner
    assert "zb_memories_content_hash" not in new.pages_by_owner
    for run in (old, new):
        assert run.pages_by_owner["zb_memories"] > 0
        assert run.pages_per_batch == pytest.approx(sum(run.pages_by_owner.values()))
        assert run.rate > 0 and run.last_tenth_rate > 0 and run.forget_p50_ms > 0


def test_wal_pages_are_counted_per_table(tmp_path: Path) -> None:
    database = tmp_path / "wal.db"
    conn = sqlite3.connect(database, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA wal_autocheckpoint = 0")
        conn.execute("CREATE TABLE small (x)")
        conn.execute("CREATE TABLE big (x)")
        conn.execute("INSERT INTO small VALUES (1)")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO big VALUES (?)", [("x" * 1000,) for _ in range(200)])
        conn.execute("COMMIT")
        pages = content_index.wal_pages_by_owner(database, batches=2)
    finally:
        conn.close()
    assert pages["big"] >= 200 * 1000 / 4096 / 2  # two batches: per batch, half the pages
    assert "small" not in pages


def test_the_command_line_refuses_sizes_and_layouts_it_cannot_measure() -> None:
    for argv in (["--size", "999"], ["--layouts", "3"], ["--rounds", "0"]):
        with pytest.raises(SystemExit) as stopped:
            content_index.main(argv)
        assert stopped.value.code == 2
