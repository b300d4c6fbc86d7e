"""The scale benchmark's targets (issues 7, 15 and 39), checked against one run: absolute
latencies and rates on this 2-core machine, ratios to the floors and peers measured beside
zenbrain, and how the store rate holds as the store fills."""

from __future__ import annotations

import math
from dataclasses import dataclass

from benchmarks.scale.growth import first_to_last, tenth_rates
from benchmarks.scale.results import ScaleRun
from benchmarks.scale.tables import (
    MILLION,
    SUPERSESSION_OFF,
    ZENBRAIN_ORDER,
    find_measurement,
    mb_text,
    ms_text,
    rate_text,
    size_text,
)

__all__ = [
    "BATCH_STORE_PER_S",
    "HYBRID_P50_MS",
    "TARGET_SIZE",
    "TargetCheck",
    "check_targets",
    "growth_exponent",
]

TARGET_SIZE = 100_000
# Issue 7's targets, all on this 2-core machine.
LEXICAL_P50_MS = 15.0
HYBRID_P50_MS = 25.0
SQLITE_MILLION_P50_MS = 60.0
POSTGRES_MILLION_P50_MS = 20.0
BATCH_STORE_PER_S = 20_000.0
# Issue 15's, relative to the floors and peers of the same run.
STORE_SHARE_OF_FTS5 = 0.5
RSS_PER_VECTOR_BYTE = 2.0
PREFILTER_RECALL = 0.98
# Issue 39's: the knowledge-update rules on (the defaults), in the same run.
STORE_OVER_CHROMA = 10.0
STORE_SHARE_OF_SUPERSESSION_OFF = 0.9
HYBRID_OVER_CHROMA = 1.5
GROWTH_FIRST_TO_LAST = 1.3  # the last tenth of a 1M load's batches against the first


@dataclass
class TargetCheck:
    target: str
    measured: str
    met: bool | None  # None: not measured in this run
    gap: str


def _p50(run: ScaleRun, backend: str, mode: str, size: int) -> float | None:
    found = find_measurement(run, "zenbrain", backend, mode, size)
    return found.recall.p50_ms if found else None


def _latency_check(label: str, limit: float, value: float | None) -> TargetCheck:
    if value is None:
        return TargetCheck(label, "not measured in this run", None, "—")
    met = value <= limit
    gap = "—" if met else f"{value - limit:.1f} ms over ({value / limit:.1f}× the target)"
    return TargetCheck(label, f"{value:.1f} ms", met, gap)


def growth_exponent(small: float, large: float, small_size: int, large_size: int) -> float:
    """``b`` in ``latency ∝ size^b`` between two sizes; below 1 is sublinear."""
    return math.log(large / small) / math.log(large_size / small_size)


def check_targets(run: ScaleRun) -> list[TargetCheck]:
    checks = [
        _latency_check(
            f"recall p50 ≤ {LEXICAL_P50_MS:.0f} ms, lexical, SQLite, 100k",
            LEXICAL_P50_MS,
            _p50(run, "sqlite", "lexical", TARGET_SIZE),
        ),
        _latency_check(
            f"recall p50 ≤ {HYBRID_P50_MS:.0f} ms, hybrid, SQLite, 100k",
            HYBRID_P50_MS,
            _p50(run, "sqlite", "hybrid", TARGET_SIZE),
        ),
    ]
    for mode in ("lexical", "hybrid"):
        checks.append(
            _latency_check(
                f"recall p50 ≤ {SQLITE_MILLION_P50_MS:.0f} ms, {mode}, SQLite, 1M",
                SQLITE_MILLION_P50_MS,
                _p50(run, "sqlite", mode, MILLION),
            )
        )
    checks.append(
        _latency_check(
            f"recall p50 ≤ {POSTGRES_MILLION_P50_MS:.0f} ms, hybrid, PostgreSQL + HNSW, 1M",
            POSTGRES_MILLION_P50_MS,
            _p50(run, "postgres", "hybrid", MILLION),
        )
    )
    lexical_loads = [
        m
        for m in run.measurements
        if m.system == "zenbrain" and m.mode == "lexical" and m.backend == "sqlite" and m.batch_rate
    ]
    if lexical_loads:
        best = max(lexical_loads, key=lambda m: m.size)
        rate = best.batch_rate or 0.0
        met = rate >= BATCH_STORE_PER_S
        checks.append(
            TargetCheck(
                f"batch store ≥ {BATCH_STORE_PER_S:,.0f}/s without embeddings (SQLite)",
                f"{rate:,.0f}/s at {size_text(best.size)}",
                met,
                "—" if met else f"{BATCH_STORE_PER_S / rate:.1f}× too slow",
            )
        )
    for backend, mode in ZENBRAIN_ORDER:
        points = sorted(
            (m.size, m.recall.p50_ms)
            for m in run.measurements
            if m.system == "zenbrain"
            and (m.backend, m.mode) == (backend, mode)
            and m.recall.p50_ms
            and m.size >= 10_000
        )
        if len(points) < 2:
            continue
        (small_size, small), (large_size, large) = points[0], points[-1]
        exponent = growth_exponent(small, large, small_size, large_size)
        checks.append(
            TargetCheck(
                f"recall grows sublinearly, {backend} {mode}",
                f"p50 ∝ n^{exponent:.2f} ({size_text(small_size)}→{size_text(large_size)})",
                exponent < 1.0,
                "—" if exponent < 1.0 else f"exponent {exponent:.2f} ≥ 1",
            )
        )
    zen = find_measurement(run, "zenbrain", "sqlite", "hybrid", TARGET_SIZE)
    for peer in ("langgraph", "llamaindex"):
        other = find_measurement(run, peer, None, None, TARGET_SIZE)
        if zen is None or other is None or not zen.recall.p50_ms or not other.recall.p50_ms:
            continue
        ratio = zen.recall.p50_ms / other.recall.p50_ms
        checks.append(
            TargetCheck(
                f"faster than {other.label} on recall at 100k (SQLite hybrid)",
                f"ratio {ratio:.3f}",
                ratio < 1.0,
                "—" if ratio < 1.0 else f"{ratio:.1f}× slower",
            )
        )
    return checks + _relative_checks(run) + _store_checks(run)


