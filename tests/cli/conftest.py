"""Running the zenbrain command as a real subprocess, shared by the CLI's test modules."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ZENBRAIN = [sys.executable, "-m", "zenbrain"]


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without any ZENBRAIN_ setting, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZENBRAIN_")}
    env.update(extra)
    return env


def zb(
    *args: str,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ZENBRAIN, *args],
        capture_output=True,
        text=True,
        input=stdin,
        env=env if env is not None else clean_env(),
        cwd=cwd,
        timeout=120,
    )


def zb_json(*args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> Any:
    done = zb(*args, "--json", stdin=stdin, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def db(db_path: Path) -> str:
    return str(db_path)
