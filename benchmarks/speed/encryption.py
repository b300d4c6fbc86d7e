"""What encryption at rest and the purge cost: plain, no secure_delete, encrypted, one run.

The same work on a plain SQLite store, on a plain store without ``secure_delete`` (as before
issue 35), and on an encrypted one (SQLCipher 4 through sqlcipher3), the variants
interleaved round by round. Each round opens three fresh stores in one process (the
encrypted one with its key derivation) and runs every operation on the three in turn, the
order rotating, so that the load of a shared machine falls on each alike: ``store_many`` of
the LoCoMo-derived corpus (``$ZENBRAIN_LOCOMO``; hybrid: precomputed vectors) in batches of
500, ``store`` of 200 single memories, every query recalled twice (the second pass timed:
warm) and 100 ``forget``. Prints a markdown table of medians over the rounds and each
variant's ratio to the plain store.

``--drivers`` adds the cipher libraries at the driver level, without zenbrain: 20,000 rows
of text inserted in one transaction and 2,000 point reads, on the stdlib's sqlite3,
sqlcipher3 and (when it imports) apsw-sqlite3mc (SQLite3 Multiple Ciphers, ChaCha20-Poly1305
by default).
"""

from __future__ import annotations

import hashlib
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import event

from benchmarks.common.locomo_corpus import make_locomo_corpus
from benchmarks.common.machine import load_average
from benchmarks.runner import Command
from zenbrain import MemoryCoordinator

__all__ = ["main"]

KEY = "benchmark passphrase"
SINGLES, FORGETS, BATCH = 200, 100, 500
VARIANTS = ("plain", "plain, secure_delete off", "encrypted")


