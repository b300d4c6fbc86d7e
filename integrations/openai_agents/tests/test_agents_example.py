"""examples/openai_agents_demo.py runs offline, end to end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "openai_agents_demo.py"


@pytest.mark.slow
def test_the_agents_example_runs(tmp_path: Path) -> None:
    db = tmp_path / "example.db"
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), str(db)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "[name]: The user is called Ada." in done.stdout
    assert "history items kept: 4" in done.stdout
    assert "Your boat:" in done.stdout and "Kiel" in done.stdout
    assert db.is_file()
