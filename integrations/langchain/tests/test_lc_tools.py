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
from langchain_tests.unit_tests import ToolsUnitTests
from langchain_zenbrain import create_zenbrain_tools
from pydantic import BaseModel

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError
from zenbrain.tools import TOOLS, dispatch


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


NO_PARAMETERS = [d.name for d in TOOLS if not d.parameters["properties"]]


@pytest.mark.parametrize("name", NO_PARAMETERS)
async def test_a_tool_without_parameters_refuses_junk_arguments_as_dispatch_does(
    coordinator: MemoryCoordinator, name: str
) -> None:
    """LangChain's BaseTool dropped the arguments of a tool without parameters, so
    zenbrain_consolidate ran with junk; dispatch (and MCP) refuse them. Now all agree."""
    assert NO_PARAMETERS == ["zenbrain_consolidate", "zenbrain_health"]
    episode = coordinator.store("I was terrified at the dentist", emotional_weight=0.9)
    (tool,) = create_zenbrain_tools(coordinator, names=[name])
    junk = {"junk": 1, "limit": "all"}
    expected = dispatch(coordinator, name, junk)
    assert expected["error"]["type"] == "InvalidInputError"
    assert json.loads(tool.invoke(junk)) == expected
    assert json.loads(await tool.ainvoke(junk)) == expected
    call = {"name": name, "args": junk, "id": "c9", "type": "tool_call"}
    for message in (tool.invoke(call), await tool.ainvoke(call)):
        assert isinstance(message, ToolMessage) and message.status == "error"
        assert json.loads(message.content) == expected  # type: ignore[arg-type]
    assert "error" in json.loads(tool.invoke("junk"))
    # Refused means not run: the emotional episode was never promoted to a fact.
    assert coordinator.health().semantic["count"] == 0
    assert coordinator.get(episode) is not None
    # Without arguments (an empty dict, or LangChain's empty string) the tool still runs.
    assert "error" not in json.loads(tool.invoke({}))
    assert "error" not in json.loads(tool.invoke(""))


async def test_async_tools(coordinator: MemoryCoordinator) -> None:
    tools = _by_name(create_zenbrain_tools(coordinator))
    stored = json.loads(await tools["zenbrain_store"].ainvoke({"content": "Bob owns a kayak"}))
    recalled = json.loads(await tools["zenbrain_recall"].ainvoke({"query": "kayak"}))
    assert recalled["results"][0]["id"] == stored["id"]


def test_unknown_tool_names_are_rejected(coordinator: MemoryCoordinator) -> None:
    with pytest.raises(InvalidInputError, match="zenbrain_dream"):
        create_zenbrain_tools(coordinator, names=["zenbrain_recall", "zenbrain_dream"])


def test_an_error_is_a_tool_message_with_error_status(coordinator: MemoryCoordinator) -> None:
    tools = _by_name(create_zenbrain_tools(coordinator))
    call = AIMessage(
        "",
        tool_calls=[
            {"name": "zenbrain_forget", "args": {"id": "nope", "layer": "dreams"}, "id": "c1"}
        ],
    ).tool_calls[0]
    message = tools["zenbrain_forget"].invoke(call)
    assert isinstance(message, ToolMessage)
    assert message.status == "error"
    assert message.tool_call_id == "c1"
    assert "error" in json.loads(message.content)  # type: ignore[arg-type]


async def test_an_error_is_a_tool_message_with_error_status_async(
    coordinator: MemoryCoordinator,
) -> None:
    (recall,) = create_zenbrain_tools(coordinator, names=["zenbrain_recall"])
    call = {"name": "zenbrain_recall", "args": {"query": " "}, "id": "c2", "type": "tool_call"}
    message = await recall.ainvoke(call)
    assert isinstance(message, ToolMessage)
    assert message.status == "error"
    assert json.loads(message.content)["error"]["type"] == "InvalidInputError"  # type: ignore[arg-type]


def test_a_successful_call_has_success_status(coordinator: MemoryCoordinator) -> None:
    (store,) = create_zenbrain_tools(coordinator, names=["zenbrain_store"])
    call = {
        "name": "zenbrain_store",
        "args": {"content": "Ada likes tea"},
        "id": "c3",
        "type": "tool_call",
    }
    message = store.invoke(call)
    assert isinstance(message, ToolMessage) and message.status == "success"


