"""Importing a file of any supported format: the format named, or detected from the
content, then read, checked and written all or nothing (:func:`import_file`)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from zenbrain.errors import InvalidInputError
from zenbrain.exchange import IMPORT_FORMATS
from zenbrain.exchange._archive_import import ImportReport, import_archive, restore
from zenbrain.exchange._build import Builder
from zenbrain.exchange._cogx import is_cogx, read_cogx
from zenbrain.exchange._letta import looks_like_letta, read_letta, unwrap_letta
from zenbrain.exchange._mcp_memory import looks_like_mcp_memory, read_mcp_memory
from zenbrain.exchange._mem0 import looks_like_mem0, read_mem0

if TYPE_CHECKING:
    from zenbrain._coordinator import MemoryCoordinator

__all__ = ["detect_format", "import_file"]
Progress = Callable[[int, int], object]
_HEAD = 4_000_000  # characters read to recognise a JSON file


def _json(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _detect_text(text: str) -> str | None:
    data = _json(text)
    if data is not None:
        if looks_like_letta(data):
            return "letta"
        if looks_like_mem0(data):
            return "mem0"
    if looks_like_mcp_memory(text):
        return "mcp-memory"
    return None


def detect_format(source: str | os.PathLike[str] | bytes) -> str | None:
    """The format of ``source`` (a path, or an upload's bytes) as :func:`import_file`
    names it, or None when it is none of them (e.g. zenbrain's own JSONL or CSV rows)."""
    if isinstance(source, bytes):
        if source.startswith(b"PK\x03\x04"):
            return "archive"
        if source.startswith(b"\x1f\x8b"):
            return "cogx"
        try:
            return _detect_text(source.decode("utf-8"))
        except UnicodeDecodeError:
            return None
    path = Path(os.path.expanduser(os.fspath(source)))
    if path.is_dir():
        if is_cogx(path):
            return "cogx"
        return "archive" if (path / "manifest.json").is_file() else None
    if not path.is_file():
        return None
    if path.suffix.lower() == ".zip":
        return "archive"
    if is_cogx(path):
        return "cogx"
    if path.suffix.lower() == ".af":
        return "letta"
    try:
        with open(path, encoding="utf-8") as stream:
            head = stream.read(_HEAD)
    except (OSError, UnicodeDecodeError):
        return None
    return _detect_text(head)


def _read_text(source: str | os.PathLike[str] | bytes) -> tuple[str, str]:
    if isinstance(source, bytes):
        try:
            return source.decode("utf-8"), "the upload"
        except UnicodeDecodeError as exc:
            raise InvalidInputError(f"the upload is not UTF-8 text (byte {exc.start})") from exc
    path = Path(os.path.expanduser(os.fspath(source)))
    try:
        return path.read_text(encoding="utf-8"), path.name
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"{path} is not UTF-8 text (byte {exc.start})") from exc
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc.strerror or exc}") from exc


def import_file(
    memory: MemoryCoordinator,
    source: str | os.PathLike[str] | bytes,
    format: str | None = None,
    *,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> ImportReport:
    """Import ``source`` (a path, or an upload's bytes) into ``memory``'s namespace:
    ``format`` one of :data:`IMPORT_FORMATS`, or None to detect it. Everything is read and
    checked first, then written in one transaction; ``dry_run`` writes nothing."""
    chosen = format or detect_format(source)
    if chosen is None:
        raise InvalidInputError(
            f"could not tell the format of the import: name it (one of {', '.join(IMPORT_FORMATS)})"
        )
    if chosen not in IMPORT_FORMATS:
        raise InvalidInputError(
            f"format must be one of {', '.join(IMPORT_FORMATS)}, got {chosen!r}"
        )
    if chosen == "archive":
        return import_archive(memory, source, dry_run=dry_run, progress=progress)
    builder = Builder(chosen, memory.clock())
    if chosen == "cogx":
        read_cogx(source if isinstance(source, bytes) else Path(os.fspath(source)), builder)
    else:
        text, name = _read_text(source)
        if chosen == "mcp-memory":
            read_mcp_memory(text, builder, name)
        else:
            data = _json(text)
            if data is None:
                raise InvalidInputError(f"{name}: not JSON; a {chosen} export is one JSON document")
            reader = read_mem0 if chosen == "mem0" else read_letta
            reader(unwrap_letta(data) if chosen == "letta" else data, builder, name)
    return restore(
        memory, builder.content, dry_run=dry_run, progress=progress, format=chosen,
        skipped=builder.skipped,
    )  # fmt: skip
