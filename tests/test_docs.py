"""The README's Python example runs as written, and the demo runs end to end."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_readme_quickstart_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```python\n(.*?)```", readme, re.S)
    assert block is not None
    monkeypatch.setenv("HOME", str(tmp_path))
    exec(compile(block.group(1), "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "PostgreSQL 17" in out.splitlines()[0]  # the best hit answers the question
    assert "[persona]: Anna, payments engineer in Kiel" in out
    assert (tmp_path / ".zenbrain" / "memory.db").exists()


def test_demo_runs(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "demo.py"), str(tmp_path / "demo.db")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    for heading in ("recall(", "consolidate()", "health()", "review_queue()", "core_context()"):
        assert heading in done.stdout
    assert "promoted 1 episode(s)" in done.stdout
    assert "after grading them 'good': 0 due now" in done.stdout
