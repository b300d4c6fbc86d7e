"""Markdown tables, the plot, and the ``## Scale and speed`` section of docs/benchmarks.md.

``docs/benchmarks.md`` is shared with other benchmarks: this module only ever replaces the
part from its ``## Scale and speed`` heading to the next level-2 heading.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common.docs_sections import replace_section as replace_docs_section
from benchmarks.scale.profiling import ProfileEntry
from benchmarks.scale.results import ScaleRun
from benchmarks.scale.systems import Measurement

__all__ = [
    "LOCOMO_SECTION_HEADING",
    "SECTION_HEADING",
    "TargetCheck",
    "check_targets",
    "markdown_section",
    "plot",
    "replace_section",
    "section_heading",
    "write_docs",
]

SECTION_HEADING = "## Scale and speed"
LOCOMO_SECTION_HEADING = "## Scale and speed on LoCoMo-derived text"
TARGET_SIZE = 100_000
MILLION = 1_000_000
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

_ZENBRAIN_ORDER = (
    ("sqlite", "lexical"),
    ("sqlite", "hybrid"),
    ("postgres", "lexical"),
    ("postgres", "hybrid"),
)
_PEER_ORDER = ("fts5", "bm25s", "numpy", "chroma", "langgraph", "llamaindex", "mem0")
_MB = 1024 * 1024


# --------------------------------------------------------------------------- helpers
def _ms(value: float | None) -> str:
    if value is None:
        return "—"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}"


def _size(size: int) -> str:
    if size >= MILLION and size % MILLION == 0:
        return f"{size // MILLION}M"
    if size >= 1000 and size % 1000 == 0:
        return f"{size // 1000}k"
    return f"{size:,}"


def _find(
    run: ScaleRun, system: str, backend: str | None, mode: str | None, size: int
) -> Measurement | None:
    for m in run.measurements:
        if (
            m.system == system
            and m.size == size
            and (backend is None or m.backend == backend)
            and (mode is None or m.mode == mode)
        ):
            return m
    return None


def _rows(run: ScaleRun) -> list[tuple[str, str | None, str | None]]:
    """(system, backend, mode) keys present in the run, in report order."""
    keys: list[tuple[str, str | None, str | None]] = []
    for backend, mode in _ZENBRAIN_ORDER:
        if any(
            m.system == "zenbrain" and (m.backend, m.mode) == (backend, mode)
            for m in run.measurements
        ):
            keys.append(("zenbrain", backend, mode))
    for peer in _PEER_ORDER:
        if any(m.system == peer for m in run.measurements):
            keys.append((peer, None, None))
    return keys


def _sizes(run: ScaleRun) -> list[int]:
    return sorted({m.size for m in run.measurements})


def _label(run: ScaleRun, key: tuple[str, str | None, str | None]) -> str:
    for m in run.measurements:
        if (m.system, m.backend if key[1] else None, m.mode if key[2] else None) == key:
            return m.label
    return key[0]


def _table(
    run: ScaleRun,
    header: str,
    cell: Callable[[Measurement], str],
    keys: Sequence[tuple[str, str | None, str | None]] | None = None,
) -> list[str]:
    sizes = _sizes(run)
    chosen = list(keys if keys is not None else _rows(run))
    lines = [
        f"| {header} | " + " | ".join(_size(s) for s in sizes) + " |",
        "|---|" + "---:|" * len(sizes),
    ]
    for key in chosen:
        cells = []
        for size in sizes:
            found = _find(run, key[0], key[1], key[2], size)
            cells.append(cell(found) if found is not None else "—")
        if all(c == "—" for c in cells):
            continue
        lines.append(f"| {_label(run, key)} | " + " | ".join(cells) + " |")
    return lines


def _cpu_table(run: ScaleRun) -> list[str]:
    """CPU time per recall, with its explanation; nothing for a run made before it was
    measured."""
    if not any(m.recall.cpu_ms_per_call is not None for m in run.measurements):
        return []
    return [
        "CPU time the recalling process spent per recall (ms, mean over the timed calls), "
        "every thread of it: above the wall time where worker threads ran or spun. A "
        "PostgreSQL server's own work is not counted (another process).",
        "",
        *_table(
            run,
            "recall CPU per call (ms)",
            lambda m: "—" if m.recall.cpu_ms_per_call is None else _ms(m.recall.cpu_ms_per_call),
        ),
        "",
    ]


def _zenbrain_keys(run: ScaleRun) -> list[tuple[str, str | None, str | None]]:
    return [k for k in _rows(run) if k[0] == "zenbrain"]


def section_heading(run: ScaleRun) -> str:
    """This run's section of ``docs/benchmarks.md``: one per corpus."""
    return LOCOMO_SECTION_HEADING if run.settings.get("corpus") == "locomo" else SECTION_HEADING