def _relative_checks(run: ScaleRun) -> list[TargetCheck]:
    """Issue 15's targets: zenbrain against the floors and peers of the same run, 100k."""
    checks: list[TargetCheck] = []
    fts5 = find_measurement(run, "fts5", None, None, TARGET_SIZE)
    chroma = find_measurement(run, "chroma", None, None, TARGET_SIZE)
    lexical = find_measurement(run, "zenbrain", "sqlite", "lexical", TARGET_SIZE)
    hybrid = find_measurement(run, "zenbrain", "sqlite", "hybrid", TARGET_SIZE)
    if fts5 and fts5.recall.p50_ms and lexical and lexical.recall.p50_ms:
        ratio = lexical.recall.p50_ms / fts5.recall.p50_ms
        checks.append(
            TargetCheck(
                "lexical recall p50 ≤ FTS5 bm25() floor, SQLite, 100k",
                f"{ms_text(lexical.recall.p50_ms)} vs {ms_text(fts5.recall.p50_ms)} ms",
                ratio <= 1.0,
                "—" if ratio <= 1.0 else f"{ratio:.1f}× the floor",
            )
        )
    if fts5 and chroma and hybrid and fts5.recall.p50_ms and chroma.recall.p50_ms:
        budget = fts5.recall.p50_ms + chroma.recall.p50_ms
        value = hybrid.recall.p50_ms or math.inf
        checks.append(
            TargetCheck(
                "hybrid recall p50 ≤ FTS5 floor + ChromaDB, SQLite, 100k",
                f"{ms_text(value)} vs {ms_text(budget)} ms",
                value <= budget,
                "—" if value <= budget else f"{value / budget:.1f}× the budget",
            )
        )
    if fts5 and fts5.batch_rate and lexical and lexical.batch_rate:
        share = lexical.batch_rate / fts5.batch_rate
        checks.append(
            TargetCheck(
                f"store_many ≥ {STORE_SHARE_OF_FTS5}× raw FTS5 inserts, SQLite, 100k",
                f"{rate_text(lexical.batch_rate)} vs {rate_text(fts5.batch_rate)}/s ({share:.2f}×)",
                share >= STORE_SHARE_OF_FTS5,
                "—"
                if share >= STORE_SHARE_OF_FTS5
                else f"{STORE_SHARE_OF_FTS5 / share:.1f}× too slow",
            )
        )
    if hybrid and hybrid.recall_process_rss_bytes and hybrid.vector_bytes:
        share = hybrid.recall_process_rss_bytes / hybrid.vector_bytes
        checks.append(
            TargetCheck(
                f"peak RSS of a recalling process ≤ {RSS_PER_VECTOR_BYTE:.0f}× the vectors' "
                "bytes, SQLite hybrid, 100k",
                f"{mb_text(hybrid.recall_process_rss_bytes)} MB for "
                f"{mb_text(hybrid.vector_bytes)} MB "
                f"({share:.2f}×)",
                share <= RSS_PER_VECTOR_BYTE,
                "—" if share <= RSS_PER_VECTOR_BYTE else f"{share / RSS_PER_VECTOR_BYTE:.1f}× over",
            )
        )
    prefiltered = [
        m
        for m in run.measurements
        if m.system == "zenbrain" and m.prefilter_recall_at_10 is not None
    ]
    for m in prefiltered:
        value = m.prefilter_recall_at_10 or 0.0
        checks.append(
            TargetCheck(
                f"int8 pre-filter recall@10 vs exact ≥ {PREFILTER_RECALL}, {size_text(m.size)}",
                f"{value:.4f}",
                value >= PREFILTER_RECALL,
                "—" if value >= PREFILTER_RECALL else f"{PREFILTER_RECALL - value:.4f} short",
            )
        )
    return checks


