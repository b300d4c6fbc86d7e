"""Every distribution builds (sdist, then the wheel from the sdist), passes ``twine check``,
ships what it should and nothing else; the core wheel installed alone in a clean virtual
environment works as a new user drives it (``smoke_installed.py``), and so does
``zenbrain-mcp`` once its wheel is added.

The clean environment gets the wheels with ``--no-deps`` and sees this environment's
installed dependencies through a ``.pth`` line (no network, no editable zenbrain: the
``.pth`` files of that folder are not processed, so only the wheels' code is importable).
CI's ``dist`` job does the same with the dependencies from the package index.
"""

from __future__ import annotations

import email.parser
import os
import re
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

import zenbrain

ROOT = Path(__file__).resolve().parents[2]
SMOKE = Path(__file__).with_name("smoke_installed.py")
DISTRIBUTIONS = {
    "zenbrain": (".", "zenbrain"),
    "langchain_zenbrain": ("integrations/langchain", "langchain_zenbrain"),
    "llama_index_memory_zenbrain": ("integrations/llamaindex", "llama_index/memory/zenbrain"),
    "zenbrain_mcp": ("integrations/mcp", "zenbrain_mcp"),
    "zenbrain_openai_agents": ("integrations/openai_agents", "zenbrain_openai_agents"),
}

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    for project, _ in DISTRIBUTIONS.values():
        done = subprocess.run(
            [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), project],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    return out


def _wheel(dist: Path, name: str) -> Path:
    (found,) = dist.glob(f"{name}-*.whl")
    return found


def _sdist(dist: Path, name: str) -> Path:
    (found,) = dist.glob(f"{name}-*.tar.gz")
    return found


def _metadata(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as archive:
        (path,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return email.parser.Parser().parsestr(archive.read(path).decode())


def test_every_distribution_builds_and_passes_twine_check(dist: Path) -> None:
    files = sorted(p.name for p in dist.iterdir())
    assert len(files) == 2 * len(DISTRIBUTIONS), files
    done = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, sorted(dist.iterdir()))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
def test_each_wheel_is_typed_licensed_and_linked(dist: Path, name: str) -> None:
    package = DISTRIBUTIONS[name][1]
    with zipfile.ZipFile(_wheel(dist, name)) as archive:
        names = archive.namelist()
    assert f"{package}/py.typed" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert not any(n.startswith("tests/") for n in names)
    metadata = _metadata(_wheel(dist, name))
    urls = dict(u.split(", ", 1) for u in metadata.get_all("Project-URL") or [])
    assert {"Homepage", "Repository", "Issues", "Documentation"} <= set(urls)
    assert all(u.startswith("https://") for u in urls.values())
    assert metadata["License-Expression"] == "Apache-2.0"


def test_one_zenbrain_range_for_every_integration_and_one_version(dist: Path) -> None:
    ranges = set()
    for name in DISTRIBUTIONS:
        requirements = _metadata(_wheel(dist, name)).get_all("Requires-Dist") or []
        ranges |= {r for r in requirements if re.match(r"zenbrain\b", r)}
    assert ranges == {"zenbrain<0.2,>=0.1"}
    assert _metadata(_wheel(dist, "zenbrain"))["Version"] == zenbrain.__version__
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    written = re.findall(r'__version__ = "', (ROOT / "zenbrain" / "__init__.py").read_text())
    assert len(written) == 1


def test_the_core_sdist_holds_only_the_package(dist: Path) -> None:
    with tarfile.open(_sdist(dist, "zenbrain")) as archive:
        top = {m.name.split("/", 2)[1] for m in archive.getmembers() if m.name.count("/") >= 1}
    assert top <= {"zenbrain", "README.md", "LICENSE", "pyproject.toml", "PKG-INFO", ".gitignore"}
    assert "zenbrain" in top


_EXAMPLE_TESTS = {"test_mcp_example.py", "test_agents_example.py"}  # need the repo's examples/


@pytest.mark.parametrize("name", sorted(set(DISTRIBUTIONS) - {"zenbrain"}))
def test_integration_sdists_carry_their_tests_and_pytest_settings(
    dist: Path, name: str, tmp_path: Path
) -> None:
    """What an unpacked integration sdist needs to run its own tests (CI's dist job runs
    them; collecting them here would import every framework, too slow for the suite)."""
    project = ROOT / DISTRIBUTIONS[name][0]
    with tarfile.open(_sdist(dist, name)) as archive:
        archive.extractall(tmp_path, filter="data")
    (unpacked,) = tmp_path.iterdir()
    assert (unpacked / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()
    shipped = {p.name for p in (unpacked / "tests").glob("*.py")}
    in_repo = {p.name for p in (project / "tests").glob("*.py")}
    assert shipped == in_repo - _EXAMPLE_TESTS
    settings = tomllib.loads((unpacked / "pyproject.toml").read_text())["tool"]["pytest"]
    options = settings["ini_options"]
    assert options["asyncio_mode"] == "auto" and "--strict-markers" in options["addopts"]
    root_options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]
    assert options["markers"] == root_options["ini_options"]["markers"]


def _clean_environment(where: Path) -> Path:
    """A virtual environment without pip whose only extra import path is this environment's
    site-packages (for the dependencies)."""
    venv.create(where, with_pip=False, symlinks=True)
    python = where / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "dependencies-from-the-test-environment.pth").write_text(
        sysconfig.get_path("purelib") + "\n"
    )
    return python


def _install(python: Path, wheel: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        timeout=300,
    )


def _smoke(python: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZENBRAIN_")}
    return subprocess.run(
        [str(python), str(SMOKE), *args], capture_output=True, text=True, timeout=300, env=env
    )


def test_the_core_wheel_alone_works_for_a_new_user(dist: Path, tmp_path: Path) -> None:
    python = _clean_environment(tmp_path / "venv")
    _install(python, _wheel(dist, "zenbrain"))
    done = _smoke(python)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "zenbrain: ok" in done.stdout and "zenbrain-mcp" not in done.stdout

    _install(python, _wheel(dist, "zenbrain_mcp"))
    with_mcp = _smoke(python, "--mcp-only")
    assert with_mcp.returncode == 0, with_mcp.stdout + with_mcp.stderr
    assert "zenbrain-mcp: ok" in with_mcp.stdout

    # mypy finds both installed packages typed (py.typed), as in a user's project; imports
    # are not followed, which keeps this fast: finding the packages is what py.typed decides.
    user = tmp_path / "user_code.py"
    user.write_text(
        "from zenbrain import MemoryCoordinator\n"
        "from zenbrain_mcp import create_server\n\n"
        "def remember(path: str) -> None:\n"
        "    with MemoryCoordinator(path) as memory:\n"
        "        memory.store('x')\n"
        "    create_server(db=path)\n"
    )
    checked = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--follow-imports=skip",
            "--python-executable",
            str(python),
            str(user),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("name", sorted(set(DISTRIBUTIONS) - {"zenbrain"}))
def test_integration_readmes_link_absolutely(name: str) -> None:
    """The README is the package index page: a relative link there leads nowhere."""
    readme = (ROOT / DISTRIBUTIONS[name][0] / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)\)", readme)
    relative = [t for t in targets if not t.startswith(("https://", "http://", "#", "mailto:"))]
    assert not relative, relative
