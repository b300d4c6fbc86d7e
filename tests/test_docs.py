"""The docs say what the code does: their Python runs, and nothing public goes undocumented.

Modelled on sqlite-utils' ``tests/test_docs.py``:

- every ```` ```python ```` block of README.md and docs/**/*.md runs, offline, in a temporary
  folder that is also ``$HOME``. The blocks of one page run in order in one namespace, as a
  reader would type them, so a later block may use what an earlier one defined. A block that
  cannot run here (it needs PostgreSQL, a network service, ...) is preceded by the comment
  ``<!-- docs-test: skip (the reason) -->``; the skips are counted and must stay few. A page
  whose examples need an optional package says so once, anywhere on the page:
  ``<!-- docs-test: requires langchain_zenbrain -->`` (the page is skipped without it, as in
  CI's lowest-versions cell of the core);
- every ``zenbrain`` command, subcommand and option (read from the click group) is named in
  docs/guide/cli.md, and every public method, property and attribute of
  ``MemoryCoordinator`` in docs/guide/api.md: a new one fails here until it is documented;
- every link into the repository (relative, or absolute as the READMEs write them) leads to
  a file that exists.

The README's two front-door examples are also checked for what they print, and the demo
(``make demo``) runs end to end.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import traceback
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide"
DOC_PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

SKIP_MARK = re.compile(r"<!--\s*docs-test:\s*skip\s*\((?P<reason>[^)]+)\)\s*-->")
REQUIRES_MARK = re.compile(r"<!--\s*docs-test:\s*requires\s+(?P<modules>[\w. ]+?)\s*-->")
ANY_MARK = re.compile(r"<!--\s*docs-test:")
# At most this share of all Python blocks may be skipped: the docs are meant to run.
MOST_SKIPPED = 0.2
# Links into the repository as a package index page must write them (blob/ or tree/ main).
REPOSITORY = "https://github.com/zensation-ai/zenbrain/blob/main/"
# Pages other changes will add; a link to one of them may lead nowhere until they land.
COMING: set[str] = set()


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the first line of code, 1-based
    code: str
    skip_reason: str | None


def python_blocks(page: Path) -> list[Block]:
    """The page's ```python blocks, each with the skip reason of the comment before it."""
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```python":
            start = i + 1
            end = start
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            before = next((s for s in reversed(lines[:i]) if s.strip()), "")
            mark = SKIP_MARK.search(before)
            code = "\n".join(lines[start:end]) + "\n"
            blocks.append(Block(page, start + 1, code, mark["reason"] if mark else None))
            i = end
        i += 1
    return blocks


def relative(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


PAGES_WITH_CODE = [page for page in DOC_PAGES if python_blocks(page)]


@contextlib.contextmanager
def offline_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A fresh folder as the working directory and $HOME, and no API key or store in the
    environment, so an example can neither reach a hosted model nor touch a real store."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("OPENAI_API_KEY", "ZENBRAIN_DB", "ZENBRAIN_EMBEDDER", "ZENBRAIN_CONTEXTS"):
        monkeypatch.delenv(name, raising=False)
    yield


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=relative)
def test_every_python_block_runs(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = page.read_text(encoding="utf-8")
    for mark in REQUIRES_MARK.finditer(text):
        for module in mark["modules"].split():
            pytest.importorskip(module, reason=f"{relative(page)} needs {module}")
    # A module of its own (in sys.modules, as a script's __main__ is), so that classes the
    # examples define, dataclasses among them, can find their module.
    module = types.ModuleType(f"docs_example_{page.stem.replace('-', '_')}")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    namespace = module.__dict__
    with offline_home(tmp_path, monkeypatch):
        for block in python_blocks(page):
            if block.skip_reason is not None:
                continue
            # Padded so a traceback names the line of the page.
            source = "\n" * (block.line - 1) + block.code
            try:
                exec(compile(source, str(page), "exec"), namespace)
            except Exception:
                pytest.fail(
                    f"the block at {relative(page)}:{block.line} failed (mark it with "
                    f"'<!-- docs-test: skip (why) -->' only if it cannot run offline):\n"
                    + traceback.format_exc()
                )
        for value in list(namespace.values()):  # close what the examples left open
            close = getattr(value, "close", None)
            if type(value).__name__ == "MemoryCoordinator" and callable(close):
                close()


def test_skips_are_marked_with_a_reason_and_few() -> None:
    blocks = [block for page in DOC_PAGES for block in python_blocks(page)]
    skipped = [b for b in blocks if b.skip_reason is not None]
    for page in DOC_PAGES:
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if ANY_MARK.search(line):
                assert SKIP_MARK.search(line) or REQUIRES_MARK.search(line), (
                    f"{relative(page)}:{number}: a docs-test comment is either "
                    f"'skip (reason)' or 'requires module ...', got {line.strip()!r}"
                )
    assert len(blocks) >= 20, f"only {len(blocks)} Python blocks found in the docs"
    listing = "\n".join(f"{relative(b.page)}:{b.line}: {b.skip_reason}" for b in skipped)
    assert len(skipped) <= MOST_SKIPPED * len(blocks), (
        f"{len(skipped)} of {len(blocks)} Python blocks are skipped:\n{listing}"
    )


def test_skip_marks_sit_on_python_blocks() -> None:
    """A skip comment that no Python block follows skips nothing: it is a mistake."""
    for page in DOC_PAGES:
        lines = page.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, 1):
            if SKIP_MARK.search(line):
                following = next((s for s in lines[number:] if s.strip()), "")
                assert following.strip() == "```python", (
                    f"{relative(page)}:{number}: a skip comment must come right before a "
                    f"```python block, not before {following!r}"
                )


