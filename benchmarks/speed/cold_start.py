"""The first recalls of a fresh process: what loading a layer into memory costs them.

A layer's postings (and, on SQLite, its vectors) are loaded into memory by its first search.
For each back end and size it stores the LoCoMo-derived corpus (hybrid: with the
precomputed-vector embedder), then starts ``--runs`` fresh Python processes that each open
the store and time their first, second and tenth recall (a different query each). Beside
them, the same process's warm median over 50 more recalls. Prints a markdown table; the
machine's load average is shown, since the first recall is mostly reading from disk and
parsing.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from benchmarks.common.locomo_corpus import make_locomo_corpus
from benchmarks.common.machine import load_average
from benchmarks.common.paths import REPO_ROOT
from benchmarks.runner import Command, choice_list, int_list

__all__ = ["main"]

NAMESPACE = "bench"
BACKENDS = ("sqlite", "postgres")
QUERIES = 80
_PROBE = r"""
import json, statistics, sys, time
from benchmarks.common.locomo_corpus import make_locomo_corpus
from zenbrain import MemoryCoordinator
size, location = int(sys.argv[1]), sys.argv[2]
corpus = make_locomo_corpus(size, int(sys.argv[3]))
opened = time.perf_counter()
memory = MemoryCoordinator(location, namespace="bench", embedder=corpus.embedder())
open_seconds = time.perf_counter() - opened
times = []
for query in corpus.queries:
    start = time.perf_counter()
    memory.recall(query, limit=10)
    times.append(time.perf_counter() - start)
memory.close()
print(json.dumps({"open": open_seconds, "first": times[0], "second": times[1],
                  "tenth": times[9], "warm": statistics.median(times[30:])}))
"""


@contextlib.contextmanager
def _store(backend: str) -> Iterator[str]:
    if backend == "sqlite":
        with tempfile.TemporaryDirectory(prefix="zb-cold-") as folder:
            yield str(Path(folder) / "store.db")
        return
    from zenbrain.testing.postgres import fresh_database, start_postgres

    with start_postgres() as server, fresh_database(server) as url:
        yield url


def _load(location: str, size: int) -> float:
    from zenbrain import MemoryCoordinator

    corpus = make_locomo_corpus(size, QUERIES)
    start = time.perf_counter()
    memory = MemoryCoordinator(location, namespace=NAMESPACE, embedder=corpus.embedder())
    try:
        with memory.bulk_load():
            for begin in range(0, size, 1000):
                memory.store_many(corpus.memories[begin : begin + 1000])
    finally:
        memory.close()
    return time.perf_counter() - start


def _probe(location: str, size: int) -> dict[str, float]:
    found = subprocess.run(
        [sys.executable, "-c", _PROBE, str(size), location, str(QUERIES)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    return dict(json.loads(found.stdout.strip().splitlines()[-1]))


def main(argv: Sequence[str] | None = None) -> int:
    cli = Command("speed.cold_start")
    cli.parser.add_argument("--sizes", type=int_list(), default=[10_000, 100_000])
    cli.parser.add_argument("--backends", type=choice_list(BACKENDS), default=list(BACKENDS))
    cli.parser.add_argument("--runs", type=int, default=3)
    args = cli.parse(argv)
    rows = []
    for backend in args.backends:
        for size in args.sizes:
            with _store(backend) as location:
                loaded = _load(location, size)
                for run in range(1, args.runs + 1):
                    found = _probe(location, size)
                    rows.append((backend, size, run, loaded, found, load_average()))
                    print(backend, size, run, json.dumps(found), file=sys.stderr, flush=True)
    print("| back end | memories | run | open | 1st recall | 2nd | 10th | warm p50 | load avg |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for backend, size, run, _loaded, found, load in rows:
        ms = {key: value * 1000 for key, value in found.items()}
        shown = "–" if load is None else f"{load:.1f}"
        print(
            f"| {backend} | {size:,} | {run} | {ms['open']:.0f} ms | {ms['first']:.0f} ms "
            f"| {ms['second']:.1f} ms | {ms['tenth']:.1f} ms | {ms['warm']:.1f} ms "
            f"| {shown} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
