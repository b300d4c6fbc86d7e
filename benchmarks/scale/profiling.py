"""cProfile of zenbrain's hot paths (store, recall) on a loaded store, summarised as tables.

Run from the scale benchmark on its SQLite store at the profiled size, after the timed part,
so the profiler's overhead never touches the reported latencies.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from benchmarks.common.synthetic_corpus import Corpus
from zenbrain import MemoryCoordinator

__all__ = ["PathProfile", "ProfileEntry", "ProfileReport", "profile_coordinator"]

TOP_ENTRIES = 12
PROFILED_RECALLS = 100
PROFILED_SINGLE_STORES = 100
PROFILED_BATCH = 1000
BLAS_COMPARISON_QUERIES = 50


@dataclass
class ProfileEntry:
    function: str
    calls: int
    own_ms: float  # per profiled operation
    cumulative_ms: float  # per profiled operation


@dataclass
class PathProfile:
    """One hot path: how many operations were profiled, their mean wall time under the
    profiler, and the functions with the most own time."""

    name: str
    operations: int
    mean_ms: float
    entries: list[ProfileEntry] = field(default_factory=list)  # most own time first
    zenbrain_entries: list[ProfileEntry] = field(default_factory=list)  # most cumulative


@dataclass
class ProfileReport:
    size: int
    paths: list[PathProfile] = field(default_factory=list)
    blas_default_p50_ms: float | None = None  # hybrid recall, BLAS with its default threads
    blas_single_p50_ms: float | None = None  # hybrid recall, BLAS pinned to one thread


def _short_name(key: tuple[str, int, str]) -> str:
    filename, line, name = key
    if filename == "~":
        return name  # a C function, e.g. {method 'execute' of 'sqlite3.Cursor' objects}
    path = Path(filename)
    parts = path.parts
    if "zenbrain" in parts:
        where = "/".join(parts[parts.index("zenbrain") :])
    elif "site-packages" in parts:
        where = "/".join(parts[parts.index("site-packages") + 1 :])
    else:
        where = path.name
    return f"{where}:{line}({name})"


def _profile(name: str, operations: int, work: Callable[[], object]) -> PathProfile:
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    work()
    profiler.disable()
    elapsed = time.perf_counter() - start
    stats = pstats.Stats(profiler)
    raw = stats.stats  # type: ignore[attr-defined]

    def entry(key: tuple[str, int, str], values: tuple) -> ProfileEntry:
        return ProfileEntry(
            function=_short_name(key),
            calls=int(values[1]),
            own_ms=values[2] * 1000 / operations,
            cumulative_ms=values[3] * 1000 / operations,
        )

    by_own = sorted(raw.items(), key=lambda item: item[1][2], reverse=True)[:TOP_ENTRIES]
    # zenbrain's own functions by cumulative time: where in the library the time goes.
    ours = [
        item
        for item in raw.items()
        if "/zenbrain/" in item[0][0] and item[0][2] not in ("wrapper", "<listcomp>")
    ]
    by_cumulative = sorted(ours, key=lambda item: item[1][3], reverse=True)[:TOP_ENTRIES]
    return PathProfile(
        name,
        operations,
        elapsed * 1000 / operations,
        entries=[entry(k, v) for k, v in by_own],
        zenbrain_entries=[entry(k, v) for k, v in by_cumulative],
    )


def _recall_p50(coordinator: MemoryCoordinator, queries: list[str]) -> float:
    samples = []
    for query in queries:
        start = time.perf_counter()
        coordinator.recall(query)
        samples.append(time.perf_counter() - start)
    return float(np.median(samples) * 1000)


def profile_coordinator(
    coordinator: MemoryCoordinator, corpus: Corpus, size: int, extra_offset: int
) -> ProfileReport:
    """Profile hybrid and lexical recall, single store and batch store on ``coordinator``'s
    SQLite store (opened with the corpus embedder); uses held-out texts from
    ``extra_offset`` on, so nothing profiled was timed before."""
    report = ProfileReport(size)
    queries = corpus.queries[:PROFILED_RECALLS]
    for query in queries[:10]:
        coordinator.recall(query)
    report.paths.append(
        _profile(
            "recall, hybrid (precomputed query vector)",
            len(queries),
            lambda: [coordinator.recall(q) for q in queries] and None,
        )
    )
    lexical = MemoryCoordinator(coordinator.location, namespace=coordinator.namespace)
    try:
        for query in queries[:10]:
            lexical.recall(query)
        report.paths.append(
            _profile(
                "recall, lexical only",
                len(queries),
                lambda: [lexical.recall(q) for q in queries] and None,
            )
        )
    finally:
        lexical.close()
    comparison = corpus.queries[-BLAS_COMPARISON_QUERIES:]
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # the benchmark then runs with BLAS's defaults throughout
        pass
    else:
        with threadpool_limits(limits=os.cpu_count() or 1, user_api="blas"):
            report.blas_default_p50_ms = _recall_p50(coordinator, comparison)
        with threadpool_limits(limits=1, user_api="blas"):
            report.blas_single_p50_ms = _recall_p50(coordinator, comparison)
    texts = corpus.extra[extra_offset:]
    singles = texts[:PROFILED_SINGLE_STORES]
    batch = texts[PROFILED_SINGLE_STORES : PROFILED_SINGLE_STORES + PROFILED_BATCH]
    report.paths.append(
        _profile(
            "store(), one memory",
            len(singles),
            lambda: [coordinator.store(t) for t in singles] and None,
        )
    )
    if batch:
        report.paths.append(
            _profile(
                f"store_many(), per memory in a batch of {len(batch)}",
                len(batch),
                lambda: coordinator.store_many(batch) and None,
            )
        )
    return report
