"""Why the scale benchmark's targets are missed, read from one run: the floors, the
profile's heaviest functions and the effects the run measured, each with what would close
it."""

from __future__ import annotations

from benchmarks.scale.results import ScaleRun
from benchmarks.scale.systems import Measurement
from benchmarks.scale.tables import ms_text, rate_text, size_text

__all__ = ["findings"]


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
        shown = ", ".join(f"{ms_text(p)} ms at {size_text(s)}" for s, p in floor_rows)
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
            "- **A store drops the vector cache.** "
            f"At {size_text(hybrid.size)}, hybrid recall takes "
            f"{ms_text(hybrid.recall.p50_ms)} ms p50 on a warm cache but "
            f"{ms_text(hybrid.recall_after_store.p50_ms)} ms right after a `store()`: every write "
            "empties the SQLite back end's cached matrix for its layer and the next recall "
            "reads all vectors back from the table. What would close it: append the new rows "
            "to the cached matrix in the writing process, and on a count or max-key change "
            "from another process read only the rows with a key above the cached maximum."
        )
    lexical = _largest(run, "zenbrain", "sqlite", "lexical")
    if lexical and lexical.recall.p50_ms:
        lines.append(
            f"- **Lexical recall** at {size_text(lexical.size)}: "
            f"{ms_text(lexical.recall.p50_ms)} ms p50."
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
            f"- **Hybrid recall** at {size_text(hybrid.size)}: "
            f"{ms_text(hybrid.recall.p50_ms)} ms p50. "
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
            f"- **Batch store** reaches {rate_text(best.batch_rate)} memories/s at "
            f"{size_text(best.size)} without embeddings: every memory is validated, its emotional "
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
            "(`python -m benchmarks speed.write_floor`)."
        )
    return lines
