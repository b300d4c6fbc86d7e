"""The ASGI application: ``create_app`` builds the ``/v1`` API and the inspector over one
store, with request-size limits, CORS only when asked for, and problem-details errors."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI
from starlette.middleware.cors import CORSMiddleware
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from zenbrain import MemoryCoordinator, __version__
from zenbrain.errors import InvalidInputError
from zenbrain.server import _routes_memories as routes_memories
from zenbrain.server import _routes_state as routes_state
from zenbrain.server import _routes_transfer as routes_transfer
from zenbrain.server._access import KeyFirst, ServerState
from zenbrain.server._models import Problem
from zenbrain.server._problems import SafeJSONResponse, install_problem_handlers
from zenbrain.tools import TOOLS

__all__ = ["DEFAULT_MAX_BODY_BYTES", "create_app"]

#: The largest request body accepted (an import of many memories included): 16 MiB.
DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024

_PROBLEM_SCHEMA = {"schema": {"$ref": "#/components/schemas/Problem"}}
_ERRORS: dict[int | str, dict[str, Any]] = {
    status: {
        "model": Problem,
        "description": text,
        "content": {"application/problem+json": _PROBLEM_SCHEMA},
    }
    for status, text in (
        (401, "No API key, or a wrong one."),
        (403, "The key does not open this namespace."),
        (404, "No such memory, block or route in this namespace."),
        (413, "The request body is too large."),
        (422, "The request's values were refused (InvalidInputError)."),
        (503, "The store could not be used."),
    )
}


class _BodyLimit:
    """Refuse request bodies over ``limit`` bytes: by Content-Length before reading, and
    by counting what arrives for a body without one."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = limit + 1
                if declared > limit:
                    await self._refuse(scope, receive, send, declared)
                    return
        seen = 0
        too_large = False

        async def counted() -> Message:
            nonlocal seen, too_large
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:  # stop reading: the app sees a closed request
                    too_large = True
                    return {"type": "http.disconnect"}
            return message

        answered = False

        async def replaced(message: Message) -> None:
            nonlocal answered
            if not too_large:
                await send(message)
            elif not answered:  # whatever the app made of the cut body, the answer is 413
                answered = True
                await self._refuse(scope, receive, send, seen)

        try:
            await self.app(scope, counted, replaced)
        except Exception:  # reading the cut body failed (ClientDisconnect): it was too large
            if not too_large:
                raise
            if not answered:
                await self._refuse(scope, receive, send, seen)

    def _message(self, size: int) -> str:
        return (
            f"the request body is over {self.limit:,} bytes (got at least {size:,}): send "
            "fewer memories per request, or start the server with a larger --max-body"
        )

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, size: int) -> None:
        from zenbrain.server._problems import problem

        response = problem(413, "RequestTooLargeError", self._message(size), scope.get("path"))
        await response(scope, receive, send)


def _static_folder() -> Path:
    return Path(str(resources.files("zenbrain.server") / "static"))


def create_app(
    coordinator_or_path: MemoryCoordinator | str | Path | None = None,
    *,
    require_keys: bool = False,
    cors_origins: Sequence[str] = (),
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    inspector: bool = True,
) -> FastAPI:
    """The HTTP API (under ``/v1``) and the inspector (at ``/``) over one store.

    ``coordinator_or_path``: an open :class:`~zenbrain.MemoryCoordinator` (kept open; the
    caller closes it), or a store location to open (closed when the app shuts down).
    ``require_keys``: every request needs an API key even while the store has none.
    ``cors_origins``: origins allowed to call from a browser page (none by default).
    """
    if isinstance(max_body_bytes, bool) or not isinstance(max_body_bytes, int):
        raise InvalidInputError(f"max_body_bytes must be an int, got {max_body_bytes!r}")
    if max_body_bytes < 1024:
        raise InvalidInputError(f"max_body_bytes must be at least 1024, got {max_body_bytes}")
    if isinstance(coordinator_or_path, MemoryCoordinator):
        base, owns = coordinator_or_path, False
    else:
        base = MemoryCoordinator(None if coordinator_or_path is None else str(coordinator_or_path))
        owns = True
    state = ServerState(base, require_keys=require_keys, owns_base=owns)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            state.close()

    app = FastAPI(
        title="zenbrain",
        version=__version__,
        summary="Seven-layer memory for LLM agents, over HTTP.",
        openapi_url="/v1/openapi.json",
        docs_url=None,  # Swagger UI and ReDoc load scripts from a CDN: nothing is fetched
        redoc_url=None,
        default_response_class=SafeJSONResponse,
        lifespan=lifespan,
    )
    app.state.zenbrain = state
    install_problem_handlers(app)
    v1 = APIRouter(prefix="/v1", responses=_ERRORS)
    v1.include_router(routes_memories.router)
    v1.include_router(routes_state.router)
    v1.include_router(routes_transfer.router)
    v1.include_router(routes_transfer.tools_router)

    @v1.get("/tools", tags=["tools"], response_model=list[dict[str, Any]])
    async def tools() -> list[dict[str, Any]]:
        """The five memory tools: name, description, argument and result schemas."""
        return [
            {
                "name": tool.name,
                "title": tool.title,
                "description": tool.description,
                "parameters": tool.parameters,
                "output_schema": tool.output_schema,
                "annotations": tool.annotations,
            }
            for tool in TOOLS
        ]

    app.include_router(v1)
    app.add_middleware(KeyFirst)  # the key is checked before the body is read
    app.add_middleware(_BodyLimit, limit=max_body_bytes)
    if cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(cors_origins),
            allow_methods=["GET", "POST", "PUT", "DELETE"],
            allow_headers=["Authorization", "X-API-Key", "Content-Type"],
        )
    if inspector:
        app.mount("/", StaticFiles(directory=_static_folder(), html=True), name="inspector")
    return app
