"""SQLite vectors: float32 blobs in ``zb_vectors``, searched with numpy over per-scope
matrices cached in memory and kept in step with other processes by a version per scope."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import Connection, func, select

from zenbrain.storage.indexes import IndexedVector
from zenbrain.storage.schema import memories, vector_versions, vectors

__all__ = ["SqliteVectorIndex"]


class _Matrix:
    """One scope's vectors: rows in key order, grown in place with spare capacity so that
    appending a few rows does not copy the whole matrix."""

    __slots__ = ("_contexts", "_matrix", "_pks", "size", "version")

    def __init__(self, version: int, dimension: int) -> None:
        self.version = version
        self.size = 0
        self._pks = np.zeros(0, dtype=np.int64)
        self._matrix = np.zeros((0, dimension), dtype=np.float32)
        self._contexts = np.zeros(0, dtype=object)

    @property
    def max_pk(self) -> int:
        return int(self._pks[self.size - 1]) if self.size else 0

    @property
    def pks(self) -> np.ndarray:
        return self._pks[: self.size]

    @property
    def matrix(self) -> np.ndarray:
        return self._matrix[: self.size]

    @property
    def contexts(self) -> np.ndarray:
        return self._contexts[: self.size]

    def append(self, pks: Sequence[int], rows: np.ndarray, contexts: Sequence[str | None]) -> None:
        needed = self.size + len(pks)
        if rows.shape[1] != self._matrix.shape[1] and self.size == 0:
            self._matrix = np.zeros((0, rows.shape[1]), dtype=np.float32)
        if needed > len(self._pks):
            capacity = max(needed, 2 * len(self._pks), 64)
            self._pks = np.resize(self._pks, capacity)
            grown = np.zeros((capacity, self._matrix.shape[1]), dtype=np.float32)
            grown[: self.size] = self._matrix[: self.size]
            self._matrix = grown
            self._contexts = np.resize(self._contexts, capacity)
        end = self.size + len(pks)
        self._pks[self.size : end] = pks
        self._matrix[self.size : end] = rows
        self._contexts[self.size : end] = list(contexts)
        self.size = end


class SqliteVectorIndex:
    """Float32 blobs in ``zb_vectors``, searched by a numpy dot product over a per-scope
    matrix cached in memory.

    Every write bumps the scope's row in ``zb_vector_versions``. A search compares that
    version with the cache's: equal means current; otherwise only the rows added since are
    read (or, after deletions, the scope is read again). Writes in this process append to
    the cache directly, so a recall after a store does not reload the matrix.
    """

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str], _Matrix] = {}
        self._lock = threading.Lock()

    def install(self, conn: Connection, dimension: int) -> None:
        """Nothing to create: ``zb_vectors`` is part of the shared schema."""

    def _bump(self, conn: Connection, namespace: str, layer: str, delta: int) -> tuple[int, int]:
        """Raise the scope's version; return ``(previous version, new version)``."""
        where = (vector_versions.c.namespace == namespace) & (vector_versions.c.layer == layer)
        previous = conn.execute(select(vector_versions.c.version).where(where)).scalar()
        if previous is None:
            conn.execute(
                vector_versions.insert().values(
                    namespace=namespace, layer=layer, version=1, count=max(delta, 0)
                )
            )
            return 0, 1
        conn.execute(
            vector_versions.update()
            .where(where)
            .values(version=previous + 1, count=vector_versions.c.count + delta)
        )
        return int(previous), int(previous) + 1

    def add(self, conn: Connection, rows: Sequence[IndexedVector]) -> None:
        if not rows:
            return
        conn.execute(
            vectors.insert(),
            [
                {
                    "memory_pk": r.pk,
                    "namespace": r.namespace,
                    "layer": r.layer,
                    "vector": np.asarray(r.vector, dtype=np.float32).tobytes(),
                }
                for r in rows
            ],
        )
        by_scope: dict[tuple[str, str], list[IndexedVector]] = {}
        for r in rows:
            by_scope.setdefault((r.namespace, r.layer), []).append(r)
        for (namespace, layer), scoped in by_scope.items():
            previous, current = self._bump(conn, namespace, layer, len(scoped))
            with self._lock:
                cached = self._cache.get((namespace, layer))
                ordered = sorted(scoped, key=lambda r: r.pk)
                if (
                    cached is not None
                    and cached.version == previous
                    and ordered[0].pk > cached.max_pk
                ):
                    cached.append(
                        [r.pk for r in ordered],
                        np.vstack([np.asarray(r.vector, dtype=np.float32) for r in ordered]),
                        [r.context for r in ordered],
                    )
                    cached.version = current
                else:
                    self._cache.pop((namespace, layer), None)

    def remove(self, conn: Connection, pks: Sequence[int]) -> None:
        if not pks:
            return
        scopes = conn.execute(
            select(vectors.c.namespace, vectors.c.layer, func.count())
            .where(vectors.c.memory_pk.in_(list(pks)))
            .group_by(vectors.c.namespace, vectors.c.layer)
        ).all()
        conn.execute(vectors.delete().where(vectors.c.memory_pk.in_(list(pks))))
        for namespace, layer, removed in scopes:
            self._bump(conn, namespace, layer, -int(removed))
            with self._lock:
                self._cache.pop((namespace, layer), None)

    def _rows(self, conn: Connection, namespace: str, layer: str, after_pk: int) -> list[Any]:
        return list(
            conn.execute(
                select(vectors.c.memory_pk, vectors.c.vector, memories.c.context)
                .join(memories, memories.c.pk == vectors.c.memory_pk)
                .where(
                    vectors.c.namespace == namespace,
                    vectors.c.layer == layer,
                    vectors.c.memory_pk > after_pk,
                )
                .order_by(vectors.c.memory_pk)
            ).all()
        )

    def _load(self, conn: Connection, namespace: str, layer: str, dimension: int) -> _Matrix:
        key = (namespace, layer)
        state = conn.execute(
            select(vector_versions.c.version, vector_versions.c.count).where(
                vector_versions.c.namespace == namespace, vector_versions.c.layer == layer
            )
        ).one_or_none()
        version, count = (int(state[0]), int(state[1])) if state else (0, 0)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None and cached.version == version:
                return cached
        # Another process wrote: read what was added since, or everything after deletions.
        after = cached.max_pk if cached is not None else 0
        rows = self._rows(conn, namespace, layer, after)
        if cached is None or cached.size + len(rows) != count:
            cached = _Matrix(version, dimension)
            rows = rows if after == 0 else self._rows(conn, namespace, layer, 0)
        if rows:
            cached.append(
                [int(r[0]) for r in rows],
                np.vstack([np.frombuffer(r[1], dtype=np.float32) for r in rows]),
                [r[2] for r in rows],
            )
        cached.version = version
        with self._lock:
            self._cache[key] = cached
        return cached

    def nearest(
        self,
        conn: Connection,
        namespace: str,
        layer: str,
        query: np.ndarray,
        context: str | None,
        limit: int,
    ) -> list[tuple[int, float]]:
        query = np.asarray(query, dtype=np.float32)
        loaded = self._load(conn, namespace, layer, len(query))
        if loaded.size == 0 or limit <= 0:
            return []
        sims = loaded.matrix @ query
        if context is not None:
            sims = np.where(loaded.contexts == context, sims, -np.inf)
        k = min(limit, loaded.size)
        top = np.argpartition(-sims, k - 1)[:k] if k < loaded.size else np.arange(loaded.size)
        top = top[np.argsort(-sims[top], kind="stable")]
        pks = loaded.pks
        return [(int(pks[i]), float(sims[i])) for i in top if np.isfinite(sims[i])]

    def missing(self, conn: Connection, namespace: str, limit: int) -> list[int]:
        rows = conn.execute(
            select(memories.c.pk)
            .outerjoin(vectors, vectors.c.memory_pk == memories.c.pk)
            .where(memories.c.namespace == namespace, vectors.c.memory_pk.is_(None))
            .order_by(memories.c.pk)
            .limit(limit)
        )
        return [int(r[0]) for r in rows]
