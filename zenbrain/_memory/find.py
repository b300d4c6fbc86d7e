"""Memories by metadata: :func:`find` lists those whose metadata contains given key/value
pairs (in SQL, oldest first), :func:`find_pages` all of them a page at a time (an export);
:func:`replace` swaps them for one new memory atomically."""

from __future__ import annotations

import dataclasses
import heapq
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Row

from zenbrain import _validation as check
from zenbrain._memory import store as store_pipeline
from zenbrain._memory.results import to_result
from zenbrain._memory.scope import MemoryScope
from zenbrain._storage.reads import memories_after
from zenbrain.errors import InvalidInputError
from zenbrain.operations import StoreItem
from zenbrain.stages import forget_stage_rows
from zenbrain.types import DEFAULT_RECALL_LAYERS, RecallResult

__all__ = [
    "find",
    "find_pages",
    "get",
    "replace",
]


def _check_layers(layers: object) -> list[str] | None:
    if layers is None:
        return None
    if isinstance(layers, str) or not isinstance(layers, Sequence) or not layers:
        raise InvalidInputError(f"layers must be a non-empty list of layer names, got {layers!r}")
    return list(dict.fromkeys(check.check_layer(name, DEFAULT_RECALL_LAYERS) for name in layers))


def find(
    scope: MemoryScope,
    metadata: Mapping[str, Any] | None,
    *,
    layers: Sequence[str] | None,
    limit: int | None,
    offset: int,
    subtree: bool = False,
) -> list[RecallResult]:
    """See :meth:`zenbrain.MemoryCoordinator.find`; ``subtree`` adds the namespaces below."""
    match = check.check_match(metadata, "metadata") if metadata is not None else {}
    below = check.check_bool(subtree, "subtree")
    wanted = _check_layers(layers)
    count = None if limit is None else check.check_int(limit, "limit", 1, 10**9)
    skip = check.check_int(offset, "offset", 0, 10**12)
    with scope.lock, scope.repo.read() as conn:
        rows = scope.repo.find_rows(conn, match, wanted, count, skip, below)
    return [to_result(row, 1.0) for row in rows]


def find_pages(
    scope: MemoryScope,
    metadata: Mapping[str, Any] | None,
    *,
    layers: Sequence[str] | None,
    size: int,
) -> Iterator[list[RecallResult]]:
    """What :func:`find` lists (the same filters, the same order: oldest first), ``size``
    memories at a time, for an export (``zenbrain export``, ``GET /v1/export``).

    Pages of ``find(limit=, offset=)`` read every earlier row again (an export of n
    memories reads n²/size rows); here each layer is read a page at a time from the last
    key it gave (:func:`~zenbrain._storage.reads.memories_after`) and the layers are merged,
    so each memory is read once. Each read is a transaction of its own, as each find() is:
    a memory stored or removed meanwhile may or may not be listed, and none is listed twice.
    The arguments are checked now, the store read as the pages are taken."""
    match = check.check_match(metadata, "metadata") if metadata is not None else {}
    wanted = _check_layers(layers) or list(DEFAULT_RECALL_LAYERS)
    count = check.check_int(size, "size", 1, 10**6)
    condition = scope.repo.metadata_filter(match)
    streams = [_layer_rows(scope, layer, condition, count) for layer in wanted]
    return _paged(heapq.merge(*streams, key=lambda row: (row.created_at, row.pk)), count)


def _layer_rows(
    scope: MemoryScope, layer: str, condition: ColumnElement[bool], size: int
) -> Iterator[Row[Any]]:
    """One layer's memories meeting ``condition`` in find()'s order, read ``size`` at a time."""
    after = None
    while True:
        with scope.lock, scope.repo.read() as conn:
            rows = memories_after(conn, scope.namespace, layer, condition, after, size)
        yield from rows
        if len(rows) < size:
            return
        after = (rows[-1].created_at, int(rows[-1].pk))


def _paged(rows: Iterator[Row[Any]], size: int) -> Iterator[list[RecallResult]]:
    page: list[RecallResult] = []
    for row in rows:
        page.append(to_result(row, 1.0))
        if len(page) == size:
            yield page
            page = []
    if page:
        yield page


def replace(scope: MemoryScope, match: object, item: StoreItem) -> str:
    """Remove every memory of the namespace whose metadata contains ``match`` and store
    the new one, in one write transaction. The new memory's metadata must contain
    ``match`` too (it is added when missing), so the replacement is found by the next one."""
    checked = check.check_match(match, "match")
    if not checked:
        raise InvalidInputError("match must name at least one metadata key")
    now = scope.now()
    merged = dataclasses.replace(item, metadata={**(item.metadata or {}), **checked})
    memory = store_pipeline.prepare(merged, now)
    if memory.layer in ("working", "core"):
        raise InvalidInputError(
            f"replace() stores long-term memories with metadata; layer {memory.layer!r} "
            "cannot be matched again (use set_core_block for core blocks)"
        )
    store_pipeline.embed(scope, [memory])
    repo = scope.repo
    with scope.lock:
        with repo.write() as conn:
            repo.lock_match(conn, checked)
            doomed_rows = repo.find_rows(conn, checked, None, None, 0)
            doomed = [int(row.pk) for row in doomed_rows]
            if doomed:
                repo.unlink(conn, [str(row.id) for row in doomed_rows])
                forget_stage_rows(conn, scope.namespace, doomed)
                repo.delete(conn, doomed)
            ids = store_pipeline.write(scope, conn, [memory], now)
        gone = {str(row.id) for row in doomed_rows}
        scope.working.remove_copies_of(gone, set())
        return store_pipeline.remember_in_working(scope, [memory], ids, now)[0]


def get(scope: MemoryScope, id: str) -> RecallResult | None:
    """One long-term memory by id (score 1.0), or None if this namespace has none."""
    if not isinstance(id, str) or not id:
        return None
    check.check_storable(id, "id")
    with scope.lock, scope.repo.read() as conn:
        row = scope.repo.row(conn, id)
    return None if row is None else to_result(row, 1.0)
