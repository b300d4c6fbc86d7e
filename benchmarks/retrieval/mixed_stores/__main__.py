"""Run the mixed-stores suite and print (or write) the report."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from benchmarks.common.paths import BENCHMARKS_DOC
from benchmarks.locomo.systems import default_embedder_factory
from benchmarks.retrieval.mixed_stores.harness import SYSTEM_NAMES, run_suite
from benchmarks.retrieval.mixed_stores.report import SECTION_HEADING, markdown
from benchmarks.retrieval.mixed_stores.scenarios import DEFAULT_SUITE_DIR, load_suite
from benchmarks.runner import Command, comma_list
from zenbrain.errors import ZenbrainError


def main(argv: Sequence[str] | None = None) -> int:
    cli = Command("retrieval.mixed_stores", docs=BENCHMARKS_DOC)
    parser = cli.parser
    parser.add_argument("--systems", type=comma_list, default=list(SYSTEM_NAMES))
    parser.add_argument(
        "--stores", type=comma_list, default=None, help="comma-separated store names (all)"
    )
    parser.add_argument("--suite", type=Path, default=DEFAULT_SUITE_DIR, help="folder of stores")
    parser.add_argument("--failures", action="store_true", help="list every top-1 failure")
    cli.add_embedding_cache()
    args = cli.parse(argv)
    systems = args.systems
    try:
        stores = load_suite(args.suite, args.stores)
        embedder = default_embedder_factory(cli.cache_dir(args))
        run = run_suite(stores, systems, embedder)
        embedder_used = any(s in ("zenbrain-hybrid", "dense", "rrf") for s in systems)
        if embedder_used:
            embedder().flush()
    except ZenbrainError as exc:
        return cli.fail(exc)
    parts = ["--systems", ",".join(systems)]
    if args.stores:
        parts += ["--stores", ",".join(args.stores)]
    command = cli.command(*parts, "--write-docs")
    print(markdown(run, command, with_failures=args.failures))
    cli.write_docs(args, markdown(run, command), SECTION_HEADING)  # the docs list no failures
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
