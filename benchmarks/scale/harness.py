"""The scale benchmark's run: every (system, size) pair measured on the same corpus, each
in a forked child, with BLAS pinned and a throwaway PostgreSQL server when asked for.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from benchmarks.common.corpora import make_corpus_of
from benchmarks.common.machine import machine_facts
from benchmarks.scale.peers import (
    available,
    measure_bm25s,
    measure_chroma,
    measure_fts5,
    measure_mem0,
)
from benchmarks.scale.probe import peak_rss_bytes
from benchmarks.scale.profiling import profile_coordinator
from benchmarks.scale.results import ScaleRun
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
    "DEFAULT_BACKENDS",
    "DEFAULT_FLOOR_SIZES",
    "DEFAULT_PEERS",
    "DEFAULT_SIZES",
    "MODES",
    "PEER_MAX_SIZE",
    "POSTGRES_SHARED_BUFFERS",
    "PROFILE_SIZE",
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
