"""Stages own their tables and their clean-up, and write with one upsert helper. Runs on
SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Table, func, select

from zenbrain import MemoryCoordinator
from zenbrain._storage.schema import entities, entity_mentions, fact_replays, metadata
from zenbrain.stages import (
    STAGE_TYPES,
    ConfidenceStage,
    CrossContextStage,
    MemoryGraphStage,
    SleepReplayStage,
    drop_stage_rows,
    forget_stage_rows,
)
from zenbrain.stages._base import pks_of, upsert

ALL_STAGES = [CrossContextStage(), MemoryGraphStage(), SleepReplayStage(), ConfidenceStage()]
FACTS = [
    "Anna Schmidt leads the Apollo project at work.",
    "Anna Schmidt does not lead the Apollo project at work.",
    "Anna Schmidt leads the Apollo choir in her free time.",
]


def stage_tables() -> list[Table]:
    return [table for stage in STAGE_TYPES.values() for table in stage.tables]


def rows_in(memory: MemoryCoordinator, table: Table, namespace: str | None = None) -> int:
    query = select(func.count()).select_from(table)
    if namespace is not None and table is entity_mentions:  # scoped through its entity
        query = query.join(entities, entities.c.pk == entity_mentions.c.entity_pk)
        query = query.where(entities.c.namespace == namespace)
    elif namespace is not None:
        query = query.where(table.c.namespace == namespace)
    with memory.database.read() as conn:
        return int(conn.execute(query).scalar_one())


def fill(memory: MemoryCoordinator) -> list[str]:
    """Give every stage something to store."""
    ids = [memory.store(text, layer="semantic", context="work") for text in FACTS]
    memory.store("Anna Schmidt sings in a choir.", layer="semantic", context="personal")
    memory.recall("Anna Schmidt Apollo")  # graph edges between facts recalled together
    memory.consolidate()  # replays
    return ids


def test_every_stage_table_is_declared_by_exactly_one_stage() -> None:
    declared = stage_tables()
    assert len(declared) == len(set(declared))
    assert {table.name for table in declared} == {
        name
        for name in metadata.tables
        if name.startswith(("zb_entit", "zb_memory_edges", "zb_fact_relations", "zb_fact_pr"))
        or name == "zb_fact_replays"
    }


def test_forget_cleans_up_after_stages_no_longer_configured(store_location: str) -> None:
    with MemoryCoordinator(store_location, stages=ALL_STAGES) as memory:
        ids = fill(memory)
        assert all(rows_in(memory, table) > 0 for table in stage_tables())
    with MemoryCoordinator(store_location, stages=()) as memory:
        everything = memory.recall("Anna", limit=50, layers=["semantic"])
        for result in everything:
            assert memory.forget(result.id, "semantic").forgotten
        assert memory.get(ids[0]) is None
        assert {table.name: rows_in(memory, table) for table in stage_tables()} == {
            table.name: 0 for table in stage_tables()
        }


def test_drop_stage_rows_empties_one_namespace_only(store_location: str) -> None:
    with MemoryCoordinator(store_location, stages=ALL_STAGES) as memory:
        other = memory.for_namespace("other")
        fill(memory)
        fill(other)
        before = {table.name: rows_in(memory, table, "other") for table in stage_tables()}
        with memory.database.read() as conn:
            assert CrossContextStage.counts(conn, "default") == memory.health().cross_context
            assert CrossContextStage.counts(conn, "default")["entities"] > 0
        with memory.database.write() as conn:
            drop_stage_rows(conn, "default")
        with memory.database.read() as conn:
            assert CrossContextStage.counts(conn, "default") == {"entities": 0, "links": 0}
        assert all(rows_in(memory, table, "default") == 0 for table in stage_tables())
        assert {table.name: rows_in(memory, table, "other") for table in stage_tables()} == before
        assert all(before.values())
        with memory.database.write() as conn:
            forget_stage_rows(conn, "other", [])  # nothing to forget is not an error
        assert other.recall("Anna Schmidt Apollo")[0].score > 0


def test_upsert_inserts_updates_and_leaves_alone(store_location: str) -> None:
    with MemoryCoordinator(store_location, stages=()) as memory:
        memory_id = memory.store("a fact", layer="semantic")
        first = datetime(2026, 1, 1, tzinfo=UTC).replace(tzinfo=None)
        later = first + timedelta(days=1)
        with memory.database.write() as conn:
            pk = pks_of(conn, "default", [memory_id])[memory_id]
            row = {"memory_pk": pk, "namespace": "default", "replayed_at": first, "replays": 1}
            upsert(conn, fact_replays, [row])
            upsert(conn, fact_replays, [{**row, "replays": 9}])  # exists: left alone
            assert conn.execute(select(fact_replays.c.replays)).scalar_one() == 1
            counted = {"replayed_at": later, "replays": fact_replays.c.replays + 1}
            upsert(conn, fact_replays, [{**row, "replayed_at": later}], update=counted)
            upsert(conn, fact_replays, [{**row, "replayed_at": later}], update=counted)
            replayed_at, replays = conn.execute(
                select(fact_replays.c.replayed_at, fact_replays.c.replays)
            ).one()
            assert replays == 3 and replayed_at.replace(tzinfo=None) == later
            upsert(conn, fact_replays, [{**row, "replays": 7}], update=["replays"])
            assert conn.execute(select(fact_replays.c.replays)).scalar_one() == 7
            upsert(conn, fact_replays, [])  # no rows, no statement


@pytest.mark.parametrize("stage", ALL_STAGES, ids=lambda stage: stage.name)
def test_stages_declare_tables_with_a_namespace(stage: object) -> None:
    for table in type(stage).tables:
        assert "namespace" in table.c or table is entity_mentions, table.name
