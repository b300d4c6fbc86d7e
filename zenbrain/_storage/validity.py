"""The SQL of validity over time: closing a memory that a newer one replaced, reading a
chain of replacements, and mending a chain when one of its memories is forgotten.

A memory is current while ``valid_to`` is NULL; a closed one names its replacement in
``superseded_by`` (a memory id of the same namespace). See :mod:`zenbrain._memory.supersede`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, literal, select, update

from zenbrain._storage.reads import memory_select
from zenbrain._storage.schema import keyed_namespace_filter, memories
from zenbrain._storage.timestamps import to_db

__all__ = [
    "close",
    "history_rows",
    "holds_older",
    "mend_after_forget",
    "rows_by_id",
    "successors",
]


def rows_by_id(conn: Connection, namespace: str, ids: Sequence[str]) -> dict[str, Row[Any]]:
    """The memories of ``namespace`` with these ids (others are left out)."""
    if not ids:
        return {}
    query = memory_select(namespace, keyed=True).where(memories.c.id.in_(list(ids)))
    return {str(row.id): row for row in conn.execute(query).all()}


def successors(
    conn: Connection, namespace: str, ids: Sequence[str], depth: int
) -> dict[str, Row[Any]]:
    """The memories that replaced ``ids`` and those that replaced them, up to ``depth``
    links along each chain: one recursive statement finds their ids, a second reads them,
    however long the chains."""
    if not ids:
        return {}
    start = (
        select(memories.c.superseded_by.label("id"), literal(1).label("depth"))
        .where(memories.c.id.in_(list(ids)), keyed_namespace_filter(namespace))
        .where(memories.c.superseded_by.is_not(None))
        .cte("chain", recursive=True)
    )
    step = (
        select(memories.c.superseded_by, start.c.depth + 1)
        .join(start, memories.c.id == start.c.id)
        .where(memories.c.superseded_by.is_not(None), start.c.depth < depth)
        .where(keyed_namespace_filter(namespace))
    )
    chain = start.union(step)
    found = [str(i) for i in conn.execute(select(chain.c.id).distinct()).scalars()]
    return rows_by_id(conn, namespace, found)


def holds_older(conn: Connection, namespace: str, pk: int) -> bool:
    """Whether ``namespace`` holds a memory stored before the one with key ``pk``."""
    query = (
        select(memories.c.pk)
        .where(memories.c.pk < pk, keyed_namespace_filter(namespace))
        .order_by(memories.c.pk.desc())
        .limit(1)
    )
    return conn.execute(query).first() is not None


def close(
    conn: Connection, namespace: str, pk: int, valid_to: datetime, superseded_by: str
) -> None:
    """Mark the memory ``pk`` as replaced by ``superseded_by`` from ``valid_to`` on."""
    conn.execute(
        update(memories)
        .where(memories.c.pk == pk, keyed_namespace_filter(namespace))
        .values(valid_to=to_db(valid_to), superseded_by=superseded_by)
    )


def _replaced_by(conn: Connection, namespace: str, ids: Sequence[str]) -> list[Row[Any]]:
    query = memory_select(namespace).where(memories.c.superseded_by.in_(list(ids)))
    return list(conn.execute(query).all())


def history_rows(conn: Connection, namespace: str, memory_id: str) -> list[Row[Any]]:
    """Every memory linked to ``memory_id`` by replacements, in either direction, oldest
    first (by the time each became valid); empty for an unknown id."""
    start = rows_by_id(conn, namespace, [memory_id])
    if not start:
        return []
    found: dict[str, Row[Any]] = dict(start)
    frontier = list(start)
    while frontier:
        later = [
            str(row.superseded_by)
            for row in (found[i] for i in frontier)
            if row.superseded_by is not None and row.superseded_by not in found
        ]
        nxt = dict(rows_by_id(conn, namespace, later))
        nxt.update(
            (str(row.id), row)
            for row in _replaced_by(conn, namespace, frontier)
            if str(row.id) not in found
        )
        found.update(nxt)
        frontier = list(nxt)
    rows = list(found.values())
    rows.sort(key=lambda row: (row.valid_from or row.created_at, row.created_at, row.pk))
    return rows


def mend_after_forget(
    conn: Connection, namespace: str, forgotten: Sequence[Row[Any]]
) -> list[Row[Any]]:
    """Before ``forgotten`` are deleted: each memory one of them replaced is now replaced
    by what replaced the forgotten one (the chain skips it), or, if the forgotten one was
    current, becomes current again. Nothing else is deleted or changed. Returns the rows
    of the memories that became current again (as they were read, still closed)."""
    gone = {str(row.id): row for row in forgotten}
    reopened: list[Row[Any]] = []
    for row in _replaced_by(conn, namespace, list(gone)):
        if str(row.id) in gone:
            continue
        successor = gone[str(row.superseded_by)]
        # Follow the chain past every forgotten memory.
        while successor.superseded_by is not None and str(successor.superseded_by) in gone:
            successor = gone[str(successor.superseded_by)]
        values: dict[str, Any] = {"superseded_by": successor.superseded_by}
        if successor.superseded_by is None:
            values["valid_to"] = None
            reopened.append(row)
        conn.execute(
            update(memories)
            .where(memories.c.pk == row.pk, keyed_namespace_filter(namespace))
            .values(**values)
        )
    return reopened
