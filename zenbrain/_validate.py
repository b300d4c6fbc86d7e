"""Argument checks shared by the coordinator's public methods. Each raises
:class:`~zenbrain.errors.InvalidInputError` with what was expected and what came."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from zenbrain.errors import InvalidInputError, UnknownLayerError
from zenbrain.types import ALL_LAYERS

__all__ = [
    "MAX_CONTENT_CHARS",
    "check_content",
    "check_created_at",
    "check_fraction",
    "check_int",
    "check_layer",
    "check_metadata",
    "check_namespace",
    "check_optional_text",
    "check_strings",
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


def check_fraction(value: object, name: str, *, optional: bool = True) -> float | None:
    """A number in 0..1 (bools, NaN and infinities rejected)."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInputError(f"{name} must be a number from 0 to 1, got {value!r}")
    number = float(value)
    if math.isnan(number) or not 0.0 <= number <= 1.0:
        raise InvalidInputError(f"{name} must be a number from 0 to 1, got {value!r}")
    return number


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