def _mb(value: int | None) -> str:
    return "—" if not value else f"{value / _MB:,.0f}"


# --------------------------------------------------------------------------- targets
@dataclass
class TargetCheck:
    target: str
    measured: str
    met: bool | None  # None: not measured in this run
    gap: str


def _p50(run: ScaleRun, backend: str, mode: str, size: int) -> float | None:
    found = _find(run, "zenbrain", backend, mode, size)
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
                f"{rate:,.0f}/s at {_size(best.size)}",
                met,
                "—" if met else f"{BATCH_STORE_PER_S / rate:.1f}× too slow",
            )
        )
    for backend, mode in _ZENBRAIN_ORDER:
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
                f"p50 ∝ n^{exponent:.2f} ({_size(small_size)}→{_size(large_size)})",
                exponent < 1.0,
                "—" if exponent < 1.0 else f"exponent {exponent:.2f} ≥ 1",
            )
        )
    zen = _find(run, "zenbrain", "sqlite", "hybrid", TARGET_SIZE)
    for peer in ("langgraph", "llamaindex"):
        other = _find(run, peer, None, None, TARGET_SIZE)
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
    return checks + _relative_checks(run)


def _relative_checks(run: ScaleRun) -> list[TargetCheck]:
    """Issue 15's targets: zenbrain against the floors and peers of the same run, 100k."""
    checks: list[TargetCheck] = []
    fts5 = _find(run, "fts5", None, None, TARGET_SIZE)
    chroma = _find(run, "chroma", None, None, TARGET_SIZE)
    lexical = _find(run, "zenbrain", "sqlite", "lexical", TARGET_SIZE)
    hybrid = _find(run, "zenbrain", "sqlite", "hybrid", TARGET_SIZE)
    if fts5 and fts5.recall.p50_ms and lexical and lexical.recall.p50_ms:
        ratio = lexical.recall.p50_ms / fts5.recall.p50_ms
        checks.append(
            TargetCheck(
                "lexical recall p50 ≤ FTS5 bm25() floor, SQLite, 100k",
                f"{_ms(lexical.recall.p50_ms)} vs {_ms(fts5.recall.p50_ms)} ms",
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
                f"{_ms(value)} vs {_ms(budget)} ms",
                value <= budget,
                "—" if value <= budget else f"{value / budget:.1f}× the budget",
            )
        )
    if fts5 and fts5.batch_rate and lexical and lexical.batch_rate:
        share = lexical.batch_rate / fts5.batch_rate
        checks.append(
            TargetCheck(
                f"store_many ≥ {STORE_SHARE_OF_FTS5}× raw FTS5 inserts, SQLite, 100k",
                f"{_rate(lexical.batch_rate)} vs {_rate(fts5.batch_rate)}/s ({share:.2f}×)",
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
                f"{_mb(hybrid.recall_process_rss_bytes)} MB for {_mb(hybrid.vector_bytes)} MB "
                f"({share:.2f}×)",
                share <= RSS_PER_VECTOR_BYTE,
                "—" if share <= RSS_PER_VECTOR_BYTE else f"{share / RSS_PER_VECTOR_BYTE:.1f}× over",
            )
        )
    prefiltered = [m for m in run.measurements if m.prefilter_recall_at_10 is not None]
    for m in prefiltered:
        value = m.prefilter_recall_at_10 or 0.0
        checks.append(
            TargetCheck(
                f"int8 pre-filter recall@10 vs exact ≥ {PREFILTER_RECALL}, {_size(m.size)}",
                f"{value:.4f}",
                value >= PREFILTER_RECALL,
                "—" if value >= PREFILTER_RECALL else f"{PREFILTER_RECALL - value:.4f} short",
            )
        )
    return checks


