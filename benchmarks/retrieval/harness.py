"""The recall benchmark's run: every system on every haystack of every dataset, each
question asked once, the outcomes kept for the report (:mod:`benchmarks.retrieval.report`)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from benchmarks.common.embeddings import DEFAULT_CACHE_DIR
from benchmarks.common.machine import load_average
from benchmarks.locomo.systems import (
    SYSTEM_NAMES,
    System,
    SystemUnavailableError,
    default_embedder_factory,
    make_system,
)
from benchmarks.retrieval.datasets import Dataset, Haystack
from benchmarks.retrieval.metrics import ndcg_at, recall_at
from benchmarks.retrieval.sessions import SESSION_SYSTEMS, session_system
from zenbrain.errors import InvalidInputError

__all__ = [
    "DEPTH",
    "SESSION_DEPTH",
    "SESSION_SYSTEMS",
    "SYSTEM_NAMES",
    "DatasetResult",
    "Outcome",
    "RetrievalRun",
    "Scores",
    "run_retrieval",
    "sample_questions",
    "session_ranking",
]

DEPTH = 10
#: Sessions ranked by their best turn: the first SESSION_DEPTH turns are asked for, enough
#: to name five sessions in all but degenerate rankings.
SESSION_DEPTH = 50
SESSION_K = 5


@dataclass(frozen=True, slots=True)
class Outcome:
    category: int
    evidence: tuple[str, ...]
    retrieved: tuple[str, ...]
    #: sessions holding evidence, and the sessions ranked (each at its best turn)
    evidence_sessions: tuple[str, ...] = ()
    sessions: tuple[str, ...] = ()
    sessions_of10: tuple[str, ...] = ()  # the sessions of the first DEPTH turns


@dataclass(frozen=True, slots=True)
class Scores:
    questions: int
    recall5: float
    recall10: float
    ndcg10: float
    session_recall5: float = 0.0
    hits10: int = 0
    #: session recall@5 of the sessions of the first 10 turns only (what recall(limit=10)
    #: hands an agent); a system that ranks sessions: its first five
    session_recall5_of10: float = 0.0

    @classmethod
    def of(cls, outcomes: Sequence[Outcome]) -> Scores:
        n = len(outcomes)
        if n == 0:
            return cls(0, 0.0, 0.0, 0.0)
        hits = sum(recall_at(o.retrieved, o.evidence, 10) for o in outcomes)
        return cls(
            n,
            sum(recall_at(o.retrieved, o.evidence, 5) for o in outcomes) / n,
            hits / n,
            sum(ndcg_at(o.retrieved, o.evidence, 10) for o in outcomes) / n,
            sum(recall_at(o.sessions, o.evidence_sessions, SESSION_K) for o in outcomes) / n,
            int(hits),
            sum(recall_at(o.sessions_of10, o.evidence_sessions, SESSION_K) for o in outcomes) / n,
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


def session_ranking(turns: Sequence[str], session_of: Mapping[str, str]) -> tuple[str, ...]:
    """Sessions in the order of their best-ranked turn."""
    return tuple(dict.fromkeys(session_of[t] for t in turns if t in session_of))


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
    clock: str = "wall",
    conversations: bool = True,
) -> RetrievalRun:
    """Every system on every dataset; a system that cannot run is reported as skipped.
    ``clock``: zenbrain recalls at the machine's time (``"wall"``) or a day after each
    conversation's last turn (``"question"``, :func:`~benchmarks.locomo.systems.make_system`).
    ``conversations``: zenbrain stores every turn with its session as its conversation."""
    known = (*SYSTEM_NAMES, *SESSION_SYSTEMS)
    unknown = [s for s in systems if s not in known]
    if unknown or not systems:
        raise InvalidInputError(f"unknown or no systems {unknown}; choose from {', '.join(known)}")
    if not datasets:
        raise InvalidInputError("no datasets to benchmark")
    started = time.perf_counter()
    run = RetrievalRun(
        datasets=list(datasets),
        systems=list(systems),
        results={},
        sampled=dict(sampled or {}),
        started_at=datetime.now(UTC),
        load_average=load_average(),
    )
    embedder = embedder_factory or default_embedder_factory(cache_dir)

    def build(system_name: str) -> System:
        return make_system(
            system_name,
            embedder,  # type: ignore[arg-type]
            clock=clock,
            conversations=conversations,
        )

    for name in systems:
        try:
            system = session_system(name, build) if name in SESSION_SYSTEMS else build(name)
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
                    session_of = {t.dia_id: str(t.session) for t in haystack.turns}
                    try:
                        retriever.index(haystack.turns)
                        t1 = time.perf_counter()
                        for question in questions:
                            wanted = tuple(dict.fromkeys(session_of[e] for e in question.evidence))
                            if name in SESSION_SYSTEMS:
                                turns: tuple[str, ...] = ()
                                sessions = tuple(retriever.search(question.question, SESSION_K))
                                of10 = sessions
                            else:
                                turns = tuple(retriever.search(question.question, DEPTH))
                                deeper = retriever.search(question.question, SESSION_DEPTH)
                                sessions = session_ranking(deeper, session_of)
                                of10 = session_ranking(turns, session_of)
                            result.outcomes.append(
                                Outcome(
                                    question.category,
                                    question.evidence,
                                    turns,
                                    wanted,
                                    sessions,
                                    of10,
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
                    f"session R@5 {scores.session_recall5:.3f} "
                    f"(of the first 10 turns {scores.session_recall5_of10:.3f}), "
                    f"index {result.index_seconds:.1f}s, search {result.search_seconds:.1f}s",
                )
        finally:
            system.close()
    run.seconds = time.perf_counter() - started
    return run
