"""Sleep replay in consolidate(): selected facts gain FSRS stability, once per night.
Runs on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from zenbrain import MemoryCoordinator
from zenbrain._storage.schema import fact_replays, facts, memories
from zenbrain.errors import InvalidInputError
from zenbrain.stages import SleepReplayStage


def schedule(memory: MemoryCoordinator, fact_id: str) -> tuple[float, datetime]:
    with memory.database.read() as conn:
        card, due = conn.execute(
            select(facts.c.card, facts.c.due)
            .join(memories, memories.c.pk == facts.c.memory_pk)
            .where(memories.c.id == fact_id)
        ).one()
    assert datetime.fromisoformat(card["due"]).replace(tzinfo=None) == due.replace(tzinfo=None)
    return float(card["stability"]), due


def store_facts(memory: MemoryCoordinator, count: int) -> list[str]:
    return [
        memory.store(f"Fact number {i} about the harbour", layer="semantic") for i in range(count)
    ]


def test_replay_raises_stability_and_moves_the_review_out(store_location: str) -> None:
    with MemoryCoordinator(store_location, stages=[SleepReplayStage(limit=2)]) as brain:
        ids = store_facts(brain, 3)
        before = {fact_id: schedule(brain, fact_id) for fact_id in ids}
        brain.consolidate()
        after = {fact_id: schedule(brain, fact_id) for fact_id in ids}
    grown = [i for i in ids if after[i][0] > before[i][0]]
    assert len(grown) == 2  # limit=2: the third is left for another night
    for fact_id in grown:
        assert after[fact_id][0] == pytest.approx(before[fact_id][0] * 1.5)
        assert after[fact_id][1] > before[fact_id][1]
    [unchanged] = set(ids) - set(grown)
    assert after[unchanged] == before[unchanged]


def test_emotional_facts_gain_more(store_location: str) -> None:
    with MemoryCoordinator(store_location, stages=[SleepReplayStage()]) as brain:
        calm = brain.store("The archive opens at nine", layer="semantic", emotional_weight=0.1)
        moving = brain.store("We finally won the final", layer="semantic", emotional_weight=0.9)
        start = {i: schedule(brain, i)[0] for i in (calm, moving)}
        brain.consolidate()
        assert schedule(brain, calm)[0] == pytest.approx(start[calm] * 1.5)
        assert schedule(brain, moving)[0] == pytest.approx(start[moving] * 1.8)


def test_a_fact_is_replayed_once_per_night(store_location: str) -> None:
    with MemoryCoordinator(store_location, stages=[SleepReplayStage()]) as brain:
        [fact] = store_facts(brain, 1)
        brain.consolidate()
        once = schedule(brain, fact)[0]
        brain.consolidate()
        assert schedule(brain, fact)[0] == once
        with brain.database.read() as conn:
            assert conn.execute(select(fact_replays.c.replays)).scalar_one() == 1
    with MemoryCoordinator(
        store_location, stages=[SleepReplayStage(min_interval=timedelta(0))]
    ) as impatient:
        impatient.consolidate()
        assert schedule(impatient, fact)[0] == pytest.approx(once * 1.5)


def test_without_the_stage_consolidation_leaves_schedules_alone(store_location: str) -> None:
    with MemoryCoordinator(store_location, stages=()) as plain:
        ids = store_facts(plain, 2)
        before = [schedule(plain, i) for i in ids]
        plain.consolidate()
        assert [schedule(plain, i) for i in ids] == before


def test_replay_stays_in_its_namespace_and_forget_cleans_up(store_location: str) -> None:
    with MemoryCoordinator(store_location, stages=[SleepReplayStage()]) as brain:
        other = brain.for_namespace("other")
        [theirs] = store_facts(other, 1)
        start = schedule(other, theirs)
        [mine] = store_facts(brain, 1)
        brain.consolidate()
        assert schedule(other, theirs) == start
        brain.forget(mine, "semantic")
        with brain.database.read() as conn:
            assert conn.execute(select(fact_replays)).all() == []


def test_stability_is_capped_and_due_never_moves_earlier(store_location: str) -> None:
    with MemoryCoordinator(
        store_location, stages=[SleepReplayStage(min_interval=timedelta(0))]
    ) as brain:
        [fact] = store_facts(brain, 1)
        for _ in range(20):
            brain.consolidate()
        stability, due = schedule(brain, fact)
        assert stability == 365.0
        assert due.replace(tzinfo=UTC) > datetime.now(UTC) + timedelta(days=300)


def test_bad_settings_are_rejected() -> None:
    with pytest.raises(InvalidInputError, match="limit"):
        SleepReplayStage(limit=0)
    with pytest.raises(InvalidInputError, match="min_interval"):
        SleepReplayStage(min_interval=5)  # type: ignore[arg-type]
