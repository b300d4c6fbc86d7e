"""The five memory tools as LlamaIndex FunctionTools, driven by a real FunctionAgent."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.tools import BaseTool, FunctionTool
from llama_index.memory.zenbrain import zenbrain_tools

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError
from zenbrain.tools import TOOLS

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:inspect")


@pytest.fixture
def coordinator(tmp_path: Path) -> Iterator[MemoryCoordinator]:
    with MemoryCoordinator(tmp_path / "tools.db") as memory:
        yield memory


def test_the_five_tools_publish_the_shared_definitions(coordinator: MemoryCoordinator) -> None:
    tools = zenbrain_tools(coordinator)
    assert [tool.metadata.name for tool in tools] == [definition.name for definition in TOOLS]
    for tool, definition in zip(tools, TOOLS, strict=True):
        assert isinstance(tool, FunctionTool)
        assert tool.metadata.description == definition.description
        assert tool.metadata.fn_schema is definition.arguments_model
        parameters = tool.metadata.to_openai_tool()["function"]["parameters"]
        assert parameters["properties"] == definition.parameters["properties"]
        assert parameters.get("required", []) == definition.parameters["required"]
    with pytest.raises(InvalidInputError, match="zenbrain_dream"):
        zenbrain_tools(coordinator, names=["zenbrain_dream"])


def _script(calls: list[tuple[str, dict[str, Any]]]) -> Any:
    """A response generator: one tool call per model turn, then a final answer that quotes
    the tool results it was shown."""

    def respond(messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        done = sum(1 for message in messages if message.role == MessageRole.TOOL)
        if done < len(calls):
            name, arguments = calls[done]
            block = ToolCallBlock(
                tool_call_id=f"call-{done}", tool_name=name, tool_kwargs=arguments
            )
            return ChatMessage(role=MessageRole.ASSISTANT, blocks=[block])
        results = [m.content for m in messages if m.role == MessageRole.TOOL]
        return ChatMessage(role=MessageRole.ASSISTANT, content=json.dumps(results))

    return respond


async def test_an_agent_stores_and_recalls_through_the_tools(
    coordinator: MemoryCoordinator,
) -> None:
    llm = MockFunctionCallingLLM(
        response_generator=_script(
            [
                ("zenbrain_store", {"content": "Ada's kayak is red."}),
                ("zenbrain_recall", {"query": "kayak colour", "min_score": 0.01}),
                ("zenbrain_recall", {"query": "x", "limit": 10**400}),
            ]
        )
    )
    tools: list[BaseTool | Callable[..., Any]] = [*zenbrain_tools(coordinator)]
    agent = FunctionAgent(llm=llm, tools=tools)
    answer = await agent.run("Remember my kayak is red, then tell me its colour.")
    stored, recalled, refused = (json.loads(text) for text in json.loads(str(answer)))
    assert stored["layer"] == "semantic"
    assert [r["content"] for r in recalled["results"]] == ["Ada's kayak is red."]
    assert refused["error"]["type"] == "InvalidInputError"
    assert "401 digits" in refused["error"]["message"]
    assert [r.content for r in coordinator.find()] == ["Ada's kayak is red."]


async def test_tools_can_act_in_another_namespace(coordinator: MemoryCoordinator) -> None:
    (store,) = zenbrain_tools(coordinator, names=["zenbrain_store"], namespace="bob")
    output = await store.acall(content="Bob likes chess.")
    assert json.loads(output.content)["layer"] == "semantic"
    assert output.raw_output["layer"] == "semantic"
    assert coordinator.find() == []
    assert [r.content for r in coordinator.for_namespace("bob").find()] == ["Bob likes chess."]
