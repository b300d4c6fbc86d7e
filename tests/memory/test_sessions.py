"""Short-term memory with explicit sessions, on both back ends: a call naming a session
never touches the coordinator's current one, and batches of turns are one transaction."""

from __future__ import annotations

import pytest

from zenbrain import InvalidInputError, MemoryCoordinator


def test_an_explicit_session_leaves_the_current_one_alone(memory: MemoryCoordinator) -> None:
    memory.start_session("main")
    memory.add_interaction("user", "in main")
    memory.add_interaction("user", "elsewhere", session_id="side")
    memory.add_interaction("assistant", "reply", {"n": 1}, session_id="side")
    assert memory.session_id == "main"
    assert [i.content for i in memory.conversation()] == ["in main"]
    side = memory.conversation(session_id="side")
    assert [(i.role, i.content, i.metadata) for i in side] == [
        ("user", "elsewhere", {}),
        ("assistant", "reply", {"n": 1}),
    ]
    assert memory.pop_interaction(session_id="side").content == "reply"  # type: ignore[union-attr]
    assert memory.clear_session("side") == 1
    assert [i.content for i in memory.conversation()] == ["in main"]
    assert memory.session_id == "main"


def test_explicit_sessions_are_never_adopted(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        assert memory.session_id is None
        memory.add_interaction("user", "written explicitly", session_id="chat-7")
        memory.add_interactions([{"role": "user", "content": "more"}], session_id="chat-7")
        assert memory.session_id is None
        assert memory.conversation() == []
    with MemoryCoordinator(store_location) as reopened:
        assert reopened.session_id is None
        assert reopened.conversation() == []
        assert len(reopened.conversation(session_id="chat-7")) == 2


def test_opening_writes_nothing(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        assert memory.namespaces() == []
        assert memory.session_id is None
    with MemoryCoordinator(store_location) as memory:
        assert memory.namespaces() == []


def test_add_interactions_returns_the_turns_and_starts_a_session(
    memory: MemoryCoordinator,
) -> None:
    added = memory.add_interactions(
        [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello", "metadata": {"model": "x"}},
        ]
    )
    assert [(i.role, i.content, i.metadata) for i in added] == [
        ("user", "hi", {}),
        ("assistant", "hello", {"model": "x"}),
    ]
    assert memory.session_id is not None
    assert [i.content for i in memory.conversation()] == ["hi", "hello"]
    assert memory.add_interactions([]) == []


@pytest.mark.parametrize(
    "turns",
    [
        [{"role": "user", "content": "fine"}, {"role": "", "content": "no role"}],
        [{"role": "user", "content": "fine"}, {"role": "user", "content": 42}],
        [{"role": "user", "content": "fine"}, {"role": "user", "content": "x", "extra": 1}],
        [{"role": "user", "content": "fine"}, "not a dict"],
        {"role": "user", "content": "a dict, not a list"},
        "text",
    ],
)
def test_a_bad_turn_rejects_the_whole_batch(memory: MemoryCoordinator, turns: object) -> None:
    with pytest.raises(InvalidInputError):
        memory.add_interactions(turns, session_id="s")  # type: ignore[arg-type]
    assert memory.conversation(session_id="s") == []


def test_remember_stores_the_turns_worth_keeping(memory: MemoryCoordinator) -> None:
    short_term = pytest.importorskip("zenbrain.layers._short_term")
    turns = [
        {"role": "user", "content": "hi there"},
        {"role": "user", "content": "I am allergic to peanuts and prefer window seats"},
        {"role": "assistant", "content": "Noted: you are allergic to peanuts."},
    ]
    memory.add_interactions(turns, session_id="trip", remember=True)
    kept = [t["content"] for t in turns if short_term.worth_remembering(t["role"], t["content"])]
    assert kept == ["I am allergic to peanuts and prefer window seats"]
    assert [r.content for r in memory.find()] == kept
    assert memory.recall("peanuts", min_score=0.01)[0].content == kept[0]
    assert len(memory.conversation(session_id="trip")) == 3
