"""How :class:`zenbrain.remote.RemoteMemory` talks to the server: one request's parts, the
JSON answers turned back into zenbrain's value objects, and problem details turned back into
the ZenbrainError class the server named."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote

from zenbrain import errors
from zenbrain.errors import RemoteError, ZenbrainError
from zenbrain.types import CoreBlock, ForgetResult, Interaction, RecallResult, ReviewItem

__all__ = [
    "SKIP",
    "Call",
    "block",
    "embedded",
    "error_for",
    "feedback",
    "forget_result",
    "result",
    "results",
    "review",
    "store_body",
    "turn",
    "when_missing",
]

SKIP = object()


@dataclass(frozen=True, slots=True)
class Call:
    method: str
    path: str
    parse: Callable[[Any], Any]
    body: Any = None
    params: Mapping[str, Any] | None = None
    missing: Any = SKIP  # what a 404 means (None, False, an error to raise); SKIP: raise it


def when_missing(call: Call) -> Any:
    """What a 404 answers ``call``: its value, or the library's own error for it, raised."""
    if isinstance(call.missing, ZenbrainError):
        raise call.missing
    return call.missing


def _time(value: Any) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def result(raw: Mapping[str, Any]) -> RecallResult:
    return RecallResult(
        id=raw["id"], layer=raw["layer"], content=raw["content"], score=raw["score"],
        confidence=raw.get("confidence"), emotional_weight=raw.get("emotional_weight"),
        metadata=dict(raw.get("metadata") or {}), created_at=_time(raw.get("created_at")),
        valid_from=_time(raw.get("valid_from")), valid_to=_time(raw.get("valid_to")),
        superseded_by=raw.get("superseded_by"),
    )  # fmt: skip


def results(raw: Any) -> list[RecallResult]:
    return [result(item) for item in raw]


def review(raw: Mapping[str, Any]) -> ReviewItem:
    return ReviewItem(
        id=raw["id"], content=raw["content"], confidence=raw["confidence"],
        due=_time(raw["due"]), stability=raw.get("stability"),  # type: ignore[arg-type]
        difficulty=raw.get("difficulty"),
    )  # fmt: skip


def block(raw: Mapping[str, Any]) -> CoreBlock:
    return CoreBlock(
        id=raw["id"], label=raw["label"], content=raw["content"], pinned=raw["pinned"],
        updated_at=_time(raw["updated_at"]),  # type: ignore[arg-type]
    )  # fmt: skip


def turn(raw: Mapping[str, Any]) -> Interaction:
    return Interaction(
        role=raw["role"], content=raw["content"], timestamp=_time(raw["timestamp"]),  # type: ignore[arg-type]
        metadata=dict(raw.get("metadata") or {}),
    )  # fmt: skip


def forget_result(raw: Mapping[str, Any]) -> ForgetResult:
    return ForgetResult(
        forgotten=raw["forgotten"],
        also_forgotten=[dict(item) for item in raw.get("also_forgotten", [])],
        duplicates=[dict(item) for item in raw.get("duplicates", [])],
    )


def error_for(status: int, body: Any) -> ZenbrainError:
    name = body.get("error") if isinstance(body, dict) else None
    detail = body.get("detail") if isinstance(body, dict) else None
    message = str(detail or f"the server answered HTTP {status}")
    cls = getattr(errors, str(name), None) if name else None
    if isinstance(cls, type) and issubclass(cls, ZenbrainError):
        if cls is errors.AccessDeniedError:
            return errors.AccessDeniedError(message, status=status)
        return cls(message)
    if status in (401, 403):
        return errors.AccessDeniedError(message, status=status)
    if status == 404:
        return errors.NotFoundError(message)
    return RemoteError(f"{message} (HTTP {status}, {name or 'no error class'})")


def embedded(raw: Mapping[str, Any]) -> int:
    return int(raw["embedded"])


def feedback(memory_id: object, success: object) -> Call:
    path = f"/v1/memories/{quote(str(memory_id), safe='')}/feedback"
    # A 404 (an id this namespace does not hold) raises what the library raises.
    missing = errors.InvalidInputError(f"no procedure with id {memory_id!r} in this namespace")
    return Call("POST", path, lambda r: r["success_rate"], {"success": success}, missing=missing)


def store_body(content: Any, arguments: Mapping[str, Any]) -> dict[str, Any]:
    body = {"content": content}
    body.update({k: v for k, v in arguments.items() if v is not None})
    if isinstance(body.get("created_at"), datetime):
        body["created_at"] = body["created_at"].isoformat()
    if "supersedes" in body and not isinstance(body["supersedes"], str | bytes):
        with contextlib.suppress(TypeError):
            body["supersedes"] = list(body["supersedes"])
    for key in ("steps", "tools"):
        if key in body and not isinstance(body[key], str | bytes):
            with contextlib.suppress(TypeError):
                body[key] = list(body[key])
    return body


def update_call(memory_id: Any, content: Any, arguments: Mapping[str, Any]) -> Call:
    """``update(id, content, ...)``: an id no memory can have gets the server's 404."""
    if not isinstance(memory_id, str) or not memory_id or "/" in memory_id:
        memory_id = "-"
    path = f"/v1/memories/{quote(memory_id, safe='')}/update"
    return Call("POST", path, lambda r: r["id"], store_body(content, arguments))


def history_call(memory_id: Any) -> Call:
    """``history(id)``: empty for an id no memory can have."""
    if not isinstance(memory_id, str) or not memory_id or "/" in memory_id:
        return Call("", "", lambda r: [])
    return Call("GET", f"/v1/memories/{quote(memory_id, safe='')}/history", results, missing=[])
