"""The HNSW indexes of PostgreSQL's vector table, and building them once after a bulk load.

There is one partial HNSW index per searched layer (``WHERE layer = 'episodic'``, ...)
rather than one over every vector: a search filtered to a small layer then walks a graph of
that layer only, instead of an iterative scan through a graph whose nearest nodes mostly
belong to other layers (at 100k LoCoMo-derived memories, 5% of them episodic, a filtered
search of the episodic layer read 24,000 buffers in 120 ms over the shared index and 1,200
buffers in 1.3 ms over its own). Searches name the layer as a literal, so every plan, generic
or not, can use the partial index.

:func:`bulk_load` drops these indexes for a large load and builds them once at the end with
parallel maintenance workers: building a graph over everything at once is several times
faster than inserting into it row by row.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import (
    AbstractAsyncContextManager,
    AbstractContextManager,
    asynccontextmanager,
    contextmanager,
)
from typing import Any

from sqlalchemy import Connection

from zenbrain.errors import InvalidInputError
from zenbrain.types import SEARCHED_LAYERS

__all__ = [
    "HNSW_EF_CONSTRUCTION",
    "HNSW_M",
    "LAYER_INDEXES",
    "AsyncBulkLoad",
    "BulkLoad",
    "abulk_load",
    "bulk_load",
    "check_bulk_settings",
    "create_hnsw_indexes",
    "drop_hnsw_indexes",
    "layer_literal",
]

HNSW_M = 16
HNSW_EF_CONSTRUCTION = 64
LAYER_INDEXES: dict[str, str] = {layer: f"zb_pgvectors_hnsw_{layer}" for layer in SEARCHED_LAYERS}
"""Index name per searched layer."""
_SHARED_INDEX = "zb_pgvectors_hnsw"
"""The single index over every layer that stores made before the per-layer indexes have."""
BulkLoad = AbstractContextManager[None]
AsyncBulkLoad = AbstractAsyncContextManager[None]
_MEMORY_SETTING = re.compile(r"[1-9]\d{0,6}\s*(kB|MB|GB|TB)")
_MAX_WORKERS = 64


def layer_literal(layer: str) -> str | None:
    """``layer`` quoted as an SQL literal when it has an index of its own, else ``None``
    (only the fixed names in :data:`LAYER_INDEXES` are ever spliced into SQL)."""
    return f"'{layer}'" if layer in LAYER_INDEXES else None


def _create_statement(layer: str) -> str:
    return (
        f"CREATE INDEX IF NOT EXISTS {LAYER_INDEXES[layer]} ON zb_pgvectors "
        f"USING hnsw (embedding vector_cosine_ops) WITH (m = {HNSW_M}, "
        f"ef_construction = {HNSW_EF_CONSTRUCTION}) WHERE layer = {layer_literal(layer)}"
    )


def create_hnsw_indexes(conn: Connection) -> None:
    """Create the per-layer indexes that are missing; a store that still has the shared
    index of older versions keeps it (searches use it) until :func:`bulk_load` replaces it."""
    if conn.exec_driver_sql(f"SELECT to_regclass('{_SHARED_INDEX}') IS NOT NULL").scalar():
        return
    for layer in LAYER_INDEXES:
        conn.exec_driver_sql(_create_statement(layer))


def drop_hnsw_indexes(conn: Connection) -> None:
    """Drop every HNSW index of the vector table (the per-layer ones and the old shared one)."""
    for name in (_SHARED_INDEX, *LAYER_INDEXES.values()):
        conn.exec_driver_sql(f"DROP INDEX IF EXISTS {name}")


def check_bulk_settings(parallel_workers: Any, maintenance_work_mem: Any) -> tuple[int, str]:
    """The validated settings of a bulk load (:class:`InvalidInputError` otherwise)."""
    if (
        isinstance(parallel_workers, bool)
        or not isinstance(parallel_workers, int)
        or not 0 <= parallel_workers <= _MAX_WORKERS
    ):
        raise InvalidInputError(
            f"parallel_workers must be an int from 0 to {_MAX_WORKERS}, got {parallel_workers!r}"
        )
    if not isinstance(maintenance_work_mem, str) or not _MEMORY_SETTING.fullmatch(
        maintenance_work_mem
    ):
        raise InvalidInputError(
            "maintenance_work_mem must be a PostgreSQL memory size such as '1GB' or '512MB', "
            f"got {maintenance_work_mem!r}"
        )
    return parallel_workers, maintenance_work_mem.replace(" ", "")


def _vector_table(conn: Connection) -> bool:
    return bool(conn.exec_driver_sql("SELECT to_regclass('zb_pgvectors') IS NOT NULL").scalar())


def _set_maintenance(conn: Connection, parallel_workers: int, maintenance_work_mem: str) -> None:
    conn.exec_driver_sql(f"SET LOCAL maintenance_work_mem = '{maintenance_work_mem}'")
    conn.exec_driver_sql(f"SET LOCAL max_parallel_maintenance_workers = {parallel_workers}")


def _build(conn: Connection, parallel_workers: int, maintenance_work_mem: str) -> None:
    """Build the per-layer indexes in ``conn``'s transaction with the given maintenance
    settings (``SET LOCAL``: they end with the transaction), then merge the words' pending
    list and refresh the planner's statistics, which a large load leaves stale."""
    _set_maintenance(conn, parallel_workers, maintenance_work_mem)
    tables = "zb_memories, zb_lexical"
    if _vector_table(conn):
        drop_hnsw_indexes(conn)
        for layer in LAYER_INDEXES:
            conn.exec_driver_sql(_create_statement(layer))
        tables += ", zb_pgvectors"
    # Words loaded meanwhile may wait in the GIN index's pending list, which every search
    # reads sequentially until a vacuum merges it: merge it now.
    conn.exec_driver_sql("SELECT gin_clean_pending_list('zb_lexical_terms'::regclass)")
    conn.exec_driver_sql(f"ANALYZE {tables}")


