"""Execute every notebook in examples/ offline and save it with its outputs (so the code host
shows them). ``make notebooks`` runs this with the project's .venv.

Each notebook runs in a fresh temporary working directory, with OPENAI_API_KEY removed so it
takes its offline path, on a kernel that is this interpreter.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _kernel_home(root: Path) -> None:
    spec_dir = root / "kernels" / "python3"
    spec_dir.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3",
        "language": "python",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec))


def execute(notebook: Path) -> None:
    document = nbformat.read(notebook, as_version=4)
    with tempfile.TemporaryDirectory(prefix="zenbrain-notebook-") as folder:
        client = NotebookClient(
            document, timeout=600, kernel_name="python3", resources={"metadata": {"path": folder}}
        )
        client.execute()
        left = sorted(p.name for p in Path(folder).iterdir())
        if left:
            raise SystemExit(f"{notebook.name} left files in its working directory: {left}")
    document.metadata.pop("widgets", None)
    for cell in document.cells:
        cell.metadata.pop("execution", None)  # timestamps: noise in every diff
    nbformat.write(document, notebook)
    print(f"executed and saved {notebook.relative_to(EXAMPLES.parent)}")


def main() -> int:
    os.environ.pop("OPENAI_API_KEY", None)
    with tempfile.TemporaryDirectory(prefix="zenbrain-jupyter-") as jupyter:
        _kernel_home(Path(jupyter))
        os.environ["JUPYTER_PATH"] = jupyter
        for notebook in sorted(EXAMPLES.glob("*.ipynb")):
            execute(notebook)
    return 0


if __name__ == "__main__":
    sys.exit(main())
