"""Where the server keeps its memory: ``ZENBRAIN_DB`` and ``ZENBRAIN_CONTEXTS``.

Kept apart from the server so the rules (home expansion, relative to the start directory,
``:memory:``) and the writability check can be tested without starting anything.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from zenbrain.errors import DatabaseNotWritableError, InvalidInputError

__all__ = [
    "DEFAULT_CONTEXTS",
    "DEFAULT_DB",
    "check_writable",
    "resolve_contexts",
    "resolve_db",
]

DEFAULT_DB = "./zenbrain.db"
DEFAULT_CONTEXTS: tuple[str, ...] = ("personal", "work", "learning", "creative")
MEMORY = ":memory:"


def _is_url(value: str) -> bool:
    return "://" in value


def resolve_db(
    value: str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> str:
    """The database to open: ``value``, else ``ZENBRAIN_DB``, else ``./zenbrain.db``.

    A leading ``~/`` is the home directory; a relative path is taken relative to ``cwd``
    (the directory the client started the server in); ``:memory:`` and SQLAlchemy URLs
    pass through unchanged.
    """
    env = os.environ if environ is None else environ
    raw = (value if value is not None else env.get("ZENBRAIN_DB", "")).strip() or DEFAULT_DB
    if raw == MEMORY or _is_url(raw):
        return raw
    if raw == "~" or raw.startswith("~/"):
        path = Path.home() / raw[2:]
    else:
        path = Path(raw)
        if not path.is_absolute():
            path = Path(cwd if cwd is not None else os.getcwd()) / path
    return os.path.normpath(path)


def resolve_contexts(
    value: str | list[str] | tuple[str, ...] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> tuple[str, ...]:
    """Context domains: ``value``, else the comma-separated ``ZENBRAIN_CONTEXTS``, else
    personal, work, learning, creative. Blank entries are dropped; duplicates collapse."""
    env = os.environ if environ is None else environ
    if value is None:
        value = env.get("ZENBRAIN_CONTEXTS", "")
    parts = value.split(",") if isinstance(value, str) else list(value)
    contexts = tuple(dict.fromkeys(part.strip() for part in parts if part.strip()))
    if not contexts and (value if isinstance(value, str) else parts):
        raise InvalidInputError(
            f"ZENBRAIN_CONTEXTS must name at least one context, got {value!r}; "
            "use a comma-separated list such as 'personal,work,learning,creative'."
        )
    return contexts or DEFAULT_CONTEXTS


def check_writable(db: str) -> None:
    """Raise :class:`DatabaseNotWritableError` unless the SQLite file at ``db`` can be
    created and written, together with the ``-wal``/``-shm`` files beside it.

    The message names the path that failed and says to set ``ZENBRAIN_DB`` to an absolute
    or ``~/`` path, because some clients start servers in an unwritable ``/``.
    """
    if db == MEMORY or _is_url(db):
        return
    path = Path(db)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # SQLite needs the directory too: it creates the -wal and -shm files next to the db.
        with tempfile.TemporaryFile(dir=path.parent, prefix=".zenbrain-probe-"):
            pass
        with open(path, "ab"):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise DatabaseNotWritableError(
            f"zenbrain-mcp cannot write its memory file {db}: {reason} "
            f"({exc.filename or path.parent}). A relative ZENBRAIN_DB, like the default "
            f"./zenbrain.db, is resolved against the directory the server was started in "
            f"({os.getcwd()}), and some MCP clients start servers in an unwritable directory "
            "such as /. Set ZENBRAIN_DB to an absolute path or a path starting with ~/, "
            "for example ZENBRAIN_DB=~/.zenbrain/memory.db."
        ) from exc
