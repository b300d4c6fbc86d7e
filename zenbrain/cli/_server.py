"""``zenbrain serve`` (the HTTP API and inspector) and ``zenbrain keys`` (its API keys)."""

from __future__ import annotations

import click

from zenbrain.cli._memories import not_found
from zenbrain.cli._options import EXIT_OK, global_options, open_memory, settings
from zenbrain.cli._output import emit, table
from zenbrain.config import resolve_location

__all__ = ["COMMANDS"]


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to bind to.")
@click.option(
    "--port", default=8765, show_default=True, type=click.IntRange(0, 65535), help="The port."
)
@click.option(
    "--cors-origin",
    "cors_origins",
    multiple=True,
    metavar="ORIGIN",
    help="Let pages from ORIGIN call the API (repeatable). Default: none.",
)
@click.option(
    "--max-body",
    type=click.IntRange(1024, None),
    default=None,
    metavar="BYTES",
    help="The largest request body accepted. Default: 16 MiB.",
)
@global_options
def serve(host: str, port: int, cors_origins: tuple[str, ...], max_body: int | None) -> int:
    """Serve the HTTP API (/v1) and the memory inspector (/).

    Bound to 127.0.0.1 by default. Any other address needs an API key in the store
    first (zenbrain keys add), and then every request needs one. Needs the server
    extra: pip install 'zenbrain[server]'.
    """
    from zenbrain.errors import require

    require("fastapi", "server", "zenbrain serve")
    from zenbrain.server import serve as run

    location = resolve_location(settings().db)
    shown = host if ":" not in host else f"[{host}]"
    click.echo(
        f"zenbrain: serving {location.path or location.url} on http://{shown}:{port}/", err=True
    )
    run(
        str(location.path) if location.path else location.url,
        host=host,
        port=port,
        cors_origins=cors_origins,
        max_body_bytes=max_body,
    )
    return EXIT_OK


@click.group()
def keys() -> None:
    """API keys of the HTTP server: add, list, revoke.

    Each key opens one namespace (or, with --prefix, every namespace starting with it).
    Only a hash of each key is stored.
    """


@keys.command(name="add")
@click.argument("key_namespace", metavar="NAMESPACE")
@click.option("--prefix", is_flag=True, help="Open every namespace that starts with NAMESPACE.")
@click.option("--name", default=None, help="A label to recognise the key by.")
@global_options
def keys_add(key_namespace: str, prefix: bool, name: str | None) -> int:
    """Make a key for NAMESPACE and print it (shown this once)."""
    from zenbrain.server.keys import add_key

    with open_memory(write=True) as memory:
        key, token = add_key(memory, key_namespace, is_prefix=prefix, name=name)
    emit(
        {**key.to_dict(), "token": token},
        f"{token}\n(key {key.key_id} for {key.namespace!r}{' and below' if prefix else ''}; "
        "keep it: it cannot be shown again)",
        as_json=settings().json,
    )
    return EXIT_OK


@keys.command(name="list")
@click.option("--all", "include_revoked", is_flag=True, help="Include revoked keys.")
@global_options
def keys_list(include_revoked: bool) -> int:
    """List the keys (never their tokens)."""
    from zenbrain.server.keys import list_keys

    with open_memory() as memory:
        rows = [key.to_dict() for key in list_keys(memory, include_revoked=include_revoked)]
    emit(
        {"count": len(rows), "keys": rows},
        table(rows, ["key_id", "name", "namespace", "is_prefix", "created_at", "revoked_at"]),
        as_json=settings().json,
    )
    return EXIT_OK


@keys.command(name="revoke")
@click.argument("key_id")
@global_options
def keys_revoke(key_id: str) -> int:
    """Revoke the key KEY_ID: requests with it are refused from now on."""
    from zenbrain.server.keys import revoke_key

    with open_memory() as memory:
        done = revoke_key(memory, key_id)
    if not done:
        return not_found(f"no active key {key_id!r}", {"revoked": False, "key_id": key_id})
    emit({"revoked": True, "key_id": key_id}, f"revoked key {key_id}", as_json=settings().json)
    return EXIT_OK


COMMANDS = (serve, keys)
