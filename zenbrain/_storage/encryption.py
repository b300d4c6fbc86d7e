"""Encryption at rest for SQLite stores: SQLCipher 4 through ``sqlcipher3`` (the
``zenbrain[encryption]`` extra; its wheel bundles SQLCipher, no system library needed).

Every page of an encrypted store, its ``-wal`` and its backups is AES-256 encrypted with
an HMAC per page; only the first 16 bytes (the random salt) are stored in the clear.
SQLCipher derives each connection's key from the passphrase with PBKDF2-HMAC-SHA512
(256,000 iterations, about 0.3-1 s). zenbrain runs that derivation once per store and
process (:func:`raw_key`) and hands SQLCipher the derived key and the file's salt, so a
pool of connections (threads, forked workers) costs one derivation, not one per
connection; the file stays a standard SQLCipher 4 database that ``sqlcipher`` opens with
``PRAGMA key = '<passphrase>'``.

:func:`convert` turns a plain store into an encrypted one, or changes the key, without a
moment at which a crash leaves neither store whole (see its docstring).
"""

from __future__ import annotations

import functools
import hashlib
import os
import signal
from pathlib import Path
from typing import Any

from zenbrain.errors import EncryptionKeyError, InvalidInputError, StorageError, require

__all__ = [
    "FAULT_ENV",
    "KDF_ITERATIONS",
    "KEY_ENV",
    "KEY_FILE_ENV",
    "PLAIN_HEADER",
    "connect",
    "convert",
    "driver",
    "is_plain",
    "missing_key",
    "not_encrypted",
    "raw_key",
    "wrong_key",
]

KEY_ENV = "ZENBRAIN_KEY"
"""The variable holding an encrypted store's passphrase (read by :mod:`zenbrain.config`)."""
KEY_FILE_ENV = "ZENBRAIN_KEY_FILE"
"""The variable naming a file that holds the passphrase, instead of :data:`KEY_ENV`."""

PLAIN_HEADER = b"SQLite format 3\x00"
"""The first 16 bytes of every plain SQLite file (an encrypted one starts with its salt)."""
KDF_ITERATIONS = 256_000  # SQLCipher 4's default: a file sqlcipher opens with the passphrase
_SALT_BYTES = 16
FAULT_ENV = "ZENBRAIN_TEST_KILL_AT"
"""Tests only: the step of :func:`convert` at which the process kills itself (SIGKILL)."""
_SET_THE_KEY = (
    f"Set {KEY_ENV} (or {KEY_FILE_ENV}, a file holding the key) for the command line and "
    "servers, or pass key= to MemoryCoordinator."
)


def driver() -> Any:
    """The ``sqlcipher3`` module, or :class:`MissingDependencyError` naming the extra."""
    return require("sqlcipher3", "encryption", "an encrypted store (key=, ZENBRAIN_KEY)")


@functools.lru_cache(maxsize=16)
def raw_key(passphrase: str, salt: bytes) -> str:
    """The SQLCipher key string for ``passphrase`` and a file's salt: the PBKDF2 key and
    the salt as hex (``x'...'``), so SQLCipher skips its own derivation."""
    derived = hashlib.pbkdf2_hmac(
        "sha512", passphrase.encode("utf-8"), salt, KDF_ITERATIONS, dklen=32
    )
    return f"x'{derived.hex()}{salt.hex()}'"


def _salt_of(path: Path) -> bytes:
    """The salt at the start of an encrypted file; a fresh one for a new or empty file."""
    try:
        with open(path, "rb") as file:
            head = file.read(_SALT_BYTES)
    except FileNotFoundError:
        head = b""
    return head if len(head) == _SALT_BYTES else os.urandom(_SALT_BYTES)


def is_plain(path: Path) -> bool | None:
    """True for a plain SQLite file, False for anything else (encrypted), None when there
    is no file yet or it is empty (a new store)."""
    try:
        with open(path, "rb") as file:
            head = file.read(len(PLAIN_HEADER))
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    if not head:
        return None
    return head == PLAIN_HEADER


def wrong_key(path: Path) -> EncryptionKeyError:
    return EncryptionKeyError(
        f"the key does not open the encrypted zenbrain store {path} (a wrong key, or the "
        f"file is not a zenbrain store). Check {KEY_ENV} / {KEY_FILE_ENV} / key=; a lost "
        "key cannot be recovered: restore a backup made with the key you have."
    )


def missing_key(path: Path) -> EncryptionKeyError:
    return EncryptionKeyError(
        f"the zenbrain store {path} is encrypted and no key was given, or it is damaged or "
        f"not a SQLite database. If it is encrypted: {_SET_THE_KEY} Otherwise restore it "
        "from a backup, or open another path."
    )


