"""The read side of a lexical index whose postings each process holds in memory.

Both back ends keep each memory's index terms on disk as the record (SQLite: a plain table;
PostgreSQL: a table with the terms in order and a ``tsvector``) and answer searches from
:class:`~zenbrain._storage.postings.ScopePostings` loaded from it: candidates, BM25's
statistics and each candidate's terms and time then cost a few numpy operations instead of
reading and ranking every matching row. What differs is how a back end learns what other
writers changed; a subclass provides that as :meth:`HeldPostingsIndex._postings`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence

from sqlalchemy import Connection

from zenbrain._storage.indexes import IndexedDocuments, LexicalIndex, ScopeStatistics
from zenbrain._storage.postings.scope import ScopePostings
from zenbrain._storage.postings.scopes import scope_tokens
from zenbrain.types import ALL_LAYERS

__all__ = ["RELOAD_AFTER_REMOVALS", "HeldPostingsIndex", "PostingsRow"]

PostingsRow = tuple[int, str | None, Sequence[str], int, str | None]
"""What a scope's postings are filled from, per memory: its key, context token, index terms
in order, and when it was stored (microseconds since the epoch)."""

RELOAD_AFTER_REMOVALS = 10_000
"""Removed memories a scope's postings carry before they are loaded again (when also more
than the live ones)."""
_FILL_CHUNK = 4096


class HeldPostingsIndex(LexicalIndex):
    """Candidates, document counts, statistics and indexed terms from each scope's postings
    held in memory. Scopes are keyed by their scope token (:func:`scope_tokens`); a subclass
    brings them up to date with the store in :meth:`_postings`, under :attr:`_lock`."""

    def __init__(self) -> None:
        self._cache: dict[str, ScopePostings] = {}
        self._lock = threading.Lock()

    def _postings(
        self, conn: Connection, scopes: Mapping[str, tuple[str, str]]
    ) -> dict[str, ScopePostings]:
        """Each scope's postings (scope token to its namespace and layer), in step with the
        store as ``conn`` sees it; the caller holds :attr:`_lock`."""
        raise NotImplementedError

    def evict(self, namespace: str) -> None:
        """Drop the namespace's postings held in memory (the next search loads them)."""
        with self._lock:
            for layer in ALL_LAYERS:
                self._cache.pop(scope_tokens(namespace, layer, None)[0], None)

    def scrub(self, conn: Connection, namespace: str) -> None:
        """After a purge (``forget``, ``drop_namespace``) committed: nothing of a removed
        memory may stay in memory, yet its postings, and its words in the scope's
        vocabulary, stay until the scope is loaded again. So each of the namespace's scopes
        held is brought in step with the store as ``conn`` sees it (a search's own catch-up,
        which marks the removed memories dead) and what those still hold is scrubbed
        (:meth:`ScopePostings.scrub`): work for the memories removed, not for the scope, and
        the next search loads nothing. A scope with no live memory left, or more removed
        memories to scrub than live ones, is dropped instead (loading it again reads no
        more than scrubbing would touch)."""
        with self._lock:
            held = {
                token: (namespace, layer)
                for layer in ALL_LAYERS
                if (token := scope_tokens(namespace, layer, None)[0]) in self._cache
            }
            if not held:
                return
            for token, postings in self._postings(conn, held).items():
                if len(postings) == 0 or postings.unscrubbed > len(postings):
                    del self._cache[token]
                else:
                    postings.scrub()

    @staticmethod
    def _needs_compacting(postings: ScopePostings) -> bool:
        """Removed memories leave their postings (or, scrubbed, their places) behind: past
        as many as are live (and a floor), loading the scope again compacts them."""
        removed = postings.dead + postings.vacated
        return removed > max(RELOAD_AFTER_REMOVALS, len(postings))

    @staticmethod
    def _fill(postings: ScopePostings, rows: Iterable[PostingsRow]) -> int:
        """Index ``rows`` into ``postings`` a chunk at a time (the bulk path of
        :meth:`ScopePostings.extend`); returns how many."""
        added = 0
        chunk: list[PostingsRow] = []
        for row in rows:
            chunk.append(row)
            if len(chunk) == _FILL_CHUNK:
                postings.extend(chunk)
                added += len(chunk)
                chunk = []
        postings.extend(chunk)
        return added + len(chunk)

    def _held(
        self, conn: Connection, namespace: str, layers: Iterable[str], context: str | None
    ) -> dict[str, tuple[ScopePostings, str | None]]:
        """Each layer's postings and its context token (caller holds the lock)."""
        tokens = {layer: scope_tokens(namespace, layer, context) for layer in layers}
        postings = self._postings(
            conn, {scope: (namespace, layer) for layer, (scope, _) in tokens.items()}
        )
        return {layer: (postings[scope], ctx) for layer, (scope, ctx) in tokens.items()}

    def candidates_by_layer(
        self,
        conn: Connection,
        namespace: str,
        terms_by_layer: Mapping[str, Sequence[str]],
        context: str | None,
        limit: int,
    ) -> dict[str, list[int]]:
        found: dict[str, list[int]] = {layer: [] for layer in terms_by_layer}
        searched = [layer for layer, terms in terms_by_layer.items() if terms]
        if not searched:
            return found
        with self._lock:
            for layer, (postings, ctx) in self._held(conn, namespace, searched, context).items():
                found[layer] = postings.best(terms_by_layer[layer], ctx, limit)
        return found

    def indexed_documents(
        self, conn: Connection, namespace: str, pks_by_layer: Mapping[str, Sequence[int]]
    ) -> dict[str, IndexedDocuments] | None:
        if not pks_by_layer:
            return {}
        found: dict[str, IndexedDocuments] = {}
        with self._lock:
            held = self._held(conn, namespace, pks_by_layer, None)
            for layer, pks in pks_by_layer.items():
                keys, documents, micros, conversations = held[layer][0].documents(pks)
                # One conversion for all: datetime64 turns into naive datetimes.
                times = micros.astype("datetime64[us]").tolist()
                found[layer] = IndexedDocuments(keys, documents, times, conversations)
        return found

    def statistics(
        self,
        conn: Connection,
        namespace: str,
        layers: Sequence[str],
        terms: Sequence[str],
        context: str | None,
    ) -> dict[str, ScopeStatistics]:
        if not layers:
            return {}
        with self._lock:
            return {
                layer: ScopeStatistics(*postings.counts(terms, ctx))
                for layer, (postings, ctx) in self._held(conn, namespace, layers, context).items()
            }
