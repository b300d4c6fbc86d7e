"""SQLite vectors: float32 blobs in ``zb_vectors``, searched in memory per scope.

A scope (namespace and layer) is held in memory in one of two forms:

- below :data:`PREFILTER_MIN_ROWS` rows, an exact float32 matrix searched with one numpy
  matrix-vector product (at that size the product costs less than any index);
- from there on, an int8 copy (a quarter of the bytes) with each row's sign bits beside it
  (a 32nd of the bytes), taken around the scope's centre: the mean of the first
  :data:`~zenbrain._storage.sqlite.prefilter.CENTRE_SAMPLE_ROWS` rows the copy held, which a
  process works out when it quantises or reads the scope. A search ranks every row by the
  Hamming distance of its bits to the query's, re-ranks the closest 3% by their int8
  cosine, and keeps a few times more candidates than asked
  (:mod:`zenbrain._storage.sqlite.prefilter`); their float32 vectors are then read back by
  primary key and re-scored exactly, so every returned similarity is the exact cosine and
  the ranking is exact as long as the true neighbours are among the candidates
  (``benchmarks.scale.ann`` and ``benchmarks.scale`` measure how often they are).

Both forms grow in place into preallocated buffers (doubling), so loading or appending never
copies the whole matrix more than once. A removed row is zeroed where it is and skipped by
searches, and the rows are compacted only once a quarter of them are removed: a removal
costs the rows removed, not the scope. Every write bumps the scope's row in
``zb_vector_versions``, and every removal is logged in ``zb_vector_removals``; a search
compares that version with the cached one and, when another process wrote, drops the keys
logged as removed since, reads back those stored again under their key (a changed vector)
and reads the rows added since: never the whole scope again, unless the log was pruned past
what the cached copy saw.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from sqlalchemy import Connection, select

from zenbrain._storage.indexes import IndexedVector
from zenbrain._storage.schema import memories, vector_versions, vectors
from zenbrain._storage.sqlite import removal_log
from zenbrain._storage.sqlite.prefilter import (
    CENTRE_SAMPLE_ROWS,
    centred_codes,
    code_centre,
    code_words,
    dot_rows,
    int8_scales,
    prefilter_candidates,
    quantize_int8,
    top_positions,
)

__all__ = ["PREFILTER_MIN_ROWS", "REMOVAL_LOG_KEPT", "SqliteVectorIndex"]

PREFILTER_MIN_ROWS = 20_000
"""From this many rows a scope is searched through its int8 copy (exact float32 below)."""
_READ_CHUNK = 4096
REMOVAL_LOG_KEPT = 10_000
"""Entries of ``zb_vector_removals`` kept; a process further behind reads its scope again."""
_SQL_IN_CHUNK = 900  # below SQLite's default limit of bound parameters
_COMPACT_MIN_REMOVED = 1_024
"""Removed rows a scope holds (zeroed) before it is compacted, when also a quarter of it."""


class _Rows:
    """One scope's rows held in memory: primary keys, contexts and either float32 vectors
    (``exact``) or their int8 quantisation with its :func:`centred_codes` around
    ``centre``, in preallocated buffers grown by doubling. A removed row stays in its place,
    zeroed and marked dead (``alive``), until :meth:`keep` compacts the rows."""

    __slots__ = (
        "_alive",
        "_codes",
        "_contexts",
        "_pks",
        "_scales",
        "_vectors",
        "centre",
        "dead",
        "dimension",
        "filled",
        "in_key_order",
        "max_pk",
        "removals_seen",
        "version",
    )

    def __init__(self, version: int, dimension: int, capacity: int, *, int8: bool) -> None:
        self.version = version
        self.removals_seen = 0  # the last entry of zb_vector_removals applied here
        self.dimension = dimension
        self.filled = 0  # rows in the buffers, the removed ones still in place included
        self.dead = 0  # those removed (zeroed)
        self.max_pk = 0
        # Keys only grow, so rows appended as stored are in key order; a key stored again
        # is appended out of order, until the next compaction sorts the rows.
        self.in_key_order = True
        capacity = max(capacity, 64)
        self._pks = np.zeros(capacity, dtype=np.int64)
        self._alive = np.zeros(capacity, dtype=bool)
        self._contexts = np.empty(capacity, dtype=object)
        self._vectors = np.zeros((capacity, dimension), dtype=np.int8 if int8 else np.float32)
        # Word-major: a scan reads each word of every row as one contiguous run.
        self._codes = np.zeros((code_words(dimension), capacity if int8 else 0), np.uint64)
        self._scales = np.zeros(capacity if int8 else 0, dtype=np.float32)
        # Set from the first rows an int8 copy holds; fixed from then on, so every row's bits
        # are taken around the same point.
        self.centre: np.ndarray | None = None

    @property
    def exact(self) -> bool:
        return self._vectors.dtype == np.float32

    @property
    def size(self) -> int:
        """Live rows (those filled, less those removed)."""
        return self.filled - self.dead

    @property
    def pks(self) -> np.ndarray:
        return self._pks[: self.filled]

    @property
    def alive(self) -> np.ndarray:
        """Whether each row is live (false: removed, zeroed until compacted)."""
        return self._alive[: self.filled]

    @property
    def contexts(self) -> np.ndarray:
        return self._contexts[: self.filled]

    @property
    def vectors(self) -> np.ndarray:
        return self._vectors[: self.filled]

    @property
    def codes(self) -> np.ndarray:
        """Sign codes of the int8 rows, word-major: ``codes[w]`` is word ``w`` of every row
        (empty while ``exact``)."""
        return self._codes[:, : self.filled]

    @property
    def scales(self) -> np.ndarray:
        """:func:`int8_scales` of the int8 rows (empty while ``exact``)."""
        return self._scales[: self.filled]

    def _reserve(self, needed: int) -> None:
        if needed <= len(self._pks):
            return
        capacity = max(needed, 2 * len(self._pks))
        pks = np.zeros(capacity, dtype=np.int64)
        pks[: self.filled] = self._pks[: self.filled]
        alive = np.zeros(capacity, dtype=bool)
        alive[: self.filled] = self._alive[: self.filled]
        contexts = np.empty(capacity, dtype=object)
        contexts[: self.filled] = self._contexts[: self.filled]
        grown = np.zeros((capacity, self.dimension), dtype=self._vectors.dtype)
        grown[: self.filled] = self._vectors[: self.filled]
        self._pks, self._alive, self._contexts, self._vectors = pks, alive, contexts, grown
        if not self.exact:
            codes = np.zeros((self._codes.shape[0], capacity), dtype=np.uint64)
            codes[:, : self.filled] = self._codes[:, : self.filled]
            scales = np.zeros(capacity, dtype=np.float32)
            scales[: self.filled] = self._scales[: self.filled]
            self._codes, self._scales = codes, scales

    def append(self, pks: Sequence[int], rows: np.ndarray, contexts: Sequence[str | None]) -> None:
        """Add rows (float32, one per key); they are quantised here when the scope is int8."""
        if not len(pks):
            return
        end = self.filled + len(pks)
        self._reserve(end)
        keys = np.asarray(pks, dtype=np.int64)
        if keys[0] <= self.max_pk or np.any(keys[1:] <= keys[:-1]):
            self.in_key_order = False
        self._pks[self.filled : end] = keys
        self._alive[self.filled : end] = True
        self._contexts[self.filled : end] = list(contexts)
        if self.exact:
            self._vectors[self.filled : end] = rows
        else:
            if self.centre is None:
                self.centre = code_centre(rows[:CENTRE_SAMPLE_ROWS])
            _encode_int8(rows, self.centre, self._vectors, self._codes, self._scales, self.filled)
        self.filled = end
        self.max_pk = max(self.max_pk, int(keys.max()))

    def remove(self, pks: np.ndarray) -> None:
        """Remove the live rows with these keys: each zeroed in place (no copy of its vector
        or context stays behind) and skipped by searches; the rows are compacted once a
        quarter of them (and :data:`_COMPACT_MIN_REMOVED`) are removed. Costs the keys
        removed (a binary search each while the rows are in key order), not the rows."""
        if self.size == 0:
            return
        if self.in_key_order:
            at = np.minimum(np.searchsorted(self.pks, pks), self.filled - 1)
            at = at[self.pks[at] == pks]
        else:
            at = np.flatnonzero(np.isin(self.pks, pks))
        at = at[self._alive[at]]
        self._alive[at] = False
        self._contexts[at] = None
        self._vectors[at] = 0
        if not self.exact:
            self._codes[:, at] = 0
            self._scales[at] = 0
        self.dead += len(at)
        if self.dead > max(_COMPACT_MIN_REMOVED, self.filled // 4):
            self.keep(self.alive)

    def keep(self, mask: np.ndarray) -> None:
        """Drop the rows where ``mask`` is false, and the removed ones, compacting in place
        (in key order again if some were stored out of it)."""
        picked = np.flatnonzero(mask & self.alive)
        kept = len(picked)
        if kept == self.filled:
            return
        if not self.in_key_order:
            picked = picked[np.argsort(self.pks[picked], kind="stable")]
        for buffer in (self._pks, self._alive, self._contexts, self._vectors):
            buffer[:kept] = buffer[: self.filled][picked]
            buffer[kept : self.filled] = 0  # no copy of a removed vector stays behind
        if not self.exact:
            self._codes[:, :kept] = self._codes[:, : self.filled][:, picked]
            self._codes[:, kept : self.filled] = 0
            self._scales[:kept] = self._scales[: self.filled][picked]
        self.filled, self.dead, self.in_key_order = kept, 0, True
        self.max_pk = int(self._pks[:kept].max()) if kept else 0

    def to_int8(self) -> None:
        """Replace the float32 buffer by its int8 quantisation (a quarter of the bytes)."""
        if not self.exact:
            return
        quantized = np.zeros((len(self._pks), self.dimension), dtype=np.int8)
        codes = np.zeros((code_words(self.dimension), len(self._pks)), dtype=np.uint64)
        scales = np.zeros(len(self._pks), dtype=np.float32)
        self.centre = code_centre(self._vectors[: min(self.filled, CENTRE_SAMPLE_ROWS)])
        for begin in range(0, self.filled, _READ_CHUNK):
            chunk = self._vectors[begin : min(self.filled, begin + _READ_CHUNK)]
            _encode_int8(chunk, self.centre, quantized, codes, scales, begin)
        self._vectors, self._codes, self._scales = quantized, codes, scales


def _encode_int8(
    rows: np.ndarray,
    centre: np.ndarray,
    vectors: np.ndarray,
    codes: np.ndarray,
    scales: np.ndarray,
    begin: int,
) -> None:
    """Write float32 ``rows`` into an int8 scope's buffers from position ``begin``: their
    quantisation, their sign bits around ``centre`` (word-major) and the scales."""
    end = begin + len(rows)
    quantized = quantize_int8(rows)
    vectors[begin:end] = quantized
    codes[:, begin:end] = centred_codes(rows, centre).T
    scales[begin:end] = int8_scales(quantized)


class SqliteVectorIndex:
    """Nearest neighbours by cosine over ``zb_vectors``, with per-scope rows cached in
    memory and kept in step with other processes by ``zb_vector_versions``. Writes in this
    process append to the cache directly, so a recall after a store reloads nothing."""

    def __init__(self, prefilter_min_rows: int = PREFILTER_MIN_ROWS) -> None:
        self.prefilter_min_rows = prefilter_min_rows
        self._cache: dict[tuple[str, str], _Rows] = {}
        self._lock = threading.Lock()

    def evict(self, namespace: str) -> None:
        with self._lock:
            for key in [key for key in self._cache if key[0] == namespace]:
                del self._cache[key]

    def scrub(self, conn: Connection, namespace: str) -> None:
        """After a purge: each of the namespace's scopes held brought in step with the store
        as ``conn`` sees it (a search's own catch-up, which zeroes the rows other writers
        removed; this process zeroes its own as it removes them), and one left without a
        live row dropped. Nothing is read again that is still held."""
        with self._lock:
            held = [
                (key, rows.dimension) for key, rows in self._cache.items() if key[0] == namespace
            ]
        for (_, layer), dimension in held:
            if self._load(conn, namespace, layer, dimension).size == 0:
                with self._lock:
                    self._cache.pop((namespace, layer), None)

    def install(self, conn: Connection, dimension: int) -> None:
        """Nothing to create: ``zb_vectors`` is part of the shared schema."""

    # ------------------------------------------------------------------ writes
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
        blobs = [np.asarray(r.vector, dtype=np.float32) for r in rows]
        # The DB-API directly: one executemany instead of SQLAlchemy's per-row processing.
        conn.connection.driver_connection.executemany(  # type: ignore[union-attr]
            "INSERT INTO zb_vectors(memory_pk, namespace, layer, vector) VALUES (?, ?, ?, ?)",
            [
                (r.pk, r.namespace, r.layer, blob.tobytes())
                for r, blob in zip(rows, blobs, strict=True)
            ],
        )
        by_scope: dict[tuple[str, str], list[int]] = {}
        for position, r in enumerate(rows):
            by_scope.setdefault((r.namespace, r.layer), []).append(position)
        for (namespace, layer), positions in by_scope.items():
            previous, current = self._bump(conn, namespace, layer, len(positions))
            with self._lock:
                cached = self._cache.get((namespace, layer))
                if cached is None:
                    continue
                if cached.version != previous or blobs[positions[0]].shape != (cached.dimension,):
                    self._cache.pop((namespace, layer), None)
                    continue
                matrix = np.empty((len(positions), cached.dimension), dtype=np.float32)
                for i, position in enumerate(positions):
                    matrix[i] = blobs[position]
                cached.append(
                    [rows[p].pk for p in positions], matrix, [rows[p].context for p in positions]
                )
                cached.version = current
                self._maybe_quantize(cached)

    def remove(self, conn: Connection, pks: Sequence[int]) -> None:
        if not pks:
            return
        found = conn.execute(
            select(vectors.c.memory_pk, vectors.c.namespace, vectors.c.layer).where(
                vectors.c.memory_pk.in_(list(pks))
            )
        ).all()
        if not found:
            return
        conn.execute(vectors.delete().where(vectors.c.memory_pk.in_(list(pks))))
        # Logged for the copies other processes hold (see _catch_up), pruned to the newest.
        removal_log.append(
            self._driver(conn),
            "zb_vector_removals",
            ("namespace", "layer", "memory_pk"),
            [(namespace, layer, int(pk)) for pk, namespace, layer in found],
            REMOVAL_LOG_KEPT,
        )
        scopes: dict[tuple[str, str], int] = {}
        for _, namespace, layer in found:
            scopes[(namespace, layer)] = scopes.get((namespace, layer), 0) + 1
        gone = np.asarray(sorted(pks), dtype=np.int64)
        for (namespace, layer), removed in scopes.items():
            previous, current = self._bump(conn, namespace, layer, -removed)
            with self._lock:
                cached = self._cache.get((namespace, layer))
                if cached is None:
                    continue
                if cached.version != previous:
                    self._cache.pop((namespace, layer), None)
                    continue
                # Zeroed in place. Rolled back, the next search finds this copy short of the
                # count stored and reads them back (_resync).
                cached.remove(gone)
                cached.version = current

    # ------------------------------------------------------------------ loading
    def _maybe_quantize(self, cached: _Rows) -> None:
        if cached.exact and cached.size >= self.prefilter_min_rows:
            cached.to_int8()

    @staticmethod
    def _driver(conn: Connection) -> Any:
        return conn.connection.driver_connection

    def _read_rows(
        self, conn: Connection, namespace: str, layer: str, after_pk: int
    ) -> Iterable[list[tuple[int, bytes, str | None]]]:
        """The scope's rows with a key above ``after_pk`` in key order, in chunks."""
        cursor = self._driver(conn).execute(
            "SELECT v.memory_pk, v.vector, m.context FROM zb_vectors v "
            "JOIN zb_memories m ON m.pk = v.memory_pk "
            "WHERE v.namespace = ? AND v.layer = ? AND v.memory_pk > ? ORDER BY v.memory_pk",
            (namespace, layer, after_pk),
        )
        try:
            while chunk := cursor.fetchmany(_READ_CHUNK):
                yield chunk
        finally:
            cursor.close()

    def _read_by_pk(
        self, conn: Connection, namespace: str, layer: str, pks: Sequence[int]
    ) -> Iterable[list[tuple[int, bytes, str | None]]]:
        """The scope's rows with these keys (a key now in another scope is left out)."""
        driver = self._driver(conn)
        for begin in range(0, len(pks), _SQL_IN_CHUNK):
            part = [int(pk) for pk in pks[begin : begin + _SQL_IN_CHUNK]]
            marks = ",".join("?" * len(part))
            yield driver.execute(
                "SELECT v.memory_pk, v.vector, m.context FROM zb_vectors v "
                f"JOIN zb_memories m ON m.pk = v.memory_pk WHERE v.memory_pk IN ({marks}) "
                "AND v.namespace = ? AND v.layer = ?",
                [*part, namespace, layer],
            ).fetchall()

    @staticmethod
    def _append_chunk(cached: _Rows, chunk: list[tuple[int, bytes, str | None]]) -> None:
        matrix = np.empty((len(chunk), cached.dimension), dtype=np.float32)
        for i, row in enumerate(chunk):
            matrix[i] = np.frombuffer(row[1], dtype=np.float32)
        cached.append([int(r[0]) for r in chunk], matrix, [r[2] for r in chunk])

    def _load(self, conn: Connection, namespace: str, layer: str, dimension: int) -> _Rows:
        key = (namespace, layer)
        # The DB-API directly: this check runs on every search of every layer.
        state = (
            self._driver(conn)
            .execute(
                "SELECT version, count FROM zb_vector_versions WHERE namespace = ? AND layer = ?",
                (namespace, layer),
            )
            .fetchone()
        )
        version, count = (int(state[0]), int(state[1])) if state else (0, 0)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None and cached.version == version:
                return cached
            if (
                cached is None
                or cached.dimension != dimension
                or not self._catch_up(conn, cached, namespace, layer)
            ):
                cached = _Rows(version, dimension, count, int8=count >= self.prefilter_min_rows)
                cached.removals_seen = removal_log.newest(self._driver(conn), "zb_vector_removals")
                for chunk in self._read_rows(conn, namespace, layer, 0):
                    self._append_chunk(cached, chunk)
            if cached.size != count:  # what the log and the new keys showed is not all
                self._resync(conn, cached, namespace, layer)
            cached.version = version
            self._maybe_quantize(cached)
            self._cache[key] = cached
            return cached

    def _catch_up(self, conn: Connection, cached: _Rows, namespace: str, layer: str) -> bool:
        """Another process wrote: drop the keys it removed (from ``zb_vector_removals``),
        read back those it stored again under the same key (a memory whose vector changed)
        and read the keys added since; False when the log no longer reaches back to what
        this copy saw (pruned), so the scope is read again."""
        logged = removal_log.removed_since(
            self._driver(conn),
            "zb_vector_removals",
            "memory_pk",
            cached.removals_seen,
            "namespace = ? AND layer = ?",
            (namespace, layer),
        )
        if logged is None:
            return False
        removed, cached.removals_seen = logged
        after = cached.max_pk
        if removed:
            gone = np.unique(np.asarray(removed, dtype=np.int64))
            cached.remove(gone)
            again = gone[gone <= after].tolist()  # later keys come with the new rows below
            for chunk in self._read_by_pk(conn, namespace, layer, again):
                if chunk:
                    self._append_chunk(cached, chunk)
        fresh = [r for c in self._read_rows(conn, namespace, layer, after) for r in c]
        if fresh:
            self._append_chunk(cached, fresh)
        return True

    def _resync(self, conn: Connection, cached: _Rows, namespace: str, layer: str) -> None:
        """Rows were deleted (and maybe added) elsewhere: drop the keys that are gone, read
        the ones that are new."""
        present = np.fromiter(
            (
                int(r[0])
                for r in self._driver(conn).execute(
                    "SELECT memory_pk FROM zb_vectors WHERE namespace = ? AND layer = ?",
                    (namespace, layer),
                )
            ),
            dtype=np.int64,
        )
        cached.keep(np.isin(cached.pks, present))  # the removed rows go too
        missing = np.setdiff1d(present, cached.pks, assume_unique=True)
        for chunk in self._read_by_pk(conn, namespace, layer, missing.tolist()):
            if chunk:
                self._append_chunk(cached, chunk)

    # ------------------------------------------------------------------ search
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
        with self._lock:
            pks, rows, codes, scales = loaded.pks, loaded.vectors, loaded.codes, loaded.scales
            removed = ~loaded.alive if loaded.dead else None  # rows zeroed in place
            if context is not None:
                positions = np.flatnonzero(loaded.contexts == context)  # removed: no context
                pks, rows, removed = pks[positions], rows[positions], None
                if not loaded.exact:
                    codes, scales = codes[:, positions], scales[positions]
            if len(pks) == 0:
                return []
            if loaded.exact:
                sims = dot_rows(rows, query)
                if removed is not None:  # ranked as if compacted: ties break alike
                    live = np.flatnonzero(~removed)
                    pks, sims = pks[live], sims[live]
                top = top_positions(sims, limit)
                return [(int(pks[i]), float(sims[i])) for i in top]
            candidates = prefilter_candidates(rows, codes, query, limit, scales, loaded.centre)
            if removed is not None:
                candidates = candidates[~removed[candidates]]
            chosen = pks[candidates]
        return self.rescore(conn, chosen.tolist(), query, limit)

    def rescore(
        self, conn: Connection, pks: Sequence[int], query: np.ndarray, limit: int
    ) -> list[tuple[int, float]]:
        """Exact float32 cosine of the given rows (read by key), the best ``limit`` first."""
        keys: list[int] = []
        blobs: list[bytes] = []
        driver = self._driver(conn)
        for begin in range(0, len(pks), _SQL_IN_CHUNK):
            part = [int(pk) for pk in pks[begin : begin + _SQL_IN_CHUNK]]
            marks = ",".join("?" * len(part))
            statement = f"SELECT memory_pk, vector FROM zb_vectors WHERE memory_pk IN ({marks})"
            for pk, blob in driver.execute(statement, part).fetchall():
                keys.append(int(pk))
                blobs.append(blob)
        if not keys:
            return []
        matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(keys), -1)
        sims = dot_rows(matrix, np.asarray(query, dtype=np.float32))
        # Ties go to the older memory, as in the exact path (rows kept in key order there).
        order = np.argsort(np.asarray(keys))
        sims, ordered = sims[order], np.asarray(keys)[order]
        return [(int(ordered[i]), float(sims[i])) for i in top_positions(sims, limit)]

    def missing(self, conn: Connection, namespace: str, limit: int) -> list[int]:
        rows = conn.execute(
            select(memories.c.pk)
            .outerjoin(vectors, vectors.c.memory_pk == memories.c.pk)
            .where(memories.c.namespace == namespace, vectors.c.memory_pk.is_(None))
            .order_by(memories.c.pk)
            .limit(limit)
        )
        return [int(r[0]) for r in rows]
