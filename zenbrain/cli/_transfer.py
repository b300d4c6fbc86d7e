"""Moving memories in and out: export (JSONL, CSV, the lossless archive, OKF Markdown),
import (JSONL, CSV, plain lines, the archive, mem0, Letta, MCP memory, COGX), backup.

An exported JSONL/CSV row (:mod:`zenbrain.exchange`, which the HTTP API shares) holds
:meth:`~zenbrain.MemoryCoordinator.store`'s own fields (plus the ``id``), so ``zenbrain
export | zenbrain import -`` copies memories into another store or namespace with new ids.
The archive and the other systems' formats are :mod:`zenbrain.exchange`'s too
(docs/guide/exchange.md).
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import click

from zenbrain.cli._memories import LONG_TERM_LAYERS, parse_pairs
from zenbrain.cli._options import EXIT_OK, global_options, open_memory, settings
from zenbrain.cli._output import emit, progress
from zenbrain.config import resolve_location
from zenbrain.errors import InvalidInputError
from zenbrain.exchange import IMPORT_FORMATS, export_rows, read_rows, split_import, write_csv

if TYPE_CHECKING:
    from zenbrain.exchange import ImportReport

__all__ = ["COMMANDS"]

_PAGE = 500
_FORMATS = ("jsonl", "csv", "lines")
_EXPORT_FORMATS = ("jsonl", "csv", "archive", "okf")


def _format_for(path: str, given: str | None) -> str:
    if given is not None:
        return given
    suffix = Path(path).suffix.lower()
    return {".csv": "csv", ".txt": "lines", ".zip": "archive"}.get(suffix, "jsonl")


_FORMAT_OPTION = click.option(
    "--format",
    "fmt",
    type=click.Choice(_EXPORT_FORMATS),
    help="jsonl or csv (store()'s fields), archive (lossless: a folder, or a .zip), or okf "
    "(a folder of Markdown files). Default: from FILE's extension (.csv, .zip), else jsonl.",
)


@click.command(name="export")
@click.argument("file", default="-", metavar="[FILE]")
@_FORMAT_OPTION
@click.option(
    "--layer",
    "layers",
    multiple=True,
    type=click.Choice(LONG_TERM_LAYERS),
    help="Only this layer (repeatable). Default: all four.",
)
@click.option(
    "--where",
    "where",
    multiple=True,
    metavar="KEY=VALUE",
    help="Only memories whose metadata has KEY=VALUE (repeatable).",
)
@click.option(
    "--no-embeddings",
    is_flag=True,
    help="archive: leave the vectors out (an import embeds anew, if it has an embedder).",
)
@global_options
def export(
    file: str, fmt: str | None, layers: tuple[str, ...], where: tuple[str, ...],
    no_embeddings: bool,
) -> int:  # fmt: skip
    """Write memories to FILE (JSONL, CSV, an archive, OKF Markdown).

    This namespace's memories, oldest first, to FILE or (by default) standard output. An
    archive (--format archive) keeps everything: ids, times, validity, replaced-by links,
    review cards, sessions, entities; `zenbrain import` restores it.
    """
    chosen = _format_for(file, fmt)
    if chosen in ("archive", "okf"):
        return _export_folder(file, chosen, layers, where, not no_embeddings)
    filters = parse_pairs(where, "--where")
    target = Path(file)
    if file != "-" and not target.parent.is_dir():
        raise InvalidInputError(f"the folder {target.parent} does not exist")
    with open_memory() as memory:
        total = sum(
            next(iter(counts.values()))
            for layer, counts in memory.health().to_dict().items()
            if layer in (layers or LONG_TERM_LAYERS)
        )
        out: IO[str] = (
            sys.stdout if file == "-" else open(target, "w", encoding="utf-8", newline="")  # noqa: SIM115
        )
        written = 0
        try:
            with progress("exporting") as bar:

                def rows() -> Iterator[dict[str, Any]]:
                    nonlocal written
                    for row in export_rows(memory, list(layers) or None, filters):
                        written += 1
                        if written % _PAGE == 0:
                            bar(written, max(total, written))
                        yield row

                if chosen == "csv":
                    write_csv(rows(), out)
                else:
                    for row in rows():
                        out.write(json.dumps(row, ensure_ascii=False) + "\n")
                bar(written, written)
        finally:
            if out is not sys.stdout:
                out.close()
    if file != "-":
        emit(
            {"exported": written, "file": str(target), "format": chosen},
            f"exported {written} memories to {target}",
            as_json=settings().json,
        )
    return EXIT_OK


def _export_folder(
    file: str, chosen: str, layers: tuple[str, ...], where: tuple[str, ...], embeddings: bool
) -> int:
    if file == "-":
        raise InvalidInputError(f"--format {chosen} writes a folder: name it (FILE)")
    if layers or where:
        raise InvalidInputError(
            f"--format {chosen} exports the whole namespace: drop --layer/--where"
        )
    with open_memory() as memory, progress("exporting") as bar:
        if chosen == "archive":
            from zenbrain.exchange import export_archive  # SQLAlchemy: only when used

            counts = export_archive(memory, file, embeddings=embeddings, progress=bar).counts
        else:
            from zenbrain.exchange import export_okf

            counts = export_okf(memory, file).counts
    written = counts.get("memories", 0)
    emit(
        {"exported": written, "file": file, "format": chosen, "counts": counts},
        f"exported {written} memories to {file} ({chosen}: "
        + ", ".join(f"{n} {kind}" for kind, n in counts.items() if n)
        + ")",
        as_json=settings().json,
    )
    return EXIT_OK


def _import_report(report: ImportReport) -> None:
    layers = ", ".join(f"{n} {layer}" for layer, n in report.layers.items())
    others = ", ".join(
        f"{n} {kind}" for kind, n in report.counts.items() if n and kind != "memories"
    )
    verb = "would import" if report.dry_run else "imported"
    text = f"{verb} {report.counts.get('memories', 0)} memories ({layers or 'none'})"
    text += f"; {others}" if others else ""
    text += "; ids kept" if report.ids_kept else "; new ids (the namespace was not empty)"
    if report.vectors != "none":
        text += f"; embeddings {report.vectors}"
    if report.renamed_sessions:
        text += "; sessions renamed: " + ", ".join(
            f"{old} -> {new}" for old, new in report.renamed_sessions.items()
        )
    if report.skipped:
        text += "; skipped: " + ", ".join(f"{n} {kind}" for kind, n in report.skipped.items())
    emit(report.to_dict(), text, as_json=settings().json)


@click.command(name="import")
@click.argument("file", default="-", metavar="[FILE]")
@click.option(
    "--format",
    "fmt",
    type=click.Choice((*_FORMATS, *IMPORT_FORMATS)),
    help="jsonl, csv, lines (each non-blank line one memory), archive (zenbrain export "
    "--format archive), mem0, letta (.af), mcp-memory, cogx. Default: detected from FILE's "
    "content, else from its extension (.csv, .txt), else jsonl.",
)
@click.option("--dry-run", is_flag=True, help="Check everything and report; store nothing.")
@global_options
def import_(file: str, fmt: str | None, dry_run: bool) -> int:
    """Store memories from FILE (JSONL, CSV, lines, an archive, mem0, Letta, MCP, COGX).

    FILE defaults to standard input. Every row is checked first; the memories are stored
    in one transaction (all or none). A bad row is named by its file, line and field.

    JSONL/CSV rows are objects with store()'s fields (content, layer, context, metadata,
    ...), as `zenbrain export` writes them; they get new ids. An archive keeps its ids when
    the namespace is empty. Creates the store if needed.
    """
    from zenbrain.exchange import detect_format, import_file  # SQLAlchemy: only when used

    foreign = fmt if fmt in IMPORT_FORMATS else None
    if fmt is None and file != "-":
        foreign = detect_format(file)
    if foreign is not None:
        if file == "-":
            raise InvalidInputError(f"--format {foreign} reads a file or folder: name it (FILE)")
        with open_memory(write=True, embed=True) as memory, progress("importing") as bar:
            report = import_file(memory, file, foreign, dry_run=dry_run, progress=bar)
        _import_report(report)
        return EXIT_OK
    chosen = _format_for(file, fmt)
    if file == "-":
        stream: IO[str] = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", newline="")
        rows = read_rows(stream, chosen)
    else:
        try:
            with open(file, encoding="utf-8", newline="") as stream:
                rows = read_rows(stream, chosen)
        except OSError as exc:
            raise InvalidInputError(f"cannot read {file}: {exc.strerror}") from exc
    others, core = split_import(rows)
    if dry_run:
        total = len(others) + len(core)
        emit(
            {"dry_run": True, "format": chosen, "counts": {"memories": total}},
            f"would import {total} memories",
            as_json=settings().json,
        )
        return EXIT_OK
    with open_memory(write=True, embed=True) as memory:
        with progress("importing") as bar:
            ids = memory.store_many(others, progress=bar)
        ids += [memory.set_core_block(label, content).id for label, content in core]
    emit(
        {"imported": len(ids), "ids": ids}, f"imported {len(ids)} memories", as_json=settings().json
    )
    return EXIT_OK


@click.command()
@click.argument("destination", metavar="FILE")
@click.option("--force", is_flag=True, help="Overwrite FILE if it exists.")
@global_options
def backup(destination: str, force: bool) -> int:
    """Copy the store to FILE.

    A consistent copy taken while others keep writing: SQLite's online backup API for a
    file store, pg_dump (a SQL script) for PostgreSQL. Never creates FILE's folder.
    """
    target = resolve_location(destination).path
    if target is None:
        raise InvalidInputError(f"back up to a file path, got {destination!r}")
    if target.exists() and not force:
        raise InvalidInputError(f"{target} exists already: pass --force to overwrite it")
    if not target.parent.is_dir():
        raise InvalidInputError(
            f"the folder {target.parent} does not exist: create it first (mkdir -p {target.parent})"
        )
    with open_memory() as memory:
        if memory.location is None:
            raise InvalidInputError("an in-memory store ends with the command: nothing to keep")
        written = memory.backup(target)
    size = written.stat().st_size
    emit(
        {"backup": str(written), "bytes": size},
        f"backed up the store to {written} ({size:,} bytes)",
        as_json=settings().json,
    )
    return EXIT_OK


COMMANDS = (export, import_, backup)
