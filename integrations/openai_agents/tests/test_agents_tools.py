"""The memory tools inside real Agent runs: namespaces from the run context, result schemas
on the FunctionTools and in the Responses request, and hostile arguments."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, FunctionTool, RunContextWrapper, Runner, set_tracing_disabled
from agents.models.openai_responses import Converter
from agents.testing import ModelCall, ScriptedModel, assistant_message, function_call
from agents.tool_context import ToolContext
from zenbrain_openai_agents import memory_tools

from zenbrain import MemoryCoordinator
from zenbrain.tools import TOOLS, get_tool, strict_output_schema

RECALL_NULLS = dict.fromkeys(("layers", "limit", "min_score", "min_confidence", "core"))
STORE_NULLS = dict.fromkeys(
    ("type", "context", "confidence", "emotional_weight", "source", "steps", "tools", "outcome")
)


@pytest.fixture(autouse=True)
def no_trace_export() -> Iterator[None]:
    set_tracing_disabled(True)
    yield
    set_tracing_disabled(False)


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[MemoryCoordinator]:
    with MemoryCoordinator(tmp_path / "tools.db") as coordinator:
        yield coordinator


@dataclass
class UserContext:
    user_id: str


def _outputs(call: ModelCall) -> dict[str, Any]:
    items: list[Any] = list(call.input)
    return {
        item["call_id"]: json.loads(item["output"])
        for item in items
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    }


def test_result_schemas_reach_the_function_tools_and_the_responses_request(
    memory: MemoryCoordinator,
) -> None:
    tools = memory_tools(memory)
    for tool, definition in zip(tools, TOOLS, strict=True):
        assert isinstance(tool, FunctionTool)
        assert tool.output_json_schema == strict_output_schema(definition)
    converted = Converter.convert_tools(tools, [])
    params: list[dict[str, Any]] = [dict(param) for param in converted.tools]
    sent = {param["name"]: param for param in params if param.get("type") == "function"}
    assert set(sent) == {definition.name for definition in TOOLS}
    for definition in TOOLS:
        assert sent[definition.name]["output_schema"] == strict_output_schema(definition)
        assert sent[definition.name]["parameters"]["additionalProperties"] is False


async def _store_then_recall(agent_tools: list[Any], user: str, text: str | None) -> Any:
    steps: list[Any] = []
    if text is not None:
        store = {**STORE_NULLS, "content": text}
        steps.append([function_call("zenbrain_store", store, call_id="store")])
    recall = {**RECALL_NULLS, "query": "favourite colour", "min_score": 0.01}
    steps += [
        [function_call("zenbrain_recall", recall, call_id="recall")],
        [assistant_message("ok")],
    ]
    model = ScriptedModel(steps)
    agent: Agent[UserContext] = Agent(name="Assistant", model=model, tools=agent_tools)
    await Runner.run(agent, "hello", context=UserContext(user))
    return _outputs(model.calls[-1])["recall"]


async def test_the_tools_take_the_namespace_from_the_run_context(
    memory: MemoryCoordinator,
) -> None:
    def by_user(context: RunContextWrapper[UserContext]) -> str:
        return f"user:{context.context.user_id}"

    tools = memory_tools(memory, namespace=by_user)
    ada = await _store_then_recall(tools, "ada", "Ada's favourite colour is teal.")
    bob = await _store_then_recall(tools, "bob", None)
    assert [r["content"] for r in ada["results"]] == ["Ada's favourite colour is teal."]
    assert bob["count"] == 0
    assert memory.recall("favourite colour", min_score=0.01) == []
    stored = memory.for_namespace("user:ada").recall("favourite colour", min_score=0.01)
    assert [r.content for r in stored] == ["Ada's favourite colour is teal."]


async def test_an_async_namespace_function_works_too(memory: MemoryCoordinator) -> None:
    async def by_user(context: RunContextWrapper[UserContext]) -> str:
        return context.context.user_id

    await _store_then_recall(memory_tools(memory, namespace=by_user), "cy", "Teal is Cy's.")
    assert memory.for_namespace("cy").health().semantic["count"] == 1


async def test_a_failing_namespace_function_is_an_error_result_not_a_crash(
    memory: MemoryCoordinator,
) -> None:
    def broken(context: RunContextWrapper[Any]) -> str:
        raise KeyError("user_id")

    recalled = await _store_then_recall(memory_tools(memory, namespace=broken), "x", None)
    assert recalled["error"]["type"] == "KeyError"
    assert "namespace" in recalled["error"]["message"]


@pytest.mark.parametrize(
    ("name", "arguments", "fragment"),
    [
        ("zenbrain_recall", {**RECALL_NULLS, "query": "x", "limit": 10**400}, "401 digits"),
        ("zenbrain_store", '{"content": "x", "confidence": NaN}', "between 0 and 1"),
        ("zenbrain_store", {**STORE_NULLS, "content": ""}, "must not be empty"),
        ("zenbrain_recall", "{not json", "JSON object"),
    ],
)
async def test_hostile_arguments_reach_the_model_as_an_error_and_the_run_goes_on(
    memory: MemoryCoordinator, name: str, arguments: Any, fragment: str
) -> None:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)  # ASCII escapes
    model = ScriptedModel(
        [[function_call(name, raw, call_id="bad")], [assistant_message("Let me fix that.")]]
    )
    agent = Agent(name="Assistant", model=model, tools=memory_tools(memory))
    result = await Runner.run(agent, "Do something odd.")
    error = _outputs(model.calls[1])["bad"]["error"]
    assert error["type"] == "InvalidInputError" and fragment in error["message"]
    assert result.final_output == "Let me fix that."
    assert memory.health().semantic["count"] == 0


def test_strict_schemas_keep_non_empty_text_as_a_pattern(memory: MemoryCoordinator) -> None:
    (store,) = [t for t in memory_tools(memory) if t.name == "zenbrain_store"]
    assert isinstance(store, FunctionTool)
    assert store.params_json_schema["properties"]["content"]["pattern"] == r"\S"
    assert get_tool("zenbrain_store").parameters["properties"]["content"]["minLength"] == 1


async def test_a_lone_surrogate_in_the_arguments_is_an_error_result(
    memory: MemoryCoordinator,
) -> None:
    # Called the way the SDK calls a FunctionTool. (Inside Runner.run, openai-agents 0.24
    # itself fails on such arguments while fingerprinting the call, before any tool runs.)
    (store,) = [t for t in memory_tools(memory) if t.name == "zenbrain_store"]
    assert isinstance(store, FunctionTool)
    raw = json.dumps({**STORE_NULLS, "content": "cut \ud83d"})  # "\ud83d" as an escape
    context = ToolContext(None, tool_name=store.name, tool_call_id="c1", tool_arguments=raw)
    output = json.loads(await store.on_invoke_tool(context, raw))
    assert output["error"]["type"] == "InvalidInputError"
    assert "lone surrogate" in output["error"]["message"]
    assert memory.health().semantic["count"] == 0
