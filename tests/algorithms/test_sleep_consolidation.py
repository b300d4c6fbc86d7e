"""Replay selection, replay and pruning."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zenbrain._algorithms.sleep_consolidation import (
    ConsolidationEdge,
    ReplayCandidate,
    prune_weak_connections,
    replay,
    replay_priority,
    select_for_replay,
)
from zenbrain.errors import InvalidInputError

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def test_priority_golden() -> None:
    memory = ReplayCandidate("m", 73.0, 5, NOW - timedelta(days=10), emotional_weight=0.8)
    expected = 0.3 * 5 / 10 + 0.3 * 0.8 + 0.2 * math.exp(-1) + 0.2 * (1 - 73 / 365)
    assert replay_priority(memory, NOW, max_access=10) == pytest.approx(expected)
    with pytest.raises(InvalidInputError):
        replay_priority(memory, NOW, 10, emotional_bias=0.6)


def test_select_top_by_priority() -> None:
    memories = [
        ReplayCandidate(f"m{i}", 10.0 * (i + 1), i, NOW - timedelta(days=i)) for i in range(30)
    ]
    chosen = select_for_replay(memories, NOW)
    assert len(chosen) == 20
    emotional = ReplayCandidate("hot", 300.0, 0, NOW - timedelta(days=30), emotional_weight=1.0)
    plain = ReplayCandidate("cold", 300.0, 0, NOW - timedelta(days=30))
    assert [c.memory_id for c in select_for_replay([plain, emotional], NOW, limit=1)] == ["hot"]


def test_replay_golden() -> None:
    memories = [
        ReplayCandidate("a", 10.0, 1, NOW),
        ReplayCandidate("b", 10.0, 1, NOW, emotional_weight=0.9),
        ReplayCandidate("c", 300.0, 1, NOW),
    ]
    edges = [
        ConsolidationEdge("a", "b", 1.0),
        ConsolidationEdge("a", "x", 0.1),
        ConsolidationEdge("x", "y", 0.05),
        ConsolidationEdge("b", "c", 9.5),
    ]
    outcome = replay(memories, edges)
    assert outcome.stabilities == pytest.approx({"a": 15.0, "b": 18.0, "c": 365.0})
    assert outcome.replayed == 3
    assert outcome.strengthened == 2
    assert outcome.pruned == 1
    weights = {(e.source, e.target): e.weight for e in outcome.edges}
    assert weights == pytest.approx({("a", "b"): 1.1, ("x", "y"): 0.05, ("b", "c"): 10.0})
    assert outcome.mean_stability_increase == pytest.approx((5 + 8 + 65) / 3)
    assert replay([]).mean_stability_increase == 0.0


def test_prune() -> None:
    edges = [ConsolidationEdge(1, 2, 0.2), ConsolidationEdge(2, 3, 0.19)]
    result = prune_weak_connections(edges)
    assert [e.target for e in result.kept] == [2]
    assert [e.target for e in result.pruned] == [3]


@given(
    st.lists(
        st.tuples(st.floats(0.1, 365), st.integers(0, 100), st.floats(0, 1)),
        min_size=1,
        max_size=15,
    )
)
def test_replay_never_lowers_stability(rows: list[tuple[float, int, float]]) -> None:
    memories = [ReplayCandidate(str(i), s, n, NOW, e) for i, (s, n, e) in enumerate(rows)]
    outcome = replay(memories)
    for memory in memories:
        assert memory.stability - 1e-9 <= outcome.stabilities[memory.memory_id] <= 365.0
