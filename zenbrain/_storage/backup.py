"""Online backups: a consistent copy of a store taken while other connections and
processes keep reading and writing it.

- **SQLite**: SQLite's online backup API copies every page in one step inside one read
  transaction, so the copy is exactly the store as of one moment (every transaction
  committed before it, none after); in WAL mode writers are not blocked meanwhile. The copy
  is written beside the target and renamed over it when complete, so a crash never leaves a
  half-written backup under the target's name. It is a plain SQLite file (no ``-wal``):
  restore it by opening it, or by copying it over the store while no process has the store
  open. The backup of an encrypted store is encrypted with the same key (SQLCipher
  re-encrypts each page as it copies it), so it opens with the store's key.
- **PostgreSQL**: ``pg_dump`` (PostgreSQL's client tools, on ``PATH``) writes a plain SQL
  script of the database from one snapshot. Restore it into an empty database that has the
  ``vector`` extension available: ``psql --single-transaction -f backup.sql
  postgresql://user@host/newdb``. The password, if any, is passed to ``pg_dump`` in its
  environment, never on its command line.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy.engine import make_url

from zenbrain.errors import InvalidInputError, StorageError

if TYPE_CHECKING:
    from zenbrain._storage.database import Database

__all__ = ["backup"]


def _target_path(target: object) -> Path:
    if not isinstance(target, str | os.PathLike):
        raise InvalidInputError(
            f"the backup target must be a file path, got {type(target).__name__}"
        )
    raw = os.fspath(target)
    if not isinstance(raw, str) or not raw.strip() or "\x00" in raw:
        raise InvalidInputError(f"the backup target must be a file path, got {raw[:80]!r}")
    try:
        raw.encode(sys.getfilesystemencoding(), "surrogateescape")
    except UnicodeEncodeError:
        raise InvalidInputError(
            f"the backup target {raw[:80]!r} cannot be a file name on this system"
        ) from None
    try:
        return Path(os.path.expanduser(raw)).resolve()
    except (OSError, RuntimeError) as exc:  # a name too long, a symlink loop
        raise InvalidInputError(
            f"the backup target {raw[:80]!r} cannot be used as a file path ({type(exc).__name__})"
        ) from exc


def backup(db: Database, target: str | os.PathLike[str]) -> Path:
    """Write a consistent copy of the store behind ``db`` to ``target`` (replacing a
    previous backup there); returns the target's absolute path. See the module docstring."""
    path = _target_path(target)
    if db.path is not None and path == db.path.resolve():
        raise InvalidInputError(f"the backup target {path} is the store itself")
    try:
        if path.is_dir():
            raise InvalidInputError(f"the backup target {path} is a folder; name a file in it")
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"cannot create the folder for the backup {path}: {exc}") from exc
    try:
        if db.dialect == "sqlite":
            _backup_sqlite(db, path)
        else:
            _backup_postgres(db, path)
    except OSError as exc:  # e.g. the folder is not writable
        raise StorageError(f"backing up {db.where} to {path} failed: {exc}") from exc
    return path


def _temporary_beside(path: Path) -> Path:
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    os.close(handle)
    return Path(name)


def _backup_sqlite(db: Database, path: Path) -> None:
    partial = _temporary_beside(path)
    try:
        source = db.engine.raw_connection()
        try:
            if db.key is None:
                copy = sqlite3.connect(partial)
            else:
                from zenbrain._storage.encryption import connect

                copy = connect(partial, db.key)
            try:
                # pages=-1 (the default): one step, one read snapshot, a consistent copy.
                source.driver_connection.backup(copy)  # type: ignore[union-attr]
                copy.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
            finally:
                copy.close()
        finally:
            source.close()
        with open(partial, "rb") as written:
            os.fsync(written.fileno())
        os.replace(partial, path)
    except (OSError, sqlite3.Error) as exc:
        raise StorageError(f"backing up {db.where} to {path} failed: {exc}") from exc
    except Exception as exc:  # sqlcipher3's errors share no base class with sqlite3's
        if type(exc).__module__ != "sqlcipher3.dbapi2":
            raise
        raise StorageError(f"backing up {db.where} to {path} failed: {exc}") from exc
    finally:
        partial.unlink(missing_ok=True)


def _backup_postgres(db: Database, path: Path) -> None:
    pg_dump = shutil.which("pg_dump")
    url = make_url(str(db.engine.url.render_as_string(hide_password=False)))
    if pg_dump is None:
        raise StorageError(
            "backing up a PostgreSQL store runs pg_dump, which is not on PATH: install "
            "PostgreSQL's client tools, or run it yourself: pg_dump --format=plain "
            f"--file {path} {db.safe_url.replace('+psycopg', '')}"
        )
    env = dict(os.environ)
    for variable, value in (
        ("PGHOST", url.host),
        ("PGPORT", url.port),
        ("PGUSER", url.username),
        ("PGPASSWORD", url.password),
        ("PGDATABASE", url.database),
    ):
        if value is not None:
            env[variable] = str(value)
    partial = _temporary_beside(path)
    try:
        done = subprocess.run(
            [pg_dump, "--format=plain", "--no-owner", "--file", str(partial)],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise StorageError(
                f"pg_dump of {db.safe_url} failed (exit {done.returncode}): "
                f"{done.stderr.strip()[-500:]}"
            )
        os.replace(partial, path)
    except OSError as exc:
        raise StorageError(f"backing up {db.safe_url} to {path} failed: {exc}") from exc
    finally:
        partial.unlink(missing_ok=True)
