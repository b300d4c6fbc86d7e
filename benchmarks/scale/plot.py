"""The scale benchmark's plot: recall p50 and batch store throughput against the number of
memories, log-log, one line per system (docs/scale.png)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.scale.results import ScaleRun
from benchmarks.scale.tables import label_of, row_keys
from benchmarks.scale.targets import BATCH_STORE_PER_S, HYBRID_P50_MS

__all__ = ["plot"]


def plot(run: ScaleRun, path: Path) -> None:
    """Recall p50 and batch store throughput against size, log-log, one line per system."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    for key in row_keys(run):
        points = sorted(
            (m.size, m.recall.p50_ms, m.batch_rate)
            for m in run.measurements
            if (m.system, m.backend if key[1] else None, m.mode if key[2] else None) == key
        )
        label = label_of(run, key)
        style = "-" if key[0] == "zenbrain" else "--"
        latency = [(s, p) for s, p, _ in points if p]
        if latency:
            left.plot(*zip(*latency, strict=True), style, marker="o", label=label)
        rates = [(s, r) for s, _, r in points if r]
        if rates:
            right.plot(*zip(*rates, strict=True), style, marker="o", label=label)
    for axis in (left, right):
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("memories")
        axis.grid(True, which="both", alpha=0.3)
    left.axhline(HYBRID_P50_MS, color="grey", linewidth=0.8, linestyle=":")
    left.set_ylabel("recall p50 (ms)")
    left.set_title("Recall latency (lower is better)")
    right.axhline(BATCH_STORE_PER_S, color="grey", linewidth=0.8, linestyle=":")
    right.set_ylabel("memories / s")
    right.set_title("Batch store throughput (higher is better)")
    left.legend(fontsize=7)
    figure.suptitle(
        f"zenbrain scale benchmark — {run.machine.get('cpu cores')} cores, {run.started}",
        fontsize=9,
    )
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
