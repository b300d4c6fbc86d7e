"""API keys of the HTTP server, kept in the store (``zb_api_keys``) as SHA-256 digests.

A token reads ``zb_<key id>_<secret>``: the key id finds the row, and the secret's digest is
compared in constant time, so a token is never stored and never compared byte by byte. Each
key opens one namespace, or (``is_prefix``) every namespace that starts with its text; the
empty prefix opens the whole store.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select, update

from zenbrain import _validation as check
from zenbrain._storage.database import Database
from zenbrain._storage.schema import api_keys
from zenbrain._storage.timestamps import from_db, to_db
from zenbrain.errors import InvalidInputError

__all__ = ["ApiKey", "active_key_count", "add_key", "list_keys", "revoke_key", "verify_token"]

_TOKEN_PREFIX = "zb_"
_MAX_TOKEN_CHARS = 200


@dataclass(frozen=True, slots=True)
class ApiKey:
    """One key as listed (never with its token)."""

    key_id: str
    name: str
    namespace: str
    is_prefix: bool
    created_at: datetime
    revoked_at: datetime | None = None

    def allows(self, namespace: str) -> bool:
        """Whether this key opens ``namespace``."""
        if self.is_prefix:
            return namespace.startswith(self.namespace)
        return namespace == self.namespace

    def to_dict(self) -> dict[str, Any]:
        return {
            "key_id": self.key_id,
            "name": self.name,
            "namespace": self.namespace,
            "is_prefix": self.is_prefix,
            "created_at": self.created_at.isoformat(),
            "revoked_at": self.revoked_at.isoformat() if self.revoked_at else None,
        }


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _key(row: Any) -> ApiKey:
    return ApiKey(
        key_id=str(row.key_id),
        name=str(row.name),
        namespace=str(row.namespace),
        is_prefix=bool(row.is_prefix),
        created_at=from_db(row.created_at),
        revoked_at=from_db(row.revoked_at) if row.revoked_at is not None else None,
    )


def add_key(
    db: Database, namespace: str, *, is_prefix: bool = False, name: str | None = None
) -> tuple[ApiKey, str]:
    """A new key for ``namespace`` (or every namespace starting with it); returns the key
    and its token, which is shown this once and cannot be read back."""
    if is_prefix:
        if not isinstance(namespace, str) or len(namespace) > 200:
            raise InvalidInputError(
                "a namespace prefix must be text of at most 200 characters ('' opens every "
                f"namespace), got {check.shown(namespace)}"
            )
        if namespace:
            check.check_storable(namespace, "namespace prefix")
    else:
        namespace = check.check_namespace(namespace)
    label = check.check_optional_text(name, "name") or (namespace + ("*" if is_prefix else ""))
    key_id = secrets.token_hex(6)
    secret = secrets.token_urlsafe(32)
    now = datetime.now(UTC)
    with db.write() as conn:
        conn.execute(
            api_keys.insert().values(
                key_id=key_id,
                name=label[:200],
                namespace=namespace,
                is_prefix=is_prefix,
                token_sha256=_digest(secret),
                created_at=to_db(now),
                revoked_at=None,
            )
        )
    key = ApiKey(key_id, label[:200], namespace, is_prefix, now)
    return key, f"{_TOKEN_PREFIX}{key_id}_{secret}"


def list_keys(db: Database, *, include_revoked: bool = False) -> list[ApiKey]:
    """Every key, oldest first (revoked ones too when asked)."""
    query = select(api_keys).order_by(api_keys.c.created_at, api_keys.c.key_id)
    if not include_revoked:
        query = query.where(api_keys.c.revoked_at.is_(None))
    with db.read() as conn:
        return [_key(row) for row in conn.execute(query)]


def revoke_key(db: Database, key_id: str) -> bool:
    """Revoke a key by its id; False when there is no such active key."""
    if not isinstance(key_id, str) or not key_id or len(key_id) > 40:
        raise InvalidInputError(f"a key id is the short hex id `keys list` shows, got {key_id!r}")
    with db.write() as conn:
        done = conn.execute(
            update(api_keys)
            .where(api_keys.c.key_id == key_id, api_keys.c.revoked_at.is_(None))
            .values(revoked_at=to_db(datetime.now(UTC)))
        )
    return bool(done.rowcount)


def active_key_count(db: Database) -> int:
    """How many keys are not revoked."""
    with db.read() as conn:
        query = select(func.count()).select_from(api_keys).where(api_keys.c.revoked_at.is_(None))
        return int(conn.execute(query).scalar_one())


def verify_token(db: Database, token: str) -> ApiKey | None:
    """The active key a token belongs to, or None for any other text."""
    if not isinstance(token, str) or len(token) > _MAX_TOKEN_CHARS:
        return None
    if not token.startswith(_TOKEN_PREFIX) or token.count("_") < 2:
        return None
    key_id, _, secret = token[len(_TOKEN_PREFIX) :].partition("_")
    if not key_id or not secret or not key_id.isalnum():
        return None
    with db.read() as conn:
        row = conn.execute(
            select(api_keys).where(api_keys.c.key_id == key_id, api_keys.c.revoked_at.is_(None))
        ).one_or_none()
    if row is None:
        hmac.compare_digest(_digest(secret), "0" * 64)  # the same work for an unknown id
        return None
    if not hmac.compare_digest(_digest(secret), str(row.token_sha256)):
        return None
    return _key(row)
