"""Temporal routing: before/after/first/last questions use the memories' time.
Runs on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError
from zenbrain.stages import TemporalStage

DIARY = [
    ("Started the pottery class at the community centre", "2024-02-20T10:00:00"),
    ("We went to the jazz concert downtown", "2024-03-01T20:00:00"),
    ("Bought new running shoes", "2024-03-02T11:00:00"),
    ("Visited grandma in the hospital", "2024-03-05T15:00:00"),
    ("Had coffee with Tom at the old harbour cafe", "2024-01-01T09:00:00"),
    ("Coffee with Tom again", "2024-06-01T09:00:00"),
]


def write_diary(memory: MemoryCoordinator) -> dict[str, str]:
    return {text: memory.store(text, layer="episodic", created_at=when) for text, when in DIARY}


@pytest.fixture
def brain(store_location: str) -> Iterator[MemoryCoordinator]:
    with MemoryCoordinator(store_location, stages=[TemporalStage()]) as coordinator:
        yield coordinator


def test_after_brings_what_happened_next(brain: MemoryCoordinator) -> None:
    ids = write_diary(brain)
    results = brain.recall("What did I do after the jazz concert?", min_score=0.01)
    assert [r.id for r in results[:3]] == [
        ids["We went to the jazz concert downtown"],
        ids["Bought new running shoes"],
        ids["Visited grandma in the hospital"],
    ]
    assert results[1].notes["temporal"] == "after"
    assert results[0].score > results[1].score > results[2].score > 0


def test_before_looks_back(brain: MemoryCoordinator) -> None:
    ids = write_diary(brain)
    results = brain.recall("Was I busy before the jazz concert?", min_score=0.01)
    assert [r.id for r in results[:2]] == [
        ids["We went to the jazz concert downtown"],
        ids["Started the pottery class at the community centre"],
    ]
    assert ids["Bought new running shoes"] not in {r.id for r in results}


def test_first_prefers_the_oldest_match(brain: MemoryCoordinator) -> None:
    ids = write_diary(brain)
    results = brain.recall("When did I first have coffee with Tom?", min_score=0.01)
    assert [r.id for r in results] == [
        ids["Had coffee with Tom at the old harbour cafe"],
        ids["Coffee with Tom again"],
    ]
    assert results[0].score > results[1].score
    latest = brain.recall("When did I last have coffee with Tom?", min_score=0.01)
    assert latest[0].id == ids["Coffee with Tom again"]


def test_without_the_stage_time_is_ignored(store_location: str) -> None:
    with MemoryCoordinator(store_location, stages=()) as plain:
        ids = write_diary(plain)
        after = plain.recall("What did I do after the jazz concert?", min_score=0.01)
        assert [r.id for r in after] == [ids["We went to the jazz concert downtown"]]
        first = plain.recall("When did I first have coffee with Tom?", min_score=0.01)
    # The same diary with the two coffee dates swapped scores every memory the same.
    swapped_dates = {DIARY[4][0]: DIARY[5][1], DIARY[5][0]: DIARY[4][1]}
    with MemoryCoordinator(store_location, namespace="swapped", stages=()) as swapped:
        for text, when in DIARY:
            swapped.store(text, layer="episodic", created_at=swapped_dates.get(text, when))
        again = swapped.recall("When did I first have coffee with Tom?", min_score=0.01)
    assert len(first) == 2
    assert {r.content: r.score for r in again} == {r.content: r.score for r in first}


def test_non_temporal_questions_are_untouched(brain: MemoryCoordinator) -> None:
    write_diary(brain)
    results = brain.recall("jazz concert downtown", min_score=0.01)
    assert len(results) == 1 and "temporal" not in results[0].metadata


def test_context_filter_is_respected(brain: MemoryCoordinator) -> None:
    brain.store("Team offsite in Hamburg", layer="episodic", context="work",
                created_at="2024-05-01T09:00:00")  # fmt: skip
    brain.store("Went sailing", layer="episodic", context="personal",
                created_at="2024-05-02T09:00:00")  # fmt: skip
    brain.store("Wrote the offsite report", layer="episodic", context="work",
                created_at="2024-05-03T09:00:00")  # fmt: skip
    results = brain.recall("What came after the team offsite?", context="work", min_score=0.01)
    assert [r.content for r in results] == ["Team offsite in Hamburg", "Wrote the offsite report"]


def test_bad_settings_are_rejected() -> None:
    with pytest.raises(InvalidInputError, match="weight"):
        TemporalStage(weight=2)
    with pytest.raises(InvalidInputError, match="neighbours"):
        TemporalStage(neighbours=-1)
