"""LoCoMo retrieval benchmark: is the turn holding the answer among the first k retrieved?

Every turn of each LoCoMo conversation is indexed (as an episode in its own namespace for
the zenbrain systems); each question of categories 1-4 is asked once, and a question
counts as a hit at k when any of its evidence turns is among the top k. Recall@5 and
recall@10 are reported per category and overall (micro-averaged over questions).

    python -m benchmarks.locomo [--systems bm25,dense,rrf,zenbrain-lexical,zenbrain-hybrid]
                                [--conversations N] [--data PATH] [--write-docs]

Progress goes to stderr, the markdown tables to stdout; ``--write-docs`` replaces the
"LoCoMo retrieval" section of docs/benchmarks.md. Importable: :func:`run_benchmark`
returns a :class:`BenchmarkRun` for other benchmarks and tests.

Data: LoCoMo (Maharana et al., ACL 2024, github.com/snap-research/LoCoMo), CC BY-NC 4.0,
read from ``../shared/data/locomo/locomo10.json`` or ``$ZENBRAIN_LOCOMO``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from benchmarks.common.embeddings import DEFAULT_CACHE_DIR, CachedEmbedder
from benchmarks.common.paths import BENCHMARKS_DOC, default_locomo_path
from benchmarks.locomo.data import (
    RETRIEVAL_CATEGORIES,
    Conversation,
    load_locomo,
    question_counts,
)
from benchmarks.locomo.report import markdown_tables, write_docs_section
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
from zenbrain.errors import InvalidInputError, ZenbrainError

__all__ = [
    "DEFAULT_KS",
    "DEFAULT_SYSTEMS",
    "BenchmarkRun",
    "CategoryRecall",
    "QuestionOutcome",
    "SystemResult",
    "evaluate_system",
    "main",
    "run_benchmark",
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
    load_average = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
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
        ks=ks,
        started_at=started_at,
        cpu_count=os.cpu_count() or 1,
        load_average=load_average,
    )


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.locomo",
        description="LoCoMo retrieval benchmark (recall@5/@10 of evidence turns).",
    )
    parser.add_argument(
        "--systems",
        default=",".join(DEFAULT_SYSTEMS),
        help=f"comma-separated, from: {', '.join(SYSTEM_NAMES)} (default: all)",
    )
    parser.add_argument(
        "--conversations", type=int, default=None, metavar="N", help="only the first N"
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=None,
        help="locomo10.json (default: $ZENBRAIN_LOCOMO or ../shared/data/locomo/locomo10.json)",
    )
    parser.add_argument(
        "--cache-dir", type=Path, default=DEFAULT_CACHE_DIR, help="embedding cache directory"
    )
    parser.add_argument(
        "--no-cache", action="store_true", help="embed everything afresh, write no cache"
    )
    parser.add_argument("--write-docs", action="store_true", help="update docs/benchmarks.md")
    parser.add_argument("--docs", type=Path, default=BENCHMARKS_DOC, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.conversations is not None and args.conversations <= 0:
        parser.error("--conversations must be a positive number")
    return args


def _reproduce_command(args: argparse.Namespace) -> str:
    parts = ["python", "-m", "benchmarks.locomo", "--systems", args.systems]
    if args.conversations is not None:
        parts += ["--conversations", str(args.conversations)]
    if args.no_cache:
        parts.append("--no-cache")
    parts.append("--write-docs")
    return " ".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    systems = [name.strip() for name in args.systems.split(",") if name.strip()]
    try:
        data_path = args.data if args.data is not None else default_locomo_path()
        conversations = load_locomo(data_path)
        if args.conversations is not None:
            conversations = conversations[: args.conversations]
        run = run_benchmark(
            conversations,
            systems,
            cache_dir=None if args.no_cache else args.cache_dir,
            progress=sys.stderr,
        )
    except ZenbrainError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(markdown_tables(run))
    if args.write_docs:
        write_docs_section(args.docs, run, command=_reproduce_command(args))
        print(f"wrote the LoCoMo section of {args.docs}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
