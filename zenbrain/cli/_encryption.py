"""``zenbrain encrypt`` and ``zenbrain rekey``: encryption at rest for a SQLite store.

Keys come from the environment or a file, never from the command line (``ps`` shows it):
``ZENBRAIN_KEY`` / ``ZENBRAIN_KEY_FILE``, and for ``rekey`` the new key from
``ZENBRAIN_NEW_KEY`` / ``ZENBRAIN_NEW_KEY_FILE``.
"""

from __future__ import annotations

from pathlib import Path

import click

from zenbrain.cli._options import EXIT_OK, global_options, settings
from zenbrain.cli._output import emit
from zenbrain.config import (
    KEY_ENV,
    KEY_FILE_ENV,
    encrypt_store,
    rekey_store,
    require_existing,
    resolve_key,
    resolve_location,
)
from zenbrain.errors import InvalidInputError

__all__ = ["COMMANDS", "NEW_KEY_ENV", "NEW_KEY_FILE_ENV"]

NEW_KEY_ENV = "ZENBRAIN_NEW_KEY"
NEW_KEY_FILE_ENV = "ZENBRAIN_NEW_KEY_FILE"


def _store_file() -> Path:
    location = resolve_location(settings().db)
    if location.path is None:
        raise InvalidInputError(
            "encryption at rest is for SQLite files: name one with --db or ZENBRAIN_DB "
            "(PostgreSQL: see docs/guide/privacy.md)"
        )
    require_existing(location)
    return location.path


def _required(key: str | None, env: str, file_env: str, what: str) -> str:
    if key is None:
        raise InvalidInputError(
            f"{what}: set {env} to the passphrase, or {file_env} to a file holding it "
            "(never on the command line, where ps shows it)"
        )
    return key


@click.command()
@global_options
def encrypt() -> int:
    """Encrypt the plain store in place with the key in ZENBRAIN_KEY (or ZENBRAIN_KEY_FILE).

    Crash-safe: an encrypted copy is written beside the store, synced, checked and renamed
    over it; killed at any point, either the plain or the encrypted store is whole. Run it
    while no other process has the store open.
    """
    path = _store_file()
    key = _required(resolve_key(), KEY_ENV, KEY_FILE_ENV, "the key to encrypt with")
    encrypt_store(path, key)
    emit({"encrypted": str(path)}, f"encrypted {path}", as_json=settings().json)
    return EXIT_OK


@click.command()
@global_options
def rekey() -> int:
    """Change an encrypted store's key: from ZENBRAIN_KEY to ZENBRAIN_NEW_KEY (or the
    *_FILE variables), crash-safe as encrypt is. Backups made before keep the old key."""
    path = _store_file()
    old = _required(resolve_key(), KEY_ENV, KEY_FILE_ENV, "the store's current key")
    new = resolve_key(env=NEW_KEY_ENV, file_env=NEW_KEY_FILE_ENV)
    new = _required(new, NEW_KEY_ENV, NEW_KEY_FILE_ENV, "the new key")
    rekey_store(path, old, new)
    emit({"rekeyed": str(path)}, f"changed the key of {path}", as_json=settings().json)
    return EXIT_OK


COMMANDS = (encrypt, rekey)
