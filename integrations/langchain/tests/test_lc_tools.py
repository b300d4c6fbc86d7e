"""The five memory tools as LangChain tools, generated from zenbrain.tools.TOOLS."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langchain_tests.integration_tests import ToolsIntegrationTests
from langchain_zenbrain import create_zenbrain_tools

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError
from zenbrain.tools import TOOLS


def _by_name(tools: list[BaseTool]) -> dict[str, BaseTool]:
    return {tool.name: tool for tool in tools}


def test_one_tool_per_definition_with_its_schema(coordinator: MemoryCoordinator) -> None:
    tools = create_zenbrain_tools(coordinator)
    assert [t.name for t in tools] == [d.name for d in TOOLS]
    for tool, definition in zip(tools, TOOLS, strict=True):
        assert tool.description == definition.description
        exported = convert_to_openai_tool(tool)["function"]
        assert exported["name"] == definition.name
        assert exported["parameters"]["properties"] == definition.parameters["properties"]
        assert exported["parameters"].get("required", []) == definition.parameters["required"]
        assert tool.metadata == {"title": definition.title, "annotations": definition.annotations}


def test_store_recall_forget_through_the_tools(coordinator: MemoryCoordinator) -> None:
    tools = _by_name(create_zenbrain_tools(coordinator))
    stored = json.loads(
        tools["zenbrain_store"].invoke({"content": "Ada's locker code is 4711", "type": "fact"})
    )
    assert stored["layer"] == "semantic"
    assert coordinator.get(stored["id"]) is not None

    recalled = json.loads(tools["zenbrain_recall"].invoke({"query": "locker code", "limit": 1}))
    assert [r["id"] for r in recalled["results"]] == [stored["id"]]

    forgotten = json.loads(
        tools["zenbrain_forget"].invoke({"id": stored["id"], "layer": "semantic"})
    )
    assert forgotten["forgotten"] is True
    assert coordinator.get(stored["id"]) is None

    health = json.loads(tools["zenbrain_health"].invoke({}))
    assert health["semantic"]["count"] == 0
    assert health == coordinator.health().to_dict()
    assert "promoted" in json.loads(tools["zenbrain_consolidate"].invoke({}))


def test_tool_call_gives_a_tool_message_with_the_result_as_artifact(
    coordinator: MemoryCoordinator,
) -> None:
    coordinator.store("The wifi password is on the fridge.")
    (recall,) = create_zenbrain_tools(coordinator, names=["zenbrain_recall"])
    call = AIMessage(
        "", tool_calls=[{"name": "zenbrain_recall", "args": {"query": "wifi"}, "id": "c1"}]
    ).tool_calls[0]
    message = recall.invoke(call)
    assert isinstance(message, ToolMessage)
    assert message.tool_call_id == "c1"
    assert json.loads(message.content)["results"][0]["content"] == (  # type: ignore[arg-type]
        "The wifi password is on the fridge."
    )
    assert message.artifact == json.loads(message.content)  # type: ignore[arg-type]


def test_bad_arguments_come_back_as_an_error_object(coordinator: MemoryCoordinator) -> None:
    tools = _by_name(create_zenbrain_tools(coordinator))
    answer = json.loads(tools["zenbrain_recall"].invoke({"query": ""}))
    assert answer["error"]["type"] == "InvalidInputError"
    answer = json.loads(tools["zenbrain_forget"].invoke({"id": "nope", "layer": "dreams"}))
    assert "error" in answer
    assert coordinator.health().semantic["count"] == 0


async def test_async_tools(coordinator: MemoryCoordinator) -> None:
    tools = _by_name(create_zenbrain_tools(coordinator))
    stored = json.loads(await tools["zenbrain_store"].ainvoke({"content": "Bob owns a kayak"}))
    recalled = json.loads(await tools["zenbrain_recall"].ainvoke({"query": "kayak"}))
    assert recalled["results"][0]["id"] == stored["id"]


def test_unknown_tool_names_are_rejected(coordinator: MemoryCoordinator) -> None:
    with pytest.raises(InvalidInputError, match="zenbrain_dream"):
        create_zenbrain_tools(coordinator, names=["zenbrain_recall", "zenbrain_dream"])


class _StandardToolSuite(ToolsIntegrationTests):
    """LangChain's own tool suite for one generated tool, on a real SQLite file."""

    tool_name: ClassVar[str] = ""
    example: ClassVar[dict[str, Any]] = {}

    @pytest.fixture(autouse=True)
    def _memory(self, tmp_path: Path) -> Iterator[None]:
        self._coordinator = MemoryCoordinator(tmp_path / "tools.db")
        self._coordinator.store("Ada's locker code is 4711")
        yield
        self._coordinator.close()

    @property
    def tool_constructor(self) -> BaseTool:
        return _by_name(create_zenbrain_tools(self._coordinator))[self.tool_name]

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return self.example


class TestStoreToolStandard(_StandardToolSuite):
    tool_name: ClassVar[str] = "zenbrain_store"
    example: ClassVar[dict[str, Any]] = {"content": "Bob's bike is red", "type": "fact"}


class TestRecallToolStandard(_StandardToolSuite):
    tool_name: ClassVar[str] = "zenbrain_recall"
    example: ClassVar[dict[str, Any]] = {"query": "locker code", "limit": 3, "min_score": 0.1}


class TestHealthToolStandard(_StandardToolSuite):
    tool_name: ClassVar[str] = "zenbrain_health"
    example: ClassVar[dict[str, Any]] = {}
