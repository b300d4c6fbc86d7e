"""The ``## Scale and speed`` section of docs/benchmarks.md (one per corpus), and writing it
with its plot: what was measured, on which machine, the tables, the targets, the findings and
the profiles.

``docs/benchmarks.md`` is shared with other benchmarks: only the part from this section's
heading to the next level-2 heading is ever replaced.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.common.docs_sections import write_section
from benchmarks.scale.findings import findings
from benchmarks.scale.growth import growth_table, variant_table
from benchmarks.scale.plot import plot
from benchmarks.scale.profiling import ProfileEntry
from benchmarks.scale.results import ScaleRun
from benchmarks.scale.tables import (
    PEER_ORDER,
    find_measurement,
    label_of,
    mb_text,
    ms_text,
    rate_text,
    row_keys,
    size_table,
    size_text,
    sizes_of,
    zenbrain_keys,
)
from benchmarks.scale.targets import check_targets

__all__ = [
    "LOCOMO_SECTION_HEADING",
    "SECTION_HEADING",
    "markdown_section",
    "section_heading",
    "write_docs",
]

SECTION_HEADING = "## Scale and speed"
LOCOMO_SECTION_HEADING = "## Scale and speed on LoCoMo-derived text"


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
        *size_table(
            run,
            "recall CPU per call (ms)",
            lambda m: (
                "—" if m.recall.cpu_ms_per_call is None else ms_text(m.recall.cpu_ms_per_call)
            ),
        ),
        "",
    ]


def section_heading(run: ScaleRun) -> str:
    """This run's section of ``docs/benchmarks.md``: one per corpus."""
    return LOCOMO_SECTION_HEADING if run.settings.get("corpus") == "locomo" else SECTION_HEADING


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
        "load average",
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
    peers = [p for p in PEER_ORDER if any(m.system == p for m in run.measurements)]
    zen_keys = zenbrain_keys(run)
    if not peers or not zen_keys:
        return []
    sizes = [
        s for s in sizes_of(run) if any(find_measurement(run, p, None, None, s) for p in peers)
    ]
    lines = [
        "| zenbrain p50 ÷ peer p50 | "
        + " | ".join(
            f"{label_of(run, (p, None, None))} {size_text(s)}"
            for s in sizes
            for p in peers
            if find_measurement(run, p, None, None, s)
        )
        + " |",
    ]
    columns = [(s, p) for s in sizes for p in peers if find_measurement(run, p, None, None, s)]
    lines.append("|---|" + "---:|" * len(columns))
    for key in zen_keys:
        cells = []
        for size, peer in columns:
            zen = find_measurement(run, *key, size)
            other = find_measurement(run, peer, None, None, size)
            if zen and other and zen.recall.p50_ms and other.recall.p50_ms:
                cells.append(f"{zen.recall.p50_ms / other.recall.p50_ms:.3g}")
            else:
                cells.append("—")
        lines.append(f"| {label_of(run, key)} | " + " | ".join(cells) + " |")
    return lines


def _variants(run: ScaleRun) -> list[str]:
    """zenbrain's defaults beside the variants measured right after them, if any."""
    table = variant_table(run)
    if not table:
        return []
    baseline = run.settings.get("baseline") or {}
    lines = [
        "zenbrain with its defaults (the knowledge-update rules on) beside the same "
        "measurement made right after it"
        + (" with `supersession=False`" if run.settings.get("supersession_off") else "")
    ]
    if baseline:
        commit = baseline.get("commit") or baseline.get("label")
        lines[0] += (
            f"{' and' if run.settings.get('supersession_off') else ''} with the code of "
            f"{baseline.get('label')} (commit `{commit}`, a git worktree run by this harness "
            "in a child process that imports that tree's zenbrain)"
        )
    lines[0] += ": same corpus, same calls, same machine minutes apart."
    notes: set[str] = set()
    for m in run.measurements:
        ours = find_measurement(run, "zenbrain", m.backend, m.mode, m.size)
        if m.system.startswith("zenbrain@"):
            notes.update(
                note
                for note in m.notes
                if not note.startswith("zenbrain imported from")
                and (ours is None or note not in ours.notes)
            )
    if notes:
        lines[0] += " Notes on those rows: " + "; ".join(sorted(notes)) + "."
    return [*lines, "", *table, ""]


