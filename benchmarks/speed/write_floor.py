"""What ``store_many`` would cost on SQLite with no Python work at all: its rows replayed.

zenbrain's own rows, replayed as bare ``executemany`` batches, beside ``store_many`` and raw
FTS5 inserts. Each round stores the corpus with ``store_many`` (batches of ``--batch-size``,
one transaction each) into a fresh SQLite file, noting after each batch the highest rowid of
every table. It then replays that file's rows into a second fresh store of the same schema:
per batch, one transaction, one ``executemany`` per table of exactly the rows that batch
added (the counter rows a batch updates are written again), prepared in advance, so nothing
but SQLite runs while the clock does. Last, the same texts go into a bare FTS5 table, as the
scale benchmark's floor inserts them. The rounds interleave the three, since the shared
machine's speed drifts.

The replay is the floor of zenbrain's writes for the schema it keeps: a memory's row and its
indexes, a fact's review schedule, the memory's index terms, its entity mentions. If the
replay alone is slower than half the FTS5 rate, no amount of Python work removed from
``store_many`` reaches that rate without storing less. ``--without TABLE`` (repeatable) adds
a second replay that leaves those tables' rows out: the floor of a schema that would not
keep them (a new fact's review schedule, say, which its creation time determines). Under the
table, the headroom: how many µs a memory may cost at half the FTS5 rate, and how many of
them each replay leaves for everything that is not writing rows.
"""

from __future__ import annotations

import argparse
import gc
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.common.corpora import corpus_label, make_corpus_of
from benchmarks.runner import Command
from benchmarks.scale.peers import insert_fts5, open_fts5
from zenbrain import MemoryCoordinator
from zenbrain._storage.sqlite.engine import PAGE_CACHE_KIB

__all__ = ["RoundTimes", "main", "markdown_table", "replay_rows", "run_round", "store_rows"]

NAMESPACE = "bench"
_Batch = list[tuple[str, list[tuple[object, ...]]]]  # (INSERT statement, its rows) per table
# Tables whose rows a batch updates rather than adds (per-scope counts, the change counter):
# their rows are written again with each batch.
_COUNTER_TABLES = ("zb_lexical_lengths", "zb_meta")


@dataclass
class RoundTimes:
    """Seconds per memory of one round's three loads, and the replay's by table."""

    store_many: float
    replay: float
    fts5: float
    replay_tables: dict[str, float] = field(default_factory=dict)
    replay_commits: float = 0.0
    replay_without: float | None = None  # the replay leaving out the --without tables


def _connect_as_zenbrain(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode with the pragmas zenbrain's SQLite engine sets (WAL,
    ``synchronous = NORMAL``, foreign keys checked, its page cache)."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("PRAGMA foreign_keys = ON")
    db.execute(f"PRAGMA cache_size = -{PAGE_CACHE_KIB}")
    return db


def _schema_tables() -> list[str]:
    """The tables of a fresh store's schema."""
    with tempfile.TemporaryDirectory(prefix="zb-write-floor-") as folder:
        path = Path(folder) / "schema.db"
        MemoryCoordinator(f"sqlite:///{path}", namespace=NAMESPACE).close()
        db = sqlite3.connect(path)
        try:
            return _tables(db)
        finally:
            db.close()


def _tables(db: sqlite3.Connection) -> list[str]:
    return [
        name
        for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            " ORDER BY rowid"
        )
    ]


def store_rows(
    path: Path, texts: Sequence[str], batch_size: int
) -> tuple[float, list[dict[str, int]]]:
    """``store_many`` of ``texts`` into a fresh store at ``path``; returns the seconds spent
    in ``store_many`` and, after each batch, every table's highest rowid."""
    memory = MemoryCoordinator(f"sqlite:///{path}", namespace=NAMESPACE)
    probe = sqlite3.connect(path)
    tables = _tables(probe)
    bounds: list[dict[str, int]] = []
    seconds = 0.0
    try:
        for begin in range(0, len(texts), batch_size):
            chunk = list(texts[begin : begin + batch_size])
            start = time.perf_counter()
            memory.store_many(chunk)
            seconds += time.perf_counter() - start
            bounds.append(
                {
                    t: probe.execute(f"SELECT coalesce(max(rowid), 0) FROM {t}").fetchone()[0]
                    for t in tables
                }
            )
    finally:
        memory.close()
        probe.close()
    return seconds, bounds


