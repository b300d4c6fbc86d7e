"""How :class:`zenbrain.remote.RemoteMemory` talks to the server: one request's parts, the
JSON answers turned back into zenbrain's value objects, and problem details turned back into
the ZenbrainError class the server named."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from pydantic import TypeAdapter

from zenbrain import errors
from zenbrain.errors import RemoteError, ZenbrainError
from zenbrain.operations import StoreItem
from zenbrain.types import CoreBlock, ForgetResult, Interaction, RecallResult, ReviewItem

__all__ = [
    "SKIP",
    "Call",
    "block",
    "blocks",
    "embedded",
    "error_for",
    "feedback",
    "forget_result",
    "result",
    "results",
    "review",
    "reviews",
    "turn",
    "turns",
    "update_call",
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


def _parser(kind: Any) -> Callable[[Any], Any]:
    """The JSON answer read back into ``kind`` by pydantic, from the same dataclass the
    server answered with (one declaration of each result type)."""
    return TypeAdapter(kind).validate_python


result: Callable[[Any], RecallResult] = _parser(RecallResult)
results: Callable[[Any], list[RecallResult]] = _parser(list[RecallResult])
review: Callable[[Any], ReviewItem] = _parser(ReviewItem)
reviews: Callable[[Any], list[ReviewItem]] = _parser(list[ReviewItem])
block: Callable[[Any], CoreBlock] = _parser(CoreBlock)
blocks: Callable[[Any], list[CoreBlock]] = _parser(list[CoreBlock])
turn: Callable[[Any], Interaction | None] = _parser(Interaction | None)
turns: Callable[[Any], list[Interaction]] = _parser(list[Interaction])
_forget = _parser(ForgetResult)


def forget_result(raw: Mapping[str, Any]) -> ForgetResult:
    """A forget's answer (the HTTP answer's ``dry_run`` is the server's own)."""
    found: ForgetResult = _forget({k: v for k, v in raw.items() if k != "dry_run"})
    return found


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


def update_call(memory_id: Any, item: StoreItem, given: Iterable[str]) -> Call:
    """``update(id, content, ...)``: the content and the fields given (the rest the new
    version keeps from the old); an id no memory can have gets the server's 404."""
    if not isinstance(memory_id, str) or not memory_id or "/" in memory_id:
        memory_id = "-"
    path = f"/v1/memories/{quote(memory_id, safe='')}/update"
    # Every option given is sent, at its default too (null clears a field as None does in
    # the library; left out, the new version keeps the old one's).
    sent = item.to_json()
    body: dict[str, Any] = {"content": item.content}
    for name in given:
        if name != "content":
            value = sent.get(name, getattr(item, name))
            body[name] = list(value) if isinstance(value, tuple) else value
    # A 404 (an id this namespace does not hold) raises what the library raises.
    missing = errors.InvalidInputError(
        f"update needs the id of an episode, fact or procedure of this namespace, got "
        f"{memory_id!r:.80}"
    )
    return Call("POST", path, lambda r: r["id"], body, missing=missing)


def history_call(memory_id: Any) -> Call:
    """``history(id)``: empty for an id no memory can have."""
    if not isinstance(memory_id, str) or not memory_id or "/" in memory_id:
        return Call("", "", lambda r: [])
    return Call("GET", f"/v1/memories/{quote(memory_id, safe='')}/history", results, missing=[])