# --------------------------------------------------------------------------- sections
def _machine(run: ScaleRun) -> list[str]:
    facts = run.machine
    keys = [
        "cpu cores",
        "processor",
        "platform",
        "python",
        "sqlite",
        "postgres",
        "pgvector",
        "numpy",
        "sqlalchemy",
        "langgraph",
        "llama-index-core",
        "blas",
        "zenbrain commit",
    ]
    lines = [f"- {key}: {facts[key]}" for key in keys if key in facts]
    pg = [f"{k.removeprefix('pg_')}={facts[k]}" for k in sorted(facts) if k.startswith("pg_")]
    if pg:
        lines.append(
            "- PostgreSQL server settings: " + ", ".join(pg) + " (the throwaway test server; "
            "fsync off makes its writes faster than a durable production server's)"
        )
    return lines


def _ratio_table(run: ScaleRun) -> list[str]:
    peers = [p for p in _PEER_ORDER if any(m.system == p for m in run.measurements)]
    zen_keys = _zenbrain_keys(run)
    if not peers or not zen_keys:
        return []
    sizes = [s for s in _sizes(run) if any(_find(run, p, None, None, s) for p in peers)]
    lines = [
        "| zenbrain p50 ÷ peer p50 | "
        + " | ".join(
            f"{_label(run, (p, None, None))} {_size(s)}"
            for s in sizes
            for p in peers
            if _find(run, p, None, None, s)
        )
        + " |",
    ]
    columns = [(s, p) for s in sizes for p in peers if _find(run, p, None, None, s)]
    lines.append("|---|" + "---:|" * len(columns))
    for key in zen_keys:
        cells = []
        for size, peer in columns:
            zen = _find(run, *key, size)
            other = _find(run, peer, None, None, size)
            if zen and other and zen.recall.p50_ms and other.recall.p50_ms:
                cells.append(f"{zen.recall.p50_ms / other.recall.p50_ms:.3g}")
            else:
                cells.append("—")
        lines.append(f"| {_label(run, key)} | " + " | ".join(cells) + " |")
    return lines


def _profile_row(entry: ProfileEntry) -> str:
    name = entry.function.replace("|", "\\|")
    return f"| `{name}` | {entry.calls:,} | {entry.own_ms:.3f} | {entry.cumulative_ms:.3f} |"


def _profile_section(run: ScaleRun) -> list[str]:
    profile = run.profile
    if profile is None:
        return ["No profile in this run (`--profile-size` was off or not among the sizes)."]
    lines = [
        f"cProfile on the SQLite store of {_size(profile.size)} memories (opened with the "
        "precomputed-vector embedder), after the timed part. Times are per operation and "
        "include the profiler's own overhead; *own* is time inside the function itself.",
        "",
    ]
    for path in profile.paths:
        lines += [
            f"**{path.name}** — {path.operations} operations, {path.mean_ms:.2f} ms each "
            "under the profiler",
            "",
            "| function | calls | own ms/op | cumulative ms/op |",
            "|---|---:|---:|---:|",
        ]
        for entry in path.entries[:8]:
            lines.append(_profile_row(entry))
        if path.zenbrain_entries:
            lines += [
                "",
                "| zenbrain function, by cumulative time | calls | own ms/op | cumulative ms/op |",
                "|---|---:|---:|---:|",
            ]
            lines += [_profile_row(entry) for entry in path.zenbrain_entries[:10]]
        lines.append("")
    if profile.blas_default_p50_ms and profile.blas_single_p50_ms:
        lines.append(
            f"Same store, same 50 queries, hybrid recall p50: **{profile.blas_default_p50_ms:.1f}"
            f" ms** with BLAS on its default one thread per core, **"
            f"{profile.blas_single_p50_ms:.1f} ms** with BLAS pinned to one thread."
        )
        lines.append("")
    return lines


