"""ZenBrainChatMessageHistory: persistence across a reopen, long-term storage, no warnings."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_zenbrain import ZenBrainChatMessageHistory

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError

CONVERSATION: list[BaseMessage] = [
    SystemMessage("You are a helpful gardening assistant."),
    HumanMessage("My tomatoes are called Red Zebra and grow on the balcony.", id="m1"),
    AIMessage(
        content=[{"type": "text", "text": "Let me look that up."}],
        tool_calls=[{"name": "lookup", "args": {"plant": "tomato"}, "id": "call-1"}],
        id="m2",
    ),
    ToolMessage("Tomatoes need six hours of sun.", tool_call_id="call-1"),
    AIMessage("Red Zebra tomatoes need six hours of sun a day."),
]


def test_round_trip_survives_a_reopen(db_path: Path) -> None:
    with MemoryCoordinator(db_path) as memory:
        history = ZenBrainChatMessageHistory(memory, "session-a")
        history.add_messages(CONVERSATION)
        assert history.messages == CONVERSATION

    with MemoryCoordinator(db_path) as reopened:
        again = ZenBrainChatMessageHistory(reopened, "session-a")
        restored = again.messages
    assert restored == CONVERSATION
    assert isinstance(restored[2], AIMessage) and restored[2].tool_calls[0]["id"] == "call-1"
    assert isinstance(restored[3], ToolMessage) and restored[3].tool_call_id == "call-1"


def test_sessions_are_separate_and_do_not_move_the_coordinator(
    coordinator: MemoryCoordinator,
) -> None:
    coordinator.start_session("own-session")
    first = ZenBrainChatMessageHistory(coordinator, "first")
    second = ZenBrainChatMessageHistory(coordinator, "second")
    first.add_user_message("hello from the first session")
    second.add_user_message("hello from the second session")
    first.add_ai_message("first answer")
    assert [m.text for m in first.messages] == ["hello from the first session", "first answer"]
    assert [m.text for m in second.messages] == ["hello from the second session"]
    assert coordinator.session_id == "own-session"
    assert coordinator.conversation() == []


def test_human_messages_also_go_to_long_term_memory(coordinator: MemoryCoordinator) -> None:
    history = ZenBrainChatMessageHistory(coordinator, "garden")
    history.add_messages(CONVERSATION)
    found = coordinator.recall("Red Zebra balcony", min_score=0.1)
    assert [r.content for r in found] == [CONVERSATION[1].text]
    assert found[0].metadata["session_id"] == "garden"
    assert found[0].metadata["role"] == "user"
    assert found[0].metadata["message_id"] == "m1"
    # AI answers are kept only in the session unless asked for.
    assert coordinator.recall("six hours of sun", min_score=0.1) == []


def test_remember_ai_messages_too(coordinator: MemoryCoordinator) -> None:
    history = ZenBrainChatMessageHistory(coordinator, "garden", remember=("human", "ai"))
    history.add_messages(CONVERSATION)
    contents = {r.content for r in coordinator.recall("six hours of sun", min_score=0.1)}
    assert CONVERSATION[4].text in contents


def test_clear_empties_only_this_session(coordinator: MemoryCoordinator) -> None:
    history = ZenBrainChatMessageHistory(coordinator, "to-clear")
    other = ZenBrainChatMessageHistory(coordinator, "to-keep")
    history.add_user_message("Remember that the shed key is under the pot.")
    other.add_user_message("keep me")
    history.clear()
    assert history.messages == []
    assert [m.text for m in other.messages] == ["keep me"]
    # Long-term memory is not part of the session: it stays.
    assert coordinator.recall("shed key", min_score=0.1)


def test_window_limits_what_messages_returns(coordinator: MemoryCoordinator) -> None:
    history = ZenBrainChatMessageHistory(coordinator, "long", remember=(), window=3)
    history.add_messages([HumanMessage(f"message {n}") for n in range(5)])
    assert [m.text for m in history.messages] == ["message 2", "message 3", "message 4"]


def test_no_deprecation_warnings_reach_the_user(coordinator: MemoryCoordinator) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        history = ZenBrainChatMessageHistory(coordinator, "quiet")
        history.add_user_message("hello")
        history.add_ai_message("hi")
        _ = history.messages
        _ = str(history)
        history.clear()
    assert [str(w.message) for w in caught] == []


async def test_async_methods(db_path: Path) -> None:
    with MemoryCoordinator(db_path) as memory:
        history = ZenBrainChatMessageHistory(memory, "async")
        await history.aadd_messages(CONVERSATION[:2])
        assert await history.aget_messages() == CONVERSATION[:2]
        assert await memory.arecall("Red Zebra", min_score=0.1)
        await history.aclear()
        assert await history.aget_messages() == []


def test_bad_input_is_rejected(coordinator: MemoryCoordinator) -> None:
    with pytest.raises(InvalidInputError):
        ZenBrainChatMessageHistory(coordinator, "")
    with pytest.raises(InvalidInputError):
        ZenBrainChatMessageHistory(coordinator, "s", remember=("robot",))
    with pytest.raises(InvalidInputError):
        ZenBrainChatMessageHistory("memory.db", "s")  # type: ignore[arg-type]
    history = ZenBrainChatMessageHistory(coordinator, "s")
    with pytest.raises(InvalidInputError):
        history.add_messages(["plain text"])  # type: ignore[list-item]
    assert history.messages == []