# ------------------------------------------------------------------ undocumented surface
def command_paths() -> list[str]:
    """Every command of the ``zenbrain`` click group, as typed: 'store', 'core set', ..."""
    import click

    from zenbrain.cli import _main

    group = next(v for v in vars(_main).values() if isinstance(v, click.Group))
    paths: list[str] = []

    def walk(command: click.Command, prefix: list[str]) -> None:
        if isinstance(command, click.Group):
            for name, sub in sorted(command.commands.items()):
                if not sub.hidden:
                    paths.append(" ".join([*prefix, name]))
                    walk(sub, [*prefix, name])

    walk(group, [])
    return paths


def test_every_cli_command_is_in_the_cli_guide() -> None:
    text = (GUIDE / "cli.md").read_text(encoding="utf-8")
    paths = command_paths()
    assert {"store", "recall", "core set", "namespace drop"} <= set(paths)  # the walk works
    missing = [p for p in paths if not re.search(rf"zenbrain {re.escape(p)}(?![\w-])", text)]
    assert not missing, f"docs/guide/cli.md names no `zenbrain <command>` for: {missing}"


def test_every_cli_option_is_in_the_cli_guide() -> None:
    import click

    from zenbrain.cli import _main

    group = next(v for v in vars(_main).values() if isinstance(v, click.Group))
    text = (GUIDE / "cli.md").read_text(encoding="utf-8")
    missing: set[str] = set()

    def walk(command: click.Command, path: str) -> None:
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                flag = max(param.opts, key=len)  # --min-score rather than -s
                if flag not in ("--help",) and not re.search(rf"{flag}(?![\w-])", text):
                    missing.add(f"{path} {flag}")
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, f"{path} {name}")

    walk(group, "zenbrain")
    assert not missing, f"docs/guide/cli.md does not name these options: {sorted(missing)}"


def coordinator_surface() -> list[str]:
    """The public methods, properties and instance attributes of MemoryCoordinator."""
    from zenbrain import MemoryCoordinator

    names = {n for n in dir(MemoryCoordinator) if not n.startswith("_")}
    with MemoryCoordinator(":memory:") as memory:
        names |= {n for n in vars(memory) if not n.startswith("_")}
    return sorted(names)


def test_every_public_coordinator_name_is_in_the_api_guide() -> None:
    text = (GUIDE / "api.md").read_text(encoding="utf-8")
    names = coordinator_surface()
    assert {"store", "recall", "arecall", "namespace"} <= set(names)  # the listing works
    missing = [n for n in names if not re.search(rf"`(?:[\w.]+\.)?{re.escape(n)}\b", text)]
    assert not missing, f"docs/guide/api.md does not name (in backticks): {missing}"


def test_links_into_the_repository_lead_to_files() -> None:
    """Relative links, and the absolute ones the READMEs use (a README is also a package's
    index page, where a relative link leads nowhere), name files that exist."""
    broken = []
    readmes = sorted((ROOT / "integrations").glob("*/README.md"))
    for page in [*DOC_PAGES, *readmes]:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if target.startswith(REPOSITORY):
                path = (ROOT / target.removeprefix(REPOSITORY).split("#", 1)[0]).resolve()
            elif target.startswith(("http://", "https://", "#", "mailto:")):
                continue
            else:
                path = (page.parent / target.split("#", 1)[0]).resolve()
            shown = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else target
            if not path.exists() and shown not in COMING:
                broken.append(f"{relative(page)}: {target}")
    assert not broken, broken


def test_guide_index_links_every_guide_page() -> None:
    index = (GUIDE / "index.md").read_text(encoding="utf-8")
    pages = sorted(p.name for p in GUIDE.glob("*.md") if p.name != "index.md")
    assert len(pages) >= 10
    missing = [name for name in pages if f"]({name})" not in index]
    assert not missing, f"docs/guide/index.md does not link {missing}"


# ------------------------------------------------------------------ what the front page shows
def test_readme_quickstart_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```python\n(.*?)```", readme, re.S)
    assert block is not None
    with offline_home(tmp_path, monkeypatch):
        exec(compile(block.group(1), "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "PostgreSQL 17" in out.splitlines()[0]  # the best hit answers the question
    assert "[persona]: Anna, payments engineer in Kiel" in out
    assert (tmp_path / ".zenbrain" / "memory.db").exists()


def test_readme_is_a_short_front_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 210
    first_screen = "\n".join(readme.splitlines()[:25])
    assert "make demo" in first_screen and "make test" in first_screen
    for target in ("docs/guide/index.md", "docs/benchmarks.md", "CHANGELOG.md", "LICENSE"):
        assert f"]({REPOSITORY}{target})" in readme, target


def test_changelog_keeps_an_unreleased_section() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[?([^\]\n]+)\]?", changelog, re.M)
    assert headings and headings[0] == "Unreleased", headings
    assert len(headings) >= 2, "no released version listed"


def test_demo_runs(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "demo.py"), str(tmp_path / "demo.db")],
        capture_output=True,
        text=True,
        timeout=120,
        env={k: v for k, v in os.environ.items() if k != "ZENBRAIN_DB"},
    )
    assert done.returncode == 0, done.stderr
    for heading in ("recall(", "consolidate()", "health()", "review_queue()", "core_context()"):
        assert heading in done.stdout
    assert "promoted 1 episode(s)" in done.stdout
    assert "after grading them 'good': 0 due now" in done.stdout