def _largest(
    run: ScaleRun, system: str, backend: str | None, mode: str | None
) -> Measurement | None:
    found = [
        m
        for m in run.measurements
        if m.system == system
        and (backend is None or m.backend == backend)
        and (mode is None or m.mode == mode)
        and m.recall.count
    ]
    return max(found, key=lambda m: m.size) if found else None


def _top_zenbrain(run: ScaleRun, path_prefix: str, count: int = 4) -> str:
    """The heaviest zenbrain functions (below the entry points) of a profiled path."""
    if run.profile is None:
        return "not profiled"
    path = next((p for p in run.profile.paths if p.name.startswith(path_prefix)), None)
    if path is None:
        return "not profiled"
    skip = ("(recall)", "(store)", "(store_many)", "(_search_layer)", "(_store_pending)")
    shown = [e for e in path.zenbrain_entries if not e.function.endswith(skip)][:count]
    return (
        ", ".join(f"`{e.function.split('/')[-1]}` {e.cumulative_ms:.1f} ms" for e in shown)
        + f" of {path.mean_ms:.1f} ms per call under the profiler"
    )


def _row_lookup_ms(run: ScaleRun, path_prefix: str) -> float:
    """Cumulative ms per call spent fetching rows by id (``pks_of``) and by key (the
    coordinator's dict comprehension over candidate rows) in a profiled path."""
    if run.profile is None:
        return 0.0
    path = next((p for p in run.profile.paths if p.name.startswith(path_prefix)), None)
    if path is None:
        return 0.0
    total = 0.0
    for entry in path.zenbrain_entries:
        name = entry.function
        if name.endswith("(pks_of)") or (
            "coordinator.py" in name and name.endswith("(<dictcomp>)")
        ):
            total += entry.cumulative_ms
    return total


