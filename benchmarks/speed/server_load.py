"""Load on ``zenbrain serve``: concurrent clients on loopback beside the same calls in process.

16 concurrent clients (``--clients``) store and recall for a fixed time against a server on
loopback, beside the same calls made in process on the same kind of store, in the same run.
The server is ``python -m zenbrain serve`` in a process of its own (a SQLite file); the
clients are asyncio tasks of this process, each with its own ``httpx.AsyncClient``, each
alternating a store and a recall. In process, the same 16 tasks call the coordinator's async
twins on a store of its own. Latency is per call (p50, p99), errors are any call that raised
or answered an HTTP error. ``--write-docs`` replaces the "Load" section of
docs/guide/server.md.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx
import numpy as np

from benchmarks.common.machine import machine_line
from benchmarks.common.paths import DOCS_DIR
from benchmarks.runner import Command
from zenbrain import MemoryCoordinator

DOCS = DOCS_DIR / "guide" / "server.md"
HEADING = "## Load: 16 clients on loopback"
NOTE = (
    "The HTTP rows include the clients' own work (16 `httpx` clients in one Python "
    "process, on the same cores as the server) and, per request, JSON parsing, pydantic "
    "validation and the API-key check on a worker thread; the coordinator's calls behind "
    "them are the same as in process."
)
WORDS = [
    "harbour",
    "ferry",
    "staging",
    "database",
    "backup",
    "nightly",
    "kiel",
    "payments",
    "release",
    "migration",
    "cluster",
    "coffee",
    "tea",
    "bicycle",
    "locker",
    "invoice",
    "meeting",
    "tuesday",
    "review",
    "sailing",
    "python",
    "postgres",
]


@dataclass
class Tally:
    """Latencies (seconds) per operation, and errors."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: {"store": [], "recall": []})
    errors: int = 0
    first_error: str = ""


def _text(rng: np.random.Generator) -> str:
    return " ".join(rng.choice(WORDS, size=12))


def _seed(location: str, count: int) -> None:
    rng = np.random.default_rng(7)
    with MemoryCoordinator(location) as memory:
        memory.store_many([_text(rng) for _ in range(count)])


