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
    assert "Set ZENBRAIN_DB (or pass db=/--db) to an absolute path" in done.stderr


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_print_and_exit_without_creating_a_database(
    tmp_path: Path, flag: str
) -> None:
    env = {key: value for key, value in os.environ.items() if key != "ZENBRAIN_DB"}
    done = subprocess.run(
        [str(CONSOLE_SCRIPT), flag],
        input="",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0
    if flag == "--help":
        for option in ("--db", "--namespace", "--embedder", "--version", "ZENBRAIN_EMBEDDER"):
            assert option in done.stdout
    else:
        assert done.stdout.startswith("zenbrain-mcp ")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--embedder", "word2vec"], "unknown embedder 'word2vec'"),
        (["--namespace", ""], "namespace must be a non-empty string"),
    ],
)
def test_a_bad_flag_stops_before_the_handshake(
    tmp_path: Path, flags: list[str], message: str
) -> None:
    done = subprocess.run(
        [PYTHON, "-m", "zenbrain_mcp", "--db", str(tmp_path / "x.db"), *flags],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert message in done.stderr
    assert not (tmp_path / "x.db").exists()


@pytest.mark.slow
async def test_flags_choose_the_store_namespace_and_embedder(tmp_path: Path) -> None:
    db = str(tmp_path / "flags.db")

    def server(namespace: str) -> StdioServerParameters:
        return StdioServerParameters(
            command=str(CONSOLE_SCRIPT),
            args=["--db", db, "--namespace", namespace],
            env={"ZENBRAIN_EMBEDDER": "hashing:32"},
            cwd=tmp_path,
        )

    async with Client(server("ada")) as client:
        await client.call_tool("zenbrain_store", {"content": "Ada keeps bees"})
    async with Client(server("bob")) as client:
        bob = await client.call_tool("zenbrain_recall", {"query": "bees", "min_score": 0.01})
    async with Client(server("ada")) as client:
        ada = await client.call_tool("zenbrain_recall", {"query": "bees", "min_score": 0.01})
    assert bob.structured_content is not None and bob.structured_content["count"] == 0
    assert ada.structured_content is not None
    assert [r["content"] for r in ada.structured_content["results"]] == ["Ada keeps bees"]
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".db"] == ["flags.db"]
    from zenbrain import MemoryCoordinator

    with MemoryCoordinator(db) as reopened:
        assert reopened.database.get_meta("embedding_dimension") == "32"


@pytest.mark.slow
def test_a_lone_surrogate_or_a_huge_integer_over_stdio_gets_an_error_result(
    tmp_path: Path,
) -> None:
    # What a JavaScript client sends for a string cut in the middle of an emoji, and an
    # integer no model should produce; raw lines, since the SDK's client cannot send them.
    process = subprocess.Popen(
        [PYTHON, "-m", "zenbrain_mcp", "--db", str(tmp_path / "hostile.db")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    watchdog = threading.Timer(60, process.kill)
    watchdog.start()
    seen: list[str] = []
    try:
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw-test", "version": "0"},
            },
        }
        _send(process, initialize)
        _reply(process, 1, seen)
        _send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        surrogate = {"name": "zenbrain_store", "arguments": {"content": "cut \ud83d"}}
        _send(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": surrogate})
        huge = {"name": "zenbrain_recall", "arguments": {"query": "x", "limit": 10**400}}
        _send(process, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": huge})
        emoji = {"name": "zenbrain_store", "arguments": {"content": "party \U0001f389"}}
        _send(process, {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": emoji})
        replies = [_reply(process, request_id, seen)["result"] for request_id in (2, 3)]
        stored = _reply(process, 4, seen)["result"]
    finally:
        watchdog.cancel()
        process.kill()
        process.wait()
    surrogate_error, huge_error = (json.loads(r["content"][0]["text"])["error"] for r in replies)
    assert replies[0]["isError"] is True and "lone surrogate" in surrogate_error["message"]
    assert replies[1]["isError"] is True and "401 digits" in huge_error["message"]
    # A proper surrogate pair (escaped the same way by json.dumps) is ordinary text.
    assert stored["structuredContent"]["layer"] == "semantic"


@pytest.mark.slow
async def test_an_encrypted_store_is_served_with_the_key_from_zenbrain_key_file(
    tmp_path: Path,
) -> None:
    """The key comes from the environment (here a key file), never the command line."""
    pytest.importorskip("sqlcipher3")
    from zenbrain import MemoryCoordinator

    key_file = tmp_path / "zenbrain.key"
    key_file.write_text("mcp passphrase\n")
    env = {
        "ZENBRAIN_DB": str(tmp_path / "private.db"),
        "ZENBRAIN_KEY_FILE": str(key_file),
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),  # this checkout's zenbrain
    }
    params = StdioServerParameters(command=PYTHON, args=["-m", "zenbrain_mcp"], env=env)
    async with Client(params) as client:
        stored = await client.call_tool(
            "zenbrain_store", {"content": "Grandmother's marmalade needs bitter Seville oranges."}
        )
    assert stored.structured_content is not None and "id" in stored.structured_content
    assert b"marmalade" not in (tmp_path / "private.db").read_bytes()
    with MemoryCoordinator(tmp_path / "private.db", key="mcp passphrase") as memory:
        assert memory.get(stored.structured_content["id"]) is not None
