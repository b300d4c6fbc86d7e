"""The server in-process, driven through the MCP SDK's own client (in-memory transport)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp import Client
from mcp.server import Server
from mcp.types import TextContent
from zenbrain_mcp import call_tool, create_server, list_tools

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError
from zenbrain.tools import TOOLS


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[MemoryCoordinator]:
    with MemoryCoordinator(tmp_path / "mcp.db") as coordinator:
        yield coordinator


def _error(result: Any) -> dict[str, Any]:
    assert result.is_error is True
    assert result.structured_content is None
    payload: dict[str, Any] = json.loads(result.content[0].text)["error"]
    return payload


async def test_lists_the_five_tools_exactly_as_zenbrain_tools_defines_them(
    memory: MemoryCoordinator,
) -> None:
    async with Client(create_server(memory)) as client:
        listed = (await client.list_tools()).tools
    assert [tool.name for tool in listed] == [definition.name for definition in TOOLS]
    for tool, definition in zip(listed, TOOLS, strict=True):
        assert tool.description == definition.description
        assert tool.input_schema == definition.parameters
        assert tool.output_schema == definition.output_schema
        assert tool.annotations is not None
        hints = tool.annotations.model_dump(by_alias=True, exclude_none=True)
        assert {key: hints[key] for key in definition.annotations} == definition.annotations


async def test_store_recall_forget_round_trip_with_structured_output(
    memory: MemoryCoordinator,
) -> None:
    async with Client(create_server(memory)) as client:
        stored = await client.call_tool(
            "zenbrain_store", {"content": "The ferry to Laboe leaves from the Kieler Förde."}
        )
        assert stored.is_error is False
        assert stored.structured_content is not None
        text = stored.content[0]
        assert isinstance(text, TextContent)
        assert json.loads(text.text) == stored.structured_content
        memory_id = stored.structured_content["id"]

        recalled = await client.call_tool(
            "zenbrain_recall", {"query": "Kieler Foerde ferry", "min_score": 0.01}
        )
        assert recalled.structured_content is not None
        results = recalled.structured_content["results"]
        assert [(r["id"], r["layer"]) for r in results] == [(memory_id, "semantic")]

        forgotten = await client.call_tool(
            "zenbrain_forget", {"id": memory_id, "layer": "semantic"}
        )
        assert forgotten.structured_content is not None
        assert forgotten.structured_content["forgotten"] is True
        assert isinstance(forgotten.structured_content["also_forgotten"], list)
        assert forgotten.structured_content["duplicates"] == []
    # The store the server wrote to is the caller's: the memory is gone there too.
    assert memory.recall("Kieler Foerde ferry", min_score=0.01) == []


async def test_consolidate_and_health_report_counts(memory: MemoryCoordinator) -> None:
    async with Client(create_server(memory)) as client:
        episode = {"content": "The night the storm hit the harbour", "emotional_weight": 0.9}
        await client.call_tool("zenbrain_store", episode)
        first = await client.call_tool("zenbrain_consolidate", {})
        second = await client.call_tool("zenbrain_consolidate", {})
        health = await client.call_tool("zenbrain_health", {})
    assert first.structured_content is not None and second.structured_content is not None
    assert first.structured_content["promoted"] == 1
    assert second.structured_content["promoted"] == 0
    assert health.structured_content is not None
    assert health.structured_content["episodic"]["count"] == 1
    assert health.structured_content["semantic"]["count"] == 1


async def test_bad_calls_come_back_as_error_results_the_model_can_read(
    memory: MemoryCoordinator,
) -> None:
    async with Client(create_server(memory)) as client:
        empty = _error(await client.call_tool("zenbrain_store", {"content": ""}))
        assert empty["type"] == "InvalidInputError" and "content" in empty["message"]
        unknown = _error(await client.call_tool("zenbrain_store", {"content": "x", "mood": 1}))
        assert "mood" in unknown["message"]
        working = _error(await client.call_tool("zenbrain_forget", {"id": "a", "layer": "working"}))
        assert "long-term" in working["message"]
        limit = _error(await client.call_tool("zenbrain_recall", {"query": "x", "limit": 500}))
        assert "limit" in limit["message"]
    assert memory.health().episodic["count"] + memory.health().semantic["count"] == 0


async def test_arrays_sent_as_json_text_are_accepted(memory: MemoryCoordinator) -> None:
    # Some clients serialise array arguments as strings.
    async with Client(create_server(memory)) as client:
        stored = await client.call_tool(
            "zenbrain_store", {"content": "Brew tea", "steps": '["boil water", "steep 3 min"]'}
        )
        recalled = await client.call_tool(
            "zenbrain_recall", {"query": "tea", "layers": '["procedural"]', "min_score": 0.01}
        )
    assert stored.structured_content is not None
    assert stored.structured_content["layer"] == "procedural"
    assert recalled.structured_content is not None
    assert recalled.structured_content["results"][0]["id"] == stored.structured_content["id"]


async def test_the_lifespan_builds_one_coordinator_for_the_whole_connection(
    tmp_path: Path,
) -> None:
    server = create_server(db=str(tmp_path / "own.db"), contexts="home,office")
    async with Client(server) as client:
        for text in ("First note on tides", "Second note on tides"):
            await client.call_tool("zenbrain_store", {"content": text})
        health = await client.call_tool("zenbrain_health", {})
    # Working memory lives in the coordinator object: both stores landed in the same one.
    assert health.structured_content is not None
    assert health.structured_content["working"]["used"] == 2
    with MemoryCoordinator(tmp_path / "own.db") as reopened:
        assert reopened.health().semantic["count"] == 2


async def test_a_passed_coordinator_is_left_open_for_its_owner(memory: MemoryCoordinator) -> None:
    async with Client(create_server(memory)) as client:
        await client.call_tool("zenbrain_store", {"content": "Owner keeps the coordinator"})
    assert memory.recall("owner coordinator", min_score=0.01)[0].content.startswith("Owner")


def test_create_server_refuses_a_coordinator_together_with_db(memory: MemoryCoordinator) -> None:
    with pytest.raises(InvalidInputError, match="either a coordinator or db"):
        create_server(memory, db="elsewhere.db")


async def test_the_tools_serve_from_a_low_level_server_of_your_own(
    memory: MemoryCoordinator,
) -> None:
    async def on_list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        echo = types.Tool(name="echo", input_schema={"type": "object"})
        return types.ListToolsResult(tools=[*list_tools(), echo])

    async def on_call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name == "echo":
            return types.CallToolResult(content=[types.TextContent(type="text", text="echo")])
        return await call_tool(memory, params.name, params.arguments)

    host: Server[Any] = Server("host", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
    async with Client(host) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        stored = await client.call_tool("zenbrain_store", {"content": "Mounted elsewhere"})
    assert names == {"echo", *(definition.name for definition in TOOLS)}
    assert stored.structured_content is not None
    assert stored.structured_content["id"] == memory.recall("mounted", min_score=0.01)[0].id


async def test_an_argument_named_ctx_is_refused_like_any_unknown_argument(
    memory: MemoryCoordinator,
) -> None:
    async with Client(create_server(memory)) as client:
        refused = _error(await client.call_tool("zenbrain_recall", {"query": "x", "ctx": 1}))
    assert "unknown argument(s) ctx" in refused["message"]


@pytest.mark.parametrize(
    ("name", "arguments", "fragment"),
    [
        ("zenbrain_recall", {"query": "x", "limit": 10**400}, "an integer of 401 digits"),
        ("zenbrain_store", {"content": "x", "confidence": 10**400}, "between 0 and 1"),
        ("zenbrain_store", {"content": "cut emoji \ud83d"}, "lone surrogate"),
        ("zenbrain_store", {"content": "x", "steps": ["a", "\udc00"]}, "lone surrogate"),
        ("zenbrain_store", {"content": 5}, "must be a string"),
        ("zenbrain_dream", {}, "no tool named"),
    ],
)
async def test_hostile_values_get_the_documented_error_result(
    memory: MemoryCoordinator, name: str, arguments: dict[str, Any], fragment: str
) -> None:
    async with Client(create_server(memory)) as client:
        error = _error(await client.call_tool(name, arguments))
    assert fragment in error["message"]
    assert memory.health().semantic["count"] == 0


async def test_the_original_servers_argument_names_are_accepted(
    memory: MemoryCoordinator,
) -> None:
    async with Client(create_server(memory)) as client:
        stored = await client.call_tool(
            "zenbrain_store", {"content": "The storm wrecked our tent", "emotionalWeight": 0.9}
        )
        await client.call_tool("zenbrain_store", {"content": "Tea is brewed at 80 degrees"})
        matched = await client.call_tool(
            "zenbrain_recall", {"query": "storm tent", "minScore": 0.01, "minConfidence": 0}
        )
        both = _error(
            await client.call_tool(
                "zenbrain_recall", {"query": "storm", "minScore": 0.1, "min_score": 0.2}
            )
        )
    assert stored.structured_content is not None
    assert stored.structured_content["layer"] == "episodic"
    assert matched.structured_content is not None
    assert [r["content"] for r in matched.structured_content["results"]] == [
        "The storm wrecked our tent"
    ]
    assert "minScore" in both["message"] and "min_score" in both["message"]


async def test_a_namespace_keeps_each_servers_memories_apart(tmp_path: Path) -> None:
    db = str(tmp_path / "shared.db")
    async with Client(create_server(db=db, namespace="ada")) as client:
        await client.call_tool("zenbrain_store", {"content": "Ada prefers window seats"})
    async with Client(create_server(db=db, namespace="bob")) as client:
        bob = await client.call_tool("zenbrain_recall", {"query": "window seats"})
    async with Client(create_server(db=db, namespace="ada")) as client:
        ada = await client.call_tool("zenbrain_recall", {"query": "window seats"})
    assert bob.structured_content is not None and bob.structured_content["count"] == 0
    assert ada.structured_content is not None
    assert [r["content"] for r in ada.structured_content["results"]] == ["Ada prefers window seats"]


async def test_a_passed_coordinator_can_be_served_in_another_namespace(
    memory: MemoryCoordinator,
) -> None:
    async with Client(create_server(memory, namespace="team")) as client:
        await client.call_tool("zenbrain_store", {"content": "The team retro is on Fridays"})
    assert memory.recall("retro fridays", min_score=0.01) == []
    team = memory.for_namespace("team").recall("retro fridays", min_score=0.01)
    assert [r.content for r in team] == ["The team retro is on Fridays"]


async def test_an_embedder_named_by_spec_is_used(tmp_path: Path) -> None:
    db = tmp_path / "embedded.db"
    async with Client(create_server(db=str(db), embedder="hashing:64")) as client:
        await client.call_tool("zenbrain_store", {"content": "Embedded note"})
    with MemoryCoordinator(db) as reopened:
        assert reopened.database.get_meta("embedding_dimension") == "64"
