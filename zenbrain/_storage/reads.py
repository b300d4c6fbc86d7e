"""The memory reads recall runs on every call, as statements built once per namespace, and
the reads by key that page through memories (:func:`memories_after` in find()'s order,
:func:`pages_by_key` by key alone).

Building a SQLAlchemy ``Select`` costs more than SQLite takes to run a lookup by key, so
the statements :class:`~zenbrain._storage.repository.Repository` reads rows with are built
here, once per namespace (and layer), and only their parameters change from call to call.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import Column, ColumnElement, Connection, Integer, Row, Select, bindparam, select

from zenbrain._storage.schema import core_blocks, keyed_namespace_filter, memories, procedures
from zenbrain._storage.subtree import in_subtree

__all__ = [
    "by_pk_statement",
    "core_statement",
    "latest_statement",
    "memories_after",
    "memory_select",
    "pages_by_key",
]

# A memory's layer fields, joined to its row by every memory query.
_P, _C = procedures.c, core_blocks.c
_LAYER_FIELDS: tuple[Column[Any], ...] = (_P.steps, _P.tools, _P.outcome, _P.success_rate)
_LAYER_FIELDS += (_P.execution_count, _C.label, _C.pinned)
# Namespaces whose statements are kept (a process serving more rebuilds the oldest).
_KEPT = 256


def memory_select(namespace: str, *, keyed: bool = False, subtree: bool = False) -> Select[Any]:
    """Memories of ``namespace`` with their layer fields; ``keyed=True`` for lookups by pk or
    id (see :func:`~zenbrain._storage.schema.keyed_namespace_filter`); ``subtree=True`` for
    this namespace and those below it (:mod:`.subtree`)."""
    in_namespace = (
        in_subtree(memories.c.namespace, namespace)
        if subtree
        else keyed_namespace_filter(namespace)
        if keyed
        else memories.c.namespace == namespace
    )
    return (
        select(memories, *_LAYER_FIELDS)
        .outerjoin(procedures, procedures.c.memory_pk == memories.c.pk)
        .outerjoin(core_blocks, core_blocks.c.memory_pk == memories.c.pk)
        .where(in_namespace)
    )


@lru_cache(maxsize=_KEPT)
def by_pk_statement(namespace: str) -> Select[Any]:
    """Memories of ``namespace`` whose pk is in the expanding parameter ``pks``."""
    return memory_select(namespace, keyed=True).where(
        memories.c.pk.in_(bindparam("pks", expanding=True))
    )


@lru_cache(maxsize=_KEPT)
def latest_statement(namespace: str, layer: str, in_context: bool) -> Select[Any]:
    """The newest ``limit`` memories of a layer (procedures: the most successful), in the
    parameter ``context`` when ``in_context``."""
    query = memory_select(namespace).where(memories.c.layer == layer)
    if in_context:
        query = query.where(memories.c.context == bindparam("context"))
    if layer == "procedural":
        query = query.order_by(
            procedures.c.success_rate.desc(),
            procedures.c.execution_count.desc(),
            memories.c.pk.desc(),
        )
    else:
        query = query.order_by(memories.c.created_at.desc(), memories.c.pk.desc())
    return query.limit(bindparam("limit", type_=Integer))


@lru_cache(maxsize=_KEPT)
def core_statement(namespace: str) -> Select[Any]:
    """The core blocks of ``namespace`` by label."""
    query = memory_select(namespace).where(memories.c.layer == "core")
    return query.order_by(core_blocks.c.label)


def memories_after(
    conn: Connection,
    namespace: str,
    layer: str,
    condition: ColumnElement[bool],
    after: tuple[datetime, int] | None,
    limit: int,
) -> list[Row[Any]]:
    """At most ``limit`` memories of a namespace's layer that meet ``condition``, in
    ``find()``'s order (``created_at``, then ``pk``), from just after ``after`` (the last
    row's ``(created_at, pk)``; None: from the first).

    Read by key: the index on (namespace, layer, created_at) starts where the key is, so a
    page costs its own rows wherever it starts (an OFFSET reads again every row before it).
    The memories stored at the key's very time (a batch shares one) are read apart, by pk:
    SQLite's index entries end with the rowid (the pk), so that seeks too; PostgreSQL's do
    not, and reads the memories of that one time again."""
    query = memory_select(namespace).where(memories.c.layer == layer, condition)
    rows: list[Row[Any]] = []
    if after is not None:
        at, pk = after
        same_time = query.where(memories.c.created_at == at, memories.c.pk > pk)
        rows = list(conn.execute(same_time.order_by(memories.c.pk).limit(limit)).all())
        query = query.where(memories.c.created_at > at)
    if len(rows) < limit:
        later = query.order_by(memories.c.created_at, memories.c.pk).limit(limit - len(rows))
        rows += conn.execute(later).all()
    return rows


def pages_by_key(
    conn: Connection, query: Select[Any], page: int, after: int = 0
) -> Iterator[Sequence[Row[Any]]]:
    """The rows of ``query`` (which selects ``zb_memories.pk``) with keys above ``after``, in
    pages of ``page`` by key: each page is read after the caller used the last, so a caller
    may write between pages (a migration, an index being filled)."""
    while rows := conn.execute(
        query.where(memories.c.pk > after).order_by(memories.c.pk).limit(page)
    ).all():
        yield rows
        after = int(rows[-1].pk)
