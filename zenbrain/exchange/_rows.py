"""Memories as rows: the JSONL and CSV export and import. An exported row holds
:meth:`~zenbrain.MemoryCoordinator.store`'s own fields (plus the ``id``; a core block its
``label``), so an export imported elsewhere copies memories with new ids; the caller's
metadata is a column of its own. The command line and the HTTP API both read and write
rows here."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any

from zenbrain.errors import InvalidInputError
from zenbrain.layers import validate_label

if TYPE_CHECKING:
    from zenbrain._coordinator import MemoryCoordinator
    from zenbrain.types import RecallResult

__all__ = ["ROW_FIELDS", "export_row", "export_rows", "read_rows", "split_import", "write_csv"]

#: An exported row's columns: ``id`` and the arguments of ``store()``.
ROW_FIELDS: tuple[str, ...] = (
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


def export_rows(
    memory: MemoryCoordinator, layers: list[str] | None, where: Mapping[str, Any] | None
) -> Iterator[dict[str, Any]]:
    """The rows of every memory ``find(where, layers=layers)`` lists, oldest first, read by
    key a page at a time (pages of find(offset=) would read every earlier memory again)."""
    for page in memory._find_pages(where or None, layers, _PAGE):
        for result in page:
            yield export_row(result)


def write_csv(rows: Iterable[dict[str, Any]], out: IO[str]) -> None:
    writer = csv.DictWriter(out, fieldnames=[*ROW_FIELDS, "label"], lineterminator="\n")
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


def _store_args(raw: Mapping[str, Any], where: str) -> dict[str, Any]:
    unknown = set(raw) - set(ROW_FIELDS) - {"label"} - _IGNORED_ON_IMPORT
    if unknown:
        raise InvalidInputError(
            f"{where}: unknown field(s) {sorted(unknown)}; a row may have "
            f"{', '.join(ROW_FIELDS)} and, for a core block, label"
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
