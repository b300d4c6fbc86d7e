"""Bayesian confidence: supporting and contradicting facts are linked, never overwritten,
and update each other's confidence. Runs on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import select

from zenbrain import MemoryCoordinator
from zenbrain._storage.schema import fact_priors, fact_relations
from zenbrain.errors import InvalidInputError
from zenbrain.stages import ConfidenceStage


@pytest.fixture
def brain(store_location: str) -> Iterator[MemoryCoordinator]:
    with MemoryCoordinator(store_location, stages=[ConfidenceStage()]) as coordinator:
        yield coordinator


def test_a_negating_fact_is_linked_and_both_lose_confidence(brain: MemoryCoordinator) -> None:
    up = brain.store("The backup server is running")
    unrelated = brain.store("The printer on floor two is out of toner")
    down = brain.store("The backup server is not running")
    results = {r.id: r for r in brain.recall("backup server", layers=["semantic"])}
    assert set(results) >= {up, down}  # both kept: nothing silently overwritten
    assert results[up].notes["contradicts"] == [down]
    assert results[down].notes["contradicts"] == [up]
    lowered = results[up].confidence
    assert lowered is not None and 0 < lowered < 0.7
    assert results[down].confidence == lowered
    assert brain.get(unrelated).confidence == 0.7  # type: ignore[union-attr]
    assert "contradicts" not in brain.get(up).metadata  # type: ignore[union-attr]


def test_supporting_facts_gain_confidence(brain: MemoryCoordinator) -> None:
    first = brain.store("Water boils at 100 degrees Celsius", confidence=0.6)
    second = brain.store("water boils at 100 degrees celsius!", confidence=0.6)
    for fact_id, other in ((first, second), (second, first)):
        result = brain.get(fact_id)
        assert result is not None and result.confidence is not None
        assert result.confidence > 0.6
        [annotated] = [r for r in brain.recall("water boils") if r.id == fact_id]
        assert annotated.notes["supported_by"] == [other]


def test_beliefs_are_recomputed_from_the_priors_not_compounded(brain: MemoryCoordinator) -> None:
    brain.store("The backup server is running")
    brain.store("The backup server is not running")
    once = sorted(r.confidence or 0 for r in brain.recall("backup server", layers=["semantic"]))
    brain.store("The coffee machine in the lobby is broken")  # unrelated: no re-propagation
    again = sorted(r.confidence or 0 for r in brain.recall("backup server", layers=["semantic"]))
    assert once == again
    with brain.database.read() as conn:
        priors = sorted(conn.execute(select(fact_priors.c.prior)).scalars())
    assert priors == [0.7, 0.7]


def test_without_the_stage_contradictions_go_unnoticed(store_location: str) -> None:
    with MemoryCoordinator(store_location, stages=()) as plain:
        plain.store("The backup server is running")
        plain.store("The backup server is not running")
        results = plain.recall("backup server", layers=["semantic"])
        assert [r.confidence for r in results] == [0.7, 0.7]
        assert all("contradicts" not in r.metadata for r in results)


def test_forget_removes_relations_and_namespaces_stay_apart(brain: MemoryCoordinator) -> None:
    other = brain.for_namespace("other")
    theirs = other.store("The backup server is running")
    up = brain.store("The backup server is running")
    down = brain.store("The backup server is not running")
    assert other.get(theirs).confidence == 0.7  # type: ignore[union-attr]
    brain.forget(down, "semantic")
    with brain.database.read() as conn:
        assert conn.execute(select(fact_relations)).all() == []
    [result] = brain.recall("backup server", layers=["semantic"])
    assert result.id == up and "contradicts" not in result.metadata


def test_bad_settings_are_rejected() -> None:
    with pytest.raises(InvalidInputError, match="support_threshold"):
        ConfidenceStage(support_threshold=0)
    with pytest.raises(InvalidInputError, match="candidates"):
        ConfidenceStage(candidates=0)
