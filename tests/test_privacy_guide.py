"""Every code block of docs/guide/privacy.md runs as written: the Python blocks in one
folder, one after the other, and the shell walk-through of ``zenbrain encrypt``/``rekey``
(the ``pip install`` line aside) with the real command line."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sqlcipher3")

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "privacy.md"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)


def test_the_python_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("ZENBRAIN_KEY", "ZENBRAIN_KEY_FILE", "ZENBRAIN_DB"):
        monkeypatch.delenv(name, raising=False)
    blocks = _blocks("python")
    assert len(blocks) == 3
    for number, block in enumerate(blocks):
        exec(compile(block, f"privacy.md, block {number}", "exec"), {})
    assert b"penicillin" not in (tmp_path / "private-backup.db").read_bytes()


def test_the_shell_walk_through_runs(tmp_path: Path) -> None:
    (script,) = [block for block in _blocks("bash") if "zenbrain encrypt" in block]
    bin_dir = str(Path(sys.executable).parent)  # where the zenbrain command is installed
    env = {key: value for key, value in os.environ.items() if not key.startswith("ZENBRAIN_")}
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    run = subprocess.run(
        ["bash", "-e", "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "Ben's PIN is 2468" in run.stdout.splitlines()[-1]
    assert b"2468" not in (tmp_path / "notes.db").read_bytes()
