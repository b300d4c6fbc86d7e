"""The one runner of zenbrain's benchmarks, and the command line they all share.

    python -m benchmarks                  # every benchmark, one line each
    python -m benchmarks NAME [ARGS...]   # run one; NAME --help lists its options

A benchmark is a package under ``benchmarks/`` with a ``__main__.py`` or a module with an
``if __name__ == "__main__":`` block; its name is its dotted path below ``benchmarks``
(``scale``, ``scale.ann``, ``speed.write_floor``), so ``python -m benchmarks.NAME`` runs it
too. The list shows the first line of its docstring (a package's ``__init__.py``). Nothing is
imported to list them: the files are read.

Every benchmark builds its command line with :class:`Command`, which holds what they all
repeat: the program name and the description (the docstring) of ``--help``, ``--write-docs``
with the page it writes, the embedding cache and corpus options, the command line that
reproduces a run, writing the benchmark's section of a docs page, and the ``error: ...``
exit of a run that cannot start.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import runpy
import sys
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common.corpora import CORPORA
from benchmarks.common.docs_sections import write_section
from benchmarks.common.paths import REPO_ROOT, embeddings_dir

__all__ = [
    "PROG",
    "Benchmark",
    "Command",
    "choice_list",
    "comma_list",
    "discover",
    "find",
    "int_list",
    "listing",
    "main",
]

PROG = "python -m benchmarks"
PACKAGE_DIR = Path(__file__).resolve().parent
# Folders of shared code, never benchmarks themselves.
SHARED = frozenset({"common"})
_MAIN_BLOCK = '__name__ == "__main__"'


# --------------------------------------------------------------------------- finding them
@dataclass(frozen=True, slots=True)
class Benchmark:
    """One runnable benchmark: ``python -m benchmarks <name>``."""

    name: str  # dotted path below benchmarks: "scale.ann"
    source: Path  # the file whose docstring describes it
    docstring: str

    @property
    def module(self) -> str:
        return f"benchmarks.{self.name}"

    @property
    def summary(self) -> str:
        """The docstring's first line: what the benchmark measures."""
        return self.docstring.strip().splitlines()[0] if self.docstring.strip() else ""


def _docstring(path: Path) -> str:
    try:
        return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    except (OSError, SyntaxError):
        return ""


def _has_main_block(path: Path) -> bool:
    text = path.read_text(encoding="utf-8")
    if _MAIN_BLOCK not in text:
        return False
    for node in ast.parse(text).body:
        if isinstance(node, ast.If) and ast.unparse(node.test).replace("'", '"') == _MAIN_BLOCK:
            return True
    return False


def _at(parts: Sequence[str]) -> Benchmark | None:
    """The benchmark at ``benchmarks/<parts>`` (a package with ``__main__.py``, or a module
    with a main block), or None."""
    if not parts or parts[0] in SHARED or any(not p.isidentifier() for p in parts):
        return None
    folder = PACKAGE_DIR.joinpath(*parts)
    module = folder.with_suffix(".py")
    name = ".".join(parts)
    if (folder / "__main__.py").is_file():
        return Benchmark(name, folder / "__init__.py", _docstring(folder / "__init__.py"))
    if len(parts) > 1 and module.is_file() and _has_main_block(module):
        return Benchmark(name, module, _docstring(module))
    return None


def _delegates_to(main_file: Path) -> set[str]:
    """The modules a package's ``__main__.py`` takes its ``main`` from: that module's own
    main block is the same benchmark, listed once (under the package's name)."""
    tree = ast.parse(main_file.read_text(encoding="utf-8"))
    return {
        node.module.removeprefix("benchmarks.")
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        and node.module is not None
        and any(alias.name == "main" for alias in node.names)
    }


def discover() -> dict[str, Benchmark]:
    """Every benchmark under ``benchmarks/``, by name, sorted."""
    found: dict[str, Benchmark] = {}
    same: set[str] = set()
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        parts = path.relative_to(PACKAGE_DIR).with_suffix("").parts
        if parts[-1] == "__main__":
            parts = parts[:-1]
            same |= _delegates_to(path)
        elif parts[-1] == "__init__":
            continue
        benchmark = _at(parts)
        if benchmark is not None:
            found[benchmark.name] = benchmark
    return {name: found[name] for name in sorted(found) if name not in same}


