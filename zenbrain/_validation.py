"""Argument checks for every public entry point: the coordinator, the stages and the pure
algorithms. One argument order everywhere: the value first, then the name the message uses
(``check_int(limit, "limit", 1, 100)``). Each check returns the value in its checked form
and raises :class:`~zenbrain.errors.InvalidInputError` (or
:class:`~zenbrain.errors.UnknownLayerError`) with what was expected and what came."""

from __future__ import annotations

import json
import math
import reprlib
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeGuard

from zenbrain.errors import InvalidInputError, UnknownLayerError
from zenbrain.types import ALL_LAYERS

__all__ = [
    "EARLIEST_CREATED_AT",
    "LATEST_CREATED_AT",
    "LAYER_ALIASES",
    "MAX_CONTENT_CHARS",
    "MAX_METADATA_CHARS",
    "MAX_METADATA_DEPTH",
    "MAX_OUTCOME_CHARS",
    "check_aware",
    "check_bool",
    "check_content",
    "check_created_at",
    "check_duration",
    "check_finite",
    "check_fraction",
    "check_id",
    "check_ids",
    "check_int",
    "check_layer",
    "check_match",
    "check_metadata",
    "check_namespace",
    "check_optional_text",
    "check_positive",
    "check_positive_fraction",
    "check_prefix",
    "check_storable",
    "check_strings",
    "check_text",
    "check_unit",
    "days_between",
    "is_storable_text",
    "shown",
]

MAX_CONTENT_CHARS = 1_000_000
MAX_OUTCOME_CHARS = 10_000
MAX_METADATA_CHARS = 1_000_000  # as JSON
MAX_METADATA_DEPTH = 32
# created_at outside these is a sentinel or a typo (datetime.min/max, year 9999), and the
# review schedule computed from it would overflow.
EARLIEST_CREATED_AT = datetime(1900, 1, 1, tzinfo=UTC)
LATEST_CREATED_AT = datetime(2999, 12, 31, 23, 59, 59, tzinfo=UTC)

_SHOWN = reprlib.Repr()
_SHOWN.maxstring = _SHOWN.maxother = 80
_SHOWN.maxlevel = 2
_SHOWN.maxdict = _SHOWN.maxlist = _SHOWN.maxtuple = _SHOWN.maxset = 4


def shown(value: object) -> str:
    """``value`` for an error message: its repr cut to about 80 characters, plus the
    length of long text, so that a 10 MB argument is never echoed back whole."""
    try:
        text = _SHOWN.repr(value)
    except Exception:  # a broken __repr__ must not hide the real error
        text = f"<{type(value).__name__} object>"
    if isinstance(value, str) and len(value) > 80:
        text += f" ({len(value):,} characters)"
    elif isinstance(value, bytes) and len(value) > 80:
        text += f" ({len(value):,} bytes)"
    return text


def check_storable(text: str, name: str) -> str:
    """``text`` unless it holds what no back end can store: NUL (PostgreSQL's text cannot
    hold it, so SQLite refuses it too, and both back ends agree) or a lone surrogate (not
    valid Unicode, cannot be encoded as UTF-8)."""
    position = text.find("\x00")
    if position >= 0:
        raise InvalidInputError(
            f"{name} contains a NUL character (\\x00) at position {position}, which "
            "PostgreSQL cannot store; remove it (zenbrain refuses it on every back end)"
        )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"{name} contains a lone surrogate ({shown(text[exc.start])}) at position "
            f"{exc.start}: text must be valid Unicode (decode bytes with errors='replace')"
        ) from None
    return text


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
    return check_storable(content, what)


def check_id(value: object, name: str = "id") -> str:
    """A memory or slot id: non-empty text that a store could hold. An id that matches
    nothing is not an error here (the caller says what "not found" means)."""
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        raise InvalidInputError(
            f"{name} must be a memory id (a non-empty string of at most 200 characters, as "
            f"returned by store), got {shown(value)}"
        )
    return check_storable(value, name)


def check_text(value: object, name: str) -> str:
    """Any text (empty allowed): the input of the pure text algorithms."""
    if not isinstance(value, str):
        raise InvalidInputError(f"{name} must be a str, got {type(value).__name__}")
    return value


def check_namespace(namespace: object) -> str:
    if not isinstance(namespace, str) or not namespace.strip() or len(namespace) > 200:
        raise InvalidInputError(
            "namespace must be a non-empty string of at most 200 characters, "
            f"got {shown(namespace)}"
        )
    return check_storable(namespace, "namespace")


def check_layer(layer: object, allowed: Sequence[str], *, aliases: bool = False) -> str:
    if isinstance(layer, str) and aliases:
        layer = LAYER_ALIASES.get(layer, layer)
    if not isinstance(layer, str) or layer not in allowed:
        known = ", ".join(allowed)
        if isinstance(layer, str) and layer in ALL_LAYERS:
            raise UnknownLayerError(f"layer {layer!r} cannot be used here; use one of: {known}")
        raise UnknownLayerError(f"unknown layer {shown(layer)}; use one of: {known}")
    return layer


