"""The scale report's building blocks: numbers formatted for its tables, the measurements
of one run looked up by system and size, and a table of one value per system and size."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from benchmarks.scale.results import ScaleRun
from benchmarks.scale.systems import Measurement

__all__ = [
    "MB",
    "MILLION",
    "PEER_ORDER",
    "SUPERSESSION_OFF",
    "ZENBRAIN_ORDER",
    "Key",
    "find_measurement",
    "is_zenbrain",
    "label_of",
    "mb_text",
    "ms_text",
    "rate_text",
    "row_keys",
    "size_table",
    "size_text",
    "sizes_of",
    "zenbrain_keys",
]

MILLION = 1_000_000
# The system of zenbrain's rows measured with the knowledge-update rules off.
SUPERSESSION_OFF = "zenbrain@supersession=False"
# (system, backend, mode): one row of a table; backend and mode only for zenbrain.
Key = tuple[str, str | None, str | None]

ZENBRAIN_ORDER = (
    ("sqlite", "lexical"),
    ("sqlite", "hybrid"),
    ("postgres", "lexical"),
    ("postgres", "hybrid"),
)
PEER_ORDER = ("fts5", "bm25s", "numpy", "chroma", "langgraph", "llamaindex", "mem0")
MB = 1024 * 1024


def ms_text(value: float | None) -> str:
    if value is None:
        return "—"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def rate_text(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}"


def size_text(size: int) -> str:
    if size >= MILLION and size % MILLION == 0:
        return f"{size // MILLION}M"
    if size >= 1000 and size % 1000 == 0:
        return f"{size // 1000}k"
    return f"{size:,}"


def find_measurement(
    run: ScaleRun, system: str, backend: str | None, mode: str | None, size: int
) -> Measurement | None:
    for m in run.measurements:
        if (
            m.system == system
            and m.size == size
            and (backend is None or m.backend == backend)
            and (mode is None or m.mode == mode)
        ):
            return m
    return None


def is_zenbrain(system: str) -> bool:
    """zenbrain with its defaults, or one of its variants (``zenbrain@<variant>``)."""
    return system == "zenbrain" or system.startswith("zenbrain@")


def row_keys(run: ScaleRun) -> list[Key]:
    """(system, backend, mode) keys present in the run, in report order: zenbrain's, each
    followed by its variants', then the peers'."""
    keys: list[Key] = []
    variants = (m.system for m in run.measurements if m.system.startswith("zenbrain@"))
    systems = ["zenbrain", *dict.fromkeys(variants)]
    for backend, mode in ZENBRAIN_ORDER:
        for system in systems:
            if any(
                m.system == system and (m.backend, m.mode) == (backend, mode)
                for m in run.measurements
            ):
                keys.append((system, backend, mode))
    for peer in PEER_ORDER:
        if any(m.system == peer for m in run.measurements):
            keys.append((peer, None, None))
    return keys


def sizes_of(run: ScaleRun) -> list[int]:
    return sorted({m.size for m in run.measurements})


def label_of(run: ScaleRun, key: Key) -> str:
    for m in run.measurements:
        if (m.system, m.backend if key[1] else None, m.mode if key[2] else None) == key:
            return m.label
    return key[0]


def size_table(
    run: ScaleRun,
    header: str,
    cell: Callable[[Measurement], str],
    keys: Sequence[Key] | None = None,
) -> list[str]:
    sizes = sizes_of(run)
    chosen = list(keys if keys is not None else row_keys(run))
    lines = [
        f"| {header} | " + " | ".join(size_text(s) for s in sizes) + " |",
        "|---|" + "---:|" * len(sizes),
    ]
    for key in chosen:
        cells = []
        for size in sizes:
            found = find_measurement(run, key[0], key[1], key[2], size)
            cells.append(cell(found) if found is not None else "—")
        if all(c == "—" for c in cells):
            continue
        lines.append(f"| {label_of(run, key)} | " + " | ".join(cells) + " |")
    return lines


def zenbrain_keys(run: ScaleRun) -> list[Key]:
    return [k for k in row_keys(run) if is_zenbrain(k[0])]


def mb_text(value: int | None) -> str:
    return "—" if not value else f"{value / MB:,.0f}"