def findings(run: ScaleRun) -> list[str]:
    """Measured observations behind the misses, with what would close each."""
    lines: list[str] = []
    profile = run.profile
    if (
        profile
        and profile.blas_default_p50_ms
        and profile.blas_single_p50_ms
        and profile.blas_default_p50_ms > 1.1 * profile.blas_single_p50_ms
    ):
        lines.append(
            f"- **BLAS threads.** On this 2-core VM, numpy's BLAS with its default two threads "
            f"made the same hybrid recall take {profile.blas_default_p50_ms:.1f} ms p50 instead "
            f"of {profile.blas_single_p50_ms:.1f} ms with one thread: a matrix-vector product "
            "is memory-bound, and waking the sleeping BLAS worker costs more than it saves. "
            "This run pins BLAS to one thread for every system (`--blas-threads 0` restores "
            "the default). Closing it in the library: run the SQLite back end's product under "
            "`threadpoolctl.threadpool_limits(1, 'blas')`, or split the matrix in row blocks "
            "computed by the calling thread."
        )
    floor_rows = sorted(
        (m.size, m.recall.p50_ms)
        for m in run.measurements
        if m.system == "numpy" and m.recall.p50_ms
    )
    if floor_rows:
        shown = ", ".join(f"{_ms(p)} ms at {_size(s)}" for s, p in floor_rows)
        lines.append(
            f"- **Scanning every vector has a floor.** One float32 matrix-vector product over "
            f"{run.settings.get('dimension')}-d unit vectors plus a top-10 selection takes "
            f"{shown} here (p50). From 20,000 vectors a SQLite layer scans a 32nd of those "
            "bytes (each vector's sign bits), ranks 3% of the vectors by their int8 copy and "
            "re-scores a few dozen rows exactly, "
            "but the scan is still linear in the layer's size; a graph index (HNSW) would "
            "make it sublinear, at the price of recall on vectors as close to orthogonal as "
            "these (usearch's HNSW found 0.84 of the exact top 10 on the synthetic 100k "
            "vectors at 0.7 ms per query; the pre-filter finds all of them)."
        )
    hybrid = _largest(run, "zenbrain", "sqlite", "hybrid")
    if (
        hybrid
        and hybrid.recall_after_store.p50_ms
        and hybrid.recall.p50_ms
        and hybrid.recall_after_store.p50_ms > 1.5 * hybrid.recall.p50_ms
    ):
        lines.append(
            f"- **A store drops the vector cache.** At {_size(hybrid.size)}, hybrid recall takes "
            f"{_ms(hybrid.recall.p50_ms)} ms p50 on a warm cache but "
            f"{_ms(hybrid.recall_after_store.p50_ms)} ms right after a `store()`: every write "
            "empties the SQLite back end's cached matrix for its layer and the next recall "
            "reads all vectors back from the table. What would close it: append the new rows "
            "to the cached matrix in the writing process, and on a count or max-key change "
            "from another process read only the rows with a key above the cached maximum."
        )
    lexical = _largest(run, "zenbrain", "sqlite", "lexical")
    if lexical and lexical.recall.p50_ms:
        lines.append(
            f"- **Lexical recall** at {_size(lexical.size)}: {_ms(lexical.recall.p50_ms)} ms p50."
            f" Heaviest parts in the profile: {_top_zenbrain(run, 'recall, lexical')}."
        )
    lookups = _row_lookup_ms(run, "recall, lexical")
    if lookups > 5.0:
        lines.append(
            f"- **Lookups by id and by key walk the namespace.** About {lookups:.0f} ms of each "
            "profiled lexical recall go to fetching rows by memory id (`pks_of`) and by primary "
            "key (the candidate rows): with `namespace = ?` in the WHERE clause and no table "
            "statistics, SQLite picks the namespace index and visits every row of the namespace "
            "instead of the unique-id index or the rowid. Measured separately on a 20k store: "
            "15.8 → 0.03 ms and 3.3 → 0.2 ms per query once the planner is steered (a unary `+` "
            "on the namespace column, or `ANALYZE` / `PRAGMA optimize`)."
        )
    if hybrid and hybrid.recall.p50_ms:
        lines.append(
            f"- **Hybrid recall** at {_size(hybrid.size)}: {_ms(hybrid.recall.p50_ms)} ms p50. "
            f"Heaviest parts in the profile: {_top_zenbrain(run, 'recall, hybrid')}."
        )
    loads = [
        m
        for m in run.measurements
        if m.system == "zenbrain" and m.backend == "sqlite" and m.mode == "lexical" and m.batch_rate
    ]
    if loads:
        best = max(loads, key=lambda m: m.size)
        lines.append(
            f"- **Batch store** reaches {_rate(best.batch_rate)} memories/s at "
            f"{_size(best.size)} without embeddings: every memory is validated, its emotional "
            "weight estimated, its text tokenised and stemmed, its entities extracted for the "
            "cross-context layer, and four rows written (memory, fact schedule, index terms, "
            "entity mentions) plus the scopes' counts, each table's rows of a batch with one "
            "DB-API `executemany`. Heaviest parts in the profile (per "
            f"memory): {_top_zenbrain(run, 'store_many')}. What is left is Python work per "
            "memory (validation, emotion tagging, routing, tokenising, entity extraction) "
            "and SQLite's own: the rows of four tables and their indexes, of which the entity "
            "mentions' takes a page per entity a batch names. The section \"Writes: the "
            'garbage collector paused during `store_many`" times each step; "Writes: the '
            'floor of the rows a memory keeps" replays the rows alone, without Python '
            "(`python -m benchmarks.speed.write_floor`)."
        )
    return lines


def _corpus_lines(settings: dict) -> list[str]:
    memory_chars = f"{settings.get('mean_memory_chars', 0):.0f}"
    query_chars = f"{settings.get('mean_query_chars', 0):.0f}"
    if settings.get("corpus") == "locomo":
        return [
            "- Memories: the 5,882 turns of LoCoMo's ten conversations as "
            '`"<speaker>: <turn>"`, then the same turns again with seeded variations '
            "(every person's name replaced by another first name, numbers by others, one "
            f"word in five dropped or swapped; mean {memory_chars} characters). Queries: "
            "LoCoMo's QA questions varied the same way (mean "
            f"{query_chars} characters). They share common words with the memories, and "
            f"names recur across thousands of them. Seeded ({settings.get('seed')}): every "
            "system gets the same texts (`benchmarks/scale_locomo.py`).",
        ]
    return [
        "- Memories: synthetic sentences of 8–24 words (mean "
        f"{memory_chars} characters) drawn from a Zipf "
        "distribution (exponent 1) over a 30,000-word vocabulary whose top ranks are English "
        "function words (dropped as stopwords, as in real text) and the rest made-up words; "
        f"queries are 5–10-word sentences from the same distribution (mean "
        f"{query_chars} characters). Seeded "
        f"({settings.get('seed')}): every system gets the same texts.",
    ]


