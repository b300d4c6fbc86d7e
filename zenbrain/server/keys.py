"""API keys of a store, managed through its coordinator (``zenbrain keys add/list/revoke``):
each opens one namespace or a namespace prefix; only a hash of its secret is kept.

The server checks each request's token here too (:func:`verify_token`), so this module is the
server's one door to the key table."""

from __future__ import annotations

from zenbrain import MemoryCoordinator
from zenbrain._storage import api_keys as _api_keys
from zenbrain._storage.api_keys import ApiKey

__all__ = ["ApiKey", "active_key_count", "add_key", "list_keys", "revoke_key", "verify_token"]


def add_key(
    memory: MemoryCoordinator, namespace: str, *, is_prefix: bool = False, name: str | None = None
) -> tuple[ApiKey, str]:
    """A new key for ``namespace`` (and every namespace below it with ``is_prefix``), and its
    token: shown this once, never stored."""
    return _api_keys.add_key(memory.database, namespace, is_prefix=is_prefix, name=name)


def list_keys(memory: MemoryCoordinator, *, include_revoked: bool = False) -> list[ApiKey]:
    """The store's keys (never their tokens)."""
    return _api_keys.list_keys(memory.database, include_revoked=include_revoked)


def revoke_key(memory: MemoryCoordinator, key_id: str) -> bool:
    """Refuse the key ``key_id`` from the next request on; False when no active key has it."""
    return _api_keys.revoke_key(memory.database, key_id)


def active_key_count(memory: MemoryCoordinator) -> int:
    """How many keys are not revoked: a server with any asks every request for one."""
    return _api_keys.active_key_count(memory.database)


def verify_token(memory: MemoryCoordinator, token: str) -> ApiKey | None:
    """The active key ``token`` belongs to, or None (unknown, revoked or mistyped); the
    secret is compared in constant time."""
    return _api_keys.verify_token(memory.database, token)
