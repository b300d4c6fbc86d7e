"""Run the mixed-stores suite and print (or write) the report."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from benchmarks.common.docs_sections import replace_section
from benchmarks.common.embeddings import DEFAULT_CACHE_DIR
from benchmarks.common.paths import BENCHMARKS_DOC
from benchmarks.locomo.systems import default_embedder_factory
from benchmarks.retrieval.mixed_stores.report import SECTION_HEADING, markdown
from benchmarks.retrieval.mixed_stores.runner import SYSTEM_NAMES, run_suite
from benchmarks.retrieval.mixed_stores.scenarios import DEFAULT_SUITE_DIR, load_suite
from zenbrain.errors import ZenbrainError


def _names(raw: str | None) -> list[str] | None:
    if raw is None:
        return None
    return [name.strip() for name in raw.split(",") if name.strip()]


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.retrieval.mixed_stores",
        description="Recall on small mixed stores, beside BM25, dense and RRF over one index.",
    )
    parser.add_argument("--systems", default=",".join(SYSTEM_NAMES))
    parser.add_argument("--stores", default=None, help="comma-separated store names (all)")
    parser.add_argument("--suite", type=Path, default=DEFAULT_SUITE_DIR, help="folder of stores")
    parser.add_argument("--failures", action="store_true", help="list every top-1 failure")
    parser.add_argument("--no-cache", action="store_true", help="embed afresh, keep nothing")
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument("--docs", type=Path, default=BENCHMARKS_DOC, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    systems = _names(args.systems) or []
    try:
        stores = load_suite(args.suite, _names(args.stores))
        embedder = default_embedder_factory(None if args.no_cache else DEFAULT_CACHE_DIR)
        run = run_suite(stores, systems, embedder)
        embedder_used = any(s in ("zenbrain-hybrid", "dense", "rrf") for s in systems)
        if embedder_used:
            embedder().flush()
    except ZenbrainError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    command = f"python -m benchmarks.retrieval.mixed_stores --systems {','.join(systems)}"
    if args.stores:
        command += f" --stores {args.stores}"
    text = markdown(run, command + " --write-docs", with_failures=args.failures)
    print(text)
    if args.write_docs:
        docs_text = markdown(run, command + " --write-docs")  # the docs never list failures
        document = args.docs.read_text(encoding="utf-8") if args.docs.is_file() else ""
        args.docs.write_text(replace_section(document, docs_text, SECTION_HEADING), "utf-8")
        print(f"wrote the {SECTION_HEADING[3:]!r} section of {args.docs}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
