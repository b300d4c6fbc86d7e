"""zenbrain from another tree (a ``git worktree`` of an older commit) measured by this
harness, for a baseline row beside this checkout's (``--baseline PATH[=LABEL]``).

Each measurement runs in a fresh Python process (not a fork: a fork keeps the zenbrain this
process imported) started in a temporary folder that holds two symbolic links,
``zenbrain -> PATH/zenbrain`` and ``benchmarks -> this checkout's benchmarks``; that folder
is the child's ``sys.path[0]``, so it imports the other tree's zenbrain and this harness,
never this checkout's zenbrain. The corpus goes to the child in a pickle, the measurement
comes back as JSON.

Only zenbrain's public calls are made (``MemoryCoordinator(db, namespace=, embedder=)``,
``store_many``, ``store``, ``recall``, ``bulk_load``); a part the older code cannot do is
skipped with a note on the row (the int8 pre-filter's recall reads a module that moved).
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from benchmarks.common.synthetic_corpus import Corpus
from benchmarks.scale.systems import Measurement, RunSettings

__all__ = ["Baseline", "child", "measure_in_tree", "parse_baseline"]

_BENCHMARKS = Path(__file__).resolve().parents[1]
_CHILD = "import sys; from benchmarks.scale.baseline import child; child(sys.argv[1], sys.argv[2])"


@dataclass(frozen=True)
class Baseline:
    """A tree holding another version of the ``zenbrain`` package, and its row's label."""

    path: Path
    label: str

    @property
    def commit(self) -> str | None:
        """The tree's checked-out commit, when it is a git work tree."""
        done = subprocess.run(
            ["git", "-C", str(self.path), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            return None
        return done.stdout.strip() or None

    @property
    def system(self) -> str:
        return f"zenbrain@{self.label}"


def parse_baseline(text: str) -> Baseline:
    """``PATH[=LABEL]``; the label defaults to the tree's short commit (or its folder name).
    Raises ValueError when PATH holds no zenbrain package."""
    where, _, label = text.partition("=")
    path = Path(where).expanduser().resolve()
    if not (path / "zenbrain" / "__init__.py").is_file():
        raise ValueError(f"{path} holds no zenbrain package (zenbrain/__init__.py)")
    if not label:
        commit = Baseline(path, "").commit
        label = commit[:7] if commit else path.name
    return Baseline(path, label)


def measure_in_tree(
    baseline: Baseline,
    corpus: Corpus,
    size: int,
    *,
    backend: str,
    hybrid: bool,
    settings: RunSettings,
    server_url: str | None = None,
    blas_threads: int | None = None,
) -> tuple[Measurement, None]:
    """:func:`~benchmarks.scale.systems.measure_zenbrain` on ``baseline``'s zenbrain, in a
    child process; the row's system is ``zenbrain@<label>``."""
    with tempfile.TemporaryDirectory(prefix="zb-baseline-") as folder:
        root = Path(folder)
        (root / "zenbrain").symlink_to(baseline.path / "zenbrain", target_is_directory=True)
        (root / "benchmarks").symlink_to(_BENCHMARKS, target_is_directory=True)
        # The first ``size`` memories only; the child rebuilds the lookup table.
        parts = {f.name: getattr(corpus, f.name) for f in fields(corpus) if f.name != "table"}
        parts["memories"] = corpus.memories[:size]
        parts["memory_vectors"] = corpus.memory_vectors[:size]
        spec = {
            "corpus": parts,
            "size": size,
            "backend": backend,
            "hybrid": hybrid,
            "settings": asdict(settings),
            "server_url": server_url,
            "blas_threads": blas_threads,
        }
        (root / "spec.pickle").write_bytes(pickle.dumps(spec, protocol=pickle.HIGHEST_PROTOCOL))
        out = root / "measurement.json"
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(root / "spec.pickle"), str(out)],
            cwd=root,
            check=False,
        )
        if done.returncode != 0 or not out.is_file():
            raise RuntimeError(f"the baseline child failed (exit code {done.returncode})")
        measurement = Measurement.from_json(json.loads(out.read_text(encoding="utf-8")))
    measurement.system = baseline.system
    return measurement, None


def child(spec_path: str, out_path: str) -> None:
    """The child process's side: measure with whichever zenbrain ``sys.path`` finds first."""
    import zenbrain
    from benchmarks.scale.harness import blas_limit
    from benchmarks.scale.probe import peak_rss_bytes, reset_peak_rss, rss_bytes
    from benchmarks.scale.systems import measure_zenbrain

    spec: dict[str, Any] = pickle.loads(Path(spec_path).read_bytes())
    corpus = Corpus(**spec.pop("corpus"))
    settings = RunSettings(**spec.pop("settings"))
    with blas_limit(spec.pop("blas_threads")):
        reset_peak_rss()
        before = rss_bytes()
        measurement = measure_zenbrain(corpus, settings=settings, **spec)
        measurement.rss_growth_bytes = max(0, peak_rss_bytes() - before)
    source = Path(zenbrain.__file__).resolve().parent
    measurement.notes.append(f"zenbrain imported from {source}")
    Path(out_path).write_text(json.dumps(measurement.to_json()), encoding="utf-8")
