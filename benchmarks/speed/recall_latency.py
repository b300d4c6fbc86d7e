"""Recall latency before and after a change, in one run: this checkout beside a baseline.

The same store, the same questions, this checkout's code beside a baseline revision's,
interleaved round by round. The baseline is checked out with ``git worktree`` into a
temporary folder. Each version loads the same memories with ``store_many`` (no ``layer=``:
routing spreads them as an agent's store) into a SQLite file of its own, so a schema
migration of either side never touches the other's file; then each round starts one process
per version, in turn (the order alternates), which opens its store, warms up and times
``recall(question, limit=10)`` for every question. Reported: p50 and p95 per version and
round, and the ratio of the medians over all rounds.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common.corpora import make_corpus_of
from benchmarks.common.paths import REPO_ROOT
from benchmarks.runner import Command

__all__ = ["main"]

WARMUP = 20

# The worker runs inside either checkout: it needs nothing but zenbrain's public API.
_WORKER = """
import json, sys, time
from zenbrain import MemoryCoordinator
mode, db, data = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
if mode == "load":
    with MemoryCoordinator(db, namespace="bench") as memory:
        texts = data["memories"]
        for begin in range(0, len(texts), 5000):
            memory.store_many(texts[begin : begin + 5000])
    print(json.dumps([]))
else:
    with MemoryCoordinator(db, namespace="bench") as memory:
        for query in data["queries"][: data["warmup"]]:
            memory.recall(query, limit=10)
        spent = []
        for query in data["queries"]:
            start = time.perf_counter()
            memory.recall(query, limit=10)
            spent.append(time.perf_counter() - start)
    print(json.dumps(spent))
"""


def _run(checkout: Path, mode: str, db: Path, data: Path) -> list[float]:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    done = subprocess.run(
        [sys.executable, "-c", _WORKER, mode, str(db), str(data)],
        env=env,
        cwd=checkout,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the worker in {checkout} failed:\n{done.stderr[-2000:]}")
    return [float(x) for x in json.loads(done.stdout.strip().splitlines()[-1])]


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    cli = Command("speed.recall_latency")
    parser = cli.parser
    parser.add_argument("--baseline", default="HEAD~1", help="git revision to compare with")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    cli.add_corpus(default="locomo")
    args = cli.parse(argv)
    corpus = make_corpus_of(args.corpus, args.size, args.queries, seed=args.seed)
    memories, queries = list(corpus.memories), list(corpus.queries)
    with tempfile.TemporaryDirectory(prefix="zenbrain-latency-") as folder:
        work = Path(folder)
        baseline = work / "baseline"
        subprocess.run(
            [
                "git",
                "-C",
                str(REPO_ROOT),
                "worktree",
                "add",
                "--detach",
                str(baseline),
                args.baseline,
            ],
            check=True,
            capture_output=True,
        )
        try:
            data = work / "data.json"
            data.write_text(
                json.dumps({"memories": memories, "queries": queries, "warmup": WARMUP}),
                encoding="utf-8",
            )
            sides = {"baseline": baseline, "this checkout": REPO_ROOT}
            stores = {name: work / f"{name.replace(' ', '-')}.db" for name in sides}
            for name, checkout in sides.items():
                start = time.perf_counter()
                _run(checkout, "load", stores[name], data)
                print(
                    f"[{name}] loaded {args.size:,} in {time.perf_counter() - start:.0f} s",
                    file=sys.stderr,
                )
            spent: dict[str, list[float]] = {name: [] for name in sides}
            rows = []
            for round_number in range(args.rounds):
                order = list(sides) if round_number % 2 == 0 else list(reversed(sides))
                for name in order:
                    times = _run(sides[name], "recall", stores[name], data)
                    spent[name] += times
                    rows.append(
                        (round_number + 1, name, _percentile(times, 0.5), _percentile(times, 0.95))
                    )
        finally:
            subprocess.run(
                ["git", "-C", str(REPO_ROOT), "worktree", "remove", "--force", str(baseline)],
                check=False,
                capture_output=True,
            )
    print(
        f"Recall latency, {args.size:,} memories ({args.corpus}), {len(queries)} questions, "
        f"baseline {args.baseline}:\n"
    )
    print("| round | code | p50 ms | p95 ms |\n|---:|---|---:|---:|")
    for round_number, name, p50, p95 in rows:
        print(f"| {round_number} | {name} | {p50 * 1000:.2f} | {p95 * 1000:.2f} |")
    before, after = (statistics.median(spent[name]) for name in sides)
    print(
        f"\nMedian over all rounds: baseline {before * 1000:.2f} ms, this checkout "
        f"{after * 1000:.2f} ms; ratio {after / before:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
