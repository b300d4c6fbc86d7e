"""Every notebook in ``examples/`` runs top to bottom, offline, so none can rot.

Each notebook is executed with nbclient in a fresh temporary working directory, on a
``python3`` kernel that is pinned to this interpreter (so it sees the same installed
packages as the tests), with API keys removed so the notebooks take their offline path.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))
# Keys that would switch a notebook from its fake models to a hosted one.
API_KEYS = ("OPENAI_API_KEY",)


@pytest.fixture(scope="session")
def jupyter_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Jupyter data dir whose ``python3`` kernel is this interpreter. JUPYTER_PATH comes
    first in the kernel search path, so it wins over any system-wide ``python3`` spec."""
    root = tmp_path_factory.mktemp("jupyter")
    spec_dir = root / "kernels" / "python3"
    spec_dir.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (zenbrain tests)",
        "language": "python",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    return root


def test_there_are_notebooks() -> None:
    names = {path.name for path in NOTEBOOKS}
    assert {"langchain_quickstart.ipynb", "llamaindex_quickstart.ipynb"} <= names


@pytest.mark.slow
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_notebook_runs(
    notebook: Path, jupyter_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTER_PATH", str(jupyter_path))
    for key in API_KEYS:
        monkeypatch.delenv(key, raising=False)
    document = nbformat.read(notebook, as_version=4)
    client = NotebookClient(
        document,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()  # raises CellExecutionError, with the failing cell, on any error
    outputs = [out for cell in document.cells if cell.cell_type == "code" for out in cell.outputs]
    assert not [out for out in outputs if out.get("output_type") == "error"]
    printed = [out for out in outputs if out.get("output_type") == "stream"]
    assert printed, "the notebook printed nothing"
    left = sorted(path.name for path in tmp_path.iterdir())
    assert not left, f"the notebook left files in its working directory: {left}"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_notebooks_are_saved_with_their_outputs(notebook: Path) -> None:
    """So the code host shows them; `make notebooks` re-executes and saves them."""
    cells = [c for c in nbformat.read(notebook, as_version=4).cells if c.cell_type == "code"]
    assert all(cell.execution_count for cell in cells), "saved without running every cell"
    assert [cell.execution_count for cell in cells] == list(range(1, len(cells) + 1))
    assert any(cell.outputs for cell in cells)
    errors = [out for cell in cells for out in cell.outputs if out.output_type == "error"]
    assert not errors