def _planned_batches(source: Path, bounds: Sequence[dict[str, int]]) -> list[_Batch]:
    """Each batch's rows of each table, read back from ``source``: the rows it inserted (by
    rowid), and a table's existing rows again when the batch only updated them (counters)."""
    db = sqlite3.connect(source)
    try:
        batches: list[_Batch] = []
        previous = dict.fromkeys(bounds[0], 0) if bounds else {}
        columns: dict[str, tuple[str, str]] = {}  # each table's column list and placeholders
        for table in previous:
            names = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
            columns[table] = ", ".join(names), ", ".join("?" * len(names))
        for bound in bounds:
            batch: _Batch = []
            for table, highest in bound.items():
                listed, marks = columns[table]
                if highest > previous[table]:
                    rows = db.execute(
                        f"SELECT {listed} FROM {table}"
                        " WHERE rowid > ? AND rowid <= ? ORDER BY rowid",
                        (previous[table], highest),
                    ).fetchall()
                    batch.append((f"INSERT INTO {table} ({listed}) VALUES ({marks})", rows))
                elif highest and table in _COUNTER_TABLES:
                    rows = db.execute(f"SELECT {listed} FROM {table}").fetchall()
                    batch.append(
                        (f"INSERT OR REPLACE INTO {table} ({listed}) VALUES ({marks})", rows)
                    )
            batches.append(batch)
            previous = bound
        return batches
    finally:
        db.close()


def replay_rows(
    source: Path,
    target: Path,
    bounds: Sequence[dict[str, int]],
    *,
    leave_out: Collection[str] = (),
) -> RoundTimes:
    """Write ``source``'s rows into a fresh store at ``target``, batch by batch as they were
    stored, except those of the tables in ``leave_out``; returns the replay's seconds
    (store_many and fts5 left at 0)."""
    MemoryCoordinator(f"sqlite:///{target}", namespace=NAMESPACE).close()  # the schema
    db = _connect_as_zenbrain(target)
    for table in _tables(db):  # the schema's own rows (migrations, meta) come from source
        db.execute(f"DELETE FROM {table}")
    batches = [
        [(statement, rows) for statement, rows in batch if _table_of(statement) not in leave_out]
        for batch in _planned_batches(source, bounds)
    ]
    times = RoundTimes(0.0, 0.0, 0.0)
    gc.collect()
    start = time.perf_counter()
    for batch in batches:
        db.execute("BEGIN")
        for statement, rows in batch:
            tick = time.perf_counter()
            db.executemany(statement, rows)
            table = _table_of(statement)
            times.replay_tables[table] = (
                times.replay_tables.get(table, 0.0) + time.perf_counter() - tick
            )
        tick = time.perf_counter()
        db.execute("COMMIT")
        times.replay_commits += time.perf_counter() - tick
    times.replay = time.perf_counter() - start
    db.close()
    return times


def _table_of(statement: str) -> str:
    return statement.split(" INTO ")[1].split(" ")[0]


def run_round(
    texts: Sequence[str], batch_size: int, *, without: Collection[str] = ()
) -> RoundTimes:
    """One round: ``store_many``, the replay of its rows (and, with ``without``, a replay
    leaving those tables out), FTS5 inserts; seconds per memory."""
    count = len(texts)
    with tempfile.TemporaryDirectory(prefix="zb-write-floor-") as folder:
        stored = Path(folder) / "stored.db"
        store_seconds, bounds = store_rows(stored, texts, batch_size)
        times = replay_rows(stored, Path(folder) / "replayed.db", bounds)
        if without:
            lean = replay_rows(stored, Path(folder) / "lean.db", bounds, leave_out=without)
            times.replay_without = lean.replay / count
        fts = open_fts5(Path(folder) / "fts.db")
        gc.collect()
        fts_seconds = insert_fts5(fts, texts, batch_size)
        fts.close()
    times.store_many = store_seconds / count
    times.replay /= count
    times.fts5 = fts_seconds / count
    times.replay_tables = {t: s / count for t, s in times.replay_tables.items()}
    times.replay_commits /= count
    return times


