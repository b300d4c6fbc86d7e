"""Where routing files the items of every benchmark dataset, stored as an agent stores them.

Every item of each haystack of each dataset (:mod:`benchmarks.retrieval.datasets`) is stored
with ``store_many`` and no ``layer=``, one namespace a haystack, on a SQLite file without an
embedder (routing does not depend on one). Reported per dataset: how many items land in
each layer, and a sample of items of every layer but semantic (evenly spread over the
dataset, so a rerun shows the same ones), each with the estimated emotional weight and
whether it reads as step-like, so one can see what routing misfiles.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.common.paths import BENCHMARKS_DOC
from benchmarks.retrieval.datasets import DATASETS, Dataset, load_dataset
from benchmarks.runner import Command, comma_list
from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError, ZenbrainError
from zenbrain.layers import _routing as routing
from zenbrain.layers._episodic import estimate_emotional_weight
from zenbrain.layers._routing import is_step_like

__all__ = [
    "LAYERS",
    "SECTION_HEADING",
    "DatasetRouting",
    "audit_dataset",
    "main",
    "markdown",
    "spread_sample",
    "step_trigger",
]

LAYERS: tuple[str, ...] = ("semantic", "episodic", "procedural", "core")
SECTION_HEADING = "## Where routing files the benchmark datasets"
DEFAULT_SAMPLE = 10


@dataclass
class DatasetRouting:
    """One dataset's items by the layer routing chose."""

    name: str
    items: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    by_layer: dict[str, list[str]] = field(default_factory=dict)  # layer -> contents
    seconds: float = 0.0

    def share(self, layer: str) -> float:
        return self.counts[layer] / self.items if self.items else 0.0


def spread_sample(items: Sequence[str], size: int) -> list[str]:
    """``size`` items evenly spread over ``items`` (all when there are fewer)."""
    if size <= 0:
        raise InvalidInputError(f"a sample size must be positive, got {size}")
    if len(items) <= size:
        return list(items)
    step = len(items) / size
    return [items[int(i * step)] for i in range(size)]


def audit_dataset(dataset: Dataset, db_path: str) -> DatasetRouting:
    """Store every item of ``dataset`` without a layer and read back where each went."""
    result = DatasetRouting(dataset.name)
    started = time.perf_counter()
    for number, haystack in enumerate(dataset.haystacks):
        namespace = f"{dataset.name}-{number}"
        with MemoryCoordinator(db_path, namespace=namespace) as memory:
            memory.store_many(
                {"content": turn.text, "created_at": turn.session_datetime}
                for turn in haystack.turns
            )
            for layer in LAYERS:
                contents = [r.content for r in memory.find(layers=[layer])]
                result.counts[layer] += len(contents)
                result.by_layer.setdefault(layer, []).extend(contents)
        result.items += len(haystack.turns)
    result.seconds = time.perf_counter() - started
    return result


def step_trigger(text: str) -> str:
    """What makes ``text`` step-like: the procedure marker routing matched (when its rule
    has one), ``step lines``, or ``-``. Routing's marker pattern is private and may go:
    without it only ``step lines`` / ``-`` are told apart."""
    markers = getattr(routing, "_PROCEDURE_MARKERS", None)
    found = markers.search(text) if markers is not None else None
    if found is not None:
        return repr(found.group(0).strip())
    return "step lines" if is_step_like(text) else "-"


def _one_line(text: str, width: int = 160) -> str:
    flat = " ".join(text.split()).replace("|", "\\|")
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def markdown(results: Sequence[DatasetRouting], sample: int, command: str) -> str:
    out = [
        SECTION_HEADING,
        "",
        "Every item stored with `store_many` and no `layer=` (one namespace a haystack), "
        "then counted by the layer it landed in.",
        "",
        "| dataset | items | " + " | ".join(LAYERS) + " | seconds |",
        "|" + "---|" * (len(LAYERS) + 3),
    ]
    for result in results:
        cells = " | ".join(
            f"{result.counts[layer]} ({result.share(layer):.1%})" for layer in LAYERS
        )
        out.append(f"| {result.name} | {result.items} | {cells} | {result.seconds:.1f} |")
    out.append("")
    for result in results:
        for layer in LAYERS[1:]:
            contents = result.by_layer.get(layer, [])
            if not contents:
                continue
            shown = spread_sample(contents, sample)
            out += [
                f"`{result.name}`, {len(shown)} of the {len(contents)} items filed as {layer} "
                "(emotional weight as estimated; what made it step-like):",
                "",
                "| weight | step trigger | item |",
                "|---|---|---|",
            ]
            for text in shown:
                weight = estimate_emotional_weight(text)
                steps = step_trigger(text).replace("|", "\\|")
                out.append(f"| {weight:.2f} | {steps} | {_one_line(text)} |")
            out.append("")
    out += ["Reproduce (from the repository root):", "", "```", command, "```", ""]
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    cli = Command("retrieval.routing_audit", docs=BENCHMARKS_DOC)
    cli.parser.add_argument("--datasets", type=comma_list, default=list(DATASETS))
    cli.parser.add_argument("--sample", type=int, default=DEFAULT_SAMPLE, metavar="N")
    args = cli.parse(argv)
    if args.sample <= 0:
        cli.parser.error("--sample must be positive")
    names = args.datasets
    results = []
    try:
        with tempfile.TemporaryDirectory(prefix="zenbrain-routing-") as workdir:
            db_path = str(Path(workdir) / "routing.db")
            for name in names:
                print(f"{name}: storing…", file=sys.stderr)
                results.append(audit_dataset(load_dataset(name), db_path))
    except ZenbrainError as exc:
        return cli.fail(exc)
    command = cli.command("--datasets", ",".join(names), "--sample", args.sample, "--write-docs")
    text = markdown(results, args.sample, command)
    print(text)
    cli.write_docs(args, text, SECTION_HEADING)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
