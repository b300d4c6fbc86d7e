"""Bulk inserts through the DB-API's ``executemany``, and the rows a new memory writes.

``conn.execute(table.insert(), rows)`` runs every row through SQLAlchemy's parameter
machinery, and ``insert().values([...])`` compiles one statement as long as the batch; both
cost more than the insert itself on a large ``store_many``. Here a table's INSERT is
compiled once per dialect and set of columns, each column's own bind processor (the same
function SQLAlchemy would call: datetimes and JSON are stored byte for byte as before)
converts the values, and the rows go to the driver in one ``executemany``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from operator import itemgetter
from typing import Any

from sqlalchemy import Connection, Table

from zenbrain._storage.dialect import upsert_insert
from zenbrain._storage.records import NewMemory, content_hash
from zenbrain._storage.timestamps import to_db

__all__ = ["insert_many", "layer_rows", "memory_row"]

_Processor = Callable[[Any], Any] | None
_NOTHING = object()


@dataclass(frozen=True, slots=True)
class _Plan:
    sql: str
    names: tuple[str, ...]  # the bound columns, in the statement's parameter order
    processors: tuple[_Processor, ...]
    defaults: tuple[tuple[str, Any], ...]  # constant column defaults the rows leave out
    positional: bool


_PLANS: dict[tuple[str, str, tuple[str, ...], tuple[str, ...] | None], _Plan] = {}


def _plan(
    conn: Connection, table: Table, keys: tuple[str, ...], on: tuple[str, ...] | None
) -> _Plan:
    dialect = conn.dialect
    cache_key = (f"{dialect.name}+{dialect.driver}", table.name, keys, on)
    found = _PLANS.get(cache_key)
    if found is not None:
        return found
    statement: Any = table.insert()
    if on is not None:
        statement = upsert_insert(dialect.name, table).on_conflict_do_nothing(
            index_elements=list(on)
        )
    compiled = statement.compile(dialect=dialect, column_keys=list(keys))
    defaults: list[tuple[str, Any]] = []
    for column in compiled.insert_prefetch:
        default = column.default
        if default is None or not default.is_scalar:
            raise ValueError(f"{table.name}.{column.name}: only constant defaults are supported")
        defaults.append((column.key, default.arg))
    positional = bool(compiled.positional)
    names = tuple(compiled.positiontup) if positional else (*keys, *(k for k, _ in defaults))
    processors = tuple(
        table.c[name].type.dialect_impl(dialect).bind_processor(dialect) for name in names
    )
    plan = _Plan(compiled.string, names, processors, tuple(defaults), positional)
    _PLANS[cache_key] = plan
    return plan


def insert_many(
    conn: Connection,
    table: Table,
    rows: Sequence[Mapping[str, Any]],
    *,
    ignore_conflicts_on: Sequence[str] | None = None,
) -> None:
    """Insert ``rows`` (each with the same keys) into ``table`` with one ``executemany``;
    with ``ignore_conflicts_on``, a row colliding on those columns is skipped (ON CONFLICT
    DO NOTHING), as SQLAlchemy's upsert would."""
    if not rows:
        return
    keys = tuple(rows[0])
    on = tuple(ignore_conflicts_on) if ignore_conflicts_on is not None else None
    plan = _plan(conn, table, keys, on)
    pick = itemgetter(*plan.names)
    single = len(plan.names) == 1
    processed = [(i, process) for i, process in enumerate(plan.processors) if process is not None]
    # A batch repeats values (its one timestamp): each column remembers its last conversion.
    last: list[tuple[Any, Any]] = [(_NOTHING, None)] * len(plan.names)
    constants = dict(plan.defaults)
    params: list[Any] = []
    for row in rows:
        if constants:
            row = {**constants, **row}
        values = [pick(row)] if single else list(pick(row))
        for i, process in processed:
            value = values[i]
            seen, converted = last[i]
            if value is not seen:
                converted = process(value)
                last[i] = (value, converted)
            values[i] = converted
        params.append(
            tuple(values) if plan.positional else dict(zip(plan.names, values, strict=True))
        )
    # One row (a single store()): a plain execute; executemany costs PostgreSQL's driver a
    # pipeline round trip of its own.
    conn.exec_driver_sql(plan.sql, params[0] if len(params) == 1 else params)


def memory_row(
    namespace: str, pk: int, item: NewMemory, now: datetime, stamps: dict[datetime, datetime]
) -> dict[str, Any]:
    """``item``'s row of ``zb_memories``; ``stamps`` caches stored forms of times."""
    created = item.created_at or now
    if created not in stamps:
        stamps[created] = to_db(created)
    if now not in stamps:
        stamps[now] = to_db(now)
    valid_from = created if item.valid_from is None else item.valid_from
    if valid_from not in stamps:
        stamps[valid_from] = to_db(valid_from)
    return {
        "pk": pk,
        "id": item.id,
        "namespace": namespace,
        "layer": item.layer,
        "content": item.content,
        "content_hash": content_hash(item.content),
        "context": item.context,
        "conversation": item.conversation,
        "emotional_weight": item.emotional_weight,
        "confidence": item.confidence,
        "source": item.source,
        "metadata": item.metadata,
        "created_at": stamps[created],
        "updated_at": stamps[now],
        "valid_from": stamps[valid_from],
    }


def layer_rows(
    namespace: str, pairs: Sequence[tuple[int, NewMemory]], now: datetime
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """The side-table rows of new memories: a fact's first review card (as the store
    pipeline scheduled it), a procedure's steps and statistics, a core block's label."""
    fact_rows: list[dict[str, Any]] = []
    procedure_rows: list[dict[str, Any]] = []
    core_rows: list[dict[str, Any]] = []
    due_times: dict[str, datetime] = {}  # a batch's cards share a few due times: parse once
    for pk, item in pairs:
        if item.layer == "semantic":
            card = item.schedule
            if card is None:
                raise ValueError("a fact reached storage without its first review card")
            due = card["due"]
            if due not in due_times:
                due_times[due] = to_db(datetime.fromisoformat(due))
            fact_rows.append(
                {"memory_pk": pk, "namespace": namespace, "due": due_times[due], "card": card}
            )
        elif item.layer == "procedural":
            procedure_rows.append(
                {
                    "memory_pk": pk,
                    "namespace": namespace,
                    "trigger": item.content[:200],
                    "steps": item.steps,
                    "tools": item.tools,
                    "outcome": item.outcome,
                    "success_rate": 1.0,
                    "execution_count": 1,
                }
            )
        elif item.layer == "core":
            core_rows.append(
                {"memory_pk": pk, "namespace": namespace, "label": item.label, "pinned": True}
            )
    return fact_rows, procedure_rows, core_rows
