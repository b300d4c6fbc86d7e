"""The memory reads recall runs on every call, as statements built once per namespace.

Building a SQLAlchemy ``Select`` costs more than SQLite takes to run a lookup by key, so
the statements :class:`~zenbrain.storage.repository.Repository` reads rows with are built
here, once per namespace (and layer), and only their parameters change from call to call.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from sqlalchemy import Column, Integer, Select, bindparam, select

from zenbrain.storage.schema import core_blocks, keyed_namespace_filter, memories, procedures
from zenbrain.storage.subtree import in_subtree

__all__ = [
    "by_pk_statement",
    "core_statement",
    "latest_statement",
    "memory_select",
]

# A memory's layer fields, joined to its row by every memory query.
_P, _C = procedures.c, core_blocks.c
_LAYER_FIELDS: tuple[Column[Any], ...] = (_P.steps, _P.tools, _P.outcome, _P.success_rate)
_LAYER_FIELDS += (_P.execution_count, _C.label, _C.pinned)
# Namespaces whose statements are kept (a process serving more rebuilds the oldest).
_KEPT = 256


def memory_select(namespace: str, *, keyed: bool = False, subtree: bool = False) -> Select[Any]:
    """Memories of ``namespace`` with their layer fields; ``keyed=True`` for lookups by pk or
    id (see :func:`~zenbrain.storage.schema.keyed_namespace_filter`); ``subtree=True`` for
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
