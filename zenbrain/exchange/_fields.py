"""Reading one JSON object of an import file field by field: every check failed names the
file, the line and the field, says what was expected and what came, as
:class:`~zenbrain.errors.InvalidInputError`."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import IO, Any

from zenbrain.errors import InvalidInputError

__all__ = ["Fields", "json_lines", "json_objects", "parse_time", "time_text"]

_MISSING = object()


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:77]}..."


def parse_time(raw: str) -> datetime:
    """An ISO 8601 time (``Z`` or an offset; none: UTC) as an aware UTC datetime; raises
    ValueError when it is not one."""
    moment = datetime.fromisoformat(raw.replace("Z", "+00:00") if raw.endswith("Z") else raw)
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def time_text(moment: datetime | None) -> str | None:
    """A time as the archive writes it: ISO 8601 in UTC, with microseconds when it has some."""
    if moment is None:
        return None
    aware = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return aware.isoformat()


class Fields:
    """One object read from ``where`` (e.g. ``memories.jsonl line 3``)."""

    def __init__(self, raw: object, where: str) -> None:
        if not isinstance(raw, dict):
            raise InvalidInputError(f"{where}: expected a JSON object, got {type(raw).__name__}")
        self.raw: dict[str, Any] = raw
        self.where = where

    def fail(self, name: str, expected: str, value: object = _MISSING) -> InvalidInputError:
        came = "nothing" if value is _MISSING else _shown(value)
        return InvalidInputError(f"{self.where}: field {name!r}: expected {expected}, got {came}")

    def _get(self, name: str, optional: bool) -> Any:
        value = self.raw.get(name, _MISSING)
        if value is _MISSING or value is None:
            if optional:
                return None
            raise self.fail(name, "a value", value)
        return value

    def text(self, name: str, *, optional: bool = False, empty: bool = False) -> Any:
        value = self._get(name, optional)
        if value is None:
            return None
        if not isinstance(value, str) or (not empty and not value.strip()):
            raise self.fail(name, "non-empty text" if not empty else "text", value)
        if "\x00" in value:
            raise self.fail(name, "text without NUL characters", value)
        return value

    def number(self, name: str, *, optional: bool = False, low: float | None = None,
               high: float | None = None) -> Any:  # fmt: skip
        value = self._get(name, optional)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(name, "a number", value)
        if (
            not math.isfinite(value)
            or (low is not None and value < low)
            or (high is not None and value > high)
        ):
            raise self.fail(name, f"a number from {low} to {high}", value)
        return float(value)

    def integer(self, name: str, *, optional: bool = False) -> Any:
        value = self._get(name, optional)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.fail(name, "a whole number of at least 0", value)
        return value

    def boolean(self, name: str) -> bool:
        value = self._get(name, False)
        if not isinstance(value, bool):
            raise self.fail(name, "true or false", value)
        return value

    def time(self, name: str, *, optional: bool = False) -> Any:
        value = self._get(name, optional)
        if value is None:
            return None
        if isinstance(value, str):
            try:
                return parse_time(value)
            except (ValueError, OverflowError):
                pass
        raise self.fail(name, "an ISO 8601 time such as 2026-01-31T09:30:00+00:00", value)

    def mapping(self, name: str, *, optional: bool = False) -> Any:
        value = self._get(name, optional)
        if value is None:
            return None
        if not isinstance(value, dict):
            raise self.fail(name, "a JSON object", value)
        return value

    def strings(self, name: str, *, optional: bool = False) -> Any:
        value = self._get(name, optional)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(name, "a list of strings", value)
        return value

    def choice(self, name: str, choices: Iterable[str]) -> str:
        options = tuple(choices)
        value = self._get(name, False)
        if value not in options:
            raise self.fail(name, f"one of {', '.join(options)}", value)
        return str(value)

    def nested(self, name: str, *, optional: bool = False) -> Fields | None:
        value = self.mapping(name, optional=optional)
        return None if value is None else Fields(value, f"{self.where}, {name}")


def _json_values(lines: Iterable[str], name: str) -> Iterator[tuple[str, Any]]:
    """Each non-blank line (of the file ``name``) read as JSON, with where it stands."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{name} line {number}"
        try:
            yield where, json.loads(line)
        except ValueError as exc:
            raise InvalidInputError(f"{where}: not JSON ({exc})") from exc


def json_lines(stream: IO[str], name: str) -> Iterator[Fields]:
    """Each non-blank line of ``stream`` (the file ``name``) as :class:`Fields`."""
    for where, value in _json_values(stream, name):
        yield Fields(value, where)


def json_objects(lines: Iterable[str], name: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each non-blank line (of the file ``name``) as a JSON object, with where it stands."""
    for where, value in _json_values(lines, name):
        if not isinstance(value, dict):
            raise InvalidInputError(f"{where}: expected an object, got {type(value).__name__}")
        yield where, value
