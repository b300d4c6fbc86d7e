"""examples/mcp_demo.py runs offline and shows every tool."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "mcp_demo.py"


@pytest.mark.slow
def test_the_mcp_example_runs(tmp_path: Path) -> None:
    db = tmp_path / "example.db"
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), str(db)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "'layer': 'episodic'" in done.stdout and "'layer': 'procedural'" in done.stdout
    assert "must not be empty" in done.stdout
    assert "'promoted': 1" in done.stdout and "'forgotten': True" in done.stdout
    assert '"command": "zenbrain-mcp"' in done.stdout
    assert db.is_file()
