"""The memory graph: Hebbian edges from co-recall, spreading activation, decay and pruning
on consolidation, clean-up on forget. Runs on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from zenbrain import MemoryCoordinator
from zenbrain._storage.schema import memory_edges
from zenbrain.errors import InvalidInputError
from zenbrain.stages import MemoryGraphStage


@pytest.fixture
def brain(store_location: str) -> Iterator[MemoryCoordinator]:
    with MemoryCoordinator(store_location, stages=[MemoryGraphStage()]) as coordinator:
        yield coordinator


def edge_weights(memory: MemoryCoordinator) -> list[float]:
    with memory.database.read() as conn:
        return sorted(float(w) for w in conn.execute(select(memory_edges.c.weight)).scalars())


def age_edges(memory: MemoryCoordinator, age: timedelta) -> None:
    """Pretend the edges were last decayed ``age`` earlier."""
    with memory.database.write() as conn:
        rows = conn.execute(
            select(memory_edges.c.memory_a, memory_edges.c.memory_b, memory_edges.c.decayed_at)
        ).all()
        for a, b, decayed_at in rows:
            conn.execute(
                update(memory_edges)
                .where(memory_edges.c.memory_a == a, memory_edges.c.memory_b == b)
                .values(decayed_at=decayed_at - age)
            )


def script(memory: MemoryCoordinator) -> tuple[str, str, str]:
    kickoff = memory.store("Alpha project kickoff with the design agency")
    budget = memory.store("Alpha project budget approved by finance")
    other = memory.store("Dentist appointment moved to Thursday")
    return kickoff, budget, other


def test_memories_recalled_together_get_a_strengthening_edge(brain: MemoryCoordinator) -> None:
    script(brain)
    brain.recall("alpha project", min_score=0.01)
    assert edge_weights(brain) == [pytest.approx(1.09)]
    brain.recall("alpha project", min_score=0.01)
    assert edge_weights(brain) == [pytest.approx(1.09 + 0.1 * (1 - 0.109))]


def test_activation_spreads_to_a_graph_neighbour(brain: MemoryCoordinator) -> None:
    kickoff, budget, other = script(brain)
    assert [r.id for r in brain.recall("design agency", min_score=0.01)] == [kickoff]
    brain.recall("alpha project", min_score=0.01)  # kickoff and budget fire together
    results = brain.recall("design agency", min_score=0.01)
    assert [r.id for r in results] == [kickoff, budget]
    assert results[1].notes["via"] == "graph"
    assert 0 < results[1].score <= 0.5 * results[0].score
    assert other not in {r.id for r in results}


def test_without_the_stage_there_is_no_graph(store_location: str) -> None:
    with MemoryCoordinator(store_location, stages=()) as plain:
        kickoff, _, _ = script(plain)
        plain.recall("alpha project", min_score=0.01)
        assert [r.id for r in plain.recall("design agency", min_score=0.01)] == [kickoff]
        assert edge_weights(plain) == []


def test_two_hop_neighbours_are_reached(brain: MemoryCoordinator) -> None:
    a = brain.store("Harbour festival opening parade")
    b = brain.store("Harbour festival fireworks schedule")
    c = brain.store("Fireworks schedule printed on flyers")
    brain.recall("harbour festival", min_score=0.01)  # a-b
    brain.recall("fireworks schedule", min_score=0.01)  # b-c
    results = brain.recall("opening parade", min_score=0.01)
    assert [r.id for r in results][:1] == [a]
    assert {b, c} <= {r.id for r in results}


def test_consolidation_decays_and_prunes_weak_edges(brain: MemoryCoordinator) -> None:
    script(brain)
    brain.recall("alpha project", min_score=0.01)
    assert brain.consolidate().pruned == 0
    assert edge_weights(brain) == [pytest.approx(1.09, abs=1e-3)]  # minutes: barely decays
    age_edges(brain, timedelta(days=30))
    assert brain.consolidate().pruned == 0
    assert edge_weights(brain) == [pytest.approx(1.09 * 0.98**30, rel=1e-3)]
    age_edges(brain, timedelta(days=365))
    assert brain.consolidate().pruned == 1
    assert edge_weights(brain) == []


def test_forget_removes_the_edges_of_a_memory(brain: MemoryCoordinator) -> None:
    kickoff, budget, _ = script(brain)
    brain.recall("alpha project", min_score=0.01)
    brain.forget(budget, "semantic")
    assert edge_weights(brain) == []
    assert [r.id for r in brain.recall("design agency", min_score=0.01)] == [kickoff]


def test_edges_stay_inside_their_namespace(brain: MemoryCoordinator) -> None:
    other = brain.for_namespace("other")
    script(other)
    other.recall("alpha project", min_score=0.01)
    kickoff, _, _ = script(brain)
    assert [r.id for r in brain.recall("design agency", min_score=0.01)] == [kickoff]
    assert brain.consolidate().pruned == 0


def test_bad_settings_are_rejected() -> None:
    with pytest.raises(InvalidInputError, match="spread_weight"):
        MemoryGraphStage(spread_weight=0)
    with pytest.raises(InvalidInputError, match="seeds"):
        MemoryGraphStage(seeds=0)
