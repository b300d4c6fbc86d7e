"""Execute every notebook in examples/ offline and save it with its outputs (so the code host
shows them). ``make notebooks`` runs this with the project's .venv.

Each notebook runs in a fresh temporary working directory, with OPENAI_API_KEY removed so it
takes its offline path, on a kernel that is this interpreter. The notebooks read a fixed clock
and print no generated id, so a fresh run writes the same bytes as the committed file:
``tests/test_examples.py`` runs :func:`execute` into a temporary folder and fails on any
difference, and ``make notebooks`` leaves ``git status`` empty unless an output changed.
"""

from __future__ import annotations

import copy
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
#: Keys that would switch a notebook from its fake models to a hosted one.
API_KEYS = ("OPENAI_API_KEY",)


def kernel_home(root: Path) -> None:
    """Make ``root`` a Jupyter data dir whose ``python3`` kernel is this interpreter
    (JUPYTER_PATH comes first in the kernel search path, so it wins over a system one)."""
    spec_dir = root / "kernels" / "python3"
    spec_dir.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3",
        "language": "python",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec))


def coalesced(outputs: list[Any]) -> list[Any]:
    """Consecutive text printed to one stream as one output, as a notebook shows it: the
    kernel cuts a cell's printing into messages by timing, which differs run to run."""
    merged: list[Any] = []
    for output in outputs:
        last = merged[-1] if merged else None
        if (
            last is not None
            and output.output_type == last.output_type == "stream"
            and output.name == last.name
        ):
            last.text += output.text
        else:
            merged.append(output)
    return merged


def execute(notebook: Path, destination: Path | None = None) -> None:
    """Run ``notebook`` top to bottom and write it with its outputs to ``destination``
    (default: over itself). The notebook's own metadata is kept as committed: the kernel
    would write its Python's patch version there, which differs from machine to machine."""
    document = nbformat.read(notebook, as_version=4)
    metadata = copy.deepcopy(document.metadata)
    with tempfile.TemporaryDirectory(prefix="zenbrain-notebook-") as folder:
        client = NotebookClient(
            document, timeout=600, kernel_name="python3", resources={"metadata": {"path": folder}}
        )
        client.execute()  # raises CellExecutionError, with the failing cell, on any error
        left = sorted(p.name for p in Path(folder).iterdir())
        if left:
            raise RuntimeError(f"{notebook.name} left files in its working directory: {left}")
    document.metadata = metadata
    for cell in document.cells:
        cell.metadata.pop("execution", None)  # timestamps: noise in every diff
        if cell.cell_type == "code":
            cell.outputs = coalesced(cell.outputs)
    nbformat.write(document, destination or notebook)


def main() -> int:
    for key in API_KEYS:
        os.environ.pop(key, None)
    with tempfile.TemporaryDirectory(prefix="zenbrain-jupyter-") as jupyter:
        kernel_home(Path(jupyter))
        os.environ["JUPYTER_PATH"] = jupyter
        for notebook in sorted(EXAMPLES.glob("*.ipynb")):
            execute(notebook)
            print(f"executed and saved {notebook.relative_to(EXAMPLES.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
