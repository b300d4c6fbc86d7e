"""Drive an installed zenbrain the way a new user would: the ``zenbrain`` command, and the
``zenbrain-mcp`` server through the MCP SDK's client when it is installed too.

Run it with the Python of the environment under test, from any directory:

    /path/to/venv/bin/python tests/packaging/smoke_installed.py [--mcp-only]

It works in a fresh temporary folder with its own HOME and no ZENBRAIN_* variables, and exits
non-zero with the command and its output at the first surprise. CI's ``dist`` job runs it
against wheels installed from PyPI's dependencies; ``tests/packaging`` runs it in the suite.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

BIN = Path(sys.executable).parent


class SmokeFailure(AssertionError):
    pass


def check(condition: bool, what: str, done: subprocess.CompletedProcess[str] | None = None) -> None:
    if not condition:
        detail = ""
        if done is not None:
            detail = (
                f"\n$ {' '.join(done.args)}\nexit {done.returncode}\n{done.stdout}{done.stderr}"
            )
        raise SmokeFailure(what + detail)


def cli(
    *args: str, env: dict[str, str], cwd: Path, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "zenbrain"), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        input=stdin,
        timeout=120,
    )


def drive_cli(work: Path, env: dict[str, str]) -> None:
    import zenbrain

    installed = Path(zenbrain.__file__).resolve()
    check(
        Path(sys.prefix).resolve() in installed.parents,
        f"zenbrain is imported from {installed}, not from this environment ({sys.prefix})",
    )
    version = cli("--version", env=env, cwd=work)
    check(version.returncode == 0 and zenbrain.__version__ in version.stdout, "--version", version)
    check(cli("--help", env=env, cwd=work).returncode == 0, "--help")

    # A read never creates a store, and says so.
    typo = cli("recall", "anything", "--db", "typo.db", env=env, cwd=work)
    check(typo.returncode == 1 and "no zenbrain store" in typo.stderr, "read of a typo", typo)
    check(not (work / "typo.db").exists(), "a read created typo.db")

    home_db = Path(env["HOME"]) / ".zenbrain" / "memory.db"
    missing = cli("store", "x", "--db", str(home_db), env=env, cwd=work)
    check(missing.returncode == 1 and "mkdir -p" in missing.stderr, "missing folder", missing)
    check(not home_db.parent.exists(), "store created a folder")
    home_db.parent.mkdir(parents=True)
    with_env = {**env, "ZENBRAIN_DB": "~/.zenbrain/memory.db"}
    stored = cli("store", "The backup runs at 02:00", "--json", env=with_env, cwd=work)
    check(stored.returncode == 0, "store", stored)
    memory_id = json.loads(stored.stdout)["id"]
    recalled = cli("--json", "recall", "when does the backup run", env=with_env, cwd=work)
    check(recalled.returncode == 0, "recall", recalled)
    check(
        [r["id"] for r in json.loads(recalled.stdout)["results"]] == [memory_id], "recall", recalled
    )
    check(home_db.is_file() and not (work / "zenbrain.db").exists(), "store location")

    exported = cli("export", env=with_env, cwd=work)
    check(exported.returncode == 0 and "The backup runs" in exported.stdout, "export", exported)
    imported = cli(
        "import", "-", "--namespace", "copy", env=with_env, cwd=work, stdin=exported.stdout
    )
    check(imported.returncode == 0, "import", imported)
    listed = cli("list", "--namespace", "copy", "--json", env=with_env, cwd=work)
    check(json.loads(listed.stdout)["count"] == 1, "list after import", listed)
    backup = cli("backup", str(work / "backup.db"), env=with_env, cwd=work)
    check(backup.returncode == 0 and (work / "backup.db").is_file(), "backup", backup)
    check(
        cli("health", "--db", str(work / "backup.db"), env=env, cwd=work).returncode == 0,
        "health of the backup",
    )


async def drive_mcp(work: Path, env: dict[str, str]) -> None:
    from mcp import Client, StdioServerParameters

    server = StdioServerParameters(
        command=str(BIN / "zenbrain-mcp"),
        env={**env, "ZENBRAIN_DB": str(work / "mcp.db")},
        cwd=str(work),
    )
    async with Client(server) as client:
        names = sorted(tool.name for tool in (await client.list_tools()).tools)
        stored = await client.call_tool("zenbrain_store", {"content": "The cat is called Mia."})
        recalled = await client.call_tool("zenbrain_recall", {"query": "cat name"})
    check(
        names
        == sorted(
            [
                "zenbrain_store",
                "zenbrain_recall",
                "zenbrain_forget",
                "zenbrain_consolidate",
                "zenbrain_health",
            ]
        ),
        f"MCP tools: {names}",
    )
    check(stored.structured_content is not None, "MCP store")
    check(
        recalled.structured_content is not None and recalled.structured_content["results"],
        "MCP recall",
    )


def main() -> int:
    mcp_only = "--mcp-only" in sys.argv[1:]
    with tempfile.TemporaryDirectory(prefix="zenbrain-smoke-") as folder:
        work = Path(folder)
        (work / "home").mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith("ZENBRAIN_")}
        env["HOME"] = str(work / "home")
        if not mcp_only:
            drive_cli(work, env)
            print("zenbrain: ok")
        if (BIN / "zenbrain-mcp").exists():
            asyncio.run(drive_mcp(work, env))
            print("zenbrain-mcp: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
