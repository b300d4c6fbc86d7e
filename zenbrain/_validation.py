"""Argument checks for every public entry point: the coordinator, the stages and the pure
algorithms. One argument order everywhere: the value first, then the name the message uses
(``check_int(limit, "limit", 1, 100)``). Each check returns the value in its checked form
and raises :class:`~zenbrain.errors.InvalidInputError` (or
:class:`~zenbrain.errors.UnknownLayerError`) with what was expected and what came."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeGuard

from zenbrain.errors import InvalidInputError, UnknownLayerError
from zenbrain.types import ALL_LAYERS

__all__ = [
    "LAYER_ALIASES",
    "MAX_CONTENT_CHARS",
    "check_content",
    "check_created_at",
    "check_duration",
    "check_finite",
    "check_fraction",
    "check_int",
    "check_layer",
    "check_metadata",
    "check_namespace",
    "check_optional_text",
    "check_positive",
    "check_positive_fraction",
    "check_strings",
    "check_text",
    "check_unit",
    "days_between",
]

MAX_CONTENT_CHARS = 1_000_000

LAYER_ALIASES = {"fact": "semantic", "episode": "episodic", "procedure": "procedural"}


def check_content(content: object, what: str = "content") -> str:
    if not isinstance(content, str):
        raise InvalidInputError(f"{what} must be text (str), got {type(content).__name__}")
    if not content.strip():
        raise InvalidInputError(f"{what} must not be empty or only whitespace")
    if len(content) > MAX_CONTENT_CHARS:
        raise InvalidInputError(
            f"{what} has {len(content):,} characters; at most {MAX_CONTENT_CHARS:,} are accepted"
        )
    return content


def check_text(value: object, name: str) -> str:
    """Any text (empty allowed): the input of the pure text algorithms."""
    if not isinstance(value, str):
        raise InvalidInputError(f"{name} must be a str, got {type(value).__name__}")
    return value


def check_namespace(namespace: object) -> str:
    if not isinstance(namespace, str) or not namespace.strip() or len(namespace) > 200:
        raise InvalidInputError(
            f"namespace must be a non-empty string of at most 200 characters, got {namespace!r}"
        )
    return namespace


def check_layer(layer: object, allowed: Sequence[str], *, aliases: bool = False) -> str:
    if isinstance(layer, str) and aliases:
        layer = LAYER_ALIASES.get(layer, layer)
    if not isinstance(layer, str) or layer not in allowed:
        known = ", ".join(allowed)
        if isinstance(layer, str) and layer in ALL_LAYERS:
            raise UnknownLayerError(f"layer {layer!r} cannot be used here; use one of: {known}")
        raise UnknownLayerError(f"unknown layer {layer!r}; use one of: {known}")
    return layer


def _is_number(value: object) -> TypeGuard[int | float]:
    return not isinstance(value, bool) and isinstance(value, int | float)


def check_finite(value: object, name: str) -> float:
    """A finite number (bools, NaN and infinities rejected), as float."""
    if not _is_number(value) or not math.isfinite(value):
        raise InvalidInputError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def check_positive(value: object, name: str) -> float:
    """A finite number above 0, as float."""
    if not _is_number(value) or not math.isfinite(value) or value <= 0:
        raise InvalidInputError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def check_unit(value: object, name: str) -> float:
    """A number from 0 to 1 inclusive, as float."""
    if not _is_number(value) or not 0.0 <= value <= 1.0:
        raise InvalidInputError(f"{name} must be a number from 0 to 1, got {value!r}")
    return float(value)


def check_fraction(value: object, name: str, *, optional: bool = True) -> float | None:
    """Like :func:`check_unit`, but ``None`` (not given) passes through when ``optional``."""
    return None if value is None and optional else check_unit(value, name)


def check_positive_fraction(value: object, name: str) -> float:
    """A number in (0, 1]: a weight or threshold that must not switch a rule off."""
    if not _is_number(value) or not 0.0 < value <= 1.0:
        raise InvalidInputError(f"{name} must be a number in (0, 1], got {value!r}")
    return float(value)


def check_duration(value: object, name: str) -> timedelta:
    """A :class:`~datetime.timedelta` of zero or more."""
    if not isinstance(value, timedelta) or value < timedelta(0):
        raise InvalidInputError(f"{name} must be a timedelta >= 0, got {value!r}")
    return value


def check_int(value: object, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInputError(
            f"{name} must be a whole number from {low} to {high}, got {value!r}"
        )
    return value


def check_optional_text(value: object, name: str, max_length: int = 200) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > max_length:
        raise InvalidInputError(
            f"{name} must be a non-empty string of at most {max_length} characters, got {value!r}"
        )
    return value


def check_strings(value: object, name: str) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InvalidInputError(f"{name} must be a list of strings, got {value!r}")
    items = list(value)
    if not all(isinstance(item, str) and item.strip() for item in items):
        raise InvalidInputError(f"{name} must be a list of non-empty strings, got {value!r}")
    return [item.strip() for item in items]


def check_metadata(value: object) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise InvalidInputError(f"metadata must be a dict with string keys, got {value!r}")
    try:
        return json.loads(json.dumps(dict(value), allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"metadata must be JSON-serialisable: {exc}") from exc


def check_created_at(value: object) -> datetime | None:
    """A datetime (naive means UTC) or an ISO-8601 string, returned as aware UTC."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError as exc:
            raise InvalidInputError(
                f"created_at must be an ISO-8601 timestamp, got {value!r}"
            ) from exc
    if not isinstance(value, datetime):
        raise InvalidInputError(f"created_at must be a datetime or ISO-8601 string, got {value!r}")
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def days_between(earlier: datetime, later: datetime) -> float:
    """Days from ``earlier`` to ``later`` (negative if ``later`` comes first).

    Both must be timezone-aware or both naive; mixing them is an error, not a guess.
    """
    if (earlier.tzinfo is None) != (later.tzinfo is None):
        raise InvalidInputError("cannot compare a timezone-aware and a naive datetime")
    return (later - earlier).total_seconds() / 86_400.0
