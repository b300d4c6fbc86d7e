"""The ``zenbrain`` command: store, recall, forget, consolidate, health and review from a shell.

Tables for people by default; ``--json`` for scripts. Exit status 0 on success, 1 when the
memory asked for was not found, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from zenbrain.coordinator import MemoryCoordinator
from zenbrain.errors import ZenbrainError
from zenbrain.types import RECALLABLE_LAYERS, STORABLE_LAYERS

__all__ = ["main"]

_STORE_LAYERS = ["auto", *STORABLE_LAYERS]
_RECALL_LAYERS = list(RECALLABLE_LAYERS)


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--db",
        help="SQLite path, ':memory:' or SQLAlchemy URL (default: $ZENBRAIN_DB or ./zenbrain.db)",
    )
    common.add_argument(
        "--namespace", default="default", help="whose memory (default: %(default)s)"
    )
    common.add_argument("--json", action="store_true", help="print JSON instead of a table")

    parser = argparse.ArgumentParser(
        prog="zenbrain", description="Seven-layer memory for LLM agents."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    store = commands.add_parser("store", parents=[common], help="store a memory")
    store.add_argument("content", help="the text to remember ('-' reads standard input)")
    store.add_argument("--layer", default="auto", choices=_STORE_LAYERS)
    store.add_argument("--context")
    store.add_argument("--emotional-weight", type=float)
    store.add_argument("--confidence", type=float)
    store.add_argument("--source")
    store.add_argument(
        "--step", action="append", dest="steps", help="a procedure step (repeatable)"
    )
    store.add_argument(
        "--tool", action="append", dest="tools", help="a tool a procedure uses (repeatable)"
    )
    store.add_argument("--outcome")

    recall = commands.add_parser("recall", parents=[common], help="recall memories for a query")
    recall.add_argument("query")
    recall.add_argument("--layer", action="append", dest="layers", choices=_RECALL_LAYERS)
    recall.add_argument("--limit", type=int, default=10)
    recall.add_argument("--min-score", type=float, default=0.0)
    recall.add_argument("--min-confidence", type=float, default=0.0)
    recall.add_argument("--core", choices=["always", "matching"], default="always")
    recall.add_argument("--context")

    forget = commands.add_parser("forget", parents=[common], help="delete a memory for good")
    forget.add_argument("id")
    forget.add_argument("layer", choices=_RECALL_LAYERS)

    commands.add_parser("consolidate", parents=[common], help="promote episodes to facts")
    commands.add_parser("health", parents=[common], help="per-layer counts")

    review = commands.add_parser("review", parents=[common], help="list due facts, or grade one")
    review.add_argument("id", nargs="?", help="grade this fact (with --grade)")
    review.add_argument(
        "--grade", type=int, choices=[1, 2, 3, 4], help="1 again, 2 hard, 3 good, 4 easy"
    )
    review.add_argument("--limit", type=int, default=10)
    return parser


def _table(rows: list[dict[str, Any]], columns: Sequence[str]) -> str:
    if not rows:
        return "(nothing)"
    cells = [[_cell(row.get(c)) for c in columns] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in cells]
    return "\n".join(line.rstrip() for line in lines)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.3f}"
    text = str(value).replace("\n", " ⏎ ")
    return text if len(text) <= 70 else text[:69] + "…"


def _run(args: argparse.Namespace, memory: MemoryCoordinator) -> tuple[Any, str, int]:
    """The command's JSON payload, its human rendering and its exit status."""
    if args.command == "store":
        content = sys.stdin.read() if args.content == "-" else args.content
        memory_id = memory.store(
            content,
            layer=args.layer,
            context=args.context,
            emotional_weight=args.emotional_weight,
            confidence=args.confidence,
            source=args.source,
            steps=args.steps,
            tools=args.tools,
            outcome=args.outcome,
        )
        found = memory.get(memory_id)
        layer = found.layer if found else "working"
        return {"id": memory_id, "layer": layer}, f"stored {layer} memory {memory_id}", 0
    if args.command == "recall":
        results = memory.recall(
            args.query,
            layers=args.layers,
            limit=args.limit,
            min_score=args.min_score,
            min_confidence=args.min_confidence,
            core=args.core,
            context=args.context,
        )
        rows = [r.to_dict() for r in results]
        payload = {"count": len(rows), "results": rows}
        return payload, _table(rows, ["score", "layer", "id", "content"]), 0
    if args.command == "forget":
        result = memory.forget(args.id, args.layer)
        if not result.forgotten:
            return result.to_dict(), f"no {args.layer} memory with id {args.id}", 1
        lines = [f"forgot {args.layer} memory {args.id}"]
        lines += [f"  also forgotten: {i['layer']} {i['id']}" for i in result.also_forgotten]
        lines += [f"  kept duplicate: {i['layer']} {i['id']}" for i in result.duplicates]
        return result.to_dict(), "\n".join(lines), 0
    if args.command == "consolidate":
        report = memory.consolidate()
        text = f"promoted {report.promoted}, decayed {report.decayed}, pruned {report.pruned}"
        return report.to_dict(), text, 0
    if args.command == "health":
        health = memory.health().to_dict()
        rows = [
            {"layer": layer, "counts": ", ".join(f"{k}={v}" for k, v in counts.items())}
            for layer, counts in health.items()
        ]
        return health, _table(rows, ["layer", "counts"]), 0
    # review
    if args.id is not None:
        if args.grade is None:
            raise ZenbrainError("grading a fact needs --grade 1..4")
        item = memory.record_review(args.id, args.grade).to_dict()
        return item, f"next review of {args.id} due {item['due']}", 0
    rows = [i.to_dict() for i in memory.review_queue(args.limit)]
    return {"count": len(rows), "due": rows}, _table(rows, ["due", "id", "content"]), 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        with MemoryCoordinator(args.db, namespace=args.namespace) as memory:
            payload, text, status = _run(args, memory)
    except ZenbrainError as exc:
        if args.json:
            print(json.dumps({"error": {"type": type(exc).__name__, "message": str(exc)}}))
        else:
            print(f"zenbrain: error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(payload, ensure_ascii=False, indent=2) if args.json else text)
    return status


if __name__ == "__main__":
    sys.exit(main())
