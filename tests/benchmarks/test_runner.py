"""The one runner of the benchmarks: ``python -m benchmarks`` lists every benchmark of the
tree, runs one by name, refuses a name it does not know, and every benchmark it lists
answers ``--help``; every benchmark command the docs print names one it lists.

The tree is read here on its own terms (files named ``__main__.py``, modules with a main
block), not through the runner's discovery, so a benchmark the runner misses fails here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.common.docs_sections import write_section
from benchmarks.common.machine import machine_line
from benchmarks.runner import PROG, choice_list, comma_list, discover, find, int_list

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
MAIN_BLOCK = re.compile(r'^if __name__ == "__main__":', re.MULTILINE)
LISTED = sorted(discover())


def run_benchmarks(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m benchmarks ARGS`` from the repository root, as the docs say to run it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "benchmarks", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def dotted(path: Path) -> str:
    return ".".join(path.relative_to(BENCHMARKS).with_suffix("").parts)


def packages_with_a_main() -> list[str]:
    return sorted(
        ".".join(main.parent.relative_to(BENCHMARKS).parts)
        for main in BENCHMARKS.rglob("__main__.py")
        if main.parent != BENCHMARKS
    )


def modules_with_a_main_block() -> list[str]:
    """Modules below a benchmark package that run on their own, except the runner's files
    and the one a package's ``__main__.py`` takes its ``main`` from (the same benchmark)."""
    found = []
    for path in sorted(BENCHMARKS.rglob("*.py")):
        if path.parent == BENCHMARKS or path.name in ("__main__.py", "__init__.py"):
            continue
        if not MAIN_BLOCK.search(path.read_text(encoding="utf-8")):
            continue
        package_main = path.parent / "__main__.py"
        imports_main = f"from benchmarks.{dotted(path)} import main"
        if package_main.is_file() and imports_main in package_main.read_text(encoding="utf-8"):
            continue
        found.append(dotted(path))
    return found


@pytest.fixture(scope="module")
def listing() -> str:
    done = run_benchmarks()
    assert done.returncode == 0, done.stderr
    return done.stdout


def listed_names(listing: str) -> list[str]:
    return [line.split()[0] for line in listing.splitlines() if line.startswith("  ")]


def test_the_listing_names_every_package_and_module_that_runs(listing: str) -> None:
    names = listed_names(listing)
    assert packages_with_a_main(), "no benchmark package found: the tree moved?"
    missing = [n for n in packages_with_a_main() + modules_with_a_main_block() if n not in names]
    assert not missing, f"`{PROG}` does not list {missing}"
    assert names == LISTED
    for expected in ("retrieval", "scale", "locomo", "knowledge", "speed.write_floor"):
        assert expected in names
    assert not [n for n in names if n.split(".")[0] == "common"]  # shared code, not a benchmark


def test_every_benchmark_says_in_one_line_what_it_measures(listing: str) -> None:
    for line in listing.splitlines():
        if line.startswith("  "):
            name, summary = line.split(maxsplit=1)
            assert summary != "(no description)", f"{name} has no docstring"
            assert len(summary) <= 100, f"{name}'s first docstring line is {len(summary)} long"


def test_an_unknown_name_is_refused_with_the_names_it_may_mean() -> None:
    done = run_benchmarks("no-such-benchmark", "--help")
    assert done.returncode == 2
    assert "no benchmark named 'no-such-benchmark'" in done.stderr
    assert f"`{PROG}` lists them all" in done.stderr
    assert not done.stdout
    group = run_benchmarks("speed")  # a folder of benchmarks, not one
    assert group.returncode == 2
    assert "did you mean speed.cold_start" in group.stderr
    with pytest.raises(LookupError, match="did you mean retrieval"):
        find("retreival")


