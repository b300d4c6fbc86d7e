"""API keys of a store, managed through its coordinator (``zenbrain keys add/list/revoke``):
each opens one namespace or a namespace prefix; only a hash of its secret is kept."""

from __future__ import annotations

from zenbrain.coordinator import MemoryCoordinator
from zenbrain.storage import api_keys
from zenbrain.storage.api_keys import ApiKey

__all__ = ["ApiKey", "add_key", "list_keys", "revoke_key"]


def add_key(
    memory: MemoryCoordinator, namespace: str, *, is_prefix: bool = False, name: str | None = None
) -> tuple[ApiKey, str]:
    """A new key for ``namespace`` (and every namespace below it with ``is_prefix``), and its
    token: shown this once, never stored."""
    return api_keys.add_key(memory.database, namespace, is_prefix=is_prefix, name=name)


def list_keys(memory: MemoryCoordinator, *, include_revoked: bool = False) -> list[ApiKey]:
    """The store's keys (never their tokens)."""
    return api_keys.list_keys(memory.database, include_revoked=include_revoked)


def revoke_key(memory: MemoryCoordinator, key_id: str) -> bool:
    """Refuse the key ``key_id`` from the next request on; False when no active key has it."""
    return api_keys.revoke_key(memory.database, key_id)
