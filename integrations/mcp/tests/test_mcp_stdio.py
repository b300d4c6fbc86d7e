"""End to end: the server as a real subprocess over stdio, driven by the SDK's client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

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


def _send(process: subprocess.Popen[str], message: dict[str, object]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message) + "\n")
    process.stdin.flush()


def _reply(process: subprocess.Popen[str], request_id: int, seen: list[str]) -> dict[str, Any]:
    assert process.stdout is not None
    while True:
        line = process.stdout.readline()
        assert line, "the server closed stdout before replying"
        seen.append(line)
        message: dict[str, Any] = json.loads(line)  # every stdout line must be JSON-RPC
        if message.get("id") == request_id:
            return message


@pytest.mark.slow
def test_stdout_carries_only_protocol_and_diagnostics_go_to_stderr(tmp_path: Path) -> None:
    env = {**os.environ, "ZENBRAIN_DB": str(tmp_path / "raw.db")}
    process = subprocess.Popen(
        [PYTHON, "-m", "zenbrain_mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    # A hung server must fail the test, not hang it.
    watchdog = threading.Timer(60, process.kill)
    watchdog.start()
    seen: list[str] = []
    try:
        _send(
            process,
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
        )
        assert _reply(process, 1, seen)["result"]["serverInfo"]["name"] == "zenbrain"
        _send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(
            process,
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "zenbrain_store", "arguments": {"content": "Raw stdio note"}},
            },
        )
        call = _reply(process, 2, seen)
        assert process.stdin is not None
        process.stdin.close()
        assert process.wait(timeout=30) == 0
        assert process.stdout is not None and process.stderr is not None
        rest = process.stdout.read()
        stderr = process.stderr.read()
    finally:
        watchdog.cancel()
        process.kill()
        process.wait()
    assert call["result"]["structuredContent"]["layer"] == "semantic"
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in [*seen, *rest.splitlines()])
    assert "raw.db" in stderr  # the startup diagnostic went to stderr, not stdout
    assert not any("raw.db" in line for line in seen)


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