def _profile_row(entry: ProfileEntry) -> str:
    name = entry.function.replace("|", "\\|")
    return f"| `{name}` | {entry.calls:,} | {entry.own_ms:.3f} | {entry.cumulative_ms:.3f} |"


def _profile_section(run: ScaleRun) -> list[str]:
    profile = run.profile
    if profile is None:
        return ["No profile in this run (`--profile-size` was off or not among the sizes)."]
    lines = [
        f"cProfile on the SQLite store of {size_text(profile.size)} memories (opened with the "
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
            "system gets the same texts (`benchmarks/common/locomo_corpus.py`).",
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
    measured_sizes = ", ".join(size_text(s) for s in settings.get("sizes", []))
    floor_only = ", ".join(size_text(s) for s in settings.get("floor_only_sizes", []))
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
        "rebuild this section from them with `python -m benchmarks scale"
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
        "- zenbrain, opened with its defaults (the knowledge-update rules on): `store_many()`"
        " of plain texts, no `layer=` (routing files each memory), in batches of "
        f"{settings.get('batch_size')} (batch throughput), then "
        f"{settings.get('queries')} timed `recall(query, limit=10)` after "
        f"{settings.get('warmup')} untimed warm-up calls, then {settings.get('single_stores')}"
        " single `store()` calls, each followed by a timed recall (an agent's turn: write, "
        "then read). *lexical* is a store opened without an embedder; *hybrid* one opened "
        "with the precomputed-vector embedder (lexical candidates plus vector neighbours, "
        "fused). " + _routing_note(settings),
        "- Store throughput as the store fills: the rate of every `store_many` batch (and "
        "every batch of the peers that load in batches) is kept in the results file.",
        "- Floors: a bare SQLite FTS5 table of the texts queried with `MATCH` (the query's "
        "terms OR-ed) `ORDER BY bm25() LIMIT 10`, loaded with `executemany` in one "
        "transaction per batch (the raw insert rate zenbrain's `store_many` is compared "
        "with); bm25s indexed once over the texts; numpy's `matrix @ query`.",
        "- ChromaDB: embedded `PersistentClient` (HNSW, cosine) on disk, `collection.add` in "
        "batches with the precomputed vectors and texts, `collection.query(query_embeddings="
        "…, n_results=10)`. mem0: `Memory` with `infer=False` (no LLM call: each text stored "
        "as given), qdrant in local mode on disk, its embedder replaced by the precomputed "
        "vectors; mem0 adds one memory per `add()` call, so it runs only up to "
        f"{size_text(int(settings.get('peer_max_sizes', {}).get('mem0', 0) or 0))}.",
        "- Peers: LangGraph `InMemoryStore(index={dims, embed, fields=['text']})`, bulk-loaded"
        " with `batch([PutOp…])`, recalled with `search(namespace, query=…, limit=10)`; "
        "LlamaIndex `VectorMemoryBlock` with `similarity_top_k=10` over `SimpleVectorStore` "
        "(a subclass that also keeps node texts, since the block refuses a store without "
        "text; search is `SimpleVectorStore.query` unchanged), single stores through "
        "`aput([ChatMessage])`, bulk load as one node per memory straight into the vector "
        "store, recall through `aget(messages=[ChatMessage])`; and the floor, `matrix @ "
        "query` plus `argpartition` over the same float32 unit vectors. The peers are in "
        f"memory and run up to {size_text(settings.get('peer_max_size', 0))}; their slow recalls "
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
        *size_table(
            run,
            "recall p50 / p95 (ms)",
            lambda m: (
                f"{ms_text(m.recall.p50_ms)} / {ms_text(m.recall.p95_ms)}"
                if m.recall.count
                else "—"
            ),
        ),
        "",
        *_cpu_table(run),
        "zenbrain recall right after a single `store()` (p50 / p95, ms): an agent's turn, a "
        "write then a read. A write in the same process appends to the SQLite back end's "
        "cached vector matrix, so this should stay close to the warm recall above.",
        "",
        *size_table(
            run,
            "recall after a store (ms)",
            lambda m: (
                f"{ms_text(m.recall_after_store.p50_ms)} / {ms_text(m.recall_after_store.p95_ms)}"
                if m.recall_after_store.count
                else "—"
            ),
            zenbrain_keys(run),
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
        *size_table(
            run,
            "batch / single (memories/s)",
            lambda m: (
                f"{rate_text(m.batch_rate)} / {rate_text(m.single_rate)}"
                if m.batch_rate or m.single.count
                else "—"
            ),
            [k for k in row_keys(run) if k[0] != "numpy"],
        ),
        "",
        *_variants(run),
        "### Store throughput as the store fills",
        "",
        "The rate of every batch of the load, taken a tenth of the batches at a time "
        "(memories/s: the tenth's memories over its seconds), at each system's largest size; "
        "*first ÷ last* is above 1 when the last batches are slower than the first. "
        "PostgreSQL hybrid builds its HNSW index after the last batch (inside `bulk_load()`),"
        " outside every batch. The plot's third panel draws every batch.",
        "",
        *(growth_table(run) or ["No load of ten batches or more in this run."]),
        "",
        "### Size on disk",
        "",
        f"Bytes per memory (the texts average {settings.get('mean_memory_chars', 0):.0f} "
        f"characters; a {settings.get('dimension')}-d float32 vector is "
        f"{4 * int(settings.get('dimension') or 0):,} bytes).",
        "",
        *size_table(
            run,
            "bytes per memory",
            lambda m: rate_text(m.bytes_per_memory),
            [
                k
                for k in row_keys(run)
                if any(m.bytes_on_disk for m in run.measurements if m.system == k[0])
            ],
        ),
        "",
        "### Memory",
        "",
        "Peak resident memory (MB) each measurement added to its process on top of the "
        "corpus it inherited: the store, its caches and indexes, while loading and recalling.",
        "",
        *size_table(run, "peak RSS added (MB)", lambda m: mb_text(m.rss_growth_bytes)),
        "",
        "A recalling application: peak RSS (MB) of a fresh Python process that opens the "
        "zenbrain SQLite store and runs the timed queries (`python -m benchmarks scale.probe`),"
        " beside the float32 vectors' own size (n × dimension × 4).",
        "",
        *size_table(
            run,
            "recalling process peak RSS / vectors (MB)",
            lambda m: (
                f"{mb_text(m.recall_process_rss_bytes)} / {mb_text(m.vector_bytes)}"
                if m.recall_process_rss_bytes
                else "—"
            ),
            zenbrain_keys(run),
        ),
        "",
        "### Approximate vector search",
        "",
        "The SQLite back end searches a layer exactly (float32) below "
        "20,000 vectors and through an int8 copy above, re-scoring the int8 scan's "
        "best candidates with their float32 vectors (how many: the `PREFILTER_` constants "
        "of `zenbrain/_storage/sqlite/prefilter.py` at the commit above). recall@10: the share "
        "of the "
        "exact top 10 (float32 cosine over every vector of the layer, ties counted) that "
        "the index returned, over up to 100 queries and every layer past the threshold.",
        "",
        *size_table(
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
        "| target (issues 7, 15 and 39) | measured | met |  gap |",
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


# --------------------------------------------------------------------------- docs file
def write_docs(run: ScaleRun, docs: Path, plot_path: Path) -> None:
    """Write the plot and replace (or add) this run's section of ``docs``."""
    plot(run, plot_path)
    relative = plot_path.name if plot_path.parent == docs.parent else str(plot_path)
    write_section(docs, markdown_section(run, relative), section_heading(run))
