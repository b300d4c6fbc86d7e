"""The MCP server: the five tools of :mod:`zenbrain.tools` on the official SDK's ``MCPServer``.

Nothing here decides anything about memory. Names, descriptions, argument and result
schemas and behaviour hints come from :data:`zenbrain.tools.TOOLS`; calls go through
:func:`zenbrain.tools.adispatch`. This module only translates to MCP: a successful call
returns the result as structured content plus the same JSON as text, and an error result
(bad arguments, unknown ids, store errors) comes back with ``isError`` set so the model can
read it and try again.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import ConfigDict

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError
from zenbrain.tools import TOOLS, ToolDefinition, adispatch

from .config import check_writable, resolve_contexts, resolve_db

__all__ = ["SERVER_NAME", "create_server", "mcp_tools"]

SERVER_NAME = "zenbrain"
logger = logging.getLogger("zenbrain_mcp")

CoordinatorSource = MemoryCoordinator | Callable[[Context], MemoryCoordinator]

INSTRUCTIONS = (
    "zenbrain is a memory that outlives the conversation. Use zenbrain_store to remember "
    "facts, experiences, procedures and pinned core facts; zenbrain_recall to look things "
    "up (each result has an id and a layer); zenbrain_forget with that id and layer to "
    "delete a memory for good; zenbrain_consolidate for a maintenance pass that turns "
    "emotionally weighty episodes into facts; zenbrain_health for per-layer counts."
)


class _PassThroughArguments(ArgModelBase):
    """Hands the raw arguments to the handler: validation belongs to ``zenbrain.tools``,
    which turns bad arguments into an error the model can read."""

    model_config = ConfigDict(extra="allow", arbitrary_types_allowed=True)

    def model_dump_one_level(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


def _unquote_json_containers(definition: ToolDefinition, arguments: dict[str, Any]) -> None:
    # Some clients send arrays as JSON text ("[\"a\", \"b\"]"); accept those for array
    # arguments, as the SDK does for tools it builds from Python signatures.
    properties = definition.parameters.get("properties", {})
    for name, value in arguments.items():
        if isinstance(value, str) and properties.get(name, {}).get("type") == "array":
            try:
                parsed = json.loads(value)
            except ValueError:
                continue
            if isinstance(parsed, list):
                arguments[name] = parsed


def _as_call_result(result: dict[str, Any]) -> CallToolResult:
    text = TextContent(type="text", text=json.dumps(result, ensure_ascii=False, indent=2))
    if "error" in result:
        return CallToolResult(content=[text], is_error=True)
    return CallToolResult(content=[text], structured_content=result)


def _lifespan_coordinator(ctx: Context) -> MemoryCoordinator:
    memory = ctx.request_context.lifespan_context
    if not isinstance(memory, MemoryCoordinator):
        raise TypeError(
            "zenbrain's MCP tools found no MemoryCoordinator in the server's lifespan "
            "context; pass one to mcp_tools(coordinator) when mounting them elsewhere."
        )
    return memory


def _mcp_tool(definition: ToolDefinition, source: CoordinatorSource) -> Tool:
    async def call(ctx: Context, **arguments: Any) -> CallToolResult:
        memory = source if isinstance(source, MemoryCoordinator) else source(ctx)
        _unquote_json_containers(definition, arguments)
        return _as_call_result(await adispatch(memory, definition.name, arguments))

    return Tool(
        fn=call,
        name=definition.name,
        title=definition.title,
        description=definition.description,
        parameters=json.loads(json.dumps(definition.parameters)),
        fn_metadata=FuncMetadata(
            arg_model=_PassThroughArguments,
            output_schema=json.loads(json.dumps(definition.output_schema)),
        ),
        is_async=True,
        context_kwarg="ctx",
        annotations=ToolAnnotations.model_validate(
            {"title": definition.title, **definition.annotations}
        ),
    )


def mcp_tools(coordinator: CoordinatorSource | None = None) -> list[Tool]:
    """The five tools as ``MCPServer`` tools, to mount on a server of your own with
    ``MCPServer(..., tools=mcp_tools(memory))``.

    ``coordinator`` is the memory they act on, or a callable that picks it from the
    request :class:`Context`; ``None`` takes it from the server's lifespan context, which
    is how :func:`create_server` wires them.
    """
    source: CoordinatorSource = _lifespan_coordinator if coordinator is None else coordinator
    return [_mcp_tool(definition, source) for definition in TOOLS]


def create_server(
    coordinator: MemoryCoordinator | None = None,
    *,
    db: str | None = None,
    contexts: str | list[str] | tuple[str, ...] | None = None,
) -> MCPServer[MemoryCoordinator]:
    """An ``MCPServer`` offering the five memory tools.

    Given a ``coordinator``, the server uses it and leaves closing it to the caller.
    Otherwise the server's lifespan opens one on start and closes it on exit: ``db`` (else
    ``ZENBRAIN_DB``, else ``./zenbrain.db``) with ``contexts`` (else ``ZENBRAIN_CONTEXTS``).
    """
    if coordinator is not None and (db is not None or contexts is not None):
        raise InvalidInputError(
            "create_server() takes either a coordinator or db/contexts to build one, not "
            "both; configure the coordinator you pass in instead."
        )

    @asynccontextmanager
    async def lifespan(_server: MCPServer[MemoryCoordinator]) -> AsyncIterator[MemoryCoordinator]:
        if coordinator is not None:
            yield coordinator
            return
        path = resolve_db(db)
        domains = resolve_contexts(contexts)
        check_writable(path)
        memory = await anyio.to_thread.run_sync(
            lambda: MemoryCoordinator(path, contexts=list(domains))
        )
        logger.info("zenbrain memory at %s (contexts: %s)", path, ", ".join(domains))
        try:
            yield memory
        finally:
            await anyio.to_thread.run_sync(memory.close)

    return MCPServer(
        SERVER_NAME,
        title="zenbrain memory",
        instructions=INSTRUCTIONS,
        version=_version(),
        tools=mcp_tools(),
        lifespan=lifespan,
    )


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("zenbrain-mcp")
    except PackageNotFoundError:  # running from a source tree without installing
        return "0.0.0"
