"""The tools under hostile input: the argument models, strict schemas and output schemas,
and calls bound to a namespace; over a real SQLite file."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from tests.tools.conftest import Draft, layer_counts, object_nodes
from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError
from zenbrain.tools import (
    TOOLS,
    RecallArguments,
    StoreArguments,
    ToolArguments,
    adispatch,
    dispatch,
    get_tool,
    openai_responses_tools,
    parse_arguments,
    strict_output_schema,
    strict_parameters,
)

# ------------------------------------------------------------------ models and hostile input


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: tool.name)
def test_each_published_schema_is_generated_by_the_tools_pydantic_model(tool: Any) -> None:
    model = tool.arguments_model
    assert issubclass(model, ToolArguments) and model.tool_name == tool.name
    assert model.model_json_schema() == tool.parameters
    # pydantic's own generator would publish nulls and titles; the published form has none.
    assert "title" not in json.dumps(tool.parameters)
    assert "null" not in json.dumps(tool.parameters)


def test_the_argument_models_validate_like_dispatch() -> None:
    parsed = parse_arguments("zenbrain_recall", '{"query": "tides", "limit": 3.0, "core": null}')
    assert isinstance(parsed, RecallArguments)
    assert parsed.arguments() == {"query": "tides", "limit": 3}
    assert StoreArguments(content="x").type == "auto"
    with pytest.raises(InvalidInputError, match="must not be empty"):
        parse_arguments("zenbrain_store", {"content": " "})
    with pytest.raises(InvalidInputError, match="no tool named"):
        parse_arguments("zenbrain_search", {})


_HUGE = "9" * 400


@pytest.mark.parametrize(
    ("name", "arguments", "fragment"),
    [
        ("zenbrain_recall", f'{{"query": "x", "limit": {_HUGE}}}', "integer between 1 and 100"),
        ("zenbrain_recall", {"query": "x", "limit": int(_HUGE)}, "an integer of 400 digits"),
        ("zenbrain_store", {"content": "x", "confidence": int(_HUGE)}, "between 0 and 1"),
        ("zenbrain_recall", f'{{"query": "x", "limit": {"9" * 5000}}}', "too long"),
        ("zenbrain_store", '{"content": "x", "confidence": NaN}', "between 0 and 1"),
        ("zenbrain_store", '{"content": "x", "emotional_weight": Infinity}', "between 0 and 1"),
        ("zenbrain_store", {"content": "x", "confidence": float("nan")}, "got NaN"),
        ("zenbrain_store", '{"content": "half a pair \\ud800 here"}', "lone surrogate"),
        ("zenbrain_store", {"content": "lone \udfff"}, "lone surrogate"),
        ("zenbrain_store", {"content": "x", "steps": ["ok", "bad \ud800"]}, "'steps'[1]"),
        ("zenbrain_store", {"content": "x", "bad\ud800": 1}, "not valid text"),
        ("zenbrain_store", {"content": "x", 3: 1}, "not valid text"),
        ("zenbrain_recall", {"query": ["x"]}, "must be a string"),
        ("zenbrain_recall", {"query": "x", "limit": "3"}, "integer between 1 and 100"),
        ("zenbrain_recall", {"query": "x", "limit": True}, "integer between 1 and 100"),
        ("zenbrain_recall", {"query": "x", "layers": [None]}, "must be one of"),
        ("zenbrain_forget", {"id": {"nested": 1}, "layer": "core"}, "must be a string"),
        ("zenbrain_health", {"a": 1, "b": 2}, "unknown argument(s) a, b; it accepts: none"),
        ("zenbrain_health", "42", "JSON object"),
        ("zenbrain_store", b'{"content": "x"}', "JSON object"),
    ],
)
def test_hostile_arguments_come_back_as_error_results_and_store_nothing(
    memory: MemoryCoordinator, name: str, arguments: Any, fragment: str
) -> None:
    before = layer_counts(memory)
    result = dispatch(memory, name, arguments)
    assert set(result) == {"error"}, result
    assert result["error"]["type"] == "InvalidInputError"
    assert fragment in result["error"]["message"]
    # The message itself is valid UTF-8, so every transport can carry it back.
    json.dumps(result, ensure_ascii=False).encode("utf-8")
    assert layer_counts(memory) == before


async def test_adispatch_answers_hostile_arguments_too(memory: MemoryCoordinator) -> None:
    result = await adispatch(memory, "zenbrain_store", {"content": "\ud800"})
    assert "lone surrogate" in result["error"]["message"]
    result = await adispatch(memory, "zenbrain_recall", {"query": "x", "limit": int(_HUGE)})
    assert result["error"]["type"] == "InvalidInputError"


def test_a_tool_name_that_is_not_text_is_an_unknown_tool(memory: MemoryCoordinator) -> None:
    result = dispatch(memory, None, {})  # type: ignore[arg-type]
    assert result["error"]["type"] == "UnknownToolError"


def test_any_exception_from_the_store_becomes_an_error_result(
    memory: MemoryCoordinator, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(memory, "recall", broken)
    result = dispatch(memory, "zenbrain_recall", {"query": "x"})
    assert result["error"]["type"] == "RuntimeError"
    assert "disk on fire" in result["error"]["message"]


async def test_any_exception_from_the_async_store_becomes_an_error_result(
    memory: MemoryCoordinator, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise OverflowError("too big")

    monkeypatch.setattr(memory, "astore", broken)
    result = await adispatch(memory, "zenbrain_store", {"content": "x"})
    assert result["error"] == {
        "type": "OverflowError",
        "message": "The tool failed unexpectedly: too big",
    }


# ------------------------------------------------------------------------- strict and output


def test_strict_schemas_say_non_empty_with_a_pattern_strict_mode_accepts() -> None:
    strict = strict_parameters(get_tool("zenbrain_store").parameters)
    assert strict["properties"]["content"]["pattern"] == r"\S"
    validator = Draft(strict)
    nulls = {name: None for name in strict["properties"]}
    assert not validator.is_valid({**nulls, "content": ""})
    assert not validator.is_valid({**nulls, "content": "  "})
    assert validator.is_valid({**nulls, "content": "a"})


def test_an_empty_string_sent_anyway_gets_an_error_saying_what_to_send(
    memory: MemoryCoordinator,
) -> None:
    result = dispatch(memory, "zenbrain_recall", {"query": "", "layers": None})
    assert result["error"]["message"] == "argument 'query' must not be empty or only spaces."


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: tool.name)
def test_output_schemas_are_exported_in_the_responses_form(tool: Any) -> None:
    (entry,) = [e for e in openai_responses_tools() if e["name"] == tool.name]
    assert entry["output_schema"] == strict_output_schema(tool)
    for node in object_nodes(entry["output_schema"]):
        assert node["additionalProperties"] is False
        assert sorted(node["required"]) == sorted(node["properties"])
    (loose,) = [e for e in openai_responses_tools(strict=False) if e["name"] == tool.name]
    assert loose["output_schema"] == tool.output_schema


def test_real_results_match_the_strict_output_schemas(memory: MemoryCoordinator) -> None:
    stored = dispatch(memory, "zenbrain_store", {"content": "The ferry leaves at nine"})
    results = {
        "zenbrain_store": stored,
        "zenbrain_recall": dispatch(memory, "zenbrain_recall", {"query": "ferry"}),
        "zenbrain_forget": dispatch(
            memory, "zenbrain_forget", {"id": stored["id"], "layer": stored["layer"]}
        ),
        "zenbrain_consolidate": dispatch(memory, "zenbrain_consolidate"),
        "zenbrain_health": dispatch(memory, "zenbrain_health"),
    }
    for name, result in results.items():
        tool = get_tool(name)
        jsonschema.validate(result, tool.output_schema)
        if name != "zenbrain_recall":  # strict form lists no metadata keys
            jsonschema.validate(result, strict_output_schema(tool))


# ------------------------------------------------------------------------------ namespaces


def test_a_call_can_be_bound_to_a_namespace_of_the_same_store(memory: MemoryCoordinator) -> None:
    dispatch(memory, "zenbrain_store", {"content": "Ada likes sailing"}, namespace="user:ada")
    dispatch(memory, "zenbrain_store", {"content": "Bob likes sailing"}, namespace="user:bob")
    query = {"query": "sailing", "min_score": 0.01}
    ada = dispatch(memory, "zenbrain_recall", query, namespace="user:ada")
    assert [r["content"] for r in ada["results"]] == ["Ada likes sailing"]
    assert dispatch(memory, "zenbrain_recall", query)["count"] == 0
    # The view is kept between calls, so the user's working memory carries over.
    working = dispatch(
        memory, "zenbrain_recall", {**query, "layers": ["working"]}, namespace="user:ada"
    )
    assert [r["content"] for r in working["results"]] == ["Ada likes sailing"]


async def test_adispatch_binds_namespaces_too(memory: MemoryCoordinator) -> None:
    await adispatch(memory, "zenbrain_store", {"content": "Cy owns a kayak"}, namespace="cy")
    found = await adispatch(memory, "zenbrain_recall", {"query": "kayak"}, namespace="cy")
    assert [r["content"] for r in found["results"]] == ["Cy owns a kayak"]
    bad = await adispatch(memory, "zenbrain_health", namespace="")
    assert bad["error"]["type"] == "InvalidInputError"


def test_recall_results_carry_validity_and_current_only_leaves_replaced_out(
    memory: MemoryCoordinator,
) -> None:
    old = memory.store("I live in Hamburg.", created_at="2025-05-01T00:00:00+00:00")
    new = memory.store("I moved to Berlin.", created_at="2025-10-01T00:00:00+00:00")
    query = {"query": "Hamburg Berlin", "layers": ["semantic"], "min_score": 0.01}
    recalled = dispatch(memory, "zenbrain_recall", query)
    jsonschema.validate(recalled, get_tool("zenbrain_recall").output_schema)
    by_id = {r["id"]: r for r in recalled["results"]}
    assert by_id[old]["superseded_by"] == new
    assert by_id[old]["valid_to"] == "2025-10-01T00:00:00+00:00"
    assert by_id[new]["valid_to"] is None
    current = dispatch(memory, "zenbrain_recall", {**query, "current_only": True})
    assert [r["id"] for r in current["results"]] == [new]
