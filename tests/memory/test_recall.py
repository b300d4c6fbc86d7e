"""recall(): lexical ranking, ordering rules, core blocks, working memory, limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from zenbrain import MemoryCoordinator


def test_folding_finds_umlauts_and_accents(memory: MemoryCoordinator) -> None:
    memory.store("Ein Spaziergang an der Kieler Förde im Herbst")
    memory.store("Café crème at the corner bistro")
    assert memory.recall("Kieler Foerde", min_score=0.1)[0].content.startswith("Ein Spaziergang")
    assert memory.recall("KIELER FÖRDE", min_score=0.1)[0].score == 1.0
    assert memory.recall("cafe creme", min_score=0.1)[0].content.startswith("Café crème")


def test_non_latin_scripts_are_searchable(memory: MemoryCoordinator) -> None:
    memory.store("Встреча с командой в Москве")
    memory.store("会議は 東京 で行います")
    assert memory.recall("москве", min_score=0.1)[0].content.startswith("Встреча")
    assert memory.recall("東京", min_score=0.1)[0].content.startswith("会議")


def test_rare_words_weigh_more_than_common_ones(memory: MemoryCoordinator) -> None:
    for i in range(20):
        memory.store(f"Project note {i}: the project is on track")
    memory.store("Project zeppelin needs a new budget")
    memory.store("Zeppelin museum opens on Monday")
    results = memory.recall("project zeppelin budget", layers=["semantic"], limit=3)
    assert results[0].content == "Project zeppelin needs a new budget"
    # "zeppelin" is rare, "project" is common: the museum note outranks the project notes
    assert results[1].content == "Zeppelin museum opens on Monday"


def test_adjacent_words_beat_scattered_words(memory: MemoryCoordinator) -> None:
    memory.store("Kieler Woche is in June, and the Förde is busy then")
    memory.store("A walk along the Kieler Förde")
    results = memory.recall("Kieler Förde", layers=["semantic"])
    assert results[0].content == "A walk along the Kieler Förde"
    assert results[0].score > results[1].score > 0


def test_lexical_recall_cannot_relate_synonyms(memory: MemoryCoordinator) -> None:
    memory.store("I bought a new automobile")
    results = memory.recall("car", layers=["semantic"])
    assert [r.score for r in results] == [0.0]  # only a score-0 fill-in


def test_results_carry_id_layer_score_and_fields(memory: MemoryCoordinator) -> None:
    fid = memory.store("Paris is the capital of France", source="atlas", confidence=0.8)
    result = memory.recall("capital of France")[0]
    assert (result.id, result.layer, result.confidence) == (fid, "semantic", 0.8)
    assert 0 < result.score <= 1
    assert result.source == "atlas"
    assert result.created_at is not None
    assert result.to_dict()["created_at"].endswith("+00:00")


def test_layers_without_match_fill_in_with_score_zero_after_matches(
    memory: MemoryCoordinator,
) -> None:
    memory.store("I am absolutely thrilled — I won the chess tournament!")  # episode
    memory.store("Water boils at 100 degrees Celsius")  # fact
    memory.store("How to brew tea:\n1. boil water\n2. steep leaves")  # procedure
    results = memory.recall("boiling water")
    layers_with_score = [(r.layer, r.score > 0) for r in results]
    assert ("episodic", False) in layers_with_score
    first_zero = next(i for i, r in enumerate(results) if r.score == 0)
    assert all(r.score == 0 for r in results[first_zero:])
    assert all(r.score > 0 for r in results[:first_zero])
    assert all(r.score > 0 for r in memory.recall("boiling water", min_score=0.01))


def test_fill_ins_are_the_most_recent_memories(memory: MemoryCoordinator) -> None:
    memory.store("older fact", created_at="2024-01-01T00:00:00")
    memory.store("newer fact", created_at="2025-01-01T00:00:00")
    results = memory.recall("zebra", layers=["semantic"], limit=1)
    assert [(r.content, r.score) for r in results] == [("newer fact", 0.0)]


def test_procedure_fill_ins_are_the_most_successful(memory: MemoryCoordinator) -> None:
    bad = memory.store("How to fix the printer: kick it")
    good = memory.store("How to fix the scanner: reboot it")
    memory.procedure_feedback(bad, False)
    results = memory.recall("zebra", layers=["procedural"])
    assert [r.id for r in results] == [good, bad]


def test_procedures_are_weighted_by_success_rate(memory: MemoryCoordinator) -> None:
    flaky = memory.store("How to restart the cluster: reboot every node")
    steady = memory.store("How to restart the cluster: drain and reboot every node")
    for _ in range(3):
        memory.procedure_feedback(flaky, False)
    results = memory.recall("restart the cluster", layers=["procedural"])
    assert results[0].id == steady
    assert results[0].confidence == 1.0 and results[1].confidence == pytest.approx(0.25)


def test_core_blocks_score_on_the_scale_of_every_memory(memory: MemoryCoordinator) -> None:
    memory.set_core_block("persona", "Anna is a payments engineer in Kiel")
    memory.set_core_block("style", "Answer briefly")
    memory.store("Bernd is a payments engineer in Kiel", layer="semantic")
    results = memory.recall("payments engineer Anna")
    scores = {(r.label or r.layer): r.score for r in results}
    # The block holds every word of the query, the fact two of three: the block wins, by
    # the same rule that ranks facts, and no fixed 0.8 / 0.5.
    assert [(r.label or r.layer) for r in results] == ["persona", "semantic", "style"]
    assert 0 < scores["semantic"] < scores["persona"] <= 1
    # A block sharing no word is still a candidate, like a profile: after every match.
    assert scores["style"] == 0.0
    matching = memory.recall("payments", layers=["core"], core="matching")
    assert [r.label for r in matching] == ["persona"]


def test_a_core_block_does_not_outrank_the_fact_that_answers(memory: MemoryCoordinator) -> None:
    memory.set_core_block("persona", "Anna, payments engineer; works on the Python services")
    fact = memory.store("The minimum supported Python version is 3.11.")
    results = memory.recall("what is the minimum Python version")
    assert results[0].id == fact
    assert results[1].layer == "core" and 0 < results[1].score < results[0].score


def test_core_blocks_compete_for_the_limit(memory: MemoryCoordinator) -> None:
    for i in range(5):
        memory.set_core_block(f"block{i}", f"profile line {i}")
    memory.store("Payments run nightly")
    results = memory.recall("payments nightly", limit=3)
    assert len(results) == 3
    assert results[0].layer == "semantic"
    assert all(r.layer == "core" for r in results[1:])


def test_working_memory_only_when_named(memory: MemoryCoordinator) -> None:
    memory.store("The build server is called hal")
    assert all(r.layer != "working" for r in memory.recall("build server"))
    found = memory.recall("build server", layers=["working"])
    assert [r.layer for r in found] == ["working"]
    assert found[0].score > 0
    assert found[0].notes["relevance"] == pytest.approx(1.0, abs=0.01)


def test_min_confidence_filters(memory: MemoryCoordinator) -> None:
    memory.store("Maybe the deadline is Friday", confidence=0.3)
    memory.store("The deadline is Thursday", confidence=0.85)
    results = memory.recall("deadline", layers=["semantic"], min_confidence=0.5)
    assert [r.content for r in results] == ["The deadline is Thursday"]


def test_limit_and_order(memory: MemoryCoordinator) -> None:
    memory.store_many([f"alpha note number {i}" for i in range(30)])
    results = memory.recall("alpha note", layers=["semantic"], limit=7)
    assert len(results) == 7
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)


def test_context_limits_episodes_and_facts(memory: MemoryCoordinator) -> None:
    memory.store("Standup is at nine", context="work")
    memory.store("Yoga is at nine", context="personal")
    results = memory.recall("nine", layers=["semantic"], context="work")
    assert [r.content for r in results] == ["Standup is at nine"]


@pytest.mark.slow
def test_first_memory_found_after_ten_thousand_newer_ones(tmp_path: Path) -> None:
    with MemoryCoordinator(tmp_path / "big.db") as memory:
        first = memory.store("The lighthouse keeper's name is Ingeborg")
        memory.store_many(
            [f"Routine log entry {i}: the lighthouse lamp was checked" for i in range(10_000)]
        )
        results = memory.recall("lighthouse keeper Ingeborg", layers=["semantic"], limit=3)
        assert results[0].id == first
        assert results[0].score > results[1].score


def test_candidate_terms_skip_the_commonest_postings() -> None:
    from zenbrain._ranking import candidate_terms

    frequencies = {"the_common": 90_000, "rare": 3, "absent": 0, "middling": 15_000}
    assert candidate_terms(frequencies, budget=20_000) == ["rare", "middling"]
    assert candidate_terms({"huge": 50_000}, budget=20_000) == ["huge"]  # never empty
    assert candidate_terms({"absent": 0}) == []


def test_per_conversation_ranks_conversations_by_their_best_match(
    memory: MemoryCoordinator,
) -> None:
    # Four turns of one planning chat match "flight" best; two other chats match once each.
    for turn in (
        "Flight to Lisbon booked: the flight leaves Friday",
        "The flight number is TP 541, flight gate B",
        "Seat 14A on the flight, window",
        "Flight snacks: bring the flight pillow",
    ):
        memory.store(turn, layer="episodic", conversation="trip")
    memory.store("The Berlin flight was cancelled", layer="episodic", conversation="work")
    memory.store("A flight simulator for the kids", layer="episodic", conversation="family")
    memory.store("Flight mode saves the battery", layer="semantic")  # names no conversation
    everything = memory.recall("flight", layers=["episodic", "semantic"], limit=4)
    assert [r.conversation for r in everything].count("trip") >= 3
    one_each = memory.recall("flight", layers=["episodic", "semantic"], limit=4, per_conversation=1)
    assert sorted(r.conversation or "" for r in one_each) == ["", "family", "trip", "work"]
    # Each conversation is shown by its best match, in the order of those matches.
    best_trip = next(r for r in everything if r.conversation == "trip")
    assert best_trip.id in [r.id for r in one_each]
    scores = [r.score for r in one_each]
    assert scores == sorted(scores, reverse=True)
    two_each = memory.recall("flight", layers=["episodic"], limit=10, per_conversation=2)
    assert [r.conversation for r in two_each].count("trip") == 2
    assert len(two_each) == 4
