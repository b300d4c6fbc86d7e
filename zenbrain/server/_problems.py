"""Errors as RFC 9457 problem details (``application/problem+json``).

Every error answer carries ``error``, the name of the :class:`~zenbrain.errors.ZenbrainError`
class (``RemoteMemory`` raises that class again on the client), and ``detail``, its message.
An unexpected exception answers 500 with its class name only, never a traceback.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse, Response

from zenbrain import errors
from zenbrain.errors import ZenbrainError

__all__ = [
    "PROBLEM_TYPE",
    "AccessDenied",
    "BodyTooLarge",
    "NotFound",
    "SafeJSONResponse",
    "install_problem_handlers",
    "problem",
    "status_for",
]

PROBLEM_TYPE = "https://github.com/zensation-ai/zenbrain/blob/main/docs/guide/server.md#errors"
_log = logging.getLogger("zenbrain.server")

# The most specific class wins: a subclass is listed before its base.
_STATUS: tuple[tuple[type[ZenbrainError], int], ...] = (
    (errors.StoreNotFoundError, 404),
    (errors.SchemaVersionError, 409),
    (errors.DatabaseNotWritableError, 503),
    (errors.StorageError, 503),
    (errors.InvalidInputError, 422),
    (errors.EmbeddingMismatchError, 409),
    (errors.ProviderError, 502),
    (errors.MissingDependencyError, 501),
)


NotFound = errors.NotFoundError
BodyTooLarge = errors.RequestTooLargeError


def AccessDenied(message: str, status: int = 403) -> errors.AccessDeniedError:
    return errors.AccessDeniedError(message, status=status)


def status_for(exc: ZenbrainError) -> int:
    if isinstance(exc, errors.AccessDeniedError):
        return exc.status
    if isinstance(exc, errors.NotFoundError):
        return 404
    if isinstance(exc, errors.RequestTooLargeError):
        return 413
    for cls, status in _STATUS:
        if isinstance(exc, cls):
            return status
    return 400


class SafeJSONResponse(JSONResponse):
    """JSON with every non-ASCII character escaped: text holding a lone surrogate (which a
    hostile request can carry into an error message) still encodes."""

    def render(self, content: Any) -> bytes:
        return json.dumps(
            content, ensure_ascii=True, allow_nan=False, separators=(",", ":")
        ).encode("ascii")


def problem(status: int, error: str, detail: str, instance: str | None = None) -> Response:
    titles = {401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 413: "Too Large"}
    body = {
        "type": f"{PROBLEM_TYPE}",
        "title": titles.get(status, error),
        "status": status,
        "detail": detail[: errors.MAX_MESSAGE_CHARS],
        "error": error,
        "instance": instance,
    }
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    response = SafeJSONResponse(body, status_code=status, headers=headers)
    response.headers["content-type"] = "application/problem+json"
    return response


def _validation_detail(exc: RequestValidationError) -> str:
    parts = []
    for item in exc.errors()[:5]:
        where = ".".join(str(p) for p in item.get("loc", ()) if p != "body") or "body"
        parts.append(f"{where}: {item.get('msg', 'invalid')}")
    more = len(exc.errors()) - 5
    tail = f" (and {more} more)" if more > 0 else ""
    return (
        "the request does not fit the API's schema (see /v1/openapi.json): "
        + "; ".join(parts)
        + tail
    )


def install_problem_handlers(app: FastAPI) -> None:
    """Answer every error as problem details, and nothing with a traceback."""

    async def zenbrain_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ZenbrainError)
        return problem(status_for(exc), type(exc).__name__, str(exc), request.url.path)

    async def invalid_request(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        detail = _validation_detail(exc)
        return problem(422, "InvalidInputError", detail, request.url.path)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        if exc.status_code == 400:  # a body that cannot be parsed: a value error like any other
            detail = f"the request body cannot be read ({exc.detail}): send UTF-8 JSON"
            return problem(422, "InvalidInputError", detail, request.url.path)
        error = {404: "NotFoundError"}.get(exc.status_code, "RemoteError")
        return problem(exc.status_code, error, str(exc.detail), request.url.path)

    async def unexpected(request: Request, exc: Exception) -> Response:
        _log.exception("unexpected error on %s %s", request.method, request.url.path)
        return problem(
            500,
            "InternalError",
            f"the server failed with {type(exc).__name__}; this is a bug in zenbrain, "
            "please report it (the server's log has the details)",
            request.url.path,
        )

    app.add_exception_handler(ZenbrainError, zenbrain_error)
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(Exception, unexpected)