def _ratio_check(label: str, value: float, floor: float, measured: str) -> TargetCheck:
    met = value >= floor
    return TargetCheck(label, measured, met, "—" if met else f"{floor / value:.2f}× short")


def _store_checks(run: ScaleRun) -> list[TargetCheck]:
    """Issue 39's targets: store_many with the defaults against ChromaDB and against itself
    with supersession=False, hybrid recall against ChromaDB (SQLite, 100k), and the rate of
    a 1M load's last batches against its first."""
    checks: list[TargetCheck] = []
    chroma = find_measurement(run, "chroma", None, None, TARGET_SIZE)
    for mode in ("lexical", "hybrid"):
        zen = find_measurement(run, "zenbrain", "sqlite", mode, TARGET_SIZE)
        off = find_measurement(run, SUPERSESSION_OFF, "sqlite", mode, TARGET_SIZE)
        if zen is None or not zen.batch_rate:
            continue
        if chroma and chroma.batch_rate:
            share = zen.batch_rate / chroma.batch_rate
            checks.append(
                _ratio_check(
                    f"store_many ≥ {STORE_OVER_CHROMA:.0f}× ChromaDB's adds, SQLite {mode}, 100k",
                    share,
                    STORE_OVER_CHROMA,
                    f"{rate_text(zen.batch_rate)} vs {rate_text(chroma.batch_rate)}/s "
                    f"({share:.1f}×)",
                )
            )
        if off and off.batch_rate:
            share = zen.batch_rate / off.batch_rate
            checks.append(
                _ratio_check(
                    f"store_many ≥ {STORE_SHARE_OF_SUPERSESSION_OFF}× its rate with "
                    f"supersession=False, SQLite {mode}, 100k",
                    share,
                    STORE_SHARE_OF_SUPERSESSION_OFF,
                    f"{rate_text(zen.batch_rate)} vs {rate_text(off.batch_rate)}/s ({share:.2f}×)",
                )
            )
    hybrid = find_measurement(run, "zenbrain", "sqlite", "hybrid", TARGET_SIZE)
    if hybrid and hybrid.recall.p50_ms and chroma and chroma.recall.p50_ms:
        ratio = hybrid.recall.p50_ms / chroma.recall.p50_ms
        met = ratio <= HYBRID_OVER_CHROMA
        checks.append(
            TargetCheck(
                f"hybrid recall p50 ≤ {HYBRID_OVER_CHROMA}× ChromaDB's, SQLite, 100k",
                f"{ms_text(hybrid.recall.p50_ms)} vs {ms_text(chroma.recall.p50_ms)} ms "
                f"({ratio:.2f}×)",
                met,
                "—" if met else f"{ratio / HYBRID_OVER_CHROMA:.2f}× over",
            )
        )
    loads = [
        m
        for m in run.measurements
        if m.system == "zenbrain" and m.size >= MILLION and first_to_last(m.batch_rates)
    ]
    for m in loads:
        slowdown = first_to_last(m.batch_rates) or 0.0
        tenths = tenth_rates(m.batch_rates)
        met = slowdown <= GROWTH_FIRST_TO_LAST
        checks.append(
            TargetCheck(
                f"store_many's rate holds as the store fills: first tenth of the batches ≤ "
                f"{GROWTH_FIRST_TO_LAST}× the last's, {m.backend} {m.mode}, {size_text(m.size)}",
                f"{rate_text(tenths[0])} → {rate_text(tenths[-1])}/s ({slowdown:.2f}×)",
                met,
                "—" if met else f"{slowdown / GROWTH_FIRST_TO_LAST:.2f}× over",
            )
        )
    if not loads:
        checks.append(
            TargetCheck(
                f"store_many's rate holds as the store fills: first tenth of the batches ≤ "
                f"{GROWTH_FIRST_TO_LAST}× the last's, 1M",
                "not measured in this run",
                None,
                "—",
            )
        )
    return checks
