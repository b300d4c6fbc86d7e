"""The Makefile, CI workflow and lowest-versions runner do what they promise: a .venv made by
another Python is rebuilt, torch comes from the CPU index in CI (and first), every CI job
has a timeout and a package cache, and the lowest-versions pins are the declared floors."""

from __future__ import annotations

import importlib.util
import os
import stat
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
PY = f"{sys.version_info.major}.{sys.version_info.minor}"


def _fake_venv(where: Path, version: str) -> Path:
    """A folder whose bin/python answers the version question like a venv's Python."""
    python = where / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f"#!/bin/sh\necho {version}\n")
    python.chmod(python.stat().st_mode | stat.S_IEXEC)
    return where


def _make_dry_run(*args: str) -> str:
    done = subprocess.run(
        ["make", "-n", *args, f"PYTHON={sys.executable}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={k: v for k, v in os.environ.items() if k != "TORCH_INDEX_URL"},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_venv_made_by_another_python_is_rebuilt(tmp_path: Path) -> None:
    other = _fake_venv(tmp_path / "other", "3.9")
    planned = _make_dry_run("install", f"VENV={other}")
    assert f"rm -rf {other}" in planned
    assert f"{sys.executable} -m venv {other}" in planned


def test_a_venv_made_by_this_python_is_kept(tmp_path: Path) -> None:
    same = _fake_venv(tmp_path / "same", PY)
    planned = _make_dry_run("install", f"VENV={same}")
    assert "rm -rf" not in planned and "-m venv" not in planned
    assert "pip install" in planned  # only the packages, into the existing venv


def test_torch_comes_first_and_from_the_index_ci_names(tmp_path: Path) -> None:
    venv = _fake_venv(tmp_path / "venv", PY)
    planned = _make_dry_run("install", f"VENV={venv}", f"TORCH_INDEX_URL={CPU_INDEX}")
    installs = [line for line in planned.splitlines() if "pip install" in line]
    assert installs[0].endswith(f'--index-url {CPU_INDEX} "torch==2.13.0"'), installs
    assert "-e" in installs[1] and '"torch==2.13.0"' in installs[1]  # the pin holds later
    local = _make_dry_run("install", f"VENV={venv}")
    assert "--index-url" not in local  # here: this machine's pip configuration


@pytest.fixture(scope="module")
def workflow() -> dict[str, object]:
    loaded = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text())
    assert isinstance(loaded, dict)
    return loaded


def test_ci_uses_the_cpu_torch_index_and_runs_make_install(workflow: dict) -> None:
    assert workflow["env"]["TORCH_INDEX_URL"] == CPU_INDEX
    steps = workflow["jobs"]["test"]["steps"]
    runs = "\n".join(step.get("run", "") for step in steps)
    assert "make install" in runs and "bash .ci/run" in runs
    assert "nvidia-" in runs  # the job fails if a CUDA wheel slipped in


def test_every_ci_job_has_a_timeout_and_a_package_cache(workflow: dict) -> None:
    jobs = workflow["jobs"]
    assert set(jobs) == {"test", "dist", "lowest"}
    for name, job in jobs.items():
        assert 0 < job["timeout-minutes"] <= 40, name
        setup = [
            s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/setup-python")
        ]
        assert setup and setup[0]["with"]["cache"] == "pip", name
    versions = jobs["test"]["strategy"]["matrix"]["python-version"]
    assert versions == ["3.11", "3.12", "3.13"]


def test_ci_builds_checks_and_smoke_tests_the_wheels(workflow: dict) -> None:
    runs = "\n".join(step.get("run", "") for step in workflow["jobs"]["dist"]["steps"])
    assert "python -m build" in runs and "twine check --strict" in runs
    assert "tests/packaging/smoke_installed.py" in runs and "--mcp-only" in runs
    assert "python -m pytest" in runs  # each integration's tests from its sdist


def _runner() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "lowest_versions", ROOT / "scripts" / "lowest_versions.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_lowest_cells_are_the_ci_matrix(workflow: dict) -> None:
    cells = workflow["jobs"]["lowest"]["strategy"]["matrix"]["cell"]
    assert sorted(cells) == sorted(_runner().CELLS)
    setup = workflow["jobs"]["lowest"]["steps"][1]
    assert setup["with"]["python-version"] == "3.11"  # floors hold on the oldest Python


def test_floors_become_pins() -> None:
    floors = _runner().floors
    assert floors(["numpy>=1.26", "psycopg[binary]>=3.2.1", "fsrs>=6.0,<7"]) == {
        "numpy": "1.26",
        "psycopg": "3.2.1",
        "fsrs": "6.0",
    }
    assert floors(["zenbrain>=0.1,<0.2", "mcp<3", 'tomli>=2; python_version < "3.11"']) == {
        "tomli": "2"
    }


@pytest.mark.parametrize("cell", ["core", "langchain", "llamaindex", "openai_agents", "mcp"])
def test_every_runtime_dependency_is_pinned_at_its_floor(cell: str) -> None:
    runner = _runner()
    pins = dict(line.split("==") for line in runner.constraints(runner.CELLS[cell]).splitlines())
    project = tomllib.loads((ROOT / runner.CELLS[cell].project / "pyproject.toml").read_text())
    declared = runner.floors(project["project"]["dependencies"])
    assert declared and declared.items() <= pins.items()
