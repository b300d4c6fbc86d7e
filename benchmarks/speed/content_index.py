"""The content-hash index of schema 5 against schema 4's: store and forget rates, WAL pages.

Schema 5 keys the index by namespace, key block and hash, schema 4 by namespace and hash;
both on the SQLite back end. For each round and layout (interleaved, each in a fresh store)
it loads ``--size`` memories with ``store_many`` in batches of 1,000 and reports the rate of
the whole load and of its last tenth; then it writes ten more batches with checkpoints off
and counts the pages they put in the write-ahead log, by table or index (SQLite's
``dbstat``); last, the p50 of ``forget()`` over 50 stored memories (each forget also looks
up duplicates of the content). Prints a markdown table. The schema-4 layout is made by
dropping the new index and creating the old one.
"""

from __future__ import annotations

import collections
import sqlite3
import statistics
import struct
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import event

from benchmarks.common.corpora import make_corpus_of
from benchmarks.common.machine import load_average
from benchmarks.runner import Command, int_list
from zenbrain import MemoryCoordinator

__all__ = ["LayoutRun", "main", "measure_layout", "wal_pages_by_owner"]

BATCH = 1000
EXTRA_BATCHES = 10
FORGETS = 60
FORGETS_WARMUP = 10
_SCHEMA_4_INDEX = "CREATE INDEX zb_memories_content_hash ON zb_memories (namespace, content_hash)"


@dataclass
class LayoutRun:
    """One load of one layout."""

    layout: int
    rate: float = 0.0
    last_tenth_rate: float = 0.0
    pages_per_batch: float = 0.0
    pages_by_owner: dict[str, float] = field(default_factory=dict)
    forget_p50_ms: float = 0.0


def wal_pages_by_owner(database: Path, batches: int) -> dict[str, float]:
    """Pages per batch in ``database``'s write-ahead log, by the table or index each belongs
    to (its frames' page numbers looked up in ``dbstat``). The log must still exist: call it
    while a connection holds the database open."""
    raw = (database.parent / (database.name + "-wal")).read_bytes()
    page_size = struct.unpack(">I", raw[8:12])[0]
    pages = [
        struct.unpack(">I", raw[offset : offset + 4])[0]
        for offset in range(32, len(raw) - 23, 24 + page_size)
    ]
    with sqlite3.connect(database) as conn:
        owner = dict(conn.execute("SELECT pageno, name FROM dbstat"))
    counts = collections.Counter(owner.get(page, "(other)") for page in pages)
    return {name: count / batches for name, count in counts.most_common()}


def measure_layout(texts: Sequence[str], size: int, layout: int, folder: Path) -> LayoutRun:
    """Load ``texts[:size]``, then ten more batches from what follows, then forget some."""
    run = LayoutRun(layout)
    database = folder / f"layout{layout}.db"
    memory = MemoryCoordinator(str(database), namespace="bench")
    try:
        if layout == 4:
            with memory.database.engine.begin() as conn:
                conn.exec_driver_sql("DROP INDEX zb_memories_content_by_block")
                conn.exec_driver_sql(_SCHEMA_4_INDEX)
        ids: list[str] = []
        started = time.perf_counter()
        tenth_started = started
        for begin in range(0, size, BATCH):
            if begin == size - size // 10:
                tenth_started = time.perf_counter()
            ids += memory.store_many(texts[begin : begin + BATCH])
        ended = time.perf_counter()
        run.rate = size / (ended - started)
        run.last_tenth_rate = (size // 10) / (ended - tenth_started)
        _count_pages(memory, database, texts[size : size + EXTRA_BATCHES * BATCH], run)
        run.forget_p50_ms = _forget_p50(memory, ids)
    finally:
        memory.close()
    return run


def _count_pages(
    memory: MemoryCoordinator, database: Path, texts: Sequence[str], run: LayoutRun
) -> None:
    with memory.database.engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")

    @event.listens_for(memory.database.engine, "connect")
    def _no_checkpoints(connection: sqlite3.Connection, _record: object) -> None:
        connection.execute("PRAGMA wal_autocheckpoint = 0")

    memory.database.engine.dispose()  # reconnect with checkpoints off
    for begin in range(0, len(texts), BATCH):
        memory.store_many(texts[begin : begin + BATCH])
    with sqlite3.connect(database):  # keeps the log once the pool's connections close
        run.pages_by_owner = wal_pages_by_owner(database, max(1, len(texts) // BATCH))
    run.pages_per_batch = sum(run.pages_by_owner.values())


def _forget_p50(memory: MemoryCoordinator, ids: Sequence[str]) -> float:
    latencies: list[float] = []
    for k in range(FORGETS):
        memory_id = ids[(k * 7919) % len(ids)]
        stored = memory.get(memory_id)
        if stored is None:
            continue
        started = time.perf_counter()
        memory.forget(memory_id, stored.layer)
        latencies.append(time.perf_counter() - started)
    timed = latencies[FORGETS_WARMUP:] or latencies
    return statistics.median(timed) * 1000 if timed else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    cli = Command("speed.content_index")
    cli.add_corpus(default="locomo")
    cli.parser.add_argument("--size", type=int, default=100_000)
    cli.parser.add_argument("--layouts", type=int_list(), default=[4, 5])
    cli.parser.add_argument("--rounds", type=int, default=3)
    args = cli.parse(argv)
    layouts = args.layouts
    if args.size < 10 * BATCH or set(layouts) - {4, 5} or args.rounds < 1:
        cli.parser.error("--size must be at least 10,000, --layouts 4 and/or 5, --rounds ≥ 1")
    corpus = make_corpus_of(args.corpus, args.size + EXTRA_BATCHES * BATCH, 10, seed=args.seed)
    runs: list[LayoutRun] = []
    for _ in range(args.rounds):
        for layout in layouts:
            with tempfile.TemporaryDirectory(prefix="zb-content-index-") as folder:
                runs.append(measure_layout(corpus.memories, args.size, layout, Path(folder)))
    print(f"{args.corpus}, {args.size:,} memories, load {load_average() or float('nan'):.2f}")
    print("| schema | store_many/s | last tenth/s | WAL pages per batch | forget p50 |")
    print("|---|---:|---:|---:|---:|")
    for run in runs:
        print(
            f"| {run.layout} | {run.rate:,.0f} | {run.last_tenth_rate:,.0f} | "
            f"{run.pages_per_batch:,.0f} | {run.forget_p50_ms:.2f} ms |"
        )
    for layout in layouts:
        last = [run for run in runs if run.layout == layout][-1]
        owners = list(last.pages_by_owner.items())[:5]
        top = ", ".join(f"{name} {pages:.0f}" for name, pages in owners)
        print(f"\nschema {layout}, pages per batch by owner: {top}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
