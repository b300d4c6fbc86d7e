"""``python -m benchmarks retrieval``: load the datasets, run every system, print (or write)
the report."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from benchmarks.common.paths import BENCHMARKS_DOC
from benchmarks.retrieval.datasets import DATASETS, first_haystacks, load_dataset, parse_limits
from benchmarks.retrieval.harness import SYSTEM_NAMES, run_retrieval, sample_questions
from benchmarks.retrieval.report import SECTION_HEADING, markdown
from benchmarks.runner import Command, comma_list
from zenbrain.errors import ZenbrainError


def main(argv: Sequence[str] | None = None) -> int:
    cli = Command("retrieval", docs=BENCHMARKS_DOC)
    parser = cli.parser
    parser.add_argument("--datasets", type=comma_list, default=list(DATASETS))
    parser.add_argument("--systems", type=comma_list, default=list(SYSTEM_NAMES))
    parser.add_argument("--max-questions", type=int, default=None, metavar="N")
    parser.add_argument(
        "--haystacks",
        default=None,
        metavar="DATASET=N,...",
        help="only the first N haystacks of a dataset (e.g. realtalk=4), to bound run time",
    )
    parser.add_argument(
        "--clock",
        choices=("wall", "question"),
        default="wall",
        help="zenbrain recalls at the machine's time, or a day after each conversation's "
        "last turn (when its questions are asked)",
    )
    parser.add_argument(
        "--no-conversations",
        action="store_true",
        help="store zenbrain's turns without naming their session as their conversation",
    )
    cli.add_embedding_cache()
    args = cli.parse(argv)
    if args.max_questions is not None and args.max_questions <= 0:
        parser.error("--max-questions must be positive")
    try:
        limits = parse_limits(args.haystacks)
        sampled = {}
        datasets = []
        for dataset in (load_dataset(name) for name in args.datasets):
            kept = first_haystacks(dataset, limits.get(dataset.name))
            kept = sample_questions(kept, args.max_questions)
            sampled[dataset.name] = (kept.question_count(), dataset.question_count())
            datasets.append(kept)
        run = run_retrieval(
            datasets,
            args.systems,
            cache_dir=cli.cache_dir(args),
            progress=sys.stderr,
            sampled=sampled,
            clock=args.clock,
            conversations=not args.no_conversations,
        )
    except ZenbrainError as exc:
        return cli.fail(exc)
    parts = ["--datasets", ",".join(args.datasets), "--systems", ",".join(args.systems)]
    if args.haystacks:
        parts += ["--haystacks", args.haystacks]
    if args.max_questions is not None:
        parts += ["--max-questions", str(args.max_questions)]
    if args.clock != "wall":
        parts += ["--clock", args.clock]
    if args.no_conversations:
        parts.append("--no-conversations")
    text = markdown(run, cli.command(*parts, "--write-docs"))
    print(text)
    cli.write_docs(args, text, SECTION_HEADING)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
