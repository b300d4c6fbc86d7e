"""``zenbrain-mcp`` / ``python -m zenbrain_mcp``: serve the memory tools over stdio.

Standard output carries the protocol only; every diagnostic goes to standard error. The
command line is read before anything is opened, so ``--help`` and ``--version`` touch no
database. A database that cannot be written, or an embedder that cannot be loaded, stops
the server before the client handshake with a message that says how to fix it.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from zenbrain import __version__ as zenbrain_version
from zenbrain.config import (
    CONTEXTS_ENV,
    DB_ENV,
    DEFAULT_DB,
    EMBEDDER_ENV,
    EMBEDDER_SPECS,
    KEY_ENV,
    KEY_FILE_ENV,
    check_writable,
    resolve_contexts,
    resolve_embedder,
    resolve_location,
)
from zenbrain.errors import ZenbrainError

from .server import create_server, run_stdio, server_version

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``zenbrain-mcp``."""
    parser = argparse.ArgumentParser(
        prog="zenbrain-mcp",
        description="Serve zenbrain's seven-layer memory to an MCP client over stdio: "
        "zenbrain_store, zenbrain_recall, zenbrain_forget, zenbrain_consolidate and "
        "zenbrain_health.",
        epilog=f"Each option falls back to its environment variable ({DB_ENV}, "
        f"{EMBEDDER_ENV}, {CONTEXTS_ENV}). An encrypted store's key comes from {KEY_ENV} or "
        f"{KEY_FILE_ENV} (a file holding it), never from the command line. Standard output "
        "carries the MCP protocol only; diagnostics go to standard error.",
    )
    parser.add_argument(
        "--db",
        metavar="PATH_OR_URL",
        help=f"the store: a SQLite path (~/ is your home; relative paths are relative to the "
        f"directory the client starts the server in), :memory:, or a SQLAlchemy URL such as "
        f"postgresql+psycopg://... (default: ${DB_ENV}, else {DEFAULT_DB})",
    )
    parser.add_argument(
        "--namespace",
        metavar="NAME",
        help="the namespace inside the store, e.g. one per user or project (default: default)",
    )
    parser.add_argument(
        "--embedder",
        metavar="SPEC",
        help=f"embedding provider for semantic recall: {', '.join(EMBEDDER_SPECS)}, or none "
        f"(default: ${EMBEDDER_ENV}, else none: lexical recall only)",
    )
    parser.add_argument(
        "--contexts",
        metavar="LIST",
        help=f"comma-separated context domains (default: ${CONTEXTS_ENV}, else "
        "personal,work,learning,creative)",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"zenbrain-mcp {server_version()} (zenbrain {zenbrain_version})",
    )
    return parser


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


def main(argv: Sequence[str] | None = None) -> int:
    options = build_parser().parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(name)s: %(message)s")
    try:
        # Check the configuration up front so a mistake fails before the client handshake.
        check_writable(resolve_location(options.db))
        contexts = resolve_contexts(options.contexts)
        embedder = resolve_embedder(options.embedder)
        server = create_server(
            db=options.db, namespace=options.namespace, contexts=contexts, embedder=embedder
        )
        run_stdio(server)
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
