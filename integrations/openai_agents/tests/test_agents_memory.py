"""A real Agent run through the SDK's Runner, with the SDK's ScriptedModel (no network)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, FunctionTool, Runner, set_tracing_disabled
from agents.memory import Session
from agents.strict_schema import ensure_strict_json_schema
from agents.testing import ModelCall, ModelStep, ScriptedModel, assistant_message, function_call
from zenbrain_openai_agents import (
    ZenBrainSession,
    core_memory_instructions,
    memory_tools,
)

from zenbrain import MemoryCoordinator
from zenbrain.tools import TOOLS, strict_parameters

STORE_NULLS = {
    "type": None,
    "context": None,
    "confidence": None,
    "emotional_weight": None,
    "source": None,
    "steps": None,
    "tools": None,
    "outcome": None,
}
RECALL_NULLS = {
    "layers": None,
    "limit": None,
    "min_score": None,
    "min_confidence": None,
    "core": None,
}


@pytest.fixture(autouse=True)
def no_trace_export() -> Iterator[None]:
    # Traces would be exported to OpenAI; these runs are offline.
    set_tracing_disabled(True)
    yield
    set_tracing_disabled(False)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "agents.db"


@pytest.fixture
def memory(db_path: Path) -> Iterator[MemoryCoordinator]:
    with MemoryCoordinator(db_path) as coordinator:
        yield coordinator


def _tool_outputs(call: ModelCall) -> dict[str, dict[str, Any]]:
    """The tool results the model was shown, by call id."""
    outputs = {}
    for item in call.input:
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            outputs[item["call_id"]] = json.loads(item["output"])
    return outputs


def test_the_tools_are_the_shared_definitions_with_strict_schemas(
    memory: MemoryCoordinator,
) -> None:
    tools = memory_tools(memory)
    assert [tool.name for tool in tools] == [definition.name for definition in TOOLS]
    for tool, definition in zip(tools, TOOLS, strict=True):
        assert isinstance(tool, FunctionTool)
        assert tool.description == definition.description
        assert tool.strict_json_schema is True
        assert tool.params_json_schema == strict_parameters(definition.parameters)
        # Already strict: the SDK's own strict conversion has nothing left to change.
        assert ensure_strict_json_schema(copy.deepcopy(tool.params_json_schema)) == (
            tool.params_json_schema
        )
    loose = memory_tools(memory, strict=False)
    assert [getattr(tool, "params_json_schema", None) for tool in loose] == [
        definition.parameters for definition in TOOLS
    ]


async def test_a_scripted_run_stores_and_recalls_through_the_tools(
    memory: MemoryCoordinator,
) -> None:
    def answer_from_recall(call: ModelCall) -> list[Any]:
        recalled = _tool_outputs(call)["recall-1"]["results"]
        return [assistant_message(f"You live in Kiel (memory {recalled[0]['id']}).")]

    model = ScriptedModel(
        [
            [
                function_call(
                    "zenbrain_store",
                    {**STORE_NULLS, "content": "The user lives in Kiel, by the Förde."},
                    call_id="store-1",
                )
            ],
            [
                function_call(
                    "zenbrain_recall",
                    {**RECALL_NULLS, "query": "where does the user live Kiel", "min_score": 0.01},
                    call_id="recall-1",
                )
            ],
            ModelStep.respond(answer_from_recall),
        ]
    )
    agent = Agent(name="Assistant", model=model, tools=memory_tools(memory))

    result = await Runner.run(agent, "Please remember that I live in Kiel.")

    model.assert_complete()
    stored = _tool_outputs(model.calls[1])["store-1"]
    assert stored["layer"] == "semantic"
    recalled = _tool_outputs(model.calls[2])["recall-1"]
    assert recalled["results"][0]["id"] == stored["id"]
    assert recalled["results"][0]["content"] == "The user lives in Kiel, by the Förde."
    assert result.final_output == f"You live in Kiel (memory {stored['id']})."
    # And it is really in the store, for any later run.
    assert memory.recall("Kiel Foerde", min_score=0.01)[0].id == stored["id"]


async def test_bad_tool_arguments_reach_the_model_as_an_error_not_a_crash(
    memory: MemoryCoordinator,
) -> None:
    model = ScriptedModel(
        [
            [
                function_call(
                    "zenbrain_store",
                    {**STORE_NULLS, "content": "x", "confidence": 7},
                    call_id="bad",
                )
            ],
            [assistant_message("Sorry, let me fix that.")],
        ]
    )
    agent = Agent(name="Assistant", model=model, tools=memory_tools(memory))
    result = await Runner.run(agent, "Store something odd.")
    error = _tool_outputs(model.calls[1])["bad"]["error"]
    assert error["type"] == "InvalidInputError" and "confidence" in error["message"]
    assert result.final_output == "Sorry, let me fix that."
    assert memory.health().semantic["count"] == 0


async def test_forget_through_the_agent_reports_duplicates(memory: MemoryCoordinator) -> None:
    first = memory.store("Parking spot is B12")
    copy_id = memory.store("Parking spot is B12")
    model = ScriptedModel(
        [
            [function_call("zenbrain_forget", {"id": first, "layer": "semantic"}, call_id="f")],
            [assistant_message("Done.")],
        ]
    )
    agent = Agent(name="Assistant", model=model, tools=memory_tools(memory))
    await Runner.run(agent, "Forget my parking spot.")
    forgotten = _tool_outputs(model.calls[1])["f"]
    assert forgotten["forgotten"] is True
    assert {"id": copy_id, "layer": "semantic"} in forgotten["duplicates"]


async def test_the_session_keeps_every_item_in_order_across_runs_and_restarts(
    memory: MemoryCoordinator, db_path: Path
) -> None:
    session = ZenBrainSession("thread-7", memory)
    assert isinstance(session, Session)
    model = ScriptedModel(
        [
            [function_call("zenbrain_health", {}, call_id="health-1")],
            [assistant_message("All layers look fine.")],
            [assistant_message("You asked about memory health.")],
        ]
    )
    agent = Agent(name="Assistant", model=model, tools=memory_tools(memory))
    await Runner.run(agent, "How is my memory doing?", session=session)
    await Runner.run(agent, "What did I ask before?", session=session)

    # The second run's model call saw the first run's history, taken from the session.
    second_run_input = model.calls[2].input
    texts = [json.dumps(item) for item in second_run_input]
    assert any("How is my memory doing?" in text for text in texts)
    assert any("All layers look fine." in text for text in texts)

    items: list[Any] = await session.get_items()
    kinds = [item.get("type", "message") for item in items]
    assert kinds == [
        "message",
        "function_call",
        "function_call_output",
        "message",
        "message",
        "message",
    ]
    assert items[0]["content"] == "How is my memory doing?"
    assert items[-2]["content"] == "What did I ask before?"
    assert await session.get_items(limit=2) == items[-2:]

    # A new process on the same file: a new coordinator, a new session object.
    with MemoryCoordinator(db_path) as reopened:
        assert await ZenBrainSession("thread-7", reopened).get_items() == items
        assert await ZenBrainSession("another-thread", reopened).get_items() == []


async def test_the_history_is_not_cut_at_the_short_term_window(
    memory: MemoryCoordinator, db_path: Path
) -> None:
    session = ZenBrainSession("long", memory, remember_user_turns=False)
    items: list[Any] = [
        {"role": "user" if n % 2 == 0 else "assistant", "content": f"message {n}"}
        for n in range(120)
    ]
    await session.add_items(items[:70])
    await session.add_items(items[70:])
    assert await session.get_items() == items
    assert await session.get_items(limit=5) == items[-5:]
    assert await session.get_items(limit=0) == []

    assert await session.pop_item() == items[-1]
    with MemoryCoordinator(db_path) as reopened:
        assert await ZenBrainSession("long", reopened).get_items() == items[:-1]

    await session.clear_session()
    assert await session.get_items() == []
    assert await session.pop_item() is None


async def test_user_turns_flow_into_long_term_memory(memory: MemoryCoordinator) -> None:
    session = ZenBrainSession("prefs", memory)
    model = ScriptedModel([[assistant_message("Noted!")]])
    agent = Agent(name="Assistant", model=model)
    await Runner.run(agent, "My favourite tea is smoky lapsang souchong.", session=session)

    found = memory.recall("lapsang souchong tea", min_score=0.01)
    assert [result.content for result in found] == ["My favourite tea is smoky lapsang souchong."]
    assert found[0].metadata.get("role") == "user"
    assert found[0].conversation == "prefs"  # the session it was said in
    # Only the user's words: the assistant's reply is history, not a memory.
    assert memory.recall("Noted", min_score=0.01) == []


async def test_sessions_sharing_a_coordinator_never_mix_their_items(
    memory: MemoryCoordinator,
) -> None:
    alice = ZenBrainSession("alice", memory, remember_user_turns=False)
    bob = ZenBrainSession("bob", memory, remember_user_turns=False)
    await alice.add_items([{"role": "user", "content": "alice 1"}])
    await bob.add_items([{"role": "user", "content": "bob 1"}])
    memory.start_session("somewhere-else")  # the caller switches its own current session
    await alice.add_items([{"role": "user", "content": "alice 2"}])
    alice_items: list[Any] = await alice.get_items()
    bob_items: list[Any] = await bob.get_items()
    assert [item["content"] for item in alice_items] == ["alice 1", "alice 2"]
    assert [item["content"] for item in bob_items] == ["bob 1"]


async def test_core_blocks_reach_the_instructions_and_updates_show_next_turn(
    memory: MemoryCoordinator,
) -> None:
    memory.set_core_block("name", "The user is called Ada.")
    model = ScriptedModel(
        [
            [
                function_call(
                    "zenbrain_store",
                    {**STORE_NULLS, "content": "Ada is allergic to peanuts.", "type": "core"},
                    call_id="pin",
                )
            ],
            [assistant_message("Pinned.")],
        ]
    )
    agent = Agent(
        name="Assistant",
        model=model,
        instructions=core_memory_instructions(memory, "You are a careful assistant."),
        tools=memory_tools(memory),
    )
    await Runner.run(agent, "Remember my peanut allergy, always.")

    first, second = model.calls
    assert first.system_instructions is not None and second.system_instructions is not None
    assert first.system_instructions.startswith("You are a careful assistant.")
    assert "[name]: The user is called Ada." in first.system_instructions
    assert "peanuts" not in first.system_instructions
    assert "Ada is allergic to peanuts." in second.system_instructions


async def test_instructions_without_core_blocks_are_just_the_base(
    memory: MemoryCoordinator,
) -> None:
    model = ScriptedModel([[assistant_message("Hi.")]])
    agent = Agent(
        name="Assistant", model=model, instructions=core_memory_instructions(memory, "Be brief.")
    )
    await Runner.run(agent, "Hello")
    assert model.calls[0].system_instructions == "Be brief."
