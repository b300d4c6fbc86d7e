"""Scope tokens shared by every back end's lexical index: a namespace and layer (and a
context in it) as opaque, fixed-length tokens, and index terms prefixed with their scope."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence

from sqlalchemy import Connection, func, select

from zenbrain._storage.indexes import ScopeStatistics
from zenbrain._storage.schema import memories

__all__ = ["count_memories", "scope_statistics", "scope_tokens", "scoped_terms"]


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


def scope_statistics(
    conn: Connection,
    namespace: str,
    scopes: Mapping[str, str],
    sizes: Mapping[str, tuple[int, int]],
    found: Mapping[str, int],
    wanted: Sequence[str],
    context: str | None,
    frequencies_in_context: Callable[[str], dict[str, int]],
) -> dict[str, ScopeStatistics]:
    """Each layer's BM25 statistics from what a back end read in bulk: ``sizes`` (layer to
    memories and total length), ``found`` (scoped term to document count). Within a context
    the counts come from ``frequencies_in_context(layer)`` and the memories are counted."""
    result = {}
    for layer, scope in scopes.items():
        docs, length = sizes.get(layer, (0, 0))
        average = length / docs if docs > 0 else 0.0
        if context is None:
            frequencies = {term: found.get(scope + term, 0) for term in wanted}
        else:
            frequencies = frequencies_in_context(layer)
            docs = count_memories(conn, namespace, layer, context)
        result[layer] = ScopeStatistics(docs, average, frequencies)
    return result
