"""End to end: the server as a real subprocess over stdio, driven by the SDK's client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from zenbrain.tools import TOOL_NAMES

PYTHON = sys.executable
CONSOLE_SCRIPT = Path(sys.executable).with_name("zenbrain-mcp")


def _params(cwd: Path, *, db: str | None, console_script: bool = False) -> StdioServerParameters:
    env = {"ZENBRAIN_DB": db} if db is not None else {}
    if console_script:
        return StdioServerParameters(command=str(CONSOLE_SCRIPT), env=env, cwd=cwd)
    return StdioServerParameters(command=PYTHON, args=["-m", "zenbrain_mcp"], env=env, cwd=cwd)


@pytest.mark.slow
async def test_a_file_store_persists_between_two_server_runs(tmp_path: Path) -> None:
    # First run: python -m zenbrain_mcp, with a relative ZENBRAIN_DB.
    async with Client(_params(tmp_path, db="memories/zenbrain.db")) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        stored = await client.call_tool(
            "zenbrain_store", {"content": "Grandmother's marmalade needs bitter Seville oranges."}
        )
    assert names == list(TOOL_NAMES)
    assert stored.structured_content is not None
    # The relative path was resolved against the directory the server was started in.
    assert (tmp_path / "memories" / "zenbrain.db").is_file()

    # Second run: the installed console script, on the same file.
    assert CONSOLE_SCRIPT.exists(), "install with: pip install -e integrations/mcp --no-deps"
    async with Client(_params(tmp_path, db="memories/zenbrain.db", console_script=True)) as client:
        recalled = await client.call_tool(
            "zenbrain_recall", {"query": "seville oranges marmalade", "min_score": 0.01}
        )
        health = await client.call_tool("zenbrain_health", {})
    assert recalled.structured_content is not None
    results = recalled.structured_content["results"]
    assert [(r["id"], r["layer"]) for r in results] == [
        (stored.structured_content["id"], stored.structured_content["layer"])
    ]
    assert health.structured_content is not None
    assert health.structured_content["semantic"]["count"] == 1


def _jsonrpc(*messages: dict[str, object]) -> str:
    return "".join(json.dumps(message) + "\n" for message in messages)


@pytest.mark.slow
def test_stdout_carries_only_protocol_and_diagnostics_go_to_stderr(tmp_path: Path) -> None:
    session = _jsonrpc(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw-test", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "zenbrain_store", "arguments": {"content": "Raw stdio note"}},
        },
    )
    env = {**os.environ, "ZENBRAIN_DB": str(tmp_path / "raw.db")}
    done = subprocess.run(
        [PYTHON, "-m", "zenbrain_mcp"],
        input=session,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    replies = [json.loads(line) for line in lines]  # every stdout line is JSON-RPC
    assert all(reply["jsonrpc"] == "2.0" for reply in replies)
    call = next(reply for reply in replies if reply.get("id") == 2)
    assert call["result"]["structuredContent"]["layer"] == "semantic"
    assert "raw.db" in done.stderr  # the startup diagnostic went to stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    ("cwd", "db", "failing_path"),
    [
        # The start directory cannot hold files: tests run as root, where a read-only mode
        # does not stop writes, so use /proc, which refuses new files to everyone.
        ("/proc", None, "/proc/zenbrain.db"),
        # ZENBRAIN_DB points below a regular file.
        (None, "blocker/zenbrain.db", "blocker/zenbrain.db"),
    ],
)
def test_an_unwritable_database_stops_with_a_message_naming_path_and_fix(
    tmp_path: Path, cwd: str | None, db: str | None, failing_path: str
) -> None:
    (tmp_path / "blocker").write_text("a regular file, not a directory")
    env = {key: value for key, value in os.environ.items() if key != "ZENBRAIN_DB"}
    if db is not None:
        env["ZENBRAIN_DB"] = db
    done = subprocess.run(
        [PYTHON, "-m", "zenbrain_mcp"],
        input="",
        capture_output=True,
        text=True,
        cwd=cwd or tmp_path,
        env=env,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert failing_path in done.stderr
    assert "Set ZENBRAIN_DB to an absolute path or a path starting with ~/" in done.stderr