async def _drive(
    clients: int, seconds: float, call: Callable[[int, str, str], Awaitable[None]]
) -> tuple[Tally, float]:
    tally = Tally()
    deadline = time.perf_counter() + seconds

    async def client(number: int) -> None:
        rng = np.random.default_rng(100 + number)
        turn = 0
        while time.perf_counter() < deadline:
            op = "store" if turn % 2 == 0 else "recall"
            text = _text(rng) if op == "store" else " ".join(rng.choice(WORDS, size=3))
            started = time.perf_counter()
            try:
                await call(number, op, text)
            except Exception as exc:  # counted, and the client goes on
                tally.errors += 1
                tally.first_error = tally.first_error or f"{type(exc).__name__}: {exc}"[:200]
            else:
                tally.latencies[op].append(time.perf_counter() - started)
            turn += 1

    started = time.perf_counter()
    await asyncio.gather(*(client(i) for i in range(clients)))
    return tally, time.perf_counter() - started


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(url: str, server: subprocess.Popen[bytes]) -> None:
    for _ in range(300):
        if server.poll() is not None:
            raise RuntimeError("the server exited at start")
        try:
            if httpx.get(f"{url}/v1/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError("the server did not start in 30 s")


async def _over_http(url: str, clients: int, seconds: float) -> tuple[Tally, float]:
    sessions = [httpx.AsyncClient(base_url=url, timeout=60) for _ in range(clients)]

    async def call(number: int, op: str, text: str) -> None:
        http = sessions[number]
        if op == "store":
            answer = await http.post("/v1/memories", json={"content": text})
        else:
            answer = await http.post("/v1/recall", json={"query": text, "limit": 10})
        answer.raise_for_status()

    try:
        return await _drive(clients, seconds, call)
    finally:
        for http in sessions:
            await http.aclose()


async def _in_process(location: str, clients: int, seconds: float) -> tuple[Tally, float]:
    with MemoryCoordinator(location) as memory:

        async def call(number: int, op: str, text: str) -> None:
            if op == "store":
                await memory.astore(text)
            else:
                await memory.arecall(text, limit=10)

        return await _drive(clients, seconds, call)


def _row(mode: str, op: str, tally: Tally, elapsed: float) -> dict[str, object]:
    values = np.array(tally.latencies[op]) * 1000
    return {
        "mode": mode,
        "op": op,
        "calls": len(values),
        "per_s": len(values) / elapsed,
        "p50": float(np.percentile(values, 50)) if len(values) else float("nan"),
        "p99": float(np.percentile(values, 99)) if len(values) else float("nan"),
        "errors": tally.errors,
    }


def run(clients: int, seconds: float, seed_memories: int, command: str) -> str:
    """The docs section of one run; ``command`` is the command line that reproduces it."""
    folder = Path(tempfile.mkdtemp(prefix="zenbrain-load-"))
    served, local = str(folder / "served.db"), str(folder / "local.db")
    for location in (served, local):
        _seed(location, seed_memories)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "zenbrain", "serve", "--db", served, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        _wait_for(url, server)
        print(f"HTTP: {clients} clients for {seconds:g} s ...", file=sys.stderr)
        http_tally, http_elapsed = asyncio.run(_over_http(url, clients, seconds))
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"in process: {clients} tasks for {seconds:g} s ...", file=sys.stderr)
    local_tally, local_elapsed = asyncio.run(_in_process(local, clients, seconds))
    rows = [_row("HTTP (loopback)", op, http_tally, http_elapsed) for op in ("store", "recall")]
    rows += [_row("in process", op, local_tally, local_elapsed) for op in ("store", "recall")]
    lines = [
        HEADING,
        "",
        f"`{command}`: {clients} concurrent clients, each alternating a "
        f"store and a recall (limit 10) for {seconds:g} s, on a SQLite store seeded with "
        f"{seed_memories:,} memories; the server is `zenbrain serve` in its own process, the "
        "clients asyncio tasks with an `httpx.AsyncClient` each. In process: the same tasks "
        "on the coordinator's async twins. "
        f"{machine_line()}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC.",
        "",
        "| mode | call | calls | calls/s | p50 ms | p99 ms | errors |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['mode']} | {row['op']} | {row['calls']:,} | {row['per_s']:.0f} | "
            f"{row['p50']:.1f} | {row['p99']:.1f} | {row['errors']} |"
        )
    ratios = []
    for op in ("store", "recall"):
        over, local_row = rows[0 if op == "store" else 1], rows[2 if op == "store" else 3]
        ratios.append(
            f"{op} p50 {float(over['p50']) / float(local_row['p50']):.2f}x, "  # type: ignore[arg-type]
            f"p99 {float(over['p99']) / float(local_row['p99']):.2f}x"  # type: ignore[arg-type]
        )
    lines += ["", "HTTP over in process: " + "; ".join(ratios) + ".", "", NOTE]
    if http_tally.first_error or local_tally.first_error:
        lines.append(f"First error: {http_tally.first_error or local_tally.first_error}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    cli = Command("speed.server_load", docs=DOCS)
    cli.parser.add_argument("--clients", type=int, default=16)
    cli.parser.add_argument("--seconds", type=float, default=10.0)
    cli.parser.add_argument("--seed-memories", type=int, default=2000)
    args = cli.parse(argv)
    command = cli.command(
        "--clients",
        args.clients,
        "--seconds",
        f"{args.seconds:g}",
        "--seed-memories",
        args.seed_memories,
    )
    section = run(args.clients, args.seconds, args.seed_memories, command)
    print(section)
    cli.write_docs(args, section, HEADING)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
