"""The LoCoMo benchmark's run: each system indexes each conversation with a fresh
retriever and answers its retrieval questions; :func:`run_benchmark` returns a
:class:`~benchmarks.locomo.results.BenchmarkRun` for the report, other benchmarks and tests."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from benchmarks.common.embeddings import DEFAULT_CACHE_DIR, CachedEmbedder
from benchmarks.common.machine import load_average
from benchmarks.locomo.data import RETRIEVAL_CATEGORIES, Conversation, question_counts
from benchmarks.locomo.results import (
    BenchmarkRun,
    CategoryRecall,
    QuestionOutcome,
    SystemResult,
    tally,
)
from benchmarks.locomo.systems import (
    SYSTEM_NAMES,
    System,
    SystemUnavailableError,
    default_embedder_factory,
    make_system,
)
from zenbrain.errors import InvalidInputError

__all__ = [
    "DEFAULT_KS",
    "DEFAULT_SYSTEMS",
    "BenchmarkRun",
    "CategoryRecall",
    "QuestionOutcome",
    "SystemResult",
    "evaluate_system",
    "run_benchmark",
    "run_of",
]

DEFAULT_KS: tuple[int, ...] = (5, 10)
DEFAULT_SYSTEMS: tuple[str, ...] = SYSTEM_NAMES


def _emit(progress: TextIO | None, message: str) -> None:
    if progress is not None:
        print(message, file=progress, flush=True)


def evaluate_system(
    system: System,
    conversations: Sequence[Conversation],
    *,
    ks: Sequence[int] = DEFAULT_KS,
    progress: TextIO | None = None,
) -> SystemResult:
    """Index each conversation with a fresh retriever and ask its retrieval questions."""
    depth = max(ks)
    outcomes: list[QuestionOutcome] = []
    index_seconds = search_seconds = 0.0
    embedding_before = system.embedding_stats
    for position, conversation in enumerate(conversations, start=1):
        questions = conversation.retrieval_questions()
        started = time.perf_counter()
        retriever = system.retriever(conversation.sample_id)
        try:
            retriever.index(conversation.turns)
            indexed = time.perf_counter()
            answered = [
                QuestionOutcome(
                    sample_id=conversation.sample_id,
                    question=question.question,
                    category=question.category,
                    evidence=question.evidence,
                    retrieved=tuple(retriever.search(question.question, depth)),
                )
                for question in questions
            ]
            searched = time.perf_counter()
        finally:
            retriever.close()
        system.flush()
        index_seconds += indexed - started
        search_seconds += searched - indexed
        outcomes.extend(answered)
        _emit(
            progress,
            f"[{system.name}] {conversation.sample_id} ({position}/{len(conversations)}): "
            f"{len(conversation.turns)} turns, {len(answered)} questions, "
            f"R@{depth} {tally(0, answered, ks).recall(depth):.3f}, "
            f"index {indexed - started:.1f}s, search {searched - indexed:.1f}s",
        )
    return SystemResult(
        name=system.name,
        ks=tuple(ks),
        outcomes=tuple(outcomes),
        index_seconds=index_seconds,
        search_seconds=search_seconds,
        embedding=system.embedding_stats - embedding_before,
    )


def run_benchmark(
    conversations: Sequence[Conversation],
    systems: Sequence[str] = DEFAULT_SYSTEMS,
    *,
    ks: Sequence[int] = DEFAULT_KS,
    cache_dir: Path | None = DEFAULT_CACHE_DIR,
    embedder_factory: Callable[[], CachedEmbedder] | None = None,
    progress: TextIO | None = None,
) -> BenchmarkRun:
    """Run ``systems`` on ``conversations``; a system that cannot run here is reported as
    skipped (with the reason) rather than failing the run."""
    if not conversations:
        raise InvalidInputError("no conversations to benchmark")
    if not ks or any(k <= 0 for k in ks):
        raise InvalidInputError(f"ks must be positive integers, got {list(ks)}")
    if not systems:
        raise InvalidInputError(f"no systems given; choose from {', '.join(SYSTEM_NAMES)}")
    unknown = [name for name in systems if name not in SYSTEM_NAMES]
    if unknown:
        raise InvalidInputError(
            f"unknown system(s) {', '.join(unknown)}; choose from {', '.join(SYSTEM_NAMES)}"
        )
    started_at = datetime.now(UTC)
    load = load_average()
    ks = tuple(sorted(set(ks)))
    embedder = embedder_factory or default_embedder_factory(cache_dir)
    results: list[SystemResult] = []
    for name in systems:
        try:
            system = make_system(name, embedder)
        except SystemUnavailableError as exc:
            _emit(progress, f"[{name}] skipped: {exc}")
            results.append(SystemResult(name=name, ks=ks, skipped=str(exc)))
            continue
        try:
            results.append(evaluate_system(system, conversations, ks=ks, progress=progress))
        except NotImplementedError as exc:
            reason = f"the core does not support this yet ({exc})"
            _emit(progress, f"[{name}] skipped: {reason}")
            results.append(SystemResult(name=name, ks=ks, skipped=reason))
        finally:
            system.close()

    return run_of(results, conversations, ks, started_at, load)


def run_of(
    results: Sequence[SystemResult],
    conversations: Sequence[Conversation],
    ks: Sequence[int],
    started_at: datetime,
    load: float | None,
) -> BenchmarkRun:
    """The run that ``results`` make on ``conversations``, with what the report says of the
    data (questions per category, evidence that names no turn) and of the machine."""
    all_questions = [q for c in conversations for q in c.questions]
    return BenchmarkRun(
        results=tuple(results),
        conversations=tuple(c.sample_id for c in conversations),
        turns=sum(len(c.turns) for c in conversations),
        question_counts=question_counts(conversations),
        questions_without_evidence=sum(
            1 for q in all_questions if q.category in RETRIEVAL_CATEGORIES and not q.evidence
        ),
        unresolved_evidence=sum(len(q.unresolved_evidence) for q in all_questions),
        ks=tuple(ks),
        started_at=started_at,
        cpu_count=os.cpu_count() or 1,
        load_average=load,
    )
