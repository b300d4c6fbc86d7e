"""What a benchmark report says about the machine and the code it ran on.

Timings on a shared machine compare only with the load they ran under, and a result only
with the commit that produced it: :func:`machine_line` is the one-line header of the
retrieval reports, :func:`machine_facts` the scale benchmark's fuller list (with the
commit).
"""

from __future__ import annotations

import contextlib
import os
import platform
import sqlite3
import subprocess
from importlib import metadata
from pathlib import Path

from benchmarks.common.paths import REPO_ROOT

__all__ = ["cpu_model", "git_commit", "load_average", "machine_facts", "machine_line"]

# Packages whose versions the scale benchmark's machine list names when installed.
_PACKAGES = ("numpy", "sqlalchemy", "langgraph", "llama-index-core")


def load_average() -> float | None:
    """The 1-minute load average now (None where the system keeps none)."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def machine_line(load: float | None = None, *, cores: int | None = None) -> str:
    """``"2 cores (x86_64, Linux), Python 3.11.7"``, and ``", load average 1.3 at the
    start"`` when ``load`` is given (a run's :func:`load_average` when it began)."""
    processor = platform.processor() or platform.machine()
    line = (
        f"{cores or os.cpu_count()} cores ({processor}, {platform.system()}), "
        f"Python {platform.python_version()}"
    )
    if load is not None:
        line += f", load average {load:.1f} at the start"
    return line


def cpu_model() -> str:
    """The processor's model name (``/proc/cpuinfo``), else what ``platform`` knows."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def git_commit() -> str:
    """The checked-out commit, marked when the working tree has uncommitted changes."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{commit} (with uncommitted changes)" if dirty else commit


def machine_facts() -> dict[str, str]:
    """Cores, processor, platform, Python, SQLite, the installed versions of
    :data:`_PACKAGES`, and the commit."""
    facts = {
        "cpu cores": str(os.cpu_count()),
        "platform": platform.platform(),
        "processor": cpu_model(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
    }
    for package in _PACKAGES:
        with contextlib.suppress(metadata.PackageNotFoundError):
            facts[package] = metadata.version(package)
    facts["zenbrain commit"] = git_commit()
    return facts
