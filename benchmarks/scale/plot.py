"""The scale benchmark's plot: recall p50 and batch store throughput against the number of
memories, log-log, one line per system, and the rate of every batch as the store fills
(docs/scale.png)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.scale.results import ScaleRun
from benchmarks.scale.tables import (
    PEER_ORDER,
    ZENBRAIN_ORDER,
    Key,
    is_zenbrain,
    label_of,
    row_keys,
)
from benchmarks.scale.targets import BATCH_STORE_PER_S, HYBRID_P50_MS

__all__ = ["plot"]


def _style(run: ScaleRun, key: Key) -> dict[str, Any]:
    """One colour per zenbrain back end and mode, its variants dotted or dash-dotted in the
    same colour; the peers dashed, in colours of their own."""
    if not is_zenbrain(key[0]):
        return {"color": f"C{(4 + PEER_ORDER.index(key[0])) % 10}", "linestyle": "--"}
    others = (m.system for m in run.measurements if m.system.startswith("zenbrain@"))
    variants = ["zenbrain", *dict.fromkeys(others)]
    colour = ZENBRAIN_ORDER.index((str(key[1]), str(key[2])))
    lines = ["-", ":", "-.", (0, (5, 1))]
    return {"color": f"C{colour}", "linestyle": lines[variants.index(key[0]) % len(lines)]}


def _growth_curve(axis: Any, run: ScaleRun, key: Key, style: dict[str, Any], label: str) -> None:
    """The rate of every batch of ``key``'s largest load against the memories stored,
    smoothed over a 50th of the batches."""
    loads = [
        m
        for m in run.measurements
        if (m.system, m.backend if key[1] else None, m.mode if key[2] else None) == key
        and m.batch_rates
    ]
    if not loads:
        return
    m = max(loads, key=lambda m: m.size)
    rates = np.asarray(m.batch_rates, dtype=float)
    window = max(1, len(rates) // 50)
    # Harmonic mean over the window: memories over seconds, the batches being of one size.
    smoothed = window / np.convolve(1.0 / rates, np.ones(window), mode="valid")
    stored = np.linspace(m.size / len(rates), m.size, len(rates))[window - 1 :]
    axis.plot(stored, smoothed, label=label, **style)


def plot(run: ScaleRun, path: Path) -> None:
    """Recall p50 and batch store throughput against size, log-log, one line per system."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right, fill) = plt.subplots(1, 3, figsize=(18, 4.8))
    for key in row_keys(run):
        points = sorted(
            (m.size, m.recall.p50_ms, m.batch_rate)
            for m in run.measurements
            if (m.system, m.backend if key[1] else None, m.mode if key[2] else None) == key
        )
        label = label_of(run, key)
        style = _style(run, key)
        latency = [(s, p) for s, p, _ in points if p]
        if latency:
            left.plot(*zip(*latency, strict=True), marker="o", label=label, **style)
        rates = [(s, r) for s, _, r in points if r]
        if rates:
            right.plot(*zip(*rates, strict=True), marker="o", label=label, **style)
        _growth_curve(fill, run, key, style, label)
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
    fill.set_xlabel("memories stored")
    fill.set_ylabel("memories / s (mean of 1/50 of the batches)")
    fill.set_yscale("log")
    fill.grid(True, which="both", alpha=0.3)
    fill.set_title("store_many rate per batch as the store fills (largest size)")
    left.legend(fontsize=7)
    figure.suptitle(
        f"zenbrain scale benchmark — {run.machine.get('cpu cores')} cores, {run.started}",
        fontsize=9,
    )
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