def markdown_table(
    rounds: Sequence[RoundTimes], *, corpus: str, size: int, without: Sequence[str] = ()
) -> str:
    """The medians over ``rounds`` as a markdown table, rates and ratios to FTS5, and the
    headroom each replay leaves at half the FTS5 rate."""

    def median(values: Sequence[float]) -> float:
        return statistics.median(values)

    fts5 = median([r.fts5 for r in rounds])
    replays = [("its rows replayed (no Python work)", median([r.replay for r in rounds]))]
    leaner = [r.replay_without for r in rounds if r.replay_without is not None]
    if without and leaner:
        left_out = ", ".join(f"`{table}`" for table in without)
        replays.append((f"its rows replayed without {left_out}", median(leaner)))
    rows = [("`store_many`", median([r.store_many for r in rounds])), *replays]
    rows.append(("raw FTS5 inserts", fts5))
    lines = [
        f"{size:,} {corpus} memories, SQLite, median of {len(rounds)} interleaved rounds:",
        "",
        "| load | µs per memory | memories/s | rate ÷ FTS5 |",
        "|---|---:|---:|---:|",
    ]
    for name, seconds in rows:
        lines.append(
            f"| {name} | {seconds * 1e6:.1f} | {1 / seconds:,.0f} | {fts5 / seconds:.2f}× |"
        )
    tables = sorted(
        rounds[0].replay_tables,
        key=lambda t: -median([r.replay_tables.get(t, 0.0) for r in rounds]),
    )
    lines += ["", "The replay by table (µs per memory):", "", "| table | µs |", "|---|---:|"]
    for table in tables:
        share = median([r.replay_tables.get(table, 0.0) for r in rounds])
        if share * 1e6 >= 0.05:
            lines.append(f"| `{table}` | {share * 1e6:.2f} |")
    lines.append(f"| the commits | {median([r.replay_commits for r in rounds]) * 1e6:.2f} |")
    budget = 2 * fts5  # a memory's whole cost at half the FTS5 rate
    lines += [
        "",
        f"At half the FTS5 rate a memory may cost {budget * 1e6:.1f} µs in all. Left of that"
        " for validation, routing, emotion, tokenising, entity extraction and building the"
        " rows:",
        "",
    ]
    for name, seconds in replays:
        lines.append(f"- the {name.removeprefix('its ')}: {(budget - seconds) * 1e6:.1f} µs")
    return "\n".join(lines)


def command_line() -> Command:
    cli = Command("speed.write_floor")
    parser = cli.parser
    cli.add_corpus(default="locomo")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument(
        "--without",
        action="append",
        default=[],
        metavar="TABLE",
        help="also replay the rows without this table's (repeatable), e.g. zb_facts",
    )
    return cli


def build_parser() -> argparse.ArgumentParser:
    return command_line().parser


def main(argv: Sequence[str] | None = None) -> int:
    cli = command_line()
    args = cli.parse(argv)
    if args.size < 1 or args.rounds < 1 or args.batch_size < 1:
        return cli.fail("--size, --rounds and --batch-size must be at least 1")
    known = _schema_tables()
    unknown = [table for table in args.without if table not in known]
    if unknown:
        return cli.fail(
            f"--without: no table {', '.join(unknown)} in the schema; it has"
            f" {', '.join(sorted(known))}"
        )
    texts = make_corpus_of(args.corpus, args.size, 1, seed=args.seed).memories
    rounds = []
    for number in range(args.rounds):
        rounds.append(run_round(texts, args.batch_size, without=args.without))
        print(f"round {number + 1}: {rounds[-1]}", file=sys.stderr)
    print(
        markdown_table(
            rounds,
            corpus=corpus_label(args.corpus),
            size=args.size,
            without=args.without,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
