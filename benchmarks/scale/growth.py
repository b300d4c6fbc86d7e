"""How the batch store rate moves as a store fills (the rate of every ``store_many`` batch,
taken a tenth of the load at a time), and zenbrain's defaults beside its variants:
``supersession=False`` and an older commit's code (``--supersession-off``, ``--baseline``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from benchmarks.scale.results import ScaleRun
from benchmarks.scale.systems import Measurement
from benchmarks.scale.tables import (
    ZENBRAIN_ORDER,
    find_measurement,
    label_of,
    ms_text,
    rate_text,
    row_keys,
    size_text,
)

__all__ = ["TENTHS", "first_to_last", "growth_table", "tenth_rates", "variant_table"]

TENTHS = 10


def tenth_rates(rates: Sequence[float]) -> list[float]:
    """Memories per second over each tenth of the batches, in order (the batches' harmonic
    mean: their memories over their seconds, the batches being of one size); empty below
    ten batches."""
    if len(rates) < TENTHS:
        return []
    return [
        len(part) / float(np.sum(1.0 / part))
        for part in np.array_split(np.asarray(rates, dtype=float), TENTHS)
    ]


def first_to_last(rates: Sequence[float]) -> float | None:
    """The first tenth's rate over the last tenth's: 1 when the rate holds as the store
    fills, 2 when the last batches take twice as long as the first; None below ten batches."""
    tenths = tenth_rates(rates)
    return tenths[0] / tenths[-1] if tenths else None


def _largest_with_batches(
    run: ScaleRun, key: tuple[str, str | None, str | None]
) -> Measurement | None:
    found = [
        m
        for m in run.measurements
        if (m.system, m.backend if key[1] else None, m.mode if key[2] else None) == key
        and len(m.batch_rates) >= TENTHS
    ]
    return max(found, key=lambda m: m.size) if found else None


def growth_table(run: ScaleRun) -> list[str]:
    """Each system's batch rate per tenth of its largest load, and first ÷ last."""
    rows = [(key, m) for key in row_keys(run) if (m := _largest_with_batches(run, key))]
    if not rows:
        return []
    lines = [
        "| memories/s per tenth of the load | size | "
        + " | ".join(str(i) for i in range(1, TENTHS + 1))
        + " | first ÷ last |",
        "|---|---:|" + "---:|" * (TENTHS + 1),
    ]
    for key, m in rows:
        tenths = tenth_rates(m.batch_rates)
        lines.append(
            f"| {label_of(run, key)} | {size_text(m.size)} | "
            + " | ".join(rate_text(r) for r in tenths)
            + f" | {tenths[0] / tenths[-1]:.2f} |"
        )
    return lines


def variant_table(run: ScaleRun) -> list[str]:
    """zenbrain's defaults beside each variant measured in the run, per size, back end and
    mode: batch store rates, their ratio, and recall p50."""
    variants = list(
        dict.fromkeys(m.system for m in run.measurements if m.system.startswith("zenbrain@"))
    )
    if not variants:
        return []
    names = [v.partition("@")[2] for v in variants]
    lines = [
        "| size, back end, mode | store_many defaults (/s) | "
        + " | ".join(f"{n} (/s) | defaults ÷ {n}" for n in names)
        + " | recall p50 defaults / "
        + " / ".join(names)
        + " (ms) |",
        "|---|---:|" + "---:|---:|" * len(variants) + "---:|",
    ]
    for size in sorted({m.size for m in run.measurements}):
        for backend, mode in ZENBRAIN_ORDER:
            ours = find_measurement(run, "zenbrain", backend, mode, size)
            others = [find_measurement(run, v, backend, mode, size) for v in variants]
            if ours is None or not any(others):
                continue
            cells = [rate_text(ours.batch_rate)]
            for other in others:
                rate = other.batch_rate if other else None
                cells.append(rate_text(rate))
                cells.append(f"{ours.batch_rate / rate:.2f}" if rate and ours.batch_rate else "—")
            p50s = [ms_text(m.recall.p50_ms if m else None) for m in (ours, *others)]
            lines.append(
                f"| {size_text(size)}, {backend}, {mode} | "
                + " | ".join(cells)
                + f" | {' / '.join(p50s)} |"
            )
    return lines
