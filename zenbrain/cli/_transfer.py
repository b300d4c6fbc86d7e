"""Moving memories in and out: export (JSONL, CSV, the lossless archive, OKF Markdown),
import (JSONL, CSV, plain lines, the archive, mem0, Letta, MCP memory, COGX), backup.

An exported JSONL/CSV row holds :meth:`~zenbrain.MemoryCoordinator.store`'s own arguments
(plus the ``id``), so ``zenbrain export | zenbrain import -`` copies memories into another
store or namespace with new ids. The archive and the other systems' formats are
:mod:`zenbrain.exchange`'s (docs/guide/exchange.md).
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import click

from zenbrain.cli._memories import LONG_TERM_LAYERS, parse_pairs
from zenbrain.cli._options import EXIT_OK, global_options, open_memory, settings
from zenbrain.cli._output import emit, progress
from zenbrain.config import resolve_location
from zenbrain.errors import InvalidInputError
from zenbrain.exchange import IMPORT_FORMATS
from zenbrain.layers import validate_label

if TYPE_CHECKING:
    from zenbrain.exchange import ImportReport
    from zenbrain.types import RecallResult

__all__ = ["COMMANDS", "FIELDS", "export_row", "read_rows"]

#: An exported row's columns: ``id`` and the arguments of ``store()``.
FIELDS: tuple[str, ...] = (
    "id",
    "layer",
    "content",
    "context",
    "conversation",
    "emotional_weight",
    "confidence",
    "source",
    "steps",
    "tools",
    "outcome",
    "metadata",
    "created_at",
)
_IGNORED_ON_IMPORT = frozenset({"id", "score"})
_JSON_COLUMNS = frozenset({"steps", "tools", "metadata"})
_NUMBER_COLUMNS = frozenset({"emotional_weight", "confidence"})
_PAGE = 500
_FORMATS = ("jsonl", "csv", "lines")
_EXPORT_FORMATS = ("jsonl", "csv", "archive", "okf")


def export_row(result: RecallResult) -> dict[str, Any]:
    """A stored memory as the ``store()`` arguments that recreate it (and its ``id``)."""
    row: dict[str, Any] = {"id": result.id, "layer": result.layer}
    content = result.content
    procedure = result.procedure
    if procedure is not None:
        # The result shows the procedure rendered with its steps and outcome; store the text.
        outcome, steps = procedure.outcome, procedure.steps
        if outcome and content.endswith(f"\nOutcome: {outcome}"):
            content = content[: -len(f"\nOutcome: {outcome}")]
        steps_line = f"\nSteps: {' → '.join(steps)}"
        if steps and content.endswith(steps_line):
            content = content[: -len(steps_line)]
    row.update(
        content=content,
        context=result.context,
        conversation=result.conversation,
        emotional_weight=result.emotional_weight,
        confidence=None if result.layer == "procedural" else result.confidence,
        source=result.source,
        steps=procedure.steps if procedure else None,
        tools=procedure.tools if procedure else None,
        outcome=(procedure.outcome or None) if procedure else None,
        metadata=dict(result.metadata) or None,
        created_at=result.created_at.isoformat() if result.created_at else None,
    )
    if result.layer == "core":
        row["label"] = result.label
    return row


def _exported(memory: Any, layers: list[str] | None, where: dict[str, Any]) -> Iterator[Any]:
    """The memories ``export`` writes: find()'s, oldest first, read by key a page at a time
    (pages of find(offset=) would read every earlier memory again)."""
    for page in memory._find_pages(where or None, layers, _PAGE):
        yield from page


def _write_csv(rows: Iterable[dict[str, Any]], out: IO[str]) -> None:
    writer = csv.DictWriter(out, fieldnames=[*FIELDS, "label"], lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(
            {
                key: json.dumps(value, ensure_ascii=False)
                if key in _JSON_COLUMNS and value is not None
                else value
                for key, value in row.items()
            }
        )


def _format_for(path: str, given: str | None) -> str:
    if given is not None:
        return given
    suffix = Path(path).suffix.lower()
    return {".csv": "csv", ".txt": "lines", ".zip": "archive"}.get(suffix, "jsonl")


def _store_args(raw: Mapping[str, Any], where: str) -> dict[str, Any]:
    unknown = set(raw) - set(FIELDS) - {"label"} - _IGNORED_ON_IMPORT
    if unknown:
        raise InvalidInputError(
            f"{where}: unknown field(s) {sorted(unknown)}; a row may have "
            f"{', '.join(FIELDS)} and, for a core block, label"
        )
    args = {k: v for k, v in raw.items() if k not in _IGNORED_ON_IMPORT and v is not None}
    if "content" not in args:
        raise InvalidInputError(f"{where}: a row needs a 'content' field")
    return args


def split_import(
    rows: Sequence[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """An import's rows as ``store_many`` items and the core blocks to set under their labels
    (a core row with a label keeps it; store() would derive another), every core block
    checked here: an import writes nothing until every row has passed, and ``store_many``
    checks its items before it writes."""
    items: list[dict[str, Any]] = []
    blocks: list[tuple[str, str]] = []
    for position, row in enumerate(rows, start=1):
        if row.get("layer") == "core" and "label" in row:
            try:
                label = validate_label(row["label"])
                content = row["content"]
                if not isinstance(content, str) or not content.strip():
                    raise InvalidInputError("a core block's content must be non-empty text")
            except InvalidInputError as exc:
                raise InvalidInputError(f"row {position}: {exc}") from exc
            blocks.append((label, content))
        else:
            items.append({k: v for k, v in row.items() if k != "label"})
    return items, blocks


def read_rows(stream: IO[str], fmt: str) -> list[dict[str, Any]]:
    """The ``store()`` arguments of every row of ``stream`` in format ``fmt``.

    ``jsonl``: one JSON object (or string) per line; ``csv``: a header row naming the
    columns (``content`` at least), JSON in steps/tools/metadata; ``lines``: each non-blank
    line is one memory's text. A bad row is an error naming its line; nothing is stored.
    """
    rows: list[dict[str, Any]] = []
    if fmt == "lines":
        return [{"content": line.strip()} for line in stream if line.strip()]
    if fmt == "jsonl":
        for number, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except ValueError as exc:
                raise InvalidInputError(f"line {number}: not JSON ({exc})") from exc
            if isinstance(value, str):
                value = {"content": value}
            if not isinstance(value, dict):
                raise InvalidInputError(
                    f"line {number}: expected a JSON object or string, got {type(value).__name__}"
                )
            rows.append(_store_args(value, f"line {number}"))
        return rows
    reader = csv.DictReader(stream)
    if reader.fieldnames is None or "content" not in reader.fieldnames:
        raise InvalidInputError("a CSV import needs a header row with a 'content' column")
    for number, record in enumerate(reader, start=2):
        where = f"line {number}"
        parsed: dict[str, Any] = {}
        for key, cell in record.items():
            if key is None:
                raise InvalidInputError(f"{where}: more cells than header columns")
            if cell is None or cell == "":
                continue
            try:
                if key in _JSON_COLUMNS:
                    parsed[key] = json.loads(cell)
                elif key in _NUMBER_COLUMNS:
                    parsed[key] = float(cell)
                else:
                    parsed[key] = cell
            except ValueError as exc:
                raise InvalidInputError(f"{where}: column {key!r}: {exc}") from exc
        rows.append(_store_args(parsed, where))
    return rows


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
                    for result in _exported(memory, list(layers) or None, filters):
                        written += 1
                        if written % _PAGE == 0:
                            bar(written, max(total, written))
                        yield export_row(result)

                if chosen == "csv":
                    _write_csv(rows(), out)
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
