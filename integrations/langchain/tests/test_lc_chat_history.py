"""ZenBrainChatMessageHistory: persistence across a reopen, long-term storage, no warnings."""

from __future__ import annotations

import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import pytest
from langchain_core.language_models import FakeListChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.runnables.history import RunnableWithMessageHistory
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


def test_round_trip_survives_a_reopen(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        history = ZenBrainChatMessageHistory(memory, "session-a")
        history.add_messages(CONVERSATION)
        assert history.messages == CONVERSATION

    with MemoryCoordinator(store_location) as reopened:
        again = ZenBrainChatMessageHistory(reopened, "session-a")
        restored = again.messages
    assert restored == CONVERSATION
    assert isinstance(restored[2], AIMessage) and restored[2].tool_calls[0]["id"] == "call-1"
    assert isinstance(restored[3], ToolMessage) and restored[3].tool_call_id == "call-1"


def test_sessions_are_separate_and_do_not_move_the_coordinator(
    memory: MemoryCoordinator,
) -> None:
    memory.start_session("own-session")
    first = ZenBrainChatMessageHistory(memory, "first")
    second = ZenBrainChatMessageHistory(memory, "second")
    first.add_user_message("hello from the first session")
    second.add_user_message("hello from the second session")
    first.add_ai_message("first answer")
    memory.add_interaction("user", "the coordinator's own turn")
    assert [m.text for m in first.messages] == ["hello from the first session", "first answer"]
    assert [m.text for m in second.messages] == ["hello from the second session"]
    assert memory.session_id == "own-session"
    assert [i.content for i in memory.conversation()] == ["the coordinator's own turn"]


def test_a_reopened_coordinator_does_not_adopt_the_history_session(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        ZenBrainChatMessageHistory(memory, "chat-1").add_messages(CONVERSATION)
    with MemoryCoordinator(store_location) as reopened:
        assert reopened.session_id != "chat-1"
        reopened.add_interaction("user", "written by the application itself")
        assert ZenBrainChatMessageHistory(reopened, "chat-1").messages == CONVERSATION
        assert [i.content for i in reopened.conversation()] == ["written by the application itself"]


def test_creating_a_history_writes_nothing(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        history = ZenBrainChatMessageHistory(memory, "lazy")
        assert memory.namespaces() == []
        assert history.messages == []
    with MemoryCoordinator(store_location) as reopened:
        assert reopened.session_id is None
        assert reopened.namespaces() == []


def test_messages_is_the_whole_session(memory: MemoryCoordinator) -> None:
    history = ZenBrainChatMessageHistory(memory, "long", remember=False)
    transcript: list[BaseMessage] = [SystemMessage("You are a gardening assistant.")]
    for n in range(20):
        call_id = f"call-{n}"
        transcript += [
            HumanMessage(f"question {n}"),
            AIMessage("", tool_calls=[{"name": "lookup", "args": {"n": n}, "id": call_id}]),
            ToolMessage(f"result {n}", tool_call_id=call_id),
        ]
    history.add_messages(transcript)
    restored = history.messages
    assert len(restored) == 61
    assert restored == transcript
    # What a chat model API demands: the system message first, every tool result after the
    # AI message that called it.
    assert isinstance(restored[0], SystemMessage)
    for position, message in enumerate(restored):
        if isinstance(message, ToolMessage):
            caller = restored[position - 1]
            assert isinstance(caller, AIMessage)
            assert caller.tool_calls[0]["id"] == message.tool_call_id


def test_window_limits_what_messages_returns(memory: MemoryCoordinator) -> None:
    history = ZenBrainChatMessageHistory(memory, "long", remember=False, window=3)
    history.add_messages([HumanMessage(f"message {n}") for n in range(5)])
    assert [m.text for m in history.messages] == ["message 2", "message 3", "message 4"]


# A realistic chat: which of the user's turns should become long-term memories.
REALISTIC_CHAT: list[tuple[BaseMessage, bool]] = [
    (SystemMessage("You are a friendly cooking assistant."), False),
    (HumanMessage("hi there!"), False),
    (AIMessage("Hello! How can I help you today?"), False),
    (HumanMessage("What's the weather like?"), False),
    (AIMessage("I can't check the weather, sorry."), False),
    (HumanMessage("How to make pancakes?"), False),
    (AIMessage("Mix flour, eggs and milk, then fry."), False),
    (HumanMessage("I'm vegan, so no eggs or milk for me."), True),
    (AIMessage("Use oat milk and a flax egg instead."), False),
    (HumanMessage("thanks, sounds good"), False),
    (HumanMessage("My daughter Mia is allergic to hazelnuts."), True),
    (HumanMessage("Write me a haiku about syrup"), False),
    (HumanMessage("From now on, always give oven temperatures in Celsius."), True),
    (HumanMessage("Remember that my oven runs hot."), True),
    (HumanMessage("ok"), False),
]


def test_only_what_is_worth_remembering_reaches_long_term_memory(
    memory: MemoryCoordinator,
) -> None:
    history = ZenBrainChatMessageHistory(memory, "kitchen")
    history.add_messages([message for message, _ in REALISTIC_CHAT])
    remembered = sorted(r.content for r in memory.find())
    expected = sorted(message.text for message, keep in REALISTIC_CHAT if keep)
    assert remembered == expected
    # The transcript itself keeps everything.
    assert len(history.messages) == len(REALISTIC_CHAT)


def test_remembered_messages_carry_their_origin(memory: MemoryCoordinator) -> None:
    history = ZenBrainChatMessageHistory(memory, "garden", context="personal")
    history.add_messages(CONVERSATION)
    (found,) = memory.recall("Red Zebra balcony", min_score=0.1)
    assert found.content == CONVERSATION[1].text
    assert found.metadata["session_id"] == "garden"
    assert found.metadata["role"] == "user"
    assert found.metadata["message_id"] == "m1"
    assert found.source == "langchain-chat-history"
    assert found.context == "personal" and found.conversation == "garden"
    # AI answers are kept only in the session.
    assert memory.recall("six hours of sun", min_score=0.1) == []


def test_a_custom_rule_or_none(memory: MemoryCoordinator) -> None:
    everything = ZenBrainChatMessageHistory(
        memory, "all", should_remember=lambda role, content: True
    )
    everything.add_messages(CONVERSATION)
    assert memory.recall("six hours of sun", min_score=0.1)
    nothing = ZenBrainChatMessageHistory(memory, "none", remember=False)
    nothing.add_user_message("My bike is called Rosinante.")
    assert memory.recall("Rosinante", min_score=0.1) == []


def test_clear_empties_only_this_session(memory: MemoryCoordinator) -> None:
    history = ZenBrainChatMessageHistory(memory, "to-clear")
    other = ZenBrainChatMessageHistory(memory, "to-keep")
    history.add_user_message("Remember that the shed key is under the pot.")
    other.add_user_message("keep me")
    memory.add_interaction("user", "the coordinator's own turn")
    history.clear()
    assert history.messages == []
    assert [m.text for m in other.messages] == ["keep me"]
    assert [i.content for i in memory.conversation()] == ["the coordinator's own turn"]
    # Long-term memory is not part of the session: it stays.
    assert memory.recall("shed key", min_score=0.1)


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


async def test_async_methods(memory: MemoryCoordinator) -> None:
    history = ZenBrainChatMessageHistory(memory, "async")
    await history.aadd_messages(CONVERSATION[:2])
    assert await history.aget_messages() == CONVERSATION[:2]
    assert await memory.arecall("Red Zebra", min_score=0.1)
    await history.aclear()
    assert await history.aget_messages() == []
    assert memory.session_id is None


def test_bad_input_is_rejected(coordinator: MemoryCoordinator) -> None:
    with pytest.raises(InvalidInputError):
        ZenBrainChatMessageHistory(coordinator, "")
    with pytest.raises(InvalidInputError):
        ZenBrainChatMessageHistory(coordinator, "s", remember=("human",))  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        ZenBrainChatMessageHistory(coordinator, "s", window=0)
    with pytest.raises(InvalidInputError):
        ZenBrainChatMessageHistory("memory.db", "s")  # type: ignore[arg-type]
    history = ZenBrainChatMessageHistory(coordinator, "s")
    with pytest.raises(InvalidInputError):
        history.add_messages(["plain text"])  # type: ignore[list-item]
    assert history.messages == []


def test_runnable_with_message_history(memory: MemoryCoordinator) -> None:
    recorder: list[list[BaseMessage]] = []

    def record(messages: list[BaseMessage]) -> list[BaseMessage]:
        recorder.append(messages)
        return messages

    prompt = ChatPromptTemplate.from_messages(
        [("system", "You are terse."), MessagesPlaceholder("history"), ("human", "{question}")]
    )
    model = FakeListChatModel(responses=["Nice to meet you, Ada.", "You live in Kiel."])
    chain = prompt | RunnableLambda(lambda value: record(value.to_messages())) | model
    with warnings.catch_warnings():
        # RunnableWithMessageHistory is deprecated in langchain-core 1.x, and still used.
        warnings.simplefilter("ignore", DeprecationWarning)
        with_history = RunnableWithMessageHistory(
            chain,
            lambda session_id: ZenBrainChatMessageHistory(memory, session_id),
            input_messages_key="question",
            history_messages_key="history",
        )
        config: RunnableConfig = {"configurable": {"session_id": "ada-chat"}}
        with_history.invoke({"question": "Hi, I am Ada and I live in Kiel."}, config)
        answer = with_history.invoke({"question": "Where do I live?"}, config)
    assert answer.content == "You live in Kiel."
    assert [m.type for m in recorder[1]] == ["system", "human", "ai", "human"]
    assert recorder[1][1].text == "Hi, I am Ada and I live in Kiel."
    stored = ZenBrainChatMessageHistory(memory, "ada-chat").messages
    assert [m.text for m in stored] == [
        "Hi, I am Ada and I live in Kiel.",
        "Nice to meet you, Ada.",
        "Where do I live?",
        "You live in Kiel.",
    ]
    assert memory.session_id is None


def test_threads_appending_to_one_session_lose_nothing(memory: MemoryCoordinator) -> None:
    start = threading.Barrier(6)

    def talk(thread: int) -> None:
        history = ZenBrainChatMessageHistory(memory, "shared", remember=False)
        start.wait()
        for turn in range(5):
            history.add_messages([HumanMessage(f"{thread}-{turn}"), AIMessage(f"ok {thread}")])

    with ThreadPoolExecutor(6) as pool:
        list(pool.map(talk, range(6)))
    messages = ZenBrainChatMessageHistory(memory, "shared").messages
    assert len(messages) == 60
    # Each add_messages call is one transaction: a question is followed by its answer.
    for question, answer in zip(messages[::2], messages[1::2], strict=True):
        assert answer.text == f"ok {question.text.split('-')[0]}"
