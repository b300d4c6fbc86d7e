"""``python -m benchmarks locomo``: run the systems on LoCoMo, print (or write) the tables."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from benchmarks.common.paths import BENCHMARKS_DOC, default_locomo_path
from benchmarks.locomo.data import load_locomo
from benchmarks.locomo.harness import DEFAULT_SYSTEMS, run_benchmark
from benchmarks.locomo.report import SECTION_HEADING, docs_section, markdown_tables
from benchmarks.locomo.systems import SYSTEM_NAMES
from benchmarks.runner import Command, comma_list
from zenbrain.errors import ZenbrainError


def main(argv: Sequence[str] | None = None) -> int:
    cli = Command("locomo", docs=BENCHMARKS_DOC)
    parser = cli.parser
    parser.add_argument(
        "--systems",
        type=comma_list,
        default=list(DEFAULT_SYSTEMS),
        help=f"comma-separated, from: {', '.join(SYSTEM_NAMES)} (default: all)",
    )
    parser.add_argument(
        "--conversations", type=int, default=None, metavar="N", help="only the first N"
    )
    cli.add_locomo_data()
    cli.add_embedding_cache()
    args = cli.parse(argv)
    if args.conversations is not None and args.conversations <= 0:
        parser.error("--conversations must be a positive number")
    try:
        conversations = load_locomo(args.data or default_locomo_path())
        if args.conversations is not None:
            conversations = conversations[: args.conversations]
        run = run_benchmark(
            conversations, args.systems, cache_dir=cli.cache_dir(args), progress=sys.stderr
        )
    except ZenbrainError as exc:
        return cli.fail(exc)
    print(markdown_tables(run))
    parts: list[object] = ["--systems", ",".join(args.systems)]
    if args.conversations is not None:
        parts += ["--conversations", args.conversations]
    if args.no_cache:
        parts.append("--no-cache")
    command = cli.command(*parts, "--write-docs")
    cli.write_docs(args, docs_section(run, command), SECTION_HEADING)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