def _secure_delete_off(memory: MemoryCoordinator) -> None:
    engine = memory.database.engine

    @event.listens_for(engine, "connect")
    def _off(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.execute("PRAGMA secure_delete = OFF")

    engine.dispose()  # the pooled connections were opened with it on


def _timed(call: Callable[..., Any], memory: MemoryCoordinator) -> float:
    started = time.perf_counter()
    call(memory)
    return time.perf_counter() - started


def _interleaved(
    memories: dict[str, MemoryCoordinator], calls: Sequence[Callable[..., Any]]
) -> dict[str, list[float]]:
    """Each call on every store in turn, the order rotating from call to call, so that
    the machine's load falls on every variant alike."""
    names = list(memories)
    times: dict[str, list[float]] = {name: [] for name in names}
    for number, call in enumerate(calls):
        turn = number % len(names)
        for name in names[turn:] + names[:turn]:
            times[name].append(_timed(call, memories[name]))
    return times


def _one_round(corpus: Any, folder: Path) -> dict[str, dict[str, float]]:
    """Every variant in one process; each operation on the three stores in turn."""
    memories: dict[str, MemoryCoordinator] = {}
    opened: dict[str, float] = {}
    for variant in VARIANTS:
        path = folder / f"{VARIANTS.index(variant)}.db"
        key = KEY if variant == "encrypted" else None
        started = time.perf_counter()
        memories[variant] = MemoryCoordinator(path, embedder=corpus.embedder(), key=key)
        memories[variant].health()
        opened[variant] = time.perf_counter() - started
        if variant == "plain, secure_delete off":
            _secure_delete_off(memories[variant])
    texts = corpus.memories
    batches = [texts[begin : begin + BATCH] for begin in range(0, len(texts), BATCH)]
    bulk = _interleaved(memories, [lambda m, b=b: m.store_many(b) for b in batches])
    singles = _interleaved(memories, [lambda m, t=t: m.store(t) for t in corpus.extra])
    queries = [lambda m, q=q: m.recall(q, limit=10) for q in corpus.queries]
    _interleaved(memories, queries)  # warm: every layer's postings and vectors loaded
    recalls = _interleaved(memories, queries)
    doomed = {name: memory.find(limit=FORGETS) for name, memory in memories.items()}
    forgets = _interleaved(
        memories,
        [
            lambda m, i=i: m.forget(doomed[_name_of(memories, m)][i].id, "semantic")
            for i in range(FORGETS)
        ],
    )
    found: dict[str, dict[str, float]] = {}
    for variant, memory in memories.items():
        memory.close()
        found[variant] = {
            "open_ms": opened[variant] * 1000,
            "store_many_us": sum(bulk[variant]) / len(texts) * 1e6,
            "store_ms": statistics.median(singles[variant]) * 1000,
            "recall_ms": statistics.median(recalls[variant]) * 1000,
            "forget_ms": statistics.median(forgets[variant]) * 1000,
            "file_kib": (folder / f"{VARIANTS.index(variant)}.db").stat().st_size / 1024,
        }
    return found


def _name_of(memories: dict[str, MemoryCoordinator], memory: MemoryCoordinator) -> str:
    return next(name for name, held in memories.items() if held is memory)


COLUMNS = {
    "open_ms": "open (ms)",
    "store_many_us": "store_many (µs/memory)",
    "store_ms": "store (ms)",
    "recall_ms": "recall, warm (ms)",
    "forget_ms": "forget (ms)",
    "file_kib": "file (KiB)",
}


def zenbrain_table(memories: int, rounds: int) -> str:
    corpus = make_locomo_corpus(memories, 100, extra=SINGLES)
    results: dict[str, list[dict[str, float]]] = {variant: [] for variant in VARIANTS}
    for _ in range(rounds):
        with tempfile.TemporaryDirectory(prefix="zb-encryption-") as folder:
            for variant, row in _one_round(corpus, Path(folder)).items():
                results[variant].append(row)
    medians = {
        variant: {key: statistics.median(run[key] for run in runs) for key in COLUMNS}
        for variant, runs in results.items()
    }
    lines = [
        f"{memories:,} memories (LoCoMo-derived, hybrid), {len(corpus.extra)} single stores, "
        f"{len(corpus.queries)} recalls, {FORGETS} forgets; median of {rounds} rounds; "
        f"load average {load_average() or float('nan'):.1f}",
        "",
        "| store | " + " | ".join(COLUMNS.values()) + " |",
        "|---" * (len(COLUMNS) + 1) + "|",
    ]
    for variant, row in medians.items():
        cells = []
        for key in COLUMNS:
            ratio = row[key] / medians["plain"][key] if medians["plain"][key] else 0.0
            shown = f"{row[key]:,.2f}" if row[key] < 100 else f"{row[key]:,.0f}"
            cells.append(shown if variant == "plain" else f"{shown} ({ratio:.2f}×)")
        lines.append(f"| {variant} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _time_driver(connect: Callable[[str], Any], path: str) -> tuple[float, float]:
    conn = connect(path)
    rows = [(i, hashlib.sha256(str(i).encode()).hexdigest() * 3) for i in range(20_000)]
    started = time.perf_counter()
    conn.execute("BEGIN")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
    conn.executemany("INSERT INTO t VALUES (?, ?)", rows)
    conn.execute("COMMIT")
    insert = time.perf_counter() - started
    started = time.perf_counter()
    for i in range(0, 20_000, 10):
        conn.execute("SELECT body FROM t WHERE id = ?", (i,)).fetchall()
    read = time.perf_counter() - started
    conn.close()
    return insert * 1000, read * 1000


def driver_table() -> str:
    import sqlite3

    import sqlcipher3

    def plain(path: str) -> Any:
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("PRAGMA journal_mode = WAL")
        return conn

    def sqlcipher(path: str) -> Any:
        conn = sqlcipher3.connect(path, isolation_level=None)
        conn.execute(f"PRAGMA key = '{KEY}'")
        conn.execute("PRAGMA journal_mode = WAL")
        return conn

    drivers: dict[str, Callable[[str], Any]] = {
        f"sqlite3 (SQLite {sqlite3.sqlite_version}), plain": plain,
        "sqlcipher3 (SQLCipher 4, AES-256-CBC + HMAC-SHA512)": sqlcipher,
    }
    try:
        import apsw

        def sqlite3mc(path: str) -> Any:
            conn = apsw.Connection(path)
            conn.execute(f"PRAGMA key = '{KEY}'")
            conn.execute("PRAGMA journal_mode = WAL")
            return conn

        drivers["apsw-sqlite3mc (ChaCha20-Poly1305)"] = sqlite3mc
    except ImportError:
        pass
    lines = [
        "| driver | insert 20,000 rows (ms) | 2,000 point reads (ms) |",
        "|---|---|---|",
    ]
    with tempfile.TemporaryDirectory(prefix="zb-drivers-") as folder:
        for name, connect in drivers.items():
            timings = [_time_driver(connect, f"{folder}/{n}-{len(name)}.db") for n in range(3)]
            insert = statistics.median(t[0] for t in timings)
            read = statistics.median(t[1] for t in timings)
            lines.append(f"| {name} | {insert:,.1f} | {read:,.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    cli = Command("speed.encryption")
    cli.parser.add_argument("--memories", type=int, default=5000)
    cli.parser.add_argument("--rounds", type=int, default=3)
    cli.parser.add_argument("--drivers", action="store_true", help="add the driver-level table")
    args = cli.parse(argv)
    print(zenbrain_table(args.memories, args.rounds))
    if args.drivers:
        print()
        print(driver_table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