def test_input_schemas_are_specific(coordinator: MemoryCoordinator) -> None:
    tools = _by_name(create_zenbrain_tools(coordinator))
    recall_schema = tools["zenbrain_recall"].get_input_schema()
    health_schema = tools["zenbrain_health"].get_input_schema()
    assert issubclass(recall_schema, BaseModel) and issubclass(health_schema, BaseModel)
    assert set(recall_schema.model_json_schema()["properties"]) >= {"query", "limit", "layers"}
    with pytest.raises(ValueError):
        recall_schema.model_validate({"limit": 3})  # no query
    assert health_schema.model_json_schema()["properties"] == {}


class _ToolSuiteSetup:
    """What LangChain's unit and integration tool suites need for one generated tool: the
    tool on a real store (both back ends) and an example call that succeeds."""

    tool_name: ClassVar[str] = ""

    @pytest.fixture(autouse=True)
    def _memory(self, store_location: str) -> Iterator[None]:
        self._coordinator = MemoryCoordinator(store_location)
        self._stored_id = self._coordinator.store("Ada's locker code is 4711", layer="semantic")
        yield
        self._coordinator.close()

    @property
    def tool_constructor(self) -> BaseTool:
        return _by_name(create_zenbrain_tools(self._coordinator))[self.tool_name]

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        examples: dict[str, dict[str, Any]] = {
            "zenbrain_store": {"content": "Bob's bike is red", "type": "fact"},
            "zenbrain_recall": {"query": "locker code", "limit": 3, "min_score": 0.1},
            "zenbrain_forget": {"id": getattr(self, "_stored_id", "x"), "layer": "semantic"},
            "zenbrain_consolidate": {},
            "zenbrain_health": {},
        }
        return examples[self.tool_name]


class _UnitSuiteSetup(_ToolSuiteSetup):
    """The unit suite checks how a tool is built and described, which no back end changes:
    it runs on a SQLite file only (the integration suite runs on both)."""

    @pytest.fixture(autouse=True)
    def _memory(self, tmp_path: Path) -> Iterator[None]:  # type: ignore[override]
        with MemoryCoordinator(tmp_path / "memory.db") as self._coordinator:
            self._stored_id = self._coordinator.store("Ada's locker code is 4711", layer="semantic")
            yield


class TestStoreToolUnit(_UnitSuiteSetup, ToolsUnitTests):
    tool_name: ClassVar[str] = "zenbrain_store"


class TestStoreToolIntegration(_ToolSuiteSetup, ToolsIntegrationTests):
    tool_name: ClassVar[str] = "zenbrain_store"


class TestRecallToolUnit(_UnitSuiteSetup, ToolsUnitTests):
    tool_name: ClassVar[str] = "zenbrain_recall"


class TestRecallToolIntegration(_ToolSuiteSetup, ToolsIntegrationTests):
    tool_name: ClassVar[str] = "zenbrain_recall"


class TestForgetToolUnit(_UnitSuiteSetup, ToolsUnitTests):
    tool_name: ClassVar[str] = "zenbrain_forget"


class TestForgetToolIntegration(_ToolSuiteSetup, ToolsIntegrationTests):
    tool_name: ClassVar[str] = "zenbrain_forget"


class TestConsolidateToolUnit(_UnitSuiteSetup, ToolsUnitTests):
    tool_name: ClassVar[str] = "zenbrain_consolidate"


class TestConsolidateToolIntegration(_ToolSuiteSetup, ToolsIntegrationTests):
    tool_name: ClassVar[str] = "zenbrain_consolidate"


class TestHealthToolUnit(_UnitSuiteSetup, ToolsUnitTests):
    tool_name: ClassVar[str] = "zenbrain_health"


class TestHealthToolIntegration(_ToolSuiteSetup, ToolsIntegrationTests):
    tool_name: ClassVar[str] = "zenbrain_health"


def test_every_tool_has_both_standard_suites() -> None:
    setups = (*_ToolSuiteSetup.__subclasses__(), *_UnitSuiteSetup.__subclasses__())
    suites = [cls for cls in setups if cls.__name__.startswith("Test")]
    tested = {
        (cls.tool_name, suite)
        for cls in suites
        for suite in (ToolsUnitTests, ToolsIntegrationTests)
        if issubclass(cls, suite)
    }
    expected = {(d.name, s) for d in TOOLS for s in (ToolsUnitTests, ToolsIntegrationTests)}
    assert tested == expected
