"""ZenBrainMemoryMiddleware in real ``create_agent`` loops, with LangChain's fake chat model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.tools import BaseTool, tool
from langchain_zenbrain import ZenBrainMemoryMiddleware, ZenBrainStore
from langgraph.checkpoint.memory import InMemorySaver

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError


@dataclass
class UserContext:
    user_id: str


class ToolCallingFakeModel(GenericFakeChatModel):
    """LangChain's GenericFakeChatModel, accepting tools the way a real chat model does
    (the scripted messages decide which tool calls it makes)."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable[Any, AIMessage]:
        return self


class PromptRecorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.prompts: list[list[BaseMessage]] = []

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], **kwargs: Any
    ) -> None:
        self.prompts.extend(messages)

    def system_text(self, call: int = -1) -> str:
        first = self.prompts[call][0]
        return first.text if isinstance(first, SystemMessage) else ""


@tool
def find_recipe(ingredient: str) -> str:
    """Find a recipe with an ingredient."""
    return f"Roasted {ingredient} with lemon."


def _agent(
    memory: MemoryCoordinator,
    replies: list[AIMessage | str],
    *,
    tools: list[BaseTool] | None = None,
    **options: Any,
) -> Any:
    return create_agent(
        ToolCallingFakeModel(messages=iter(replies)),
        tools=tools or [],
        system_prompt="You are a cooking assistant.",
        middleware=[ZenBrainMemoryMiddleware(memory, **options)],
        context_schema=UserContext,
    )


def _remembered(memory: MemoryCoordinator, user: str) -> list[str]:
    view = memory.for_namespace(f"{memory.namespace}.users.{user}")
    return sorted(r.content for r in view.recall("the user", limit=100, layers=["semantic"]))


def _recalled(memory: MemoryCoordinator, user: str, query: str) -> list[str]:
    view = memory.for_namespace(f"{memory.namespace}.users.{user}")
    return [r.content for r in view.recall(query, min_score=0.01)]


def test_statements_are_remembered_and_recalled_in_a_later_conversation(
    memory: MemoryCoordinator,
) -> None:
    agent = _agent(memory, ["Noted, no meat for you.", "Try the roasted cauliflower."])
    recorder = PromptRecorder()
    config = {"callbacks": [recorder]}
    ada = UserContext("ada")
    agent.invoke(
        {"messages": [HumanMessage("I'm vegetarian and I live in Kiel.")]},
        config,
        context=ada,
    )
    assert _recalled(memory, "ada", "vegetarian Kiel") == ["I'm vegetarian and I live in Kiel."]
    # The assistant's reply is its own output, not a fact about the user.
    assert _recalled(memory, "ada", "meat") == []

    # A new conversation (no shared thread): the memory reaches the model call.
    agent.invoke(
        {"messages": [HumanMessage("What vegetarian dish should I cook tonight?")]},
        config,
        context=ada,
    )
    system = recorder.system_text()
    assert system.startswith("You are a cooking assistant.")
    assert "- I'm vegetarian and I live in Kiel." in system
    # The question itself is not a fact.
    assert _recalled(memory, "ada", "dish cook tonight") == []


def test_questions_and_small_talk_are_not_remembered(memory: MemoryCoordinator) -> None:
    agent = _agent(memory, ["Hello!", "Sunny.", "You're welcome."])
    for text in ["hi there", "What's the weather like?", "thanks!"]:
        agent.invoke({"messages": [HumanMessage(text)]}, context=UserContext("ada"))
    view = memory.for_namespace(f"{memory.namespace}.users.ada")
    assert view.health().semantic["count"] == 0
    assert view.health().episodic["count"] == 0


def test_users_do_not_see_each_other(memory: MemoryCoordinator) -> None:
    agent = _agent(memory, ["Noted.", "Noted.", "Here you go."])
    recorder = PromptRecorder()
    agent.invoke(
        {"messages": [HumanMessage("My sister Lena is allergic to peanuts.")]},
        context=UserContext("ada"),
    )
    agent.invoke(
        {"messages": [HumanMessage("I love peanut butter cookies.")]},
        context=UserContext("bob"),
    )
    agent.invoke(
        {"messages": [HumanMessage("Which cookies with peanuts should I bake?")]},
        {"callbacks": [recorder]},
        context=UserContext("bob"),
    )
    system = recorder.system_text()
    assert "I love peanut butter cookies." in system
    assert "Lena" not in system
    # Nothing went into the coordinator's own namespace.
    assert memory.recall("peanuts", min_score=0.01) == []