def bulk_load(
    database: Any, parallel_workers: Any = 2, maintenance_work_mem: Any = "1GB"
) -> AbstractContextManager[None]:
    """A context that drops the HNSW indexes of ``database`` (a
    :class:`~zenbrain._storage.database.Database`) for its ``with`` block and builds them once
    at its end, even when the block raised, so the store is never left without them; then
    refreshes the planner's statistics. On SQLite it changes nothing (its vector search keeps
    no graph to maintain). The settings are checked here, before anything is dropped."""
    workers, memory = check_bulk_settings(parallel_workers, maintenance_work_mem)
    return _deferred_indexes(database, workers, memory)


@asynccontextmanager
async def _async_deferred(manager: BulkLoad) -> AsyncIterator[None]:
    await asyncio.to_thread(manager.__enter__)
    try:
        yield
    except BaseException as exc:
        await asyncio.to_thread(manager.__exit__, type(exc), exc, exc.__traceback__)
        raise
    await asyncio.to_thread(manager.__exit__, None, None, None)


def abulk_load(
    database: Any, parallel_workers: Any = 2, maintenance_work_mem: Any = "1GB"
) -> AsyncBulkLoad:
    """:func:`bulk_load` for ``async with``: dropping and building run in a worker thread."""
    return _async_deferred(bulk_load(database, parallel_workers, maintenance_work_mem))


@contextmanager
def _deferred_indexes(database: Any, workers: int, memory: str) -> Iterator[None]:
    if database.dialect != "postgresql":
        yield
        return
    with database.write() as conn:
        # The server checks the settings now (a size it refuses fails here, before
        # anything is dropped), not only when the indexes are built at the end.
        _set_maintenance(conn, workers, memory)
        if _vector_table(conn):
            drop_hnsw_indexes(conn)
    try:
        yield
    finally:
        with database.write() as conn:
            _build(conn, workers, memory)
