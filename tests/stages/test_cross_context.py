"""The cross-context layer in the database: links across contexts, merge candidates, link
following on recall, clean-up on forget. Runs on SQLite and PostgreSQL. (Entity extraction
itself: tests/layers/test_cross_context.py.)"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import func, select

from zenbrain import MemoryCoordinator
from zenbrain._storage.schema import entities, entity_mentions
from zenbrain.stages import CrossContextStage, MemoryGraphStage


# ---------------------------------------------------------------------- storage
@pytest.fixture
def brain(store_location: str) -> Iterator[MemoryCoordinator]:
    with MemoryCoordinator(store_location, stages=[CrossContextStage()]) as coordinator:
        yield coordinator


def test_same_entity_in_two_contexts_is_linked_once(brain: MemoryCoordinator) -> None:
    brain.store("Anna Schmidt presents the quarterly report", context="work")
    brain.store("Anna Schmidt invited us to her birthday party", context="personal")
    brain.store("Anna Schmidt booked the meeting room", context="work")
    assert brain.health().cross_context == {"entities": 2, "links": 1}
    [candidate] = brain.merge_candidates()
    assert {candidate.context, candidate.other_context} == {"work", "personal"}
    assert candidate.name == candidate.other_name == "Anna Schmidt"
    assert candidate.similarity == 1.0
    assert sorted([candidate.mentions, candidate.other_mentions]) == [1, 2]


def test_no_entity_is_linked_with_itself_or_within_a_context(brain: MemoryCoordinator) -> None:
    brain.store("Kieler Förde at sunset", context="personal")
    brain.store("Sailing on the Kieler Foerde again", context="personal")
    brain.store("Notes about Kiel harbour", context="unlisted-context")
    assert brain.health().cross_context == {"entities": 2, "links": 0}
    assert brain.merge_candidates() == []


def test_similar_names_link_at_the_threshold(brain: MemoryCoordinator) -> None:
    brain.store("Notes from the Project Apollo Relaunch Team", context="work")
    brain.store("Dinner with the Project Apollo Relaunch crowd", context="personal")  # 3/4 words
    brain.store("Slides about Project Apollo", context="learning")  # 2/4 and 2/3: below 0.7
    [candidate] = brain.merge_candidates()
    assert candidate.similarity == 0.75
    assert {candidate.context, candidate.other_context} == {"work", "personal"}


def test_recall_follows_links_into_other_contexts(brain: MemoryCoordinator) -> None:
    brain.store("Anna Schmidt presents the quarterly report", context="work")
    birthday = brain.store("Anna Schmidt invited us to her birthday party", context="personal")
    brain.store("The garden party was rained out", context="personal")
    results = brain.recall("quarterly report", layers=["semantic"], min_score=0.01)
    assert results[0].content == "Anna Schmidt presents the quarterly report"
    followed = next(r for r in results if r.id == birthday)
    assert followed.notes["linked_via"] == {"entity": "Anna Schmidt", "context": "personal"}
    assert 0 < followed.score < results[0].score
    assert len(results) == 2
    # A context filter keeps recall inside that context.
    in_work = brain.recall("quarterly report", context="work", min_score=0.01)
    assert birthday not in {r.id for r in in_work}


def test_without_the_stage_nothing_is_extracted_or_followed(store_location: str) -> None:
    with MemoryCoordinator(store_location, stages=()) as plain:
        plain.store("Anna Schmidt presents the quarterly report", context="work")
        plain.store("Anna Schmidt invited us to her birthday party", context="personal")
        assert plain.health().cross_context == {"entities": 0, "links": 0}
        results = plain.recall("quarterly report", layers=["semantic"], min_score=0.01)
        assert [r.content for r in results] == ["Anna Schmidt presents the quarterly report"]


def test_the_stage_is_on_by_default(store_location: str) -> None:
    with MemoryCoordinator(store_location) as default:
        assert [type(stage) for stage in default.stages] == [CrossContextStage]
        default.store("Meeting mit Anna Schmidt im Büro", context="work")
        default.store("Anna Schmidt wohnt in Kiel", context="personal")
        assert default.health().cross_context == {"entities": 3, "links": 1}


def test_forget_removes_mentions_orphan_entities_and_links(brain: MemoryCoordinator) -> None:
    work = brain.store("Anna Schmidt presents the quarterly report", context="work")
    brain.store("Anna Schmidt invited us to her birthday party", context="personal")
    last_work = brain.store("Anna Schmidt booked the meeting room", context="work")
    brain.forget(work, "semantic")
    assert brain.health().cross_context == {"entities": 2, "links": 1}  # one work mention left
    brain.forget(last_work, "semantic")
    assert brain.health().cross_context == {"entities": 1, "links": 0}
    with brain.database.read() as conn:
        names_left = list(conn.execute(select(entities.c.name, entities.c.context)).all())
        mentions = conn.execute(select(func.count()).select_from(entity_mentions)).scalar_one()
    assert [tuple(row) for row in names_left] == [("Anna Schmidt", "personal")]
    assert mentions == 1


def test_forget_cleans_up_even_after_the_stage_was_turned_off(store_location: str) -> None:
    with MemoryCoordinator(store_location, stages=[CrossContextStage()]) as first:
        fact = first.store("Anna Schmidt presents the quarterly report", context="work")
        first.store("Anna Schmidt invited us to her birthday party", context="personal")
    with MemoryCoordinator(store_location, stages=[MemoryGraphStage()]) as later:
        later.forget(fact, "semantic")
        assert later.health().cross_context == {"entities": 1, "links": 0}


def test_core_block_update_replaces_its_entities(brain: MemoryCoordinator) -> None:
    brain.set_core_block("persona", "Works with Anna Schmidt at Acme")
    brain.set_core_block("persona", "Works with Tom Becker at Acme")
    with brain.database.read() as conn:
        keys = sorted(conn.execute(select(entities.c.key)).scalars())
    assert keys == ["acme", "tom becker"]


def test_namespaces_keep_their_own_entities(brain: MemoryCoordinator) -> None:
    other = brain.for_namespace("someone-else")
    other.store("Anna Schmidt presents the quarterly report", context="work")
    brain.store("Anna Schmidt invited us to her birthday party", context="personal")
    assert brain.health().cross_context == {"entities": 1, "links": 0}
    assert other.health().cross_context == {"entities": 1, "links": 0}
    assert brain.merge_candidates() == other.merge_candidates() == []
    assert brain.recall("quarterly report", min_score=0.01) == []


def test_bad_settings_are_rejected() -> None:
    from zenbrain.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="link_threshold"):
        CrossContextStage(link_threshold=1.5)
    with pytest.raises(InvalidInputError, match="stages must be"):
        MemoryCoordinator(":memory:", stages=[object()])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError, match="stages must be"):
        MemoryCoordinator(":memory:", stages=CrossContextStage())  # type: ignore[arg-type]
