"""What the commands print: tables for people, JSON for scripts, errors, progress bars."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import click

__all__ = ["Progress", "emit", "emit_error", "progress", "table", "to_json"]

Progress = Callable[[int, int], None]


def _default(value: object) -> object:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def to_json(payload: Any, *, indent: int | None = 2) -> str:
    return json.dumps(payload, ensure_ascii=False, indent=indent, default=_default)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, datetime):
        return value.isoformat(timespec="seconds")
    text = str(value).replace("\n", " ⏎ ")
    return text if len(text) <= 70 else text[:69] + "…"


def table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> str:
    """A plain-text table (``(nothing)`` when empty); long cells are cut at 70 characters."""
    if not rows:
        return "(nothing)"
    cells = [[_cell(row.get(c)) for c in columns] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in cells]
    return "\n".join(line.rstrip() for line in lines)


def emit(payload: Any, text: str, *, as_json: bool) -> None:
    """Print ``payload`` as JSON for scripts, else ``text`` for people."""
    click.echo(to_json(payload) if as_json else text)


def emit_error(exc: BaseException, *, as_json: bool) -> None:
    """An error: a JSON object on standard output with ``--json``, else a line on stderr."""
    if as_json:
        click.echo(to_json({"error": {"type": type(exc).__name__, "message": str(exc)}}))
    else:
        click.echo(f"zenbrain: error: {exc}", err=True)


@contextmanager
def progress(label: str) -> Iterator[Progress]:
    """A ``progress(done, total)`` callback drawing a bar on standard error while it is a
    terminal (nothing otherwise, so pipes and logs stay clean)."""
    if not sys.stderr.isatty():
        yield lambda done, total: None
        return
    bar: Any = None
    shown = 0

    def update(done: int, total: int) -> None:
        nonlocal bar, shown
        if bar is None:
            bar = click.progressbar(length=max(total, 1), label=label, file=sys.stderr)
            bar.__enter__()
        if total != bar.length:
            bar.length = max(total, 1)
        bar.update(done - shown)
        shown = done

    try:
        yield update
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