def find(name: str) -> Benchmark:
    """The benchmark called ``name`` (dashes read as underscores); LookupError with the
    names it may have meant when there is none."""
    benchmark = _at(name.replace("-", "_").split("."))
    if benchmark is not None:
        return benchmark
    names = list(discover())
    inside = [n for n in names if n.startswith(f"{name}.")]
    close = inside or difflib.get_close_matches(name, names, n=4, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise LookupError(f"no benchmark named {name!r}{hint} (`{PROG}` lists them all)")


def listing(benchmarks: Collection[Benchmark]) -> str:
    width = max((len(b.name) for b in benchmarks), default=0)
    lines = [
        f"usage: {PROG} NAME [ARGS...]   (`{PROG} NAME --help` for a benchmark's options)",
        "",
        "benchmarks:",
    ]
    lines += [f"  {b.name.ljust(width)}  {b.summary or '(no description)'}" for b in benchmarks]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """List the benchmarks, or run the one named first with the arguments after it."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(listing(discover().values()))
        return 0
    try:
        benchmark = find(args[0])
    except LookupError as exc:
        print(f"error: {exc.args[0]}", file=sys.stderr)
        return 2
    sys.argv = [f"{PROG} {benchmark.name}", *args[1:]]
    runpy.run_module(benchmark.module, run_name="__main__", alter_sys=True)
    return 0


# --------------------------------------------------------------------------- their options
def comma_list(text: str) -> list[str]:
    """``"a, b,,c"`` -> ``["a", "b", "c"]``."""
    return [part.strip() for part in text.split(",") if part.strip()]


def choice_list(allowed: Collection[str], *, none: bool = False) -> Callable[[str], list[str]]:
    """An argparse type: comma-separated names, each one of ``allowed`` (``"none"`` for an
    empty list when ``none``)."""

    def parse(text: str) -> list[str]:
        if none and text.strip() in ("", "none"):
            return []
        names = comma_list(text)
        unknown = [n for n in names if n not in allowed]
        if unknown or not names:
            raise argparse.ArgumentTypeError(
                f"unknown or no name(s) {', '.join(unknown)}; choose from {', '.join(allowed)}"
            )
        return names

    return parse


def int_list(minimum: int = 1) -> Callable[[str], list[int]]:
    """An argparse type: comma-separated integers of at least ``minimum`` (``1_000`` too)."""

    def parse(text: str) -> list[int]:
        try:
            values = [int(part.replace("_", "")) for part in comma_list(text)]
        except ValueError as exc:
            raise argparse.ArgumentTypeError(
                f"expected comma-separated integers: {text!r}"
            ) from exc
        if not values or min(values) < minimum:
            raise argparse.ArgumentTypeError(f"expected integers of at least {minimum}: {text!r}")
        return values

    return parse


class Command:
    """One benchmark's command line, with the options and steps every benchmark shares.

    ``docs`` is the page whose section ``--write-docs`` replaces (None: the benchmark writes
    none). Add the benchmark's own options to :attr:`parser`.
    """

    def __init__(self, name: str, *, docs: Path | None = None) -> None:
        self.benchmark = find(name)
        self.name = self.benchmark.name
        self.parser = argparse.ArgumentParser(
            prog=f"{PROG} {self.name}",
            description=self.benchmark.docstring,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if docs is not None:
            shown = docs.relative_to(REPO_ROOT) if docs.is_relative_to(REPO_ROOT) else docs
            self.parser.add_argument(
                "--write-docs", action="store_true", help=f"replace its section of {shown}"
            )
            self.parser.add_argument("--docs", type=Path, default=docs, help=argparse.SUPPRESS)

    def add_embedding_cache(self) -> None:
        """``--no-cache`` and ``--cache-dir``: where embedded texts are kept between runs."""
        self.parser.add_argument(
            "--cache-dir", type=Path, default=embeddings_dir(), help="embedding cache directory"
        )
        self.parser.add_argument(
            "--no-cache", action="store_true", help="embed everything afresh, keep nothing"
        )

    @staticmethod
    def cache_dir(args: argparse.Namespace) -> Path | None:
        """The embedding cache of this run (None with ``--no-cache``)."""
        return None if args.no_cache else Path(args.cache_dir)

    def add_locomo_data(self) -> None:
        """``--data``: the LoCoMo file (``$ZENBRAIN_LOCOMO`` or beside the repository)."""
        self.parser.add_argument(
            "--data",
            type=Path,
            default=None,
            help="locomo10.json (default: $ZENBRAIN_LOCOMO or ../shared/data/locomo/locomo10.json)",
        )

    def add_corpus(self, default: str) -> None:
        """``--corpus`` (:data:`~benchmarks.common.corpora.CORPORA`) and its ``--seed``."""
        self.parser.add_argument(
            "--corpus",
            choices=CORPORA,
            default=default,
            help="synthetic Zipf sentences, or LoCoMo turns with seeded variations",
        )
        self.parser.add_argument("--seed", type=int, default=7, help="the corpus's seed")

    def parse(self, argv: Sequence[str] | None) -> argparse.Namespace:
        return self.parser.parse_args(argv)

    def command(self, *parts: object) -> str:
        """The command line that runs this benchmark with ``parts``."""
        return " ".join([PROG, self.name, *(str(p) for p in parts)])

    def command_as_given(self, argv: Sequence[str] | None, without: Collection[str] = ()) -> str:
        """The command line of this run, as typed (``argv`` None: this process's)."""
        given = sys.argv[1:] if argv is None else argv
        return self.command(*(a for a in given if a not in without))

    def write_docs(self, args: argparse.Namespace, section: str, heading: str) -> bool:
        """With ``--write-docs``, put ``section`` in place of ``heading``'s section of the
        page (the rest kept byte for byte) and say so on stderr."""
        if not getattr(args, "write_docs", False):
            return False
        write_section(args.docs, section, heading)
        print(f"wrote the {heading.lstrip('# ')!r} section of {args.docs}", file=sys.stderr)
        return True

    @staticmethod
    def fail(problem: object) -> int:
        """Say why the run cannot go on (a missing dataset says how to get it): exit code 2."""
        print(f"error: {problem}", file=sys.stderr)
        return 2
