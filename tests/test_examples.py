"""Every notebook in ``examples/`` runs top to bottom, offline, and a fresh run reproduces the
committed file byte for byte, so none can rot and none can show outputs the code no longer
gives.

Each notebook is executed by ``scripts/execute_notebooks.py`` (what ``make notebooks`` runs)
into a temporary folder, in a fresh temporary working directory, on a ``python3`` kernel that
is pinned to this interpreter (so it sees the same installed packages as the tests), with API
keys removed so the notebooks take their offline path. Nothing is normalised: the notebooks
read a fixed clock and print no generated id.
"""

from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path
from types import ModuleType

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "execute_notebooks", ROOT / "scripts" / "execute_notebooks.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EXECUTE = _script()


@pytest.fixture(scope="session")
def jupyter_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("jupyter")
    EXECUTE.kernel_home(root)
    return root


def test_there_are_notebooks() -> None:
    names = {path.name for path in NOTEBOOKS}
    assert {"langchain_quickstart.ipynb", "llamaindex_quickstart.ipynb"} <= names


def _printed(path: Path) -> list[str]:
    """Each code cell's outputs as the lines a reader sees, for a readable failure."""
    lines: list[str] = []
    for number, cell in enumerate(nbformat.read(path, as_version=4).cells):
        if cell.cell_type != "code":
            continue
        lines.append(f"--- cell {number} [{cell.execution_count}]")
        for out in cell.outputs:
            text = out.get("text") or out.get("data", {}).get("text/plain") or str(out)
            lines += [f"{out.output_type}: {line}" for line in str(text).splitlines()]
    return lines


@pytest.mark.slow
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_a_fresh_run_reproduces_the_committed_notebook(
    notebook: Path, jupyter_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTER_PATH", str(jupyter_path))
    for key in EXECUTE.API_KEYS:
        monkeypatch.delenv(key, raising=False)
    fresh = tmp_path / notebook.name
    # Raises on an error in any cell and when the notebook leaves files in its working dir.
    EXECUTE.execute(notebook, fresh)
    if fresh.read_bytes() != notebook.read_bytes():
        diff = "\n".join(
            difflib.unified_diff(
                _printed(notebook), _printed(fresh), "committed", "fresh run", lineterm=""
            )
        )
        pytest.fail(
            f"{notebook.name}: a fresh run differs from the committed file; `make notebooks` "
            f"saves the fresh outputs (check them first).\n{diff or '(metadata or sources)'}"
        )


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_notebooks_are_saved_with_their_outputs(notebook: Path) -> None:
    """So the code host shows them; `make notebooks` re-executes and saves them."""
    cells = [c for c in nbformat.read(notebook, as_version=4).cells if c.cell_type == "code"]
    assert all(cell.execution_count for cell in cells), "saved without running every cell"
    assert [cell.execution_count for cell in cells] == list(range(1, len(cells) + 1))
    assert any(out.output_type == "stream" for cell in cells for out in cell.outputs)
    errors = [out for cell in cells for out in cell.outputs if out.output_type == "error"]
    assert not errors
