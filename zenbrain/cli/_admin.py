"""Core blocks, sessions and namespaces."""

from __future__ import annotations

import sys

import click

from zenbrain.cli._memories import not_found
from zenbrain.cli._options import EXIT_OK, global_options, open_memory, settings
from zenbrain.cli._output import emit, table
from zenbrain.errors import InvalidInputError

__all__ = ["COMMANDS"]


@click.group()
def core() -> None:
    """Core blocks: set, list, delete.

    Labelled text always in an agent's context (persona, preferences...).
    """


@core.command(name="set")
@click.argument("label")
@click.argument("content")
@global_options
def core_set(label: str, content: str) -> int:
    """Set the block LABEL to CONTENT (- reads standard input); replaces an existing one."""
    text = sys.stdin.read() if content == "-" else content
    with open_memory(write=True, embed=True) as memory:
        block = memory.set_core_block(label, text)
    emit(block.to_dict(), f"set core block {block.label!r} ({block.id})", as_json=settings().json)
    return EXIT_OK


@core.command(name="list")
@global_options
def core_list() -> int:
    """List the core blocks."""
    with open_memory() as memory:
        rows = [block.to_dict() for block in memory.core_blocks()]
    emit(
        {"count": len(rows), "blocks": rows},
        table(rows, ["label", "id", "content"]),
        as_json=settings().json,
    )
    return EXIT_OK


@core.command(name="delete")
@click.argument("label")
@global_options
def core_delete(label: str) -> int:
    """Delete the core block LABEL."""
    with open_memory() as memory:
        deleted = memory.delete_core_block(label)
    if not deleted:
        return not_found(f"no core block labelled {label!r}", {"deleted": False, "label": label})
    emit(
        {"deleted": True, "label": label}, f"deleted core block {label!r}", as_json=settings().json
    )
    return EXIT_OK


_SESSION_OPTION = click.option(
    "--session",
    "session_id",
    metavar="ID",
    help="This session instead of the store's current one (the most recently started).",
)


@click.group()
def session() -> None:
    """Sessions: show, add, clear.

    The short-term transcript an agent keeps per conversation.
    """


@session.command(name="show")
@_SESSION_OPTION
@click.option(
    "--limit",
    type=click.IntRange(1),
    default=None,
    help="The last N messages. Default: the short-term window (50).",
)
@global_options
def session_show(session_id: str | None, limit: int | None) -> int:
    """Show a session's messages, oldest first."""
    with open_memory() as memory:
        turns = [t.to_dict() for t in memory.conversation(limit, session_id=session_id)]
    emit(
        {"count": len(turns), "interactions": turns},
        table(turns, ["timestamp", "role", "content"]),
        as_json=settings().json,
    )
    return EXIT_OK


@session.command(name="add")
@click.argument("role")
@click.argument("content")
@_SESSION_OPTION
@global_options
def session_add(role: str, content: str, session_id: str | None) -> int:
    """Append a message (ROLE: user, assistant, ...) to a session; CONTENT - reads stdin."""
    text = sys.stdin.read() if content == "-" else content
    with open_memory(write=True) as memory:
        memory.add_interaction(role, text, session_id=session_id)
        current = session_id or memory.session_id
    emit(
        {"session_id": current, "role": role},
        f"added a {role} message to session {current}",
        as_json=settings().json,
    )
    return EXIT_OK


@session.command(name="clear")
@_SESSION_OPTION
@global_options
def session_clear(session_id: str | None) -> int:
    """Delete a session's messages (long-term memories stay)."""
    with open_memory() as memory:
        removed = memory.clear_session(session_id)
    emit({"deleted": removed}, f"deleted {removed} messages", as_json=settings().json)
    return EXIT_OK


@click.group()
def namespace() -> None:
    """Namespaces: list, drop.

    Separate memories (one per user or agent) in one store.
    """


@namespace.command(name="list")
@click.option("--prefix", default="", metavar="TEXT", help="Only namespaces starting with it.")
@global_options
def namespace_list(prefix: str) -> int:
    """List the namespaces that hold anything."""
    with open_memory() as memory:
        names = memory.namespaces(prefix)
    emit(
        {"count": len(names), "namespaces": names},
        "\n".join(names) or "(nothing)",
        as_json=settings().json,
    )
    return EXIT_OK


@namespace.command(name="drop")
@click.argument("name")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@global_options
def namespace_drop(name: str, yes: bool) -> int:
    """Delete everything in the namespace NAME: memories, core blocks, sessions."""
    if not yes:
        if not sys.stdin.isatty():
            raise InvalidInputError(f"dropping namespace {name!r} deletes all of it: pass --yes")
        click.confirm(f"Delete everything in namespace {name!r}?", abort=True, err=True)
    with open_memory() as memory:
        removed = memory.for_namespace(name).drop_namespace()
    emit(
        {"namespace": name, "deleted": removed},
        f"dropped namespace {name!r} ({removed} rows deleted)",
        as_json=settings().json,
    )
    return EXIT_OK


COMMANDS = (core, session, namespace)
