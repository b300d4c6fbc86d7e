"""The scale targets' ratios measured interleaved: zenbrain, FTS5 and ChromaDB side by side.

zenbrain (lexical and hybrid), SQLite FTS5 and ChromaDB are loaded and queried side by side
in one process, turn by turn. The scale benchmark measures each system in a process of its
own, one after another, so a change in the shared machine's speed between two measurements
moves their ratio. Here every batch of the load goes to each system in turn, and every query
is asked of each system in turn (the order rotating), so a slow minute costs all of them
alike. The ratios reported are those the scale benchmark's targets name: zenbrain's lexical
recall p50 against FTS5's ``bm25()``, its hybrid recall p50 against FTS5's plus ChromaDB's,
and ``store_many``'s rate against raw FTS5 inserts. Each round's ratios are shown too, for
their spread.

Peak memory and disk are not measured here: they need a process per system (the scale
benchmark does that).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.common.corpora import corpus_label, make_corpus_of
from benchmarks.common.synthetic_corpus import Corpus
from benchmarks.runner import Command
from benchmarks.scale.peers import (
    available,
    insert_fts5,
    open_chroma,
    open_fts5,
    search_fts5,
)
from zenbrain import MemoryCoordinator

__all__ = ["Interleaved", "System", "build_systems", "main", "markdown_report", "run"]

NAMESPACE = "bench"
LEXICAL, HYBRID, FTS5, CHROMA = "zenbrain lexical", "zenbrain hybrid", "FTS5 bm25()", "ChromaDB"


@dataclass
class System:
    """One system under test: ``add(begin, end)`` stores the corpus's memories in that
    range, ``recall(query)`` returns how many results it found, ``count()`` how many
    memories it holds."""

    name: str
    add: Callable[[int, int], None]
    recall: Callable[[str], int]
    count: Callable[[], int]
    close: Callable[[], None]


@dataclass
class Interleaved:
    """What one run measured: each system's load seconds and, per round, its latencies."""

    size: int
    corpus: str
    limit: int
    load_seconds: dict[str, float] = field(default_factory=dict)
    rounds: list[dict[str, list[float]]] = field(default_factory=list)
    short: dict[str, int] = field(default_factory=dict)  # queries answered with < limit

    def latencies(self, name: str) -> list[float]:
        return [t for measured in self.rounds for t in measured[name]]


def _zenbrain(folder: Path, corpus: Corpus, *, hybrid: bool, limit: int) -> System:
    embedder = corpus.embedder() if hybrid else None
    path = folder / ("hybrid.db" if hybrid else "lexical.db")
    memory = MemoryCoordinator(f"sqlite:///{path}", namespace=NAMESPACE, embedder=embedder)

    def add(begin: int, end: int) -> None:
        memory.store_many(corpus.memories[begin:end])

    def recall(query: str) -> int:
        return len(memory.recall(query, limit=limit))

    def count() -> int:
        health = memory.health()
        layers = (health.episodic, health.semantic, health.procedural)
        return sum(layer["count"] for layer in layers) + health.core["blocks"]

    return System(HYBRID if hybrid else LEXICAL, add, recall, count, memory.close)


def _fts5(folder: Path, corpus: Corpus, *, limit: int) -> System:
    db = open_fts5(folder / "fts.db")

    def add(begin: int, end: int) -> None:
        insert_fts5(db, corpus.memories[begin:end], end - begin)

    def count() -> int:
        return int(db.execute("SELECT count(*) FROM docs").fetchone()[0])

    return System(FTS5, add, lambda query: search_fts5(db, query, limit), count, db.close)


def _chroma(folder: Path, corpus: Corpus, *, limit: int) -> System:
    collection = open_chroma(folder / "chroma")
    table = corpus.table
    added = [0]

    def add(begin: int, end: int) -> None:
        collection.add(
            ids=[f"m{i}" for i in range(begin, end)],
            embeddings=corpus.memory_vectors[begin:end],
            documents=corpus.memories[begin:end],
        )
        added[0] = end

    def recall(query: str) -> int:
        found: Any = collection.query(
            query_embeddings=[table[query]], n_results=min(limit, added[0])
        )
        return len(found["ids"][0])

    return System(CHROMA, add, recall, collection.count, lambda: None)


def build_systems(folder: Path, corpus: Corpus, *, limit: int, chroma: bool) -> list[System]:
    """zenbrain lexical and hybrid on SQLite files, FTS5, and ChromaDB when asked for (and
    installed), each in ``folder``."""
    systems = [
        _zenbrain(folder, corpus, hybrid=False, limit=limit),
        _zenbrain(folder, corpus, hybrid=True, limit=limit),
        _fts5(folder, corpus, limit=limit),
    ]
    if chroma:
        systems.append(_chroma(folder, corpus, limit=limit))
    return systems


def _rotated(systems: Sequence[System], turn: int) -> list[System]:
    shift = turn % len(systems)
    return [*systems[shift:], *systems[:shift]]