def not_encrypted(path: Path) -> EncryptionKeyError:
    return EncryptionKeyError(
        f"a key was given ({KEY_ENV}, {KEY_FILE_ENV} or key=) but the zenbrain store {path} "
        f"is not encrypted. Encrypt it once with `zenbrain encrypt` ({KEY_ENV} set), or "
        f"open it without a key (unset {KEY_ENV} and {KEY_FILE_ENV})."
    )


def connect(path: Path, key: str, timeout: float = 30.0) -> Any:
    """A ``sqlcipher3`` connection to ``path`` with ``key``, checked: a wrong key raises
    :class:`EncryptionKeyError`, never SQLite's "file is not a database"."""
    module = driver()
    connection = module.connect(str(path), timeout=timeout, check_same_thread=False)
    try:
        connection.execute("PRAGMA cipher_log_level = NONE")  # a wrong key is our error
        connection.execute(f'PRAGMA key = "{raw_key(key, _salt_of(path))}"')
        connection.execute("SELECT count(*) FROM sqlite_master").fetchall()
    except module.DatabaseError as exc:
        connection.close()
        if "not a database" in str(exc):
            raise wrong_key(path) from None
        raise
    return connection


def _quoted(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def _fault(step: str) -> None:
    if os.environ.get(FAULT_ENV) == step:
        os.kill(os.getpid(), signal.SIGKILL)


def _fsync(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def convert(path: Path, old_key: str | None, new_key: str) -> None:
    """Rewrite the store at ``path`` encrypted with ``new_key`` (from plain when
    ``old_key`` is None: ``zenbrain encrypt``; else from ``old_key``: ``zenbrain rekey``).

    Crash-safe: the store is exported (``sqlcipher_export``) into a new file beside it
    while holding its write lock, the copy is fsynced and opened with ``new_key`` to check
    it, and only then renamed over the store (one atomic ``rename``), followed by an fsync
    of the folder. Killed before the rename, the old store is untouched (the partial copy
    is removed on the next run); after it, the new one is whole. No other process may have
    the store open meanwhile: one that did would go on writing to the old file."""
    module = driver()
    if not new_key:
        raise InvalidInputError(f"the new key must not be empty. {_SET_THE_KEY}")
    state = is_plain(path)
    if state is None:
        raise InvalidInputError(f"there is no zenbrain store at {path} to encrypt")
    if old_key is None and not state:
        raise EncryptionKeyError(f"{path} is encrypted already: change its key with rekey")
    if old_key is not None and state:
        raise not_encrypted(path)
    partial = path.with_name(f".{path.name}.encrypting")
    for leftover in (partial, partial.with_name(partial.name + "-journal")):
        leftover.unlink(missing_ok=True)  # from a run killed before its rename
    try:
        _rewrite(module, path, partial, old_key, new_key)
    except (OSError, module.Error) as exc:
        raise StorageError(
            f"{'encrypting' if old_key is None else 'changing the key of'} {path} failed, and "
            f"the store is left as it was: {exc}"
        ) from exc
    # The old file's -wal is empty (checkpointed first) and its -shm is rebuilt on open.
    for sidecar in ("-wal", "-shm"):
        path.with_name(path.name + sidecar).unlink(missing_ok=True)
    _fault("done")


def _rewrite(module: Any, path: Path, partial: Path, old_key: str | None, new_key: str) -> None:
    """The steps of :func:`convert`, each followed by its fault point."""
    source = (
        module.connect(str(path), timeout=30.0, check_same_thread=False)
        if old_key is None
        else connect(path, old_key)
    )
    try:
        source.isolation_level = None
        # Everything in the file itself, so the copy misses nothing and no -wal is left.
        source.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        _fault("checkpointed")
        source.execute("BEGIN IMMEDIATE")  # no writer in between: the copy is the store
        seen = source.execute("PRAGMA data_version").fetchone()[0]
        salt = os.urandom(_SALT_BYTES)
        new = raw_key(new_key, salt)
        source.execute(f'ATTACH DATABASE {_quoted(partial)} AS encrypted KEY "{new}"')
        source.execute("SELECT sqlcipher_export('encrypted')").fetchall()
        version = source.execute("PRAGMA main.user_version").fetchone()[0]
        source.execute(f"PRAGMA encrypted.user_version = {int(version)}")
        source.execute("COMMIT")  # the copy's pages are written; the store was only read
        source.execute("BEGIN IMMEDIATE")  # held again until the rename
        if source.execute("PRAGMA data_version").fetchone()[0] != seen:
            raise StorageError(
                f"another process wrote to {path} while it was being copied: stop every "
                "process that has the store open, then run the command again"
            )
        _fault("exported")
        _fsync(partial)
        _fault("synced")
        check = connect(partial, new_key)
        try:
            if check.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise StorageError(f"the encrypted copy of {path} failed its check")
        finally:
            check.close()
        _fault("checked")
        os.replace(partial, path)
        _fault("renamed")
        _fsync(path.parent)
        source.execute("ROLLBACK")
    finally:
        source.close()
        partial.unlink(missing_ok=True)
