"""The scale benchmark's run: every (system, size) pair measured on the same corpus, each
in a forked child, with BLAS pinned and a throwaway PostgreSQL server when asked for.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from functools import partial
from typing import Any

import numpy as np
from tqdm import tqdm

from benchmarks.common.corpora import make_corpus_of
from benchmarks.common.machine import machine_facts
from benchmarks.scale.baseline import Baseline, measure_in_tree
from benchmarks.scale.peers import (
    available,
    measure_bm25s,
    measure_chroma,
    measure_fts5,
    measure_mem0,
)
from benchmarks.scale.probe import peak_rss_bytes, reset_peak_rss, rss_bytes
from benchmarks.scale.profiling import profile_coordinator
from benchmarks.scale.results import ScaleRun
from benchmarks.scale.systems import (
    Measurement,
    RunSettings,
    measure_langgraph,
    measure_llamaindex,
    measure_numpy,
    measure_zenbrain,
)
from benchmarks.scale.tables import SUPERSESSION_OFF

__all__ = [
    "DEFAULT_BACKENDS",
    "DEFAULT_FLOOR_SIZES",
    "DEFAULT_PEERS",
    "DEFAULT_SIZES",
    "MODES",
    "PEER_MAX_SIZE",
    "POSTGRES_SHARED_BUFFERS",
    "PROFILE_SIZE",
    "blas_limit",
    "postgres_facts",
    "run_benchmark",
]

DEFAULT_SIZES = (1_000, 10_000, 100_000)
DEFAULT_BACKENDS = ("sqlite", "postgres")
MODES = ("lexical", "hybrid")
DEFAULT_PEERS = ("fts5", "bm25s", "numpy", "chroma", "langgraph", "llamaindex", "mem0")
DEFAULT_FLOOR_SIZES = (1_000_000,)
PEER_MAX_SIZE = 100_000  # the in-memory peers keep Python lists of floats: ~1.3 GB per 100k
# mem0 adds one memory per call (~20/s here): larger loads would take hours.
PEER_MAX_SIZES = {"mem0": 2_000}
_FLOORS = ("numpy", "fts5", "bm25s")  # cheap: no size cap
PROFILE_SIZE = 100_000
# About 1.8 GB of HNSW graph per million 384-d vectors, plus the rows recall reads.
POSTGRES_SHARED_BUFFERS = "4GB"


@contextlib.contextmanager
def blas_limit(threads: int | None) -> Iterator[str]:
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


def postgres_facts(server_url: str) -> dict[str, str]:
    """Server and pgvector versions, for the machine facts."""
    from sqlalchemy import create_engine, text

    engine = create_engine(server_url)
    try:
        with engine.connect() as conn:
            version = conn.execute(text("SHOW server_version")).scalar_one()
            vector = conn.execute(
                text("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            ).scalar()
            settings: dict[str, str] = dict(
                conn.execute(
                    text(
                        "SELECT name, setting FROM pg_settings WHERE name IN "
                        "('fsync', 'synchronous_commit', 'shared_buffers', 'max_parallel_workers')"
                    )
                ).all()
            )
    finally:
        engine.dispose()
    return {
        "postgres": str(version).split()[0],
        "pgvector": str(vector),
        **{f"pg_{k}": str(v) for k, v in settings.items()},
    }


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


def _in_process(work: _Work, label: str) -> tuple[Measurement, Any] | None:
    return work()


def _in_process_or_none(work: _Work, label: str) -> tuple[Measurement, Any] | None:
    """``work()``, or None (with why on stderr) when it fails, as a child's failure is."""
    try:
        return work()
    except Exception as exc:
        print(f"{label}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return None


def _in_child(work: _Work, label: str) -> tuple[Measurement, Any] | None:
    """Run ``work`` in a forked child; its measurement comes back with the peak RSS the
    child added on top of what it inherited (the corpus)."""
    context = multiprocessing.get_context("fork")
    reader, writer = context.Pipe(duplex=False)

    def child() -> None:
        reset_peak_rss()
        before = rss_bytes()
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


def _measure_without_supersession(
    corpus: Any, size: int, **arguments: Any
) -> tuple[Measurement, None]:
    measured = measure_zenbrain(corpus, size, supersession=False, **arguments)
    measured.system = SUPERSESSION_OFF
    return measured, None


_Runner = Callable[[_Work, str], "tuple[Measurement, Any] | None"]


def _variants(
    corpus: Any,
    size: int,
    arguments: dict[str, Any],
    *,
    supersession_off: bool,
    baseline: Baseline | None,
    blas_threads: int | None,
    run_one: _Runner,
) -> list[tuple[_Work, str, _Runner]]:
    """The zenbrain variants to measure right after one zenbrain measurement: each one's
    work, name and how it runs."""
    variants: list[tuple[_Work, str, _Runner]] = []
    if supersession_off:
        work = partial(_measure_without_supersession, corpus, size, **arguments)
        variants.append((work, "supersession=False", run_one))
    if baseline is not None:
        tree = partial(
            measure_in_tree, baseline, corpus, size, blas_threads=blas_threads, **arguments
        )
        # A process of its own already, which measures its own memory.
        variants.append((tree, baseline.label, _in_process_or_none))
    return variants


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
    supersession_off: bool = False,
    baseline: Baseline | None = None,
) -> ScaleRun:
    """Measure every (system, size) pair; see the module docstring. With ``isolate`` each
    measurement runs in a forked child, so one system's memory never weighs on the next and
    its peak RSS growth can be read. Right after each zenbrain measurement, the same with
    ``supersession=False`` (``supersession_off``) and with ``baseline``'s code (a child
    process of its own, :mod:`benchmarks.scale.baseline`), so the three are compared on the
    same machine minutes apart."""
    settings = settings or RunSettings()
    sizes = sorted(set(sizes))
    floor_only = sorted(set(floor_sizes) - set(sizes)) if "numpy" in peers else []
    started = time.perf_counter()
    load_at_start = os.getloadavg()[0]
    profile_extra = 1100 if profile_size in sizes and "sqlite" in backends else 0
    single_extra = settings.single_stores + settings.warmup
    largest = max([*sizes, *floor_only])
    print(f"generating {largest:,} memories and their vectors", file=sys.stderr)
    corpus = make_corpus_of(
        corpus_kind,
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
            "supersession_off": supersession_off,
            "baseline": None
            if baseline is None
            else {"path": str(baseline.path), "label": baseline.label, "commit": baseline.commit},
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
        blas_limit(blas_threads) as blas,
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
                    arguments = {
                        "backend": backend,
                        "hybrid": hybrid,
                        "settings": settings,
                        "server_url": server,
                    }
                    hook = profile_hook_for(size) if hybrid and backend == "sqlite" else None
                    measured = run_one(
                        partial(
                            _measure_zenbrain_with_profile,
                            run,
                            corpus,
                            size,
                            profile_hook=hook,
                            **arguments,
                        ),
                        f"zenbrain {backend} {size:,}",
                    )
                    if measured is not None:
                        run.measurements.append(measured[0])
                        run.profile = measured[1] or run.profile
                    variants = _variants(
                        corpus,
                        size,
                        arguments,
                        supersession_off=supersession_off,
                        baseline=baseline,
                        blas_threads=blas_threads,
                        run_one=run_one,
                    )
                    for work, variant, runner in variants:
                        measured = runner(work, f"zenbrain {backend} {size:,} {variant}")
                        if measured is not None:
                            run.measurements.append(measured[0])
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
    # Other jobs on the machine slow every system: the 1-minute load at both ends says how busy.
    run.machine["load average"] = (
        f"{load_at_start:.2f} at the start, {os.getloadavg()[0]:.2f} at the end "
        f"(1-minute, {os.cpu_count()} cores)"
    )
    return run