def run(
    corpus: Corpus,
    systems: Sequence[System],
    *,
    size: int,
    corpus_name: str,
    queries: int,
    rounds: int,
    batch_size: int,
    limit: int,
    warmup: int = 10,
) -> Interleaved:
    """Load the first ``size`` memories into every system batch by batch, each batch to each
    system in turn; then ask ``queries`` questions ``rounds`` times, each of every system in
    turn, the order rotating from one question to the next."""
    result = Interleaved(size, corpus_name, limit)
    result.load_seconds = {s.name: 0.0 for s in systems}
    for turn, begin in enumerate(range(0, size, batch_size)):
        end = min(size, begin + batch_size)
        for system in _rotated(systems, turn):
            start = time.perf_counter()
            system.add(begin, end)
            result.load_seconds[system.name] += time.perf_counter() - start
    for system in systems:  # every system must hold the same memories, or nothing compares
        held = system.count()
        if held != size:
            raise RuntimeError(
                f"{system.name} holds {held:,} memories after the load, not {size:,}"
            )
    asked = corpus.queries[:queries]
    for query in corpus.queries[:warmup]:
        for system in systems:
            system.recall(query)
    result.short = {s.name: 0 for s in systems}
    turn = 0
    for _ in range(rounds):
        measured: dict[str, list[float]] = {s.name: [] for s in systems}
        for query in asked:
            for system in _rotated(systems, turn):
                start = time.perf_counter()
                found = system.recall(query)
                measured[system.name].append(time.perf_counter() - start)
                result.short[system.name] += found < limit
            turn += 1
        result.rounds.append(measured)
    return result


def _p50(samples: Sequence[float]) -> float:
    return statistics.median(samples)


def _ratios(result: Interleaved, measured: dict[str, list[float]] | None) -> dict[str, float]:
    """The targets' ratios over all rounds (``measured`` None) or over one round."""

    def p50(name: str) -> float:
        return _p50(measured[name] if measured is not None else result.latencies(name))

    names = result.load_seconds
    ratios = {"lexical ÷ FTS5": p50(LEXICAL) / p50(FTS5)}
    if CHROMA in names:
        ratios["hybrid ÷ (FTS5 + ChromaDB)"] = p50(HYBRID) / (p50(FTS5) + p50(CHROMA))
    return ratios


def markdown_report(result: Interleaved) -> str:
    """Each system's recall p50 and p95 and load rate, then the targets' ratios: over all
    rounds and each round's range."""
    lines = [
        f"{result.size:,} {result.corpus} memories, SQLite, limit={result.limit}, "
        f"{len(result.rounds)} rounds of {len(result.rounds[0][LEXICAL])} queries, interleaved:",
        "",
        "| system | recall p50 (ms) | recall p95 (ms) | load (memories/s) | short answers |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, seconds in result.load_seconds.items():
        samples = sorted(result.latencies(name))
        p95 = samples[min(len(samples) - 1, int(0.95 * len(samples)))]
        lines.append(
            f"| {name} | {_p50(samples) * 1e3:.2f} | {p95 * 1e3:.2f} | "
            f"{result.size / seconds:,.0f} | {result.short[name]} |"
        )
    overall = _ratios(result, None)
    per_round = [_ratios(result, measured) for measured in result.rounds]
    store = result.load_seconds[FTS5] / result.load_seconds[LEXICAL]  # rate ÷ rate
    lines += [
        "",
        "| ratio | all rounds | each round (lowest–highest) | target |",
        "|---|---:|---:|---|",
    ]
    for name, value in overall.items():
        spread = [r[name] for r in per_round]
        lines.append(f"| {name} | {value:.2f} | {min(spread):.2f}–{max(spread):.2f} | ≤ 1 |")
    lines.append(f"| `store_many` rate ÷ FTS5 insert rate | {store:.2f} | — | ≥ 0.5 |")
    return "\n".join(lines)


def command_line() -> Command:
    cli = Command("speed.interleaved")
    parser = cli.parser
    cli.add_corpus(default="locomo")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--no-chroma", action="store_true", help="leave ChromaDB out")
    return cli


def build_parser() -> argparse.ArgumentParser:
    return command_line().parser


def main(argv: Sequence[str] | None = None) -> int:
    cli = command_line()
    args = cli.parse(argv)
    if min(args.size, args.queries, args.rounds, args.batch_size, args.limit) < 1:
        return cli.fail("--size, --queries, --rounds, --batch-size and --limit must be at least 1")
    chroma = not args.no_chroma
    missing = available("chroma") if chroma else None
    if missing is not None:
        print(f"{missing}: ChromaDB is left out", file=sys.stderr)
        chroma = False
    corpus = make_corpus_of(args.corpus, args.size, args.queries, seed=args.seed)
    name = corpus_label(args.corpus)
    with tempfile.TemporaryDirectory(prefix="zb-interleaved-") as folder:
        systems = build_systems(Path(folder), corpus, limit=args.limit, chroma=chroma)
        try:
            result = run(
                corpus, systems, size=args.size, corpus_name=name, queries=args.queries,
                rounds=args.rounds, batch_size=args.batch_size, limit=args.limit,
            )  # fmt: skip
        finally:
            for system in systems:
                system.close()
    print(markdown_report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
