"""The five tool definitions, their exports and the dispatcher, over a real SQLite file."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from tests.tools.conftest import Draft, layer_counts, object_nodes
from zenbrain import MemoryCoordinator
from zenbrain.tools import (
    TOOL_NAMES,
    TOOLS,
    adispatch,
    dispatch,
    get_tool,
    openai_chat_tools,
    openai_responses_tools,
    strict_parameters,
)

# ------------------------------------------------------------------------------ definitions


def test_the_five_tools_have_exactly_the_published_names() -> None:
    assert TOOL_NAMES == (
        "zenbrain_store",
        "zenbrain_recall",
        "zenbrain_forget",
        "zenbrain_consolidate",
        "zenbrain_health",
    )
    assert [get_tool(name).name for name in TOOL_NAMES] == list(TOOL_NAMES)


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: tool.name)
def test_every_schema_is_a_valid_draft_2020_12_schema(tool: Any) -> None:
    Draft.check_schema(tool.parameters)
    Draft.check_schema(tool.output_schema)
    Draft.check_schema(strict_parameters(tool.parameters))
    assert tool.parameters["type"] == "object"
    assert tool.parameters["additionalProperties"] is False


@pytest.mark.parametrize(
    ("name", "read_only", "destructive"),
    [
        ("zenbrain_store", False, False),
        ("zenbrain_recall", True, False),
        ("zenbrain_forget", False, True),
        ("zenbrain_consolidate", False, True),
        ("zenbrain_health", True, False),
    ],
)
def test_annotations_say_which_tools_read_and_which_destroy(
    name: str, read_only: bool, destructive: bool
) -> None:
    hints = get_tool(name).annotations
    assert hints["readOnlyHint"] is read_only
    assert hints["destructiveHint"] is destructive
    assert hints["openWorldHint"] is False


def test_argument_schemas_carry_the_documented_constraints() -> None:
    store = get_tool("zenbrain_store").parameters
    assert store["required"] == ["content"]
    assert store["properties"]["content"]["minLength"] == 1
    assert store["properties"]["type"]["enum"] == ["auto", "fact", "episode", "procedure", "core"]
    for unit in ("confidence", "emotional_weight"):
        assert (store["properties"][unit]["minimum"], store["properties"][unit]["maximum"]) == (
            0,
            1,
        )
    recall = get_tool("zenbrain_recall").parameters
    assert "working" in recall["properties"]["layers"]["items"]["enum"]
    assert (recall["properties"]["limit"]["minimum"], recall["properties"]["limit"]["maximum"]) == (
        1,
        100,
    )
    assert {"min_score", "min_confidence"} <= set(recall["properties"])
    forget = get_tool("zenbrain_forget").parameters
    assert forget["required"] == ["id", "layer"]
    for name in ("zenbrain_consolidate", "zenbrain_health"):
        assert get_tool(name).parameters["properties"] == {}


def test_descriptions_state_the_behaviour_the_model_relies_on() -> None:
    store = get_tool("zenbrain_store").description
    assert "first matching rule" in store and "0.5" in store and "0.9" in store
    recall = get_tool("zenbrain_recall").description
    assert "score 0" in recall and "min_score" in recall and "like any other memory" in recall
    assert "0.8" not in recall  # the seeds' fixed core scores, long gone
    forget = get_tool("zenbrain_forget").description
    assert "also_forgotten" in forget and "duplicates" in forget
    assert "once" in get_tool("zenbrain_consolidate").description


def test_what_the_recall_description_says_of_core_blocks_is_true() -> None:
    with MemoryCoordinator(":memory:") as memory:
        memory.store("Anna drinks green tea every morning", layer="semantic")
        memory.set_core_block("persona", "Anna drinks green tea every morning")
        by_layer = {r.layer: r.score for r in memory.recall("green tea", limit=5)}
        assert by_layer["core"] == pytest.approx(by_layer["semantic"], abs=0.05)  # one scale
        unrelated = memory.recall("bicycle repair", limit=5)
        assert [(r.layer, r.score) for r in unrelated if r.layer == "core"] == [("core", 0.0)]
        assert all(r.layer != "core" for r in memory.recall("bicycle", core="matching"))


def test_get_tool_names_the_tools_when_asked_for_an_unknown_one() -> None:
    with pytest.raises(ValueError, match="zenbrain_recall"):
        get_tool("zenbrain_search")


# ---------------------------------------------------------------------------------- exports


def test_chat_completions_export_wraps_each_tool_in_a_function_entry() -> None:
    exported = openai_chat_tools()
    assert [entry["type"] for entry in exported] == ["function"] * 5
    assert [entry["function"]["name"] for entry in exported] == list(TOOL_NAMES)
    for entry, tool in zip(exported, TOOLS, strict=True):
        assert entry["function"]["description"] == tool.description
        assert entry["function"]["strict"] is True
        assert entry["function"]["parameters"] == strict_parameters(tool.parameters)


def test_responses_export_is_flat() -> None:
    exported = openai_responses_tools()
    assert [entry["name"] for entry in exported] == list(TOOL_NAMES)
    assert all(entry["type"] == "function" and entry["strict"] is True for entry in exported)
    assert all("function" not in entry for entry in exported)


def test_non_strict_exports_give_the_canonical_schema() -> None:
    for entry, tool in zip(openai_chat_tools(strict=False), TOOLS, strict=True):
        assert entry["function"]["strict"] is False
        assert entry["function"]["parameters"] == tool.parameters
    # The export is a copy: changing it does not change the definition.
    openai_responses_tools(strict=False)[0]["parameters"]["properties"].clear()
    assert "content" in get_tool("zenbrain_store").parameters["properties"]


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: tool.name)
def test_strict_schemas_follow_openai_strict_rules(tool: Any) -> None:
    strict = strict_parameters(tool.parameters)
    for node in object_nodes(strict):
        assert node["additionalProperties"] is False
        assert sorted(node["required"]) == sorted(node["properties"])
    optional = set(tool.parameters["properties"]) - set(tool.parameters["required"])
    for name in optional:
        prop = strict["properties"][name]
        assert "null" in prop["type"]
        if "enum" in prop:
            assert None in prop["enum"]
    serialised = json.dumps(strict)
    assert '"default"' not in serialised and "minLength" not in serialised
    assert "maxLength" not in serialised


def test_a_strict_call_with_every_optional_argument_null_is_valid_and_accepted(
    memory: MemoryCoordinator,
) -> None:
    arguments = {
        "content": "The office plant needs water on Mondays.",
        "type": None,
        "context": None,
        "confidence": None,
        "emotional_weight": None,
        "source": None,
        "steps": None,
        "tools": None,
        "outcome": None,
    }
    Draft(strict_parameters(get_tool("zenbrain_store").parameters)).validate(arguments)
    stored = dispatch(memory, "zenbrain_store", json.dumps(arguments))
    assert "error" not in stored
    assert stored["layer"] == "semantic"


# ---------------------------------------------------------------------------------- dispatch


def test_store_then_recall_finds_the_memory_with_id_layer_and_score(
    memory: MemoryCoordinator,
) -> None:
    stored = dispatch(
        memory, "zenbrain_store", {"content": "We moored the boat in the Kieler Förde."}
    )
    jsonschema.validate(stored, get_tool("zenbrain_store").output_schema)
    recalled = dispatch(memory, "zenbrain_recall", '{"query": "Kieler Foerde", "min_score": 0.01}')
    jsonschema.validate(recalled, get_tool("zenbrain_recall").output_schema)
    assert recalled["count"] == len(recalled["results"]) == 1
    best = recalled["results"][0]
    assert (best["id"], best["layer"]) == (stored["id"], stored["layer"])
    assert best["content"] == "We moored the boat in the Kieler Förde."
    assert 0 < best["score"] <= 1


def test_store_reports_where_routing_put_each_memory(memory: MemoryCoordinator) -> None:
    def layer(arguments: dict[str, Any]) -> str:
        return str(dispatch(memory, "zenbrain_store", arguments)["layer"])

    assert layer({"content": "Deploy the site", "steps": ["build", "upload"]}) == "procedural"
    assert layer({"content": "Our first hike together", "emotional_weight": 0.9}) == "episodic"
    assert layer({"content": "The user is called Ada", "confidence": 0.95}) == "core"
    assert layer({"content": "The cafe opens at eight"}) == "semantic"
    assert layer({"content": "Anything at all", "type": "episode"}) == "episodic"
    assert layer({"content": "Plain text", "type": "procedure"}) == "procedural"


def test_recall_fills_unmatched_layers_with_score_zero_unless_min_score(
    memory: MemoryCoordinator,
) -> None:
    dispatch(
        memory, "zenbrain_store", {"content": "Marmalade recipe from grandmother", "type": "fact"}
    )
    dispatch(memory, "zenbrain_store", {"content": "Saw whales off the coast", "type": "episode"})
    everything = dispatch(memory, "zenbrain_recall", {"query": "marmalade"})["results"]
    assert everything[0]["content"].startswith("Marmalade") and everything[0]["score"] > 0
    fill_ins = [result for result in everything if result["score"] == 0]
    assert [result["layer"] for result in fill_ins] == ["episodic"]
    only_matches = dispatch(memory, "zenbrain_recall", {"query": "marmalade", "min_score": 0.01})
    assert [result["layer"] for result in only_matches["results"]] == ["semantic"]


def test_recall_honours_layers_and_limit(memory: MemoryCoordinator) -> None:
    for number in range(4):
        dispatch(
            memory, "zenbrain_store", {"content": f"Note {number} about tides", "type": "fact"}
        )
    dispatch(memory, "zenbrain_store", {"content": "Tides scared me once", "type": "episode"})
    recalled = dispatch(
        memory, "zenbrain_recall", {"query": "tides", "layers": ["episodic"], "limit": 3}
    )
    assert [result["layer"] for result in recalled["results"]] == ["episodic"]
    limited = dispatch(memory, "zenbrain_recall", {"query": "tides", "limit": 2.0})
    assert limited["count"] == 2


def test_forget_deletes_for_good_and_reports_what_went_along(memory: MemoryCoordinator) -> None:
    stored = dispatch(memory, "zenbrain_store", {"content": "Lost my keys at the station"})
    copy = dispatch(memory, "zenbrain_store", {"content": "Lost my keys at the station"})
    forgotten = dispatch(memory, "zenbrain_forget", {"id": stored["id"], "layer": stored["layer"]})
    jsonschema.validate(forgotten, get_tool("zenbrain_forget").output_schema)
    assert forgotten["forgotten"] is True
    assert {"id": copy["id"], "layer": copy["layer"]} in forgotten["duplicates"]
    remaining = dispatch(memory, "zenbrain_recall", {"query": "keys station", "min_score": 0.01})
    assert [result["id"] for result in remaining["results"]] == [copy["id"]]
    again = dispatch(memory, "zenbrain_forget", {"id": stored["id"], "layer": stored["layer"]})
    assert again["forgotten"] is False


def test_forgetting_a_working_memory_slot_explains_what_to_do(memory: MemoryCoordinator) -> None:
    result = dispatch(memory, "zenbrain_forget", {"id": "abc", "layer": "working"})
    assert result["error"]["type"] == "InvalidInputError"
    assert "long-term" in result["error"]["message"]


def test_consolidate_promotes_each_weighty_episode_once(memory: MemoryCoordinator) -> None:
    dispatch(
        memory, "zenbrain_store", {"content": "The storm tore the sail", "emotional_weight": 0.9}
    )
    first = dispatch(memory, "zenbrain_consolidate")
    jsonschema.validate(first, get_tool("zenbrain_consolidate").output_schema)
    assert first["promoted"] == 1
    assert dispatch(memory, "zenbrain_consolidate", "")["promoted"] == 0
    health = dispatch(memory, "zenbrain_health", None)
    jsonschema.validate(health, get_tool("zenbrain_health").output_schema)
    assert health["episodic"]["count"] == 1 and health["semantic"]["count"] == 1


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ("{not json", "JSON object"),
        ("[1, 2]", "JSON object"),
        ({}, "missing the required argument 'content'"),
        ({"content": ""}, "must not be empty"),
        ({"content": "   "}, "must not be empty"),
        ({"content": 42}, "must be a string"),
        ({"content": "x", "confidence": 1.5}, "between 0 and 1"),
        ({"content": "x", "emotional_weight": -0.1}, "between 0 and 1"),
        ({"content": "x", "confidence": True}, "must be a number"),
        ({"content": "x", "type": "opinion"}, "must be one of"),
        ({"content": "x", "steps": "boil water"}, "must be an array"),
        ({"content": "x", "steps": ["ok", 3]}, "steps'[1]"),
        ({"content": "x", "steps": ["ok", " "]}, "must not be empty"),
        ({"content": "x", "source": "s" * 201}, "at most 200 characters"),
        ({"content": "x", "emotionalWeight": 0.9}, "unknown argument(s) emotionalWeight"),
    ],
)
def test_bad_store_arguments_come_back_as_readable_errors_and_store_nothing(
    memory: MemoryCoordinator, arguments: Any, fragment: str
) -> None:
    before = layer_counts(memory)
    result = dispatch(memory, "zenbrain_store", arguments)
    assert set(result) == {"error"}
    assert result["error"]["type"] == "InvalidInputError"
    assert fragment in result["error"]["message"]
    assert layer_counts(memory) == before


@pytest.mark.parametrize(
    "arguments",
    [
        {"query": "x", "limit": 0},
        {"query": "x", "limit": 101},
        {"query": "x", "limit": 2.5},
        {"query": "x", "layers": []},
        {"query": "x", "layers": ["short_term"]},
        {"query": "x", "min_score": 2},
        {"query": "x", "core": "sometimes"},
        {"limit": 3},
    ],
)
def test_bad_recall_arguments_are_rejected(memory: MemoryCoordinator, arguments: Any) -> None:
    assert dispatch(memory, "zenbrain_recall", arguments)["error"]["type"] == "InvalidInputError"


def test_unknown_tools_are_an_error_naming_the_real_ones(memory: MemoryCoordinator) -> None:
    result = dispatch(memory, "zenbrain_search", {"query": "x"})
    assert result["error"]["type"] == "UnknownToolError"
    assert "zenbrain_recall" in result["error"]["message"]


def test_errors_raised_by_the_coordinator_become_error_results(
    memory: MemoryCoordinator,
) -> None:
    # Valid by the schema (which sets no size limit on content), refused by the coordinator.
    before = layer_counts(memory)
    result = dispatch(memory, "zenbrain_store", {"content": "x" * 1_000_001})
    assert result["error"]["type"] == "InvalidInputError"
    assert "1,000,000" in result["error"]["message"]
    assert layer_counts(memory) == before


# A sample of argument sets, each judged independently by jsonschema and by dispatch.
_SAMPLES: list[tuple[str, Any]] = [
    ("zenbrain_store", {"content": "a"}),
    ("zenbrain_store", {"content": "a", "type": "core", "confidence": 0.2}),
    ("zenbrain_store", {"content": "a", "tools": ["git"], "outcome": "done", "source": "me"}),
    ("zenbrain_store", {"content": "a", "confidence": "high"}),
    ("zenbrain_store", {"content": "a", "extra": 1}),
    ("zenbrain_store", {"content": ["a"]}),
    ("zenbrain_store", {"content": "a", "context": ""}),
    ("zenbrain_store", {"content": "a", "context": "c" * 200}),
    ("zenbrain_store", {"content": "a", "tools": [""]}),
    ("zenbrain_store", {"content": "   "}),
    ("zenbrain_store", {"content": "a", "source": " \t"}),
    ("zenbrain_recall", {"query": "q", "layers": ["working", "core"], "limit": 100}),
    ("zenbrain_recall", {"query": "q", "min_confidence": 1}),
    ("zenbrain_recall", {"query": "q", "limit": -1}),
    ("zenbrain_recall", {"query": "q", "layers": "core"}),
    ("zenbrain_forget", {"id": "x", "layer": "procedural"}),
    ("zenbrain_forget", {"id": "x"}),
    ("zenbrain_forget", {"id": "x", "layer": "cross_context"}),
    ("zenbrain_health", {}),
    ("zenbrain_health", {"verbose": True}),
    ("zenbrain_consolidate", {}),
]


@pytest.mark.parametrize(("name", "arguments"), _SAMPLES)
def test_dispatch_accepts_exactly_what_the_schema_accepts(
    memory: MemoryCoordinator, name: str, arguments: Any
) -> None:
    schema_accepts = Draft(get_tool(name).parameters).is_valid(arguments)
    result = dispatch(memory, name, arguments)
    rejected = result.get("error", {}).get("type") == "InvalidInputError"
    assert rejected is not schema_accepts


async def test_adispatch_gives_the_same_results_as_dispatch(memory: MemoryCoordinator) -> None:
    stored = await adispatch(memory, "zenbrain_store", {"content": "Async notes on ferries"})
    assert stored["layer"] == "semantic"
    recalled = await adispatch(memory, "zenbrain_recall", {"query": "ferries", "min_score": 0.01})
    assert recalled == dispatch(memory, "zenbrain_recall", {"query": "ferries", "min_score": 0.01})
    assert (await adispatch(memory, "zenbrain_forget", {"id": stored["id"], "layer": "semantic"}))[
        "forgotten"
    ] is True
    assert (await adispatch(memory, "zenbrain_store", {"content": ""}))["error"]["type"] == (
        "InvalidInputError"
    )
    assert (await adispatch(memory, "nope"))["error"]["type"] == "UnknownToolError"