def _is_number(value: object) -> TypeGuard[int | float]:
    return not isinstance(value, bool) and isinstance(value, int | float)


def check_finite(value: object, name: str) -> float:
    """A finite number (bools, NaN and infinities rejected), as float."""
    if not _is_number(value) or not math.isfinite(value):
        raise InvalidInputError(f"{name} must be a finite number, got {shown(value)}")
    return float(value)


def check_positive(value: object, name: str) -> float:
    """A finite number above 0, as float."""
    if not _is_number(value) or not math.isfinite(value) or value <= 0:
        raise InvalidInputError(f"{name} must be a finite number > 0, got {shown(value)}")
    return float(value)


def check_unit(value: object, name: str) -> float:
    """A number from 0 to 1 inclusive, as float."""
    if not _is_number(value) or not 0.0 <= value <= 1.0:
        raise InvalidInputError(f"{name} must be a number from 0 to 1, got {shown(value)}")
    return float(value)


def check_fraction(value: object, name: str, *, optional: bool = True) -> float | None:
    """Like :func:`check_unit`, but ``None`` (not given) passes through when ``optional``."""
    return None if value is None and optional else check_unit(value, name)


def check_positive_fraction(value: object, name: str) -> float:
    """A number in (0, 1]: a weight or threshold that must not switch a rule off."""
    if not _is_number(value) or not 0.0 < value <= 1.0:
        raise InvalidInputError(f"{name} must be a number in (0, 1], got {shown(value)}")
    return float(value)


def check_duration(value: object, name: str) -> timedelta:
    """A :class:`~datetime.timedelta` of zero or more."""
    if not isinstance(value, timedelta) or value < timedelta(0):
        raise InvalidInputError(f"{name} must be a timedelta >= 0, got {shown(value)}")
    return value