def _routing_note(settings: dict) -> str:
    if settings.get("corpus") == "locomo":
        return (
            "Routing puts each memory where a real agent's would go (emotional turns to "
            "the episodic layer, step-like ones to the procedural, the rest to the "
            "semantic), so recall searches several layers."
        )
    return (
        "The synthetic texts carry no emotion or steps, so every memory is routed to the "
        "semantic layer: recall searches one layer holding all *n* memories."
    )


def markdown_section(run: ScaleRun, plot_name: str = "scale.png") -> str:
    """The whole ``## Scale and speed`` section, heading included, ending in a newline."""
    settings = run.settings
    measured_sizes = ", ".join(_size(s) for s in settings.get("sizes", []))
    floor_only = ", ".join(_size(s) for s in settings.get("floor_only_sizes", []))
    results = (
        "scale-locomo-results.json"
        if settings.get("corpus") == "locomo"
        else ("scale-results.json")
    )
    corpus_flag = " --corpus locomo" if settings.get("corpus") == "locomo" else ""
    lines = [
        section_heading(run),
        "",
        f"Produced by `{run.command}` on {run.started}; the run took "
        f"{run.seconds / 60:.1f} minutes. Raw numbers: `docs/{results}`; "
        "rebuild this section from them with `python -m benchmarks.scale"
        f"{corpus_flag} --from-results docs/{results} --write-docs`.",
        "",
        "### What was measured",
        "",
        f"- Sizes: {measured_sizes} memories"
        + (
            f"; the numpy floor also at {floor_only} (corpus only, no store)."
            if floor_only
            else "."
        ),
        *_corpus_lines(settings),
        f"- Vectors: {settings.get('dimension')}-d, a fixed random projection of each text's "
        "bag of content words, precomputed once and served from a dict by every system's "
        "embedder (zenbrain's `EmbeddingProvider`, LangGraph's `embed` function, a LlamaIndex "
        "`BaseEmbedding`), so no embedder's speed hides a store's. The peers get plain lists "
        "of floats, as their embedding interfaces specify.",
        "- zenbrain: `store_many()` in batches of "
        f"{settings.get('batch_size')} (batch throughput), then "
        f"{settings.get('queries')} timed `recall(query, limit=10)` after "
        f"{settings.get('warmup')} untimed warm-up calls, then {settings.get('single_stores')}"
        " single `store()` calls, each followed by a timed recall (an agent's turn: write, "
        "then read). *lexical* is a store opened without an embedder; *hybrid* one opened "
        "with the precomputed-vector embedder (lexical candidates plus vector neighbours, "
        "fused). " + _routing_note(settings),
        "- Floors: a bare SQLite FTS5 table of the texts queried with `MATCH` (the query's "
        "terms OR-ed) `ORDER BY bm25() LIMIT 10`, loaded with `executemany` in one "
        "transaction per batch (the raw insert rate zenbrain's `store_many` is compared "
        "with); bm25s indexed once over the texts; numpy's `matrix @ query`.",
        "- ChromaDB: embedded `PersistentClient` (HNSW, cosine) on disk, `collection.add` in "
        "batches with the precomputed vectors and texts, `collection.query(query_embeddings="
        "…, n_results=10)`. mem0: `Memory` with `infer=False` (no LLM call: each text stored "
        "as given), qdrant in local mode on disk, its embedder replaced by the precomputed "
        "vectors; mem0 adds one memory per `add()` call, so it runs only up to "
        f"{_size(int(settings.get('peer_max_sizes', {}).get('mem0', 0) or 0))}.",
        "- Peers: LangGraph `InMemoryStore(index={dims, embed, fields=['text']})`, bulk-loaded"
        " with `batch([PutOp…])`, recalled with `search(namespace, query=…, limit=10)`; "
        "LlamaIndex `VectorMemoryBlock` with `similarity_top_k=10` over `SimpleVectorStore` "
        "(a subclass that also keeps node texts, since the block refuses a store without "
        "text; search is `SimpleVectorStore.query` unchanged), single stores through "
        "`aput([ChatMessage])`, bulk load as one node per memory straight into the vector "
        "store, recall through `aget(messages=[ChatMessage])`; and the floor, `matrix @ "
        "query` plus `argpartition` over the same float32 unit vectors. The peers are in "
        f"memory and run up to {_size(settings.get('peer_max_size', 0))}; their slow recalls "
        "are timed until 20 s are spent (at least 10 calls), after 3 warm-up calls.",
        "- Medians (p50) and 95th percentiles of per-call wall time; warm-up excluded. Each "
        "measurement runs in its own forked process, one after another, in the same run; the "
        "machine is shared (2 cores, other jobs running), so compare systems by their ratios "
        "within this run rather than by absolute milliseconds. Disk size is the SQLite file "
        "plus its WAL after closing, the PostgreSQL tables with their indexes and TOAST, or "
        "the peer's data folder.",
        "",
        "Machine:",
        "",
        *_machine(run),
        "",
        f"![recall latency and store throughput against the number of memories]({plot_name})",
        "",
        "### Recall latency",
        "",
        "p50 / p95 in milliseconds, `limit=10`.",
        "",
        *_table(
            run,
            "recall p50 / p95 (ms)",
            lambda m: f"{_ms(m.recall.p50_ms)} / {_ms(m.recall.p95_ms)}" if m.recall.count else "—",
        ),
        "",
        *_cpu_table(run),
        "zenbrain recall right after a single `store()` (p50 / p95, ms): an agent's turn, a "
        "write then a read. A write in the same process appends to the SQLite back end's "
        "cached vector matrix, so this should stay close to the warm recall above.",
        "",
        *_table(
            run,
            "recall after a store (ms)",
            lambda m: (
                f"{_ms(m.recall_after_store.p50_ms)} / {_ms(m.recall_after_store.p95_ms)}"
                if m.recall_after_store.count
                else "—"
            ),
            _zenbrain_keys(run),
        ),
        "",
        "### Ratios",
        "",
        "zenbrain's recall p50 divided by each peer's at the same size (below 1: zenbrain is "
        "faster). zenbrain's recall does more than a vector search — lexical candidates, IDF "
        "weights, fusion, rows fetched from a database — while the peers only rank vectors.",
        "",
        *_ratio_table(run),
        "",
        "### Store throughput",
        "",
        "Memories per second: batch (`store_many` / bulk load, whole load timed) and single "
        "(1 ÷ median `store()` latency).",
        "",
        *_table(
            run,
            "batch / single (memories/s)",
            lambda m: (
                f"{_rate(m.batch_rate)} / {_rate(m.single_rate)}"
                if m.batch_rate or m.single.count
                else "—"
            ),
            [k for k in _rows(run) if k[0] != "numpy"],
        ),
        "",
        "### Size on disk",
        "",
        f"Bytes per memory (the texts average {settings.get('mean_memory_chars', 0):.0f} "
        f"characters; a {settings.get('dimension')}-d float32 vector is "
        f"{4 * int(settings.get('dimension') or 0):,} bytes).",
        "",
        *_table(
            run,
            "bytes per memory",
            lambda m: _rate(m.bytes_per_memory),
            [
                k
                for k in _rows(run)
                if any(m.bytes_on_disk for m in run.measurements if m.system == k[0])
            ],
        ),
        "",
        "### Memory",
        "",
        "Peak resident memory (MB) each measurement added to its process on top of the "
        "corpus it inherited: the store, its caches and indexes, while loading and recalling.",
        "",
        *_table(run, "peak RSS added (MB)", lambda m: _mb(m.rss_growth_bytes)),
        "",
        "A recalling application: peak RSS (MB) of a fresh Python process that opens the "
        "zenbrain SQLite store and runs the timed queries (`python -m benchmarks.scale.probe`),"
        " beside the float32 vectors' own size (n × dimension × 4).",
        "",
        *_table(
            run,
            "recalling process peak RSS / vectors (MB)",
            lambda m: (
                f"{_mb(m.recall_process_rss_bytes)} / {_mb(m.vector_bytes)}"
                if m.recall_process_rss_bytes
                else "—"
            ),
            _zenbrain_keys(run),
        ),
        "",
        "### Approximate vector search",
        "",
        "The SQLite back end searches a layer exactly (float32) below "
        "20,000 vectors and through an int8 copy above, re-scoring the int8 scan's "
        "best candidates with their float32 vectors (how many: the `PREFILTER_` constants "
        "of `zenbrain/storage/sqlite/prefilter.py` at the commit above). recall@10: the share "
        "of the "
        "exact top 10 (float32 cosine over every vector of the layer, ties counted) that "
        "the index returned, over up to 100 queries and every layer past the threshold.",
        "",
        *_table(
            run,
            "int8 pre-filter recall@10",
            lambda m: (
                "—" if m.prefilter_recall_at_10 is None else f"{m.prefilter_recall_at_10:.4f}"
            ),
            [("zenbrain", "sqlite", "hybrid")],
        ),
        "",
        "### Targets",
        "",
        "| target (issues 7 and 15) | measured | met |  gap |",
        "|---|---|---|---|",
    ]
    checks = check_targets(run)
    for check in checks:
        if check.met is None:
            continue
        mark = "yes" if check.met else "**no**"
        lines.append(f"| {check.target} | {check.measured} | {mark} | {check.gap} |")
    elsewhere = [check.target for check in checks if check.met is None]
    if elsewhere:
        lines += [
            "",
            "Not measured in this run (a million memories are runs of their own: see the "
            "sections on one million memories): " + "; ".join(elsewhere) + ".",
        ]
    lines += [
        "",
        "### Why targets are missed, and what would close them",
        "",
        *findings(run),
        "",
        "### Profiles",
        "",
        *_profile_section(run),
    ]
    return "\n".join(lines).rstrip("\n") + "\n"


