"""``zenbrain-mcp`` / ``python -m zenbrain_mcp``: serve the memory tools over stdio.

Standard output carries the protocol only; every diagnostic goes to standard error. A
database that cannot be written stops the server before it starts, with a message that
names the path and says how to fix it.
"""

from __future__ import annotations

import logging
import sys

from zenbrain.errors import ZenbrainError

from .config import check_writable, resolve_contexts, resolve_db
from .server import create_server

__all__ = ["main"]


def _first_zenbrain_error(exc: BaseException) -> ZenbrainError | None:
    # Errors raised in the server's lifespan arrive wrapped in task-group exception groups.
    if isinstance(exc, ZenbrainError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _first_zenbrain_error(inner)
            if found is not None:
                return found
    return None


def main() -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(name)s: %(message)s")
    try:
        # Check the configuration up front so a bad path fails before the client handshake.
        check_writable(resolve_db())
        resolve_contexts()
        create_server().run("stdio")
    except KeyboardInterrupt:
        return 130
    except BaseException as exc:
        error = _first_zenbrain_error(exc)
        if error is None:
            raise
        print(f"zenbrain-mcp: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
