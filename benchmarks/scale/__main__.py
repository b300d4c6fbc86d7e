"""``python -m benchmarks scale``: measure (or rebuild from raw results) and report."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from benchmarks.common.paths import BENCHMARKS_DOC, DOCS_DIR
from benchmarks.runner import Command, choice_list, int_list
from benchmarks.scale.baseline import Baseline, parse_baseline
from benchmarks.scale.harness import (
    DEFAULT_BACKENDS,
    DEFAULT_FLOOR_SIZES,
    DEFAULT_PEERS,
    DEFAULT_SIZES,
    MODES,
    PEER_MAX_SIZE,
    POSTGRES_SHARED_BUFFERS,
    PROFILE_SIZE,
    run_benchmark,
)
from benchmarks.scale.plot import plot
from benchmarks.scale.report import markdown_section, write_docs
from benchmarks.scale.results import load_results, merge_runs, save_results
from benchmarks.scale.systems import RunSettings

NAME = "scale"


def command_line() -> Command:
    cli = Command(NAME, docs=BENCHMARKS_DOC)
    parser = cli.parser
    sizes = int_list(minimum=10)
    parser.add_argument("--sizes", type=sizes, default=list(DEFAULT_SIZES))
    parser.add_argument(
        "--backends", type=choice_list(DEFAULT_BACKENDS), default=list(DEFAULT_BACKENDS)
    )
    parser.add_argument(
        "--peers",
        type=choice_list(DEFAULT_PEERS, none=True),
        default=list(DEFAULT_PEERS),
        help="peers to run beside zenbrain, or 'none'",
    )
    parser.add_argument(
        "--floor-sizes",
        type=sizes,
        default=list(DEFAULT_FLOOR_SIZES),
        help="extra sizes at which only the numpy floor runs (cheap; shows the cost of "
        "scanning every vector)",
    )
    parser.add_argument("--no-floor-sizes", action="store_true")
    parser.add_argument(
        "--modes",
        type=choice_list(MODES),
        default=list(MODES),
        help="zenbrain's modes to measure (a 1M PostgreSQL load takes long: one mode at a time)",
    )
    parser.add_argument("--peer-max-size", type=int, default=PEER_MAX_SIZE)
    parser.add_argument("--queries", type=int, default=RunSettings.queries)
    parser.add_argument("--single-stores", type=int, default=RunSettings.single_stores)
    parser.add_argument("--warmup", type=int, default=RunSettings.warmup)
    parser.add_argument("--batch-size", type=int, default=RunSettings.batch_size)
    parser.add_argument(
        "--profile-size",
        type=int,
        default=PROFILE_SIZE,
        help="profile store and recall on the SQLite store of this size (0: no profile)",
    )
    parser.add_argument(
        "--blas-threads",
        type=int,
        default=1,
        help="threads for numpy's BLAS during the run (0: library default)",
    )
    parser.add_argument(
        "--postgres-shared-buffers",
        default=POSTGRES_SHARED_BUFFERS,
        help="shared_buffers of the throwaway PostgreSQL server (ignored for an external one)",
    )
    parser.add_argument(
        "--supersession-off",
        action="store_true",
        help="after each zenbrain measurement, the same with supersession=False (a row of "
        "its own: what the knowledge-update rules cost)",
    )
    parser.add_argument(
        "--baseline",
        type=_baseline,
        metavar="PATH[=LABEL]",
        help="after each zenbrain measurement, the same with the zenbrain package of the tree "
        "at PATH (a git worktree of an older commit), in a child process; LABEL names its rows "
        "(default: the tree's short commit)",
    )
    cli.add_corpus(default="synthetic")
    parser.add_argument(
        "--no-isolate",
        action="store_true",
        help="measure in this process instead of one forked child per measurement",
    )
    parser.add_argument(
        "--plot",
        type=Path,
        help="default: docs/scale.png, or docs/scale-locomo.png for LoCoMo (written with "
        "--write-docs, or whenever given)",
    )
    parser.add_argument(
        "--results",
        type=Path,
        help="where to keep the raw numbers (default with --write-docs: docs/scale-results.json)",
    )
    parser.add_argument(
        "--from-results",
        type=Path,
        nargs="+",
        help="rebuild the report from a results file instead of measuring (several: their "
        "measurements in one report, e.g. the one-million runs of each back end)",
    )
    return cli


def _baseline(text: str) -> Baseline:
    try:
        return parse_baseline(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def build_parser() -> argparse.ArgumentParser:
    return command_line().parser


def main(argv: Sequence[str] | None = None) -> int:
    cli = command_line()
    args = cli.parse(argv)
    stem = "scale-locomo" if args.corpus == "locomo" else "scale"
    results = args.results or (DOCS_DIR / f"{stem}-results.json" if args.write_docs else None)
    plot_given = args.plot is not None
    args.plot = args.plot or DOCS_DIR / f"{stem}.png"
    if args.from_results is not None:
        run = merge_runs([load_results(path) for path in args.from_results])
    else:
        run = run_benchmark(
            args.sizes,
            args.backends,
            args.peers,
            floor_sizes=[] if args.no_floor_sizes else args.floor_sizes,
            peer_max_size=args.peer_max_size,
            profile_size=args.profile_size or None,
            settings=RunSettings(
                batch_size=args.batch_size,
                single_stores=args.single_stores,
                queries=args.queries,
                warmup=args.warmup,
                progress=True,
            ),
            blas_threads=args.blas_threads or None,
            seed=args.seed,
            corpus_kind=args.corpus,
            isolate=not args.no_isolate,
            modes=args.modes,
            postgres_shared_buffers=args.postgres_shared_buffers,
            supersession_off=args.supersession_off,
            baseline=args.baseline,
            command=cli.command_as_given(argv),
        )
        if results is not None:
            save_results(run, results)
            print(f"raw results in {results}", file=sys.stderr)
    if args.write_docs:
        write_docs(run, args.docs, args.plot)
        print(f"wrote {args.docs} and {args.plot}", file=sys.stderr)
    elif plot_given:
        plot(run, args.plot)
        print(f"wrote {args.plot}", file=sys.stderr)
    print(markdown_section(run, plot_name=args.plot.name))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
