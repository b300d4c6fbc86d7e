"""zenbrain's seven-layer memory as an MCP server (stdio), on the official ``mcp`` SDK.

Run it with ``zenbrain-mcp`` (or ``python -m zenbrain_mcp``), or build the server yourself
with :func:`create_server`; :func:`list_tools` and :func:`call_tool` serve the tools from a
low-level ``mcp.server.Server`` of your own.
"""

from .server import (
    INSTRUCTIONS,
    LEGACY_ARGUMENT_NAMES,
    SERVER_NAME,
    call_tool,
    create_server,
    list_tools,
    open_memory,
    run_stdio,
    server_version,
)

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
