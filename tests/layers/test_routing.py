"""store(): routing, first match wins, and what each layer keeps."""

from __future__ import annotations

import pytest

from zenbrain import MemoryCoordinator
from zenbrain._algorithms.emotional import emotional_weight
from zenbrain.layers._routing import extract_steps, is_step_like


def layer_of(memory: MemoryCoordinator, memory_id: str) -> str:
    found = memory.get(memory_id)
    assert found is not None
    return found.layer


@pytest.mark.parametrize(
    "text",
    [
        "How to rotate the API keys: open the vault, create a key, revoke the old one",
        "Steps: build, test, ship",
        "Release workflow: tag, build, publish",
        "1. Preheat the oven\n2. Mix flour and eggs\n3. Bake for 20 minutes",
        "- open the door\n- switch on the light",
        "Anleitung: Wasser kochen, Tee aufgießen",
    ],
)
def test_step_like_content_becomes_a_procedure(memory: MemoryCoordinator, text: str) -> None:
    assert layer_of(memory, memory.store(text)) == "procedural"


def test_given_steps_make_a_procedure_and_are_kept(memory: MemoryCoordinator) -> None:
    pid = memory.store(
        "Restart the cache", steps=["ssh in", "systemctl restart redis"], tools=["ssh"]
    )
    result = memory.get(pid)
    assert result is not None and result.layer == "procedural"
    assert result.procedure.steps == ["ssh in", "systemctl restart redis"]
    assert result.procedure.tools == ["ssh"]
    assert result.procedure.success_rate == 1.0


@pytest.mark.parametrize(
    "text",
    [
        # Lists that offer options, as an assistant answers: facts, not procedures.
        "Here are a few tips for a first-timer:\n1. Be precise\n2. Do not over-bake",
        "Some great restaurants in Paris:\n- Le Jules Verne\n- Septime\n- Chez Janou",
        "1. **Louvre**: the largest museum\n2. **Orsay**: impressionists\n3. **Rodin**",
        "Hier sind ein paar Ideen:\n- Kino\n- Wandern",
        # A marker deep in a message, not in its title.
        "I love sardines.\nThey are cheap and full of omega-3.\nMy recipe: grill them.",
        # One step line among many lines of prose.
        "We met at noon.\nThe talk was long.\nLunch was good.\n- a note\n- another",
    ],
)
def test_lists_of_options_and_late_markers_are_not_procedures(text: str) -> None:
    assert not is_step_like(text)


@pytest.mark.parametrize(
    "text",
    [
        "Steps to renew the parking permit:\n- log in\n- choose resident permits\n- pay",
        "Here are the steps to deploy:\n1. build\n2. push",
        "Schritte zum Ummelden:\n1. Termin buchen\n2. Unterlagen mitnehmen",
    ],
)
def test_a_title_naming_steps_makes_a_procedure(text: str) -> None:
    assert is_step_like(text)


def test_numbered_lines_are_extracted_as_steps() -> None:
    assert extract_steps("Deploy:\n1. build\n2) push\n- tag") == ["build", "push", "tag"]
    assert not is_step_like("The sky is blue.\nIt is 3 p.m.")


def test_emotional_content_becomes_an_episode_and_keeps_its_weight(
    memory: MemoryCoordinator,
) -> None:
    text = "I am absolutely thrilled — I got the promotion!"
    result = memory.get(memory.store(text))
    assert result is not None and result.layer == "episodic"
    assert result.emotional_weight == pytest.approx(emotional_weight(text))
    assert result.emotional_weight > 0.5


def test_german_emotional_content_becomes_an_episode(memory: MemoryCoordinator) -> None:
    text = "Ich bin so glücklich, ich habe die Prüfung bestanden!"
    assert layer_of(memory, memory.store(text)) == "episodic"


def test_neutral_text_scores_low_and_becomes_a_fact(memory: MemoryCoordinator) -> None:
    text = "The meeting is on Tuesday at the office"
    assert emotional_weight(text) == pytest.approx(0.08, abs=0.02)
    result = memory.get(memory.store(text))
    assert result is not None and result.layer == "semantic"
    assert result.confidence == 0.7
    assert result.source == "user"


def test_high_confidence_becomes_core(memory: MemoryCoordinator) -> None:
    assert layer_of(memory, memory.store("My name is Anna", confidence=0.95)) == "core"
    assert layer_of(memory, memory.store("My name is Bob", confidence=0.9)) == "semantic"


def test_emotion_is_checked_before_confidence(memory: MemoryCoordinator) -> None:
    mid = memory.store("Plain words", emotional_weight=0.8, confidence=0.99)
    assert layer_of(memory, mid) == "episodic"


def test_steps_beat_emotion(memory: MemoryCoordinator) -> None:
    assert layer_of(memory, memory.store("How to calm down", emotional_weight=0.9)) == "procedural"


def test_explicit_layer_overrides_routing(memory: MemoryCoordinator) -> None:
    assert layer_of(memory, memory.store("How to bake bread", layer="semantic")) == "semantic"
    assert layer_of(memory, memory.store("just a note", layer="episodic")) == "episodic"
    assert layer_of(memory, memory.store("legacy alias", layer="fact")) == "semantic"


def test_every_call_adds_a_memory(memory: MemoryCoordinator) -> None:
    first = memory.store("Duplicate fact")
    second = memory.store("Duplicate fact")
    assert first != second
    assert memory.health().semantic["count"] == 2


def test_storing_the_same_core_content_again_updates_one_block(memory: MemoryCoordinator) -> None:
    first = memory.store("Always answer in German", confidence=0.99)
    second = memory.store("Always answer in German", confidence=0.99)
    assert first == second
    assert memory.health().core["blocks"] == 1


def test_everything_stored_lands_in_working_memory(memory: MemoryCoordinator) -> None:
    mid = memory.store("The office wifi password rotates monthly")
    slots = memory.working.slots()
    assert [s.content for s in slots] == ["The office wifi password rotates monthly"]
    assert slots[0].source_id == mid


def test_store_many_is_one_transaction(memory: MemoryCoordinator) -> None:
    ids = memory.store_many(["fact one", {"content": "fact two", "context": "work"}, "How to x: a"])
    assert len(ids) == 3
    assert [layer_of(memory, i) for i in ids] == ["semantic", "semantic", "procedural"]
    with pytest.raises(ValueError, match="item 1"):
        memory.store_many(["fine", {"content": ""}])
    assert memory.health().semantic["count"] == 2  # the failed batch added nothing


def test_created_at_is_kept(memory: MemoryCoordinator) -> None:
    mid = memory.store("Old fact", created_at="2023-05-08T13:56:00+00:00")
    result = memory.get(mid)
    assert result is not None and result.created_at is not None
    assert result.created_at.isoformat() == "2023-05-08T13:56:00+00:00"
