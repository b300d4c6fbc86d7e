"""The mixed-store scenarios: small stores as an agent builds them, and questions with one
right answer each, read from JSON files (one store a file).

A store file holds::

    {"name": "coding-en", "language": "en", "assistant": "coding assistant",
     "core": [{"key": "persona", "label": "persona", "content": "...", "at": "..."}],
     "memories": [{"key": "min-python", "kind": "fact", "at": "2026-03-02T10:15",
                   "content": "..."}],
     "questions": [{"question": "...", "answer": "min-python", "trap": "function-words"}]}

``kind`` is what the author meant the memory to be (``fact``, ``procedure``, ``episode``);
routing may file it elsewhere, which the report shows. Core entries are set with
``set_core_block`` and have the kind ``core``. ``at`` is when the agent stored it (UTC;
a bare date or date and time). ``trap`` names what makes a question hard, or is absent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from zenbrain.errors import InvalidInputError

__all__ = [
    "DEFAULT_SUITE_DIR",
    "KINDS",
    "LANGUAGES",
    "TRAPS",
    "Entry",
    "Question",
    "Store",
    "load_store",
    "load_suite",
    "parse_store",
]

DEFAULT_SUITE_DIR = Path(__file__).resolve().parent / "stores"
KINDS: tuple[str, ...] = ("fact", "procedure", "episode", "core")
LANGUAGES: tuple[str, ...] = ("en", "de")
# function-words: the question's own words are mostly "when", "how", "wie"...; shared-word:
# it shares a content word with a wrong memory (often of a small layer); paraphrase: it
# shares (almost) no word with its answer.
TRAPS: tuple[str, ...] = ("function-words", "shared-word", "paraphrase")


@dataclass(frozen=True, slots=True)
class Entry:
    """One memory of a store (a core block when ``kind == "core"``, then with ``label``)."""

    key: str
    kind: str
    content: str
    at: datetime
    label: str | None = None


@dataclass(frozen=True, slots=True)
class Question:
    question: str
    answer: str  # the key of the one entry that answers it
    trap: str | None = None


@dataclass(frozen=True, slots=True)
class Store:
    name: str
    language: str
    assistant: str
    entries: tuple[Entry, ...]  # in the order the agent stored them
    questions: tuple[Question, ...]

    def entry(self, key: str) -> Entry:
        for entry in self.entries:
            if entry.key == key:
                return entry
        raise InvalidInputError(f"store {self.name!r} has no entry {key!r}")

    @property
    def last_stored(self) -> datetime:
        return max(entry.at for entry in self.entries)


def _text(raw: Mapping[str, Any], field: str, where: str) -> str:
    value = raw.get(field)
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{where}: {field!r} must be a non-empty string, got {value!r}")
    return value


def _when(raw: Mapping[str, Any], where: str) -> datetime:
    text = _text(raw, "at", where)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise InvalidInputError(
            f"{where}: 'at' must be an ISO date or date-time such as 2026-03-02T10:15, got {text!r}"
        ) from exc
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _entries(raw: Mapping[str, Any], name: str) -> list[Entry]:
    entries: list[Entry] = []
    for index, item in enumerate(raw.get("core") or []):
        where = f"{name}: core[{index}]"
        entries.append(
            Entry(
                key=_text(item, "key", where),
                kind="core",
                content=_text(item, "content", where),
                at=_when(item, where),
                label=_text(item, "label", where),
            )
        )
    for index, item in enumerate(raw.get("memories") or []):
        where = f"{name}: memories[{index}]"
        kind = _text(item, "kind", where)
        if kind not in KINDS[:-1]:
            raise InvalidInputError(
                f"{where}: kind must be one of {', '.join(KINDS[:-1])} (core blocks go in "
                f"'core'), got {kind!r}"
            )
        entries.append(
            Entry(
                key=_text(item, "key", where),
                kind=kind,
                content=_text(item, "content", where),
                at=_when(item, where),
            )
        )
    keys = [entry.key for entry in entries]
    duplicates = sorted({key for key in keys if keys.count(key) > 1})
    if duplicates:
        raise InvalidInputError(f"{name}: keys must be unique, repeated: {', '.join(duplicates)}")
    return entries


def parse_store(raw: Mapping[str, Any], source: str = "<data>") -> Store:
    """A :class:`Store` from the decoded JSON of one store file; every answer must exist."""
    if not isinstance(raw, Mapping):
        raise InvalidInputError(f"{source}: a store must be a JSON object, got {type(raw)}")
    name = _text(raw, "name", source)
    language = _text(raw, "language", source)
    if language not in LANGUAGES:
        raise InvalidInputError(
            f"{source}: language must be one of {', '.join(LANGUAGES)}, got {language!r}"
        )
    entries = _entries(raw, name)
    known = {entry.key for entry in entries}
    questions: list[Question] = []
    for index, item in enumerate(raw.get("questions") or []):
        where = f"{name}: questions[{index}]"
        answer = _text(item, "answer", where)
        if answer not in known:
            raise InvalidInputError(f"{where}: the answer {answer!r} is no key of this store")
        trap = item.get("trap")
        if trap is not None and trap not in TRAPS:
            raise InvalidInputError(
                f"{where}: trap must be one of {', '.join(TRAPS)} or absent, got {trap!r}"
            )
        questions.append(Question(_text(item, "question", where), answer, trap))
    if not questions:
        raise InvalidInputError(f"{source}: a store needs at least one question")
    return Store(
        name=name,
        language=language,
        assistant=_text(raw, "assistant", source),
        entries=tuple(entries),
        questions=tuple(questions),
    )


def load_store(path: Path) -> Store:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InvalidInputError(f"cannot read the store file {path}: {exc}") from exc
    return parse_store(raw, str(path))


def load_suite(folder: Path = DEFAULT_SUITE_DIR, names: Sequence[str] | None = None) -> list[Store]:
    """Every store of ``folder`` (``*.json``, by file name), or only those named."""
    stores = [load_store(path) for path in sorted(folder.glob("*.json"))]
    if not stores:
        raise InvalidInputError(f"no store files (*.json) in {folder}")
    seen = [store.name for store in stores]
    if len(set(seen)) != len(seen):
        raise InvalidInputError(f"{folder}: two store files share a name: {seen}")
    if names is None:
        return stores
    unknown = [name for name in names if name not in seen]
    if unknown:
        raise InvalidInputError(
            f"unknown store(s) {', '.join(unknown)}; choose from {', '.join(seen)}"
        )
    return [store for store in stores if store.name in names]