def test_a_tool_loop_stores_the_message_once_and_recalls_before_each_call(
    memory: MemoryCoordinator,
) -> None:
    memory_of_ada = memory.for_namespace(f"{memory.namespace}.users.ada")
    memory_of_ada.store("I grow lemons on my balcony.", source="earlier")
    calling = AIMessage(
        "",
        tool_calls=[{"name": "find_recipe", "args": {"ingredient": "lemon"}, "id": "call-1"}],
    )
    agent = _agent(
        memory, [calling, "Roasted lemon chicken, without the chicken."], tools=[find_recipe]
    )
    recorder = PromptRecorder()
    result = agent.invoke(
        {"messages": [HumanMessage("I only cook on weekends. Any lemon recipe?")]},
        {"callbacks": [recorder]},
        context=UserContext("ada"),
    )
    assert [m.type for m in result["messages"]] == ["human", "ai", "tool", "ai"]
    assert len(recorder.prompts) == 2
    for call in (0, 1):
        assert "- I grow lemons on my balcony." in recorder.system_text(call)
    # The second model call does not get the user's own message back as a "memory".
    assert "I only cook on weekends" not in recorder.system_text(1)
    stored = [r.content for r in memory_of_ada.recall("weekends", min_score=0.01)]
    assert stored == ["I only cook on weekends. Any lemon recipe?"]


def test_a_continued_thread_stores_only_new_messages(memory: MemoryCoordinator) -> None:
    agent = create_agent(
        ToolCallingFakeModel(messages=iter(["Noted.", "Noted too."])),
        middleware=[ZenBrainMemoryMiddleware(memory)],
        context_schema=UserContext,
        checkpointer=InMemorySaver(),
    )
    thread: RunnableConfig = {"configurable": {"thread_id": "t1"}}
    ada = UserContext("ada")
    agent.invoke({"messages": [HumanMessage("My bike is a green Gazelle.")]}, thread, context=ada)
    agent.invoke({"messages": [HumanMessage("My car is a red Fiat.")]}, thread, context=ada)
    assert _remembered(memory, "ada") == ["My bike is a green Gazelle.", "My car is a red Fiat."]


def test_the_store_sees_what_the_middleware_remembered(memory: MemoryCoordinator) -> None:
    agent = _agent(memory, ["Noted."])
    agent.invoke({"messages": [HumanMessage("I work night shifts.")]}, context=UserContext("ada"))
    view = ZenBrainStore(memory).coordinator_for(("users", "ada"))
    assert [r.content for r in view.recall("night shifts", min_score=0.01)] == [
        "I work night shifts."
    ]


async def test_async_agent(memory: MemoryCoordinator) -> None:
    agent = _agent(memory, ["Noted.", "Try a tomato salad."])
    recorder = PromptRecorder()
    await agent.ainvoke(
        {"messages": [HumanMessage("I can't stand coriander.")]}, context=UserContext("ada")
    )
    await agent.ainvoke(
        {"messages": [HumanMessage("Suggest a salad without coriander")]},
        {"callbacks": [recorder]},
        context=UserContext("ada"),
    )
    assert "- I can't stand coriander." in recorder.system_text()


def test_custom_rule_and_read_only(memory: MemoryCoordinator) -> None:
    everything = _agent(memory, ["Sunny."], should_remember=lambda role, content: True)
    everything.invoke(
        {"messages": [HumanMessage("What's the weather like?")]}, context=UserContext("ada")
    )
    assert _remembered(memory, "ada") == ["What's the weather like?"]
    read_only = _agent(memory, ["Noted."], remember=False)
    read_only.invoke({"messages": [HumanMessage("I have a cat.")]}, context=UserContext("ada"))
    assert _remembered(memory, "ada") == ["What's the weather like?"]


def test_shared_memory_without_a_user_key(memory: MemoryCoordinator) -> None:
    agent = create_agent(
        ToolCallingFakeModel(messages=iter(["Noted."])),
        middleware=[ZenBrainMemoryMiddleware(memory, user_key=None)],
    )
    agent.invoke({"messages": [HumanMessage("The office wifi is called Zebra.")]})
    assert [r.content for r in memory.recall("office wifi", min_score=0.01)] == [
        "The office wifi is called Zebra."
    ]


def test_any_user_id_works(memory: MemoryCoordinator) -> None:
    agent = _agent(memory, ["Noted.", "Noted."])
    agent.invoke(
        {"messages": [HumanMessage("I play the oboe.")]}, context=UserContext("ada@example.com")
    )
    agent.invoke({"messages": [HumanMessage("I play the tuba.")]}, context=UserContext("ada"))
    view = memory.for_namespace(f"{memory.namespace}.users.ada@example%2Ecom")
    assert [r.content for r in view.recall("play", min_score=0.01)] == ["I play the oboe."]


def test_a_run_without_the_user_id_is_refused(memory: MemoryCoordinator) -> None:
    agent = _agent(memory, ["Noted."])
    with pytest.raises(InvalidInputError, match="user_id"):
        agent.invoke({"messages": [HumanMessage("I have a cat.")]})
    assert memory.recall("cat", min_score=0.01) == []


def test_bad_options_are_rejected(memory: MemoryCoordinator) -> None:
    with pytest.raises(InvalidInputError):
        ZenBrainMemoryMiddleware("memory.db")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        ZenBrainMemoryMiddleware(memory, k=0)
    with pytest.raises(InvalidInputError):
        ZenBrainMemoryMiddleware(memory, min_score=2)
    with pytest.raises(InvalidInputError):
        ZenBrainMemoryMiddleware(memory, namespace_prefix=("a.b",))
    with pytest.raises(InvalidInputError):
        ZenBrainMemoryMiddleware(memory, core="sometimes")  # type: ignore[arg-type]
