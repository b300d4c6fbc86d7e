"""Scope tokens shared by every back end's lexical index: a namespace and layer (and a
context in it) as opaque, fixed-length tokens, and index terms prefixed with their scope."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from sqlalchemy import Connection, func, select

from zenbrain.storage.schema import memories

__all__ = ["count_memories", "scope_tokens", "scoped_terms"]


def _hash_token(prefix: str, *parts: str) -> str:
    digest = hashlib.blake2b("\x00".join(parts).encode("utf-8"), digest_size=6).hexdigest()
    return prefix + digest


def scope_tokens(namespace: str, layer: str, context: str | None) -> tuple[str, str | None]:
    """Opaque, fixed-length tokens for a namespace and layer (and a context in it)."""
    scope = _hash_token("s", namespace, layer)
    ctx = _hash_token("c", namespace, layer, context) if context is not None else None
    return scope, ctx


def scoped_terms(scope: str, terms: Sequence[str]) -> list[str]:
    """Index terms prefixed with their scope token. A search then reads only the postings
    of its own namespace and layer, and a term's document frequency is counted within the
    scope without intersecting a posting list as long as the scope itself."""
    return [scope + term for term in terms]


def count_memories(conn: Connection, namespace: str, layer: str, context: str | None) -> int:
    """Memories in a namespace and layer (and context), counted from the table."""
    conditions = [memories.c.namespace == namespace, memories.c.layer == layer]
    if context is not None:
        conditions.append(memories.c.context == context)
    return int(
        conn.execute(select(func.count()).select_from(memories).where(*conditions)).scalar_one()
    )
