"""The two search indexes a back end provides, as protocols.

A back end pairs the shared tables of :mod:`zenbrain._storage.schema` with a lexical index
(candidates by word, BM25's statistics) and a vector index (nearest neighbours by
cosine). Both are scoped by namespace and layer, and optionally by context, so no search ever
sees another namespace's rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

import numpy as np
from sqlalchemy import Connection

from zenbrain._ranking import EncodedDocuments

__all__ = [
    "IndexedDocuments",
    "IndexedText",
    "IndexedVector",
    "LexicalIndex",
    "ScopeStatistics",
    "VectorIndex",
]


@dataclass(frozen=True, slots=True)
class IndexedText:
    pk: int
    namespace: str
    layer: str
    context: str | None
    terms: Sequence[str]


@dataclass(frozen=True, slots=True)
class IndexedDocuments:
    """Memories of one layer as a lexical index that keeps term order gives them back for
    ranking, all at once: their keys, their index terms in order (as term numbers, which
    :meth:`~zenbrain._ranking.LexicalQuery.score_documents` scores directly), when each
    was stored (naive UTC, as the tables hold times) and the conversation each names."""

    pks: list[int]
    documents: EncodedDocuments
    created_at: list[datetime]
    conversations: list[str | None]


@dataclass(frozen=True, slots=True)
class IndexedVector:
    pk: int
    namespace: str
    layer: str
    context: str | None
    vector: np.ndarray


@dataclass(frozen=True, slots=True)
class ScopeStatistics:
    """What BM25 needs to know about one searched scope (a namespace and layer, or a
    context in it): its number of memories, their mean length in index terms, and for each
    query term how many of them contain it."""

    documents: int
    average_length: float
    frequencies: Mapping[str, int]


class LexicalIndex(Protocol):
    """Words: a back end installs its tables, adds and removes memories, and answers
    candidates, each candidate's terms in order, and BM25's statistics per scope."""

    def install(self, conn: Connection) -> None: ...

    def evict(self, namespace: str) -> None:
        """Drop whatever this process holds in memory for ``namespace`` (after a purge)."""
        ...

    def add(self, conn: Connection, rows: Sequence[IndexedText]) -> None: ...

    def remove(self, conn: Connection, pks: Sequence[int]) -> None: ...

    def candidates(
        self,
        conn: Connection,
        namespace: str,
        layer: str,
        terms: Sequence[str],
        context: str | None,
        limit: int,
    ) -> list[int]:
        """Primary keys of rows containing any of ``terms``, best first by the back end's
        own relevance (BM25 or similar), at most ``limit``: one layer of
        :meth:`candidates_by_layer`, which a back end provides (this it inherits)."""
        return self.candidates_by_layer(conn, namespace, {layer: terms}, context, limit)[layer]

    def candidates_by_layer(
        self,
        conn: Connection,
        namespace: str,
        terms_by_layer: Mapping[str, Sequence[str]],
        context: str | None,
        limit: int,
    ) -> dict[str, list[int]]:
        """:meth:`candidates` of several layers (each with its own terms), in one statement:
        for every layer of ``terms_by_layer`` the same keys in the same order as
        :meth:`candidates` gives for it (an empty list for a layer without terms)."""
        ...

    def indexed_documents(
        self, conn: Connection, namespace: str, pks_by_layer: Mapping[str, Sequence[int]]
    ) -> dict[str, IndexedDocuments] | None:
        """Each layer's memories with their index terms in order, as the index keeps them
        (what :func:`zenbrain.text.tokenize` made of the indexed text), and their times, so
        a ranking need not read and tokenize the text again; None from a back end that
        keeps no order. ``pks_by_layer``: the memories of ``namespace`` asked for, by
        layer; one not found there is left out."""
        ...

    def statistics(
        self,
        conn: Connection,
        namespace: str,
        layers: Sequence[str],
        terms: Sequence[str],
        context: str | None,
    ) -> dict[str, ScopeStatistics]:
        """:class:`ScopeStatistics` of every layer in ``layers``, read from counts kept
        beside the index (not by walking postings), in as few statements as the back end
        allows. Within a context the mean length is the layer's."""
        ...


class VectorIndex(Protocol):
    def install(self, conn: Connection, dimension: int) -> None: ...

    def evict(self, namespace: str) -> None:
        """Drop whatever this process holds in memory for ``namespace`` (after a purge)."""
        ...

    def add(self, conn: Connection, rows: Sequence[IndexedVector]) -> None: ...

    def remove(self, conn: Connection, pks: Sequence[int]) -> None: ...

    def nearest(
        self,
        conn: Connection,
        namespace: str,
        layer: str,
        query: np.ndarray,
        context: str | None,
        limit: int,
    ) -> list[tuple[int, float]]:
        """``(pk, cosine similarity)`` of the closest rows, most similar first."""
        ...

    def missing(self, conn: Connection, namespace: str, limit: int) -> list[int]:
        """Primary keys of memories in ``namespace`` that have no vector yet."""
        ...
