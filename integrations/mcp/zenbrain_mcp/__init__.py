"""zenbrain's seven-layer memory as an MCP server (stdio), on the official ``mcp`` SDK.

Run it with ``zenbrain-mcp`` (or ``python -m zenbrain_mcp``), or build the server yourself
with :func:`create_server` / mount the tools elsewhere with :func:`mcp_tools`.
"""

from .config import DEFAULT_CONTEXTS, DEFAULT_DB, check_writable, resolve_contexts, resolve_db
from .server import SERVER_NAME, create_server, mcp_tools

__all__ = [
    "DEFAULT_CONTEXTS",
    "DEFAULT_DB",
    "SERVER_NAME",
    "check_writable",
    "create_server",
    "mcp_tools",
    "resolve_contexts",
    "resolve_db",
]