def test_a_benchmark_runs_by_name_and_as_a_module(tmp_path: Path) -> None:
    """Both spellings reach the same code: the runner hands its arguments on, exit code too."""
    through_runner = run_benchmarks("speed.write_floor", "--size", "0")
    assert through_runner.returncode == 2
    assert "at least 1" in through_runner.stderr
    direct = subprocess.run(
        [sys.executable, "-m", "benchmarks.speed.write_floor", "--size", "0"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (direct.returncode, direct.stderr) == (2, through_runner.stderr)


@pytest.mark.parametrize("name", LISTED)
def test_every_listed_benchmark_answers_help(name: str) -> None:
    done = run_benchmarks(name, "--help")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith(f"usage: {PROG} {name} "), done.stdout[:200]
    assert find(name).summary in done.stdout  # the docstring is the description


# --------------------------------------------------------------------------- the docs
COMMAND = re.compile(r"python -m benchmarks(?:\.(?P<module>[\w.]+)| (?P<name>[\w.-]+))?")


def documented_commands() -> list[tuple[str, str]]:
    """(file, benchmark) for every ``python -m benchmarks ...`` in the docs, the Makefile, the
    CI workflow and the raw results the docs were built from."""
    pages = [
        ROOT / "README.md",
        ROOT / "CHANGELOG.md",
        ROOT / "Makefile",
        *sorted((ROOT / "docs").rglob("*.md")),
        *sorted((ROOT / "docs").glob("*.json")),
        *sorted((ROOT / ".github").rglob("*.yml")),
    ]
    found = []
    for page in pages:
        for match in COMMAND.finditer(page.read_text(encoding="utf-8")):
            name = match["module"] or match["name"]
            if name and not name.startswith("-") and not name.isupper():  # NAME: a placeholder
                found.append((page.relative_to(ROOT).as_posix(), name))
    return found


def test_every_benchmark_command_in_the_docs_names_a_listed_benchmark() -> None:
    commands = documented_commands()
    assert len(commands) > 20
    unknown = sorted({(page, name) for page, name in commands if name not in LISTED})
    assert not unknown, f"commands that name no benchmark: {unknown}"
    spelled_as_modules = sorted(
        {page for page, _ in commands if f"{PROG}." in (ROOT / page).read_text(encoding="utf-8")}
    )
    assert not spelled_as_modules, f"write `{PROG} NAME` in {spelled_as_modules}"


# --------------------------------------------------------------------------- shared pieces
def test_the_shared_option_types() -> None:
    assert comma_list(" a, b,,c ") == ["a", "b", "c"]
    assert int_list(10)("1_000,20") == [1000, 20]
    with pytest.raises(Exception, match="at least 10"):
        int_list(10)("5")
    with pytest.raises(Exception, match="expected comma-separated integers"):
        int_list()("1,x")
    assert choice_list(("sqlite", "postgres"))("postgres") == ["postgres"]
    assert choice_list(("a",), none=True)("none") == []
    with pytest.raises(Exception, match="choose from sqlite, postgres"):
        choice_list(("sqlite", "postgres"))("oracle")


def test_write_section_creates_the_page_and_keeps_the_rest(tmp_path: Path) -> None:
    page = tmp_path / "docs" / "page.md"
    write_section(page, "## Mine\n\nfirst\n", "## Mine")
    assert page.read_text(encoding="utf-8") == "# Benchmarks\n\n## Mine\n\nfirst\n"
    page.write_text("# T\n\n## Mine\n\nold\n\n## Theirs\n\nkept\n", encoding="utf-8")
    write_section(page, "## Mine\n\nnew\n", "## Mine")
    assert page.read_text(encoding="utf-8") == "# T\n\n## Mine\n\nnew\n\n## Theirs\n\nkept\n"


def test_the_machine_line() -> None:
    assert re.fullmatch(r"\d+ cores \(.+\), Python 3\.\d+\.\d+", machine_line())
    assert machine_line(1.3, cores=4).startswith("4 cores (")
    assert machine_line(1.3).endswith(", load average 1.3 at the start")