def check_int(value: object, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInputError(
            f"{name} must be a whole number from {low} to {high}, got {shown(value)}"
        )
    return value


def check_optional_text(value: object, name: str, max_length: int = 200) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > max_length:
        raise InvalidInputError(
            f"{name} must be a non-empty string of at most {max_length} characters, "
            f"got {shown(value)}"
        )
    return check_storable(value, name)


def check_strings(value: object, name: str, max_length: int = 10_000) -> list[str] | None:
    """A list of non-empty strings of at most ``max_length`` characters each, stripped."""
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InvalidInputError(f"{name} must be a list of strings, got {shown(value)}")
    items = list(value)
    if not all(isinstance(item, str) and item.strip() for item in items):
        raise InvalidInputError(f"{name} must be a list of non-empty strings, got {shown(value)}")
    for i, item in enumerate(items):
        if len(item) > max_length:
            raise InvalidInputError(
                f"{name}[{i}] has {len(item):,} characters; at most {max_length:,} are accepted"
            )
    return [check_storable(item.strip(), f"{name}[{i}]") for i, item in enumerate(items)]


def check_metadata(value: object, name: str = "metadata") -> dict[str, Any]:
    """A JSON object: string keys; values None, bool, int, finite float, text, lists and
    objects of these; at most :data:`MAX_METADATA_DEPTH` levels and
    :data:`MAX_METADATA_CHARS` characters as JSON; text storable (:func:`check_storable`).
    Returns a deep copy (later changes by the caller do not reach the store)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInputError(f"{name} must be a dict with string keys, got {shown(value)}")
    # Walked without recursion: a structure nested 100,000 deep must not overflow the stack.
    pending: list[tuple[object, int, str]] = [(value, 1, name)]
    while pending:
        node, depth, where = pending.pop()
        if depth > MAX_METADATA_DEPTH:
            raise InvalidInputError(
                f"{name} is nested more than {MAX_METADATA_DEPTH} levels deep (at {where[:120]})"
            )
        if isinstance(node, Mapping):
            for key, child in node.items():
                if not isinstance(key, str):
                    raise InvalidInputError(
                        f"{name} keys must be strings, got {shown(key)} in {where[:120]}"
                    )
                check_storable(key, f"a key of {where[:120]}")
                pending.append((child, depth + 1, f"{where}[{shown(key)}]"))
        elif isinstance(node, list | tuple):
            pending.extend((child, depth + 1, f"{where}[{i}]") for i, child in enumerate(node))
        elif isinstance(node, str):
            check_storable(node, where[:120])
        elif isinstance(node, float):
            if not math.isfinite(node):
                raise InvalidInputError(f"{where[:120]} must be a finite number, got {node!r}")
        elif node is not None and not isinstance(node, bool | int):
            raise InvalidInputError(
                f"{where[:120]} is a {type(node).__name__}, which JSON cannot hold: use text, "
                "numbers, booleans, None, lists and dicts"
            )
    try:
        encoded = json.dumps(dict(value), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:  # e.g. an int too long to print
        raise InvalidInputError(f"{name} must be JSON-serialisable: {shown(str(exc))}") from exc
    if len(encoded) > MAX_METADATA_CHARS:
        raise InvalidInputError(
            f"{name} has {len(encoded):,} characters as JSON; at most "
            f"{MAX_METADATA_CHARS:,} are accepted"
        )
    loaded: dict[str, Any] = json.loads(encoded)
    return loaded


def check_created_at(value: object) -> datetime | None:
    """A datetime (naive means UTC) or an ISO-8601 string, returned as aware UTC, from
    :data:`EARLIEST_CREATED_AT` to :data:`LATEST_CREATED_AT`."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError as exc:
            raise InvalidInputError(
                f"created_at must be an ISO-8601 timestamp, got {shown(value)}"
            ) from exc
    if not isinstance(value, datetime):
        raise InvalidInputError(
            f"created_at must be a datetime or ISO-8601 string, got {shown(value)}"
        )
    try:
        moment = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    except (OverflowError, ValueError) as exc:
        raise InvalidInputError(f"created_at {shown(value)} cannot be converted to UTC") from exc
    if not EARLIEST_CREATED_AT <= moment <= LATEST_CREATED_AT:
        raise InvalidInputError(
            f"created_at must lie between {EARLIEST_CREATED_AT:%Y-%m-%d} and "
            f"{LATEST_CREATED_AT:%Y-%m-%d} (UTC), got {moment.isoformat()}"
        )
    return moment


def days_between(earlier: datetime, later: datetime) -> float:
    """Days from ``earlier`` to ``later`` (negative if ``later`` comes first).

    Both must be timezone-aware or both naive; mixing them is an error, not a guess.
    """
    if (earlier.tzinfo is None) != (later.tzinfo is None):
        raise InvalidInputError("cannot compare a timezone-aware and a naive datetime")
    return (later - earlier).total_seconds() / 86_400.0


def check_bool(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInputError(f"{name} must be True or False, got {shown(value)}")
    return value


def check_aware(value: object, name: str) -> datetime:
    if not isinstance(value, datetime) or value.tzinfo is None:
        raise InvalidInputError(
            f"{name} must be an aware datetime (with a time zone, e.g. "
            f"datetime(2025, 3, 1, tzinfo=UTC)), got {shown(value)}"
        )
    return value


def check_ids(value: object, name: str) -> tuple[str, ...]:
    """A list of memory ids (non-empty strings of at most 36 characters), each once."""
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InvalidInputError(f"{name} must be a list of memory ids, got {shown(value)}")
    ids = list(value)
    if not all(isinstance(i, str) and 0 < len(i) <= 36 for i in ids):
        raise InvalidInputError(
            f"{name} must be a list of memory ids (strings), got {shown(value)}"
        )
    return tuple(dict.fromkeys(ids))


def is_storable_text(text: str) -> bool:
    """Text both back ends store alike: no NUL character, no lone surrogate."""
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_match(value: object, name: str) -> dict[str, Any]:
    """A metadata match: a dict of string keys to JSON scalars (str, int, float, bool, None).
    Nested values are refused so that SQLite and PostgreSQL compare alike."""
    if not isinstance(value, Mapping) or not all(isinstance(k, str) and k for k in value):
        raise InvalidInputError(
            f"{name} must be a dict with non-empty string keys, got {shown(value)}"
        )
    match: dict[str, Any] = {}
    for key, item in value.items():
        for text in (key, item) if isinstance(item, str) else (key,):
            if not is_storable_text(text):
                raise InvalidInputError(
                    f"{name}[{key!r}]: keys and values must be valid text without NUL characters"
                )
        if isinstance(item, float) and not math.isfinite(item):
            raise InvalidInputError(f"{name}[{key!r}] must be a finite number, got {item!r}")
        if item is not None and not isinstance(item, str | int | float | bool):
            raise InvalidInputError(
                f"{name}[{key!r}] must be a string, number, bool or None, got "
                f"{type(item).__name__} (nested values cannot be matched)"
            )
        if isinstance(item, int) and not isinstance(item, bool) and abs(item) >= 2**53:
            raise InvalidInputError(f"{name}[{key!r}] is too large to match exactly: {item}")
        match[key] = item
    return match


def check_prefix(prefix: object) -> str:
    """A namespace prefix: text of at most 200 characters, storable."""
    if not isinstance(prefix, str) or len(prefix) > 200 or not is_storable_text(prefix):
        raise InvalidInputError(
            f"prefix must be a string of at most 200 characters, got {shown(prefix)}"
        )
    return prefix