# --------------------------------------------------------------------------- plot
def plot(run: ScaleRun, path: Path) -> None:
    """Recall p50 and batch store throughput against size, log-log, one line per system."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    for key in _rows(run):
        points = sorted(
            (m.size, m.recall.p50_ms, m.batch_rate)
            for m in run.measurements
            if (m.system, m.backend if key[1] else None, m.mode if key[2] else None) == key
        )
        label = _label(run, key)
        style = "-" if key[0] == "zenbrain" else "--"
        latency = [(s, p) for s, p, _ in points if p]
        if latency:
            left.plot(*zip(*latency, strict=True), style, marker="o", label=label)
        rates = [(s, r) for s, _, r in points if r]
        if rates:
            right.plot(*zip(*rates, strict=True), style, marker="o", label=label)
    for axis in (left, right):
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("memories")
        axis.grid(True, which="both", alpha=0.3)
    left.axhline(HYBRID_P50_MS, color="grey", linewidth=0.8, linestyle=":")
    left.set_ylabel("recall p50 (ms)")
    left.set_title("Recall latency (lower is better)")
    right.axhline(BATCH_STORE_PER_S, color="grey", linewidth=0.8, linestyle=":")
    right.set_ylabel("memories / s")
    right.set_title("Batch store throughput (higher is better)")
    left.legend(fontsize=7)
    figure.suptitle(
        f"zenbrain scale benchmark — {run.machine.get('cpu cores')} cores, {run.started}",
        fontsize=9,
    )
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)


# --------------------------------------------------------------------------- docs file
def replace_section(document: str, section: str, heading: str = SECTION_HEADING) -> str:
    """Put ``section`` in place of this benchmark's section of ``document``, or append it."""
    return replace_docs_section(document, section, heading)


def write_docs(run: ScaleRun, docs: Path, plot_path: Path) -> None:
    """Write the plot and replace (or add) this section of ``docs``."""
    plot(run, plot_path)
    current = docs.read_text(encoding="utf-8") if docs.is_file() else ""
    docs.parent.mkdir(parents=True, exist_ok=True)
    relative = plot_path.name if plot_path.parent == docs.parent else str(plot_path)
    docs.write_text(
        replace_section(current, markdown_section(run, relative), section_heading(run)),
        encoding="utf-8",
    )
