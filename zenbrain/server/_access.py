"""Who may open which namespace: API keys, and the coordinator of each request.

While the store holds no active key (and the server was not told to require one), every
namespace is open: the loopback default. Once a key exists, every ``/v1`` route needs one,
as ``Authorization: Bearer <token>`` or ``X-API-Key: <token>``, and a key opens only its
namespace (or its prefix's): a request for another namespace is refused, and a memory of
another namespace is simply not there (404), because each request's coordinator reads one
namespace only.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Annotated
from urllib.parse import parse_qsl

from fastapi import Depends, Query, Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from zenbrain import MemoryCoordinator
from zenbrain.errors import AccessDeniedError, InvalidInputError
from zenbrain.server._problems import AccessDenied, problem
from zenbrain.server.keys import ApiKey, active_key_count, verify_token

__all__ = [
    "Caller",
    "KeyFirst",
    "Memory",
    "ServerState",
    "caller",
    "check_subtree_allowed",
    "memory_for_request",
]

_bearer = HTTPBearer(auto_error=False, description="An API key made by `zenbrain keys add`.")
_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="The same key.")
_CACHED_NAMESPACES = 512


class ServerState:
    """What every request shares: the store's coordinator and one coordinator per namespace
    (so working memory lasts between requests), kept for the most recent 512 namespaces."""

    def __init__(self, base: MemoryCoordinator, *, require_keys: bool, owns_base: bool) -> None:
        self.base = base
        self.require_keys = require_keys
        self.owns_base = owns_base
        self._views: OrderedDict[str, MemoryCoordinator] = OrderedDict()
        self._lock = threading.Lock()

    def view(self, namespace: str) -> MemoryCoordinator:
        with self._lock:
            if namespace == self.base.namespace:
                return self.base
            found = self._views.get(namespace)
            if found is None:
                found = self.base.for_namespace(namespace)
                self._views[namespace] = found
                while len(self._views) > _CACHED_NAMESPACES:
                    self._views.popitem(last=False)
            else:
                self._views.move_to_end(namespace)
            return found

    def close(self) -> None:
        if self.owns_base:
            self.base.close()


@dataclass(frozen=True, slots=True)
class Caller:
    """The key a request came with (None: the open, key-less mode)."""

    key: ApiKey | None
    keys_required: bool

    def allows(self, namespace: str) -> bool:
        return self.key is None or self.key.allows(namespace)

    @property
    def whole_store(self) -> bool:
        """Whether this caller may read every namespace (backups copy the whole store)."""
        return self.key is None or (self.key.is_prefix and self.key.namespace == "")

    def default_namespace(self) -> str:
        if self.key is None:
            return "default"
        if self.key.is_prefix and not self.key.namespace.strip():
            return "default"
        return self.key.namespace


def _state(request: Request) -> ServerState:
    state: ServerState = request.app.state.zenbrain
    return state


def _check_key(state: ServerState, token: str | None) -> Caller:
    required = state.require_keys or active_key_count(state.base) > 0
    if token is None:
        if required:
            raise AccessDenied(
                "this server needs an API key: send 'Authorization: Bearer <key>' or "
                "'X-API-Key: <key>' (make one with `zenbrain keys add NAMESPACE`)",
                401,
            )
        return Caller(None, False)
    key = verify_token(state.base, token)
    if key is None:
        raise AccessDenied(
            "the API key is not valid (unknown, revoked or mistyped): check it with "
            "`zenbrain keys list`, or make a new one with `zenbrain keys add NAMESPACE`",
            401,
        )
    return Caller(key, True)


_CHECKED = "zenbrain_caller"  # where KeyFirst leaves the request's caller


class KeyFirst:
    """Check a ``/v1`` request's key before anything reads its body: a request without a
    valid key is refused (401) whatever its body holds, and the caller found is kept for
    :func:`caller`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if scope["type"] != "http" or not (path == "/v1" or path.startswith("/v1/")):
            await self.app(scope, receive, send)
            return
        state: ServerState = scope["app"].state.zenbrain
        try:
            who = await asyncio.to_thread(_check_key, state, _token(Headers(scope=scope)))
        except AccessDeniedError as refused:
            response = problem(refused.status, "AccessDeniedError", str(refused), path)
            await response(scope, receive, send)
            return
        scope.setdefault("state", {})[_CHECKED] = who
        await self.app(scope, receive, send)


def _token(headers: Headers) -> str | None:
    """The key of ``Authorization: Bearer <key>`` or ``X-API-Key: <key>``."""
    scheme, _, credentials = headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and credentials.strip():
        return credentials.strip()
    return headers.get("x-api-key") or None


async def caller(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)] = None,
    api_key: Annotated[str | None, Security(_header)] = None,
) -> Caller:
    """The request's caller, from its key (checked against the store's hashes, once: by
    :class:`KeyFirst` when it ran)."""
    checked = getattr(request.state, _CHECKED, None)
    if isinstance(checked, Caller):
        return checked
    token = bearer.credentials if bearer is not None else api_key
    return await asyncio.to_thread(_check_key, _state(request), token)


NamespaceQuery = Annotated[
    str | None,
    Query(
        max_length=200,
        description="Whose memory. Default: the key's namespace (or 'default' without keys).",
    ),
]


async def memory_for_request(
    request: Request,
    who: Annotated[Caller, Depends(caller)],
    namespace: NamespaceQuery = None,
) -> MemoryCoordinator:
    """The coordinator of the namespace asked for, if the caller's key opens it."""
    if namespace is not None:
        _check_utf8_namespace(request)
    chosen = who.default_namespace() if namespace is None else namespace
    if not who.allows(chosen):
        raise AccessDenied(
            f"this API key does not open the namespace {chosen[:80]!r}: leave out ?namespace= "
            "to use the key's own, or use a key made for that namespace"
        )
    view = _state(request).view(chosen)  # for_namespace refuses a malformed name
    request.state.caller = who
    return view


def _check_utf8_namespace(request: Request) -> None:
    """Refuse a ``?namespace=`` whose bytes are not UTF-8: decoded leniently, two different
    invalid names would both become the same replacement characters, one namespace."""
    query = request.scope.get("query_string", b"").decode("latin-1")
    try:
        parse_qsl(query, keep_blank_values=True, encoding="utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(
            "the query string is not UTF-8 (percent-encoded bytes that decode to no text): "
            "a namespace is text, send it percent-encoded as UTF-8"
        ) from exc


Memory = Annotated[MemoryCoordinator, Depends(memory_for_request)]


def check_subtree_allowed(request: Request, memory: MemoryCoordinator, subtree: bool) -> None:
    """A subtree read reaches every namespace below this one: only for a caller whose key
    opens them all (no key, or a prefix key this namespace starts with)."""
    if not subtree:
        return
    who: Caller = request.state.caller
    if who.key is None or (who.key.is_prefix and memory.namespace.startswith(who.key.namespace)):
        return
    raise AccessDenied(
        "subtree=true reads the namespaces below this one, which this API key does not open: "
        "use a prefix key (`zenbrain keys add PREFIX --prefix`)"
    )
