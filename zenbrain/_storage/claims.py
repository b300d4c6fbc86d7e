"""The SQL of the claim index (``zb_claims``): which current episodes and facts state
something about a subject and attribute, so that finding what a new memory replaces is a
lookup (see :mod:`zenbrain._memory.supersede`), and the backlog of memories whose claims
were not read (stored with knowledge updates off).

Keys are 64-bit hashes (:func:`~zenbrain._storage.records.content_hash`) of
:func:`zenbrain.layers._supersession.about`'s strings: the rule reads the candidates' text
again before it closes anything, so a collision can cost a wasted read, never a wrong
decision.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, Row, Select, delete, select

from zenbrain._storage.dialect import upsert_insert
from zenbrain._storage.reads import pages_by_key
from zenbrain._storage.records import content_hash
from zenbrain._storage.schema import claim_backlog, claims, memories
from zenbrain._storage.writes import insert_many

__all__ = [
    "add",
    "backlog_start",
    "clear_backlog",
    "fill",
    "latest",
    "note_backlog",
    "remove",
]


def add(conn: Connection, namespace: str, rows: Iterable[tuple[int, Iterable[str]]]) -> None:
    """Index each memory ``pk`` under the keys of its claims (a key given twice, or already
    indexed, is kept once)."""
    seen: set[tuple[int, int]] = set()
    for pk, keys in rows:
        seen.update((content_hash(key), pk) for key in keys)
    insert_many(
        conn,
        claims,
        [{"namespace": namespace, "about": about, "memory_pk": pk} for about, pk in seen],
        ignore_conflicts_on=["namespace", "about", "memory_pk"],
    )


def fill(
    conn: Connection,
    keys_of: Callable[[str], Iterable[str]],
    layers: Sequence[str],
    *,
    namespace: str | None = None,
    start: int = 0,
    below: int | None = None,
) -> int:
    """Index the current memories of ``layers`` with keys from ``start`` up to ``below``
    (None: no bound), of ``namespace`` (None: every one), under ``keys_of(content)``;
    returns how many memories were read. Fills the index of a store written before it
    existed, or with knowledge updates off."""
    done = 0
    for rows in _current_rows(conn, layers, namespace, start, below):
        by_namespace: dict[str, list[tuple[int, Iterable[str]]]] = {}
        for row in rows:
            keys = list(keys_of(str(row.content)))
            if keys:
                by_namespace.setdefault(str(row.namespace), []).append((int(row.pk), keys))
        for name, keyed in by_namespace.items():
            add(conn, name, keyed)
        done += len(rows)
    return done


_FILL_PAGE = 1000


def _current_rows(
    conn: Connection, layers: Sequence[str], namespace: str | None, start: int, below: int | None
) -> Iterator[Sequence[Row[Any]]]:
    """``(pk, namespace, content)`` of the current memories of ``layers``, in pages by key."""
    query: Select[Any] = select(memories.c.pk, memories.c.namespace, memories.c.content).where(
        memories.c.layer.in_(list(layers)), memories.c.valid_to.is_(None)
    )
    if namespace is not None:
        query = query.where(memories.c.namespace == namespace)
    if below is not None:
        query = query.where(memories.c.pk < below)
    return pages_by_key(conn, query, _FILL_PAGE, after=start - 1)


def remove(conn: Connection, pks: Sequence[int]) -> None:
    """Drop the claims of memories that are no longer current (closed or forgotten)."""
    if pks:
        conn.execute(delete(claims).where(claims.c.memory_pk.in_(list(pks))))


# One key's newest entries; a batch's keys are looked up by one statement that joins such
# parts (each bounded by its LIMIT), written out once per dialect and number of parts.
_PART = (
    "SELECT * FROM (SELECT about, memory_pk FROM zb_claims WHERE namespace = {p} AND "
    "about = {p} AND memory_pk < {p} ORDER BY memory_pk DESC LIMIT {p}) AS part{i}"
)
_PARTS_PER_STATEMENT = 200  # SQLite joins at most 500 selects in one statement


@lru_cache(maxsize=64)
def _latest_sql(placeholder: str, parts: int) -> str:
    return " UNION ALL ".join(_PART.format(p=placeholder, i=i) for i in range(parts))


def latest(
    conn: Connection, namespace: str, keys: Iterable[str], below: int, limit: int
) -> dict[str, list[int]]:
    """For each of ``keys``, the newest ``limit`` memories stored before key ``below`` that
    the index holds under it (newest first): a short range of the index per key, in one
    statement for up to 200 keys."""
    wanted = {content_hash(key): key for key in keys}
    found: dict[str, list[int]] = {key: [] for key in wanted.values()}
    placeholder = "?" if conn.dialect.paramstyle == "qmark" else "%s"
    hashes = list(wanted)
    for start in range(0, len(hashes), _PARTS_PER_STATEMENT):
        chunk = hashes[start : start + _PARTS_PER_STATEMENT]
        params = tuple(v for about in chunk for v in (namespace, about, below, limit))
        rows = conn.exec_driver_sql(_latest_sql(placeholder, len(chunk)), params).all()
        for about, pk in rows:
            found[wanted[int(about)]].append(int(pk))
    for pks in found.values():
        pks.sort(reverse=True)
    return found


def backlog_start(conn: Connection, namespace: str) -> int | None:
    """The first key from which ``namespace``'s memories were stored without their claims
    read, or None when every current memory's claims are indexed."""
    query = select(claim_backlog.c.from_pk).where(claim_backlog.c.namespace == namespace)
    found = conn.execute(query).scalar_one_or_none()
    return None if found is None else int(found)


def note_backlog(conn: Connection, namespace: str, from_pk: int) -> None:
    """Record that memories from key ``from_pk`` on were stored without their claims read
    (an earlier start already recorded is kept)."""
    statement = (
        upsert_insert(conn.dialect.name, claim_backlog)
        .values(namespace=namespace, from_pk=from_pk)
        .on_conflict_do_nothing(index_elements=["namespace"])
    )
    conn.execute(statement)


def clear_backlog(conn: Connection, namespace: str) -> None:
    conn.execute(delete(claim_backlog).where(claim_backlog.c.namespace == namespace))
