"""The five tool definitions (name, title, description, argument model, result schema,
behaviour hints) and their exports for OpenAI's Chat Completions and Responses APIs."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from zenbrain.errors import InvalidInputError
from zenbrain.tools._arguments import (
    ConsolidateArguments,
    ForgetArguments,
    HealthArguments,
    RecallArguments,
    StoreArguments,
    ToolArguments,
    published_schema,
    unknown_tool_message,
)

__all__ = [
    "TOOLS",
    "TOOL_NAMES",
    "ToolDefinition",
    "get_tool",
    "openai_chat_tools",
    "openai_responses_tools",
    "strict_output_schema",
    "strict_parameters",
]

JSONDict = dict[str, Any]

# ----------------------------------------------------------------------------- definitions


@dataclass(frozen=True)
class ToolDefinition:
    """One tool as every surface publishes it.

    ``arguments_model`` validates a call's arguments; ``parameters`` is the JSON Schema
    (Draft 2020-12) it generates. ``output_schema`` describes a successful result (an error
    result is ``{"error": {"type", "message"}}``); ``annotations`` are the MCP behaviour hints
    (``readOnlyHint``, ``destructiveHint``, ``idempotentHint``, ``openWorldHint``). Treat the
    dicts as read-only; the export functions hand out copies.
    """

    name: str
    title: str
    description: str
    arguments_model: type[ToolArguments]
    annotations: dict[str, bool]
    output_schema: JSONDict

    @property
    def parameters(self) -> JSONDict:
        """The canonical JSON Schema of the arguments, generated from ``arguments_model``."""
        return published_schema(self.arguments_model)


def _hints(*, read_only: bool, destructive: bool, idempotent: bool) -> dict[str, bool]:
    # Memory lives in a local store: no tool reaches out to the open world.
    return {
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": False,
    }


def _object(properties: JSONDict, required: tuple[str, ...] | None = None) -> JSONDict:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else list(required),
        "additionalProperties": False,
    }


_INTEGER = {"type": "integer", "minimum": 0}
_LAYER_REF = _object({"id": {"type": "string"}, "layer": {"type": "string"}})

_STORE_DESCRIPTION = (
    "Save something to long-term memory and get back its id and the layer it went to. "
    "Every call adds a memory; storing the same core content again updates that core block "
    "instead of adding a copy. "
    "With type 'auto' (the default) the first matching rule picks the layer: given steps, or "
    "content that reads like instructions ('How to ...', 'Steps:', 'workflow:', numbered or "
    "bulleted step lines) -> procedure; emotional_weight above 0.5 -> episode; confidence "
    "above 0.9 -> core (a pinned block that accompanies every conversation); anything else "
    "-> fact. When emotional_weight is left out it is estimated from the wording (neutral "
    "text scores low). Set type to 'fact', 'episode', 'procedure' or 'core' to choose the "
    "layer yourself (stored in the semantic, episodic, procedural or core layer). Facts get "
    "a spaced-repetition review schedule. To correct a memory, forget it and store the "
    "corrected text."
)
_RECALL_DESCRIPTION = (
    "Search memory for what relates to a query. By default the episodic, semantic, "
    "procedural and core layers are searched; working memory only when 'working' is named "
    "in layers. Results come best first, each with its id, layer, content and a score from "
    "0 to 1 (plus confidence, emotional weight and metadata where the layer has them); use "
    "id and layer with zenbrain_forget. A searched layer with no match still contributes "
    "its most recent episodes or facts, or its most successful procedures, with score 0 and "
    "placed after every match; set min_score above 0 to drop those fill-ins. Core blocks "
    "are scored like any other memory, on the same scale; by default every block comes "
    "back (one sharing no word with the query as a fill-in with score 0), with "
    "core='matching' only blocks sharing a word with the query. Without an embedding provider the "
    "ranking is lexical: spelling variants such as umlauts and accents match, synonyms do "
    "not."
)
_FORGET_DESCRIPTION = (
    "Delete one memory for good, by the id and layer that zenbrain_recall returned. This "
    "cannot be undone. Whatever consolidation linked to it goes too: forgetting an episode "
    "also deletes the facts made from it, forgetting such a fact deletes every episode "
    "consolidated into it, and in both cases the working-memory copies of that content are "
    "removed. Everything removed along the way is listed in also_forgotten. Separately "
    "stored memories with the same content are kept and listed in duplicates, so you can "
    "see that copies remain. Working-memory slots are only copies: forget the long-term "
    "result instead. forgotten is false when no memory had that id in that layer."
)
_CONSOLIDATE_DESCRIPTION = (
    "Run one maintenance pass. Each of the 100 most recent episodes with emotional weight "
    "above 0.5 that has not been promoted yet becomes a semantic fact, once per episode, "
    "and keeps a link to it. Working-memory slots decay in the same pass and slots whose "
    "relevance falls to 0.01 or below are dropped. Nothing is deleted from long-term "
    "memory. Returns the counts promoted, decayed and pruned. Nothing runs it "
    "automatically: call it when a conversation winds down."
)
_HEALTH_DESCRIPTION = (
    "Report how full each memory layer is: working-memory slots used and capacity, "
    "short-term interactions in the current session, episodes, facts and how many of them "
    "are due for review, procedures, core blocks, and cross-context entities and links. "
    "Read-only."
)


def _counts(*names: str) -> JSONDict:
    return _object({name: dict(_INTEGER) for name in names})


TOOLS: tuple[ToolDefinition, ...] = (
    ToolDefinition(
        name="zenbrain_store",
        title="Store a memory",
        description=_STORE_DESCRIPTION,
        arguments_model=StoreArguments,
        annotations=_hints(read_only=False, destructive=False, idempotent=False),
        output_schema=_object(
            {
                "id": {"type": "string", "description": "Id of the stored memory."},
                "layer": {
                    "type": ["string", "null"],
                    "description": "Layer it was stored in (for zenbrain_forget).",
                },
            }
        ),
    ),
    ToolDefinition(
        name="zenbrain_recall",
        title="Recall memories",
        description=_RECALL_DESCRIPTION,
        arguments_model=RecallArguments,
        annotations=_hints(read_only=True, destructive=False, idempotent=True),
        output_schema=_object(
            {
                "count": dict(_INTEGER),
                "results": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "id": {"type": "string"},
                            "layer": {"type": "string"},
                            "content": {"type": "string"},
                            "score": {"type": "number", "minimum": 0, "maximum": 1},
                            "confidence": {"type": ["number", "null"]},
                            "emotional_weight": {"type": ["number", "null"]},
                            "metadata": {
                                "type": "object",
                                "description": "Metadata stored with the memory; its keys "
                                "vary from memory to memory.",
                            },
                            "created_at": {"type": ["string", "null"]},
                            "valid_from": {"type": ["string", "null"]},
                            "valid_to": {
                                "type": ["string", "null"],
                                "description": "When a newer memory replaced this one; null "
                                "while it is current.",
                            },
                            "superseded_by": {
                                "type": ["string", "null"],
                                "description": "Id of the memory that replaced this one.",
                            },
                        },
                        "required": [
                            "id",
                            "layer",
                            "content",
                            "score",
                            "confidence",
                            "emotional_weight",
                            "metadata",
                            "created_at",
                        ],
                    },
                },
            }
        ),
    ),
    ToolDefinition(
        name="zenbrain_forget",
        title="Forget a memory",
        description=_FORGET_DESCRIPTION,
        arguments_model=ForgetArguments,
        annotations=_hints(read_only=False, destructive=True, idempotent=True),
        output_schema=_object(
            {
                "forgotten": {"type": "boolean"},
                "also_forgotten": {"type": "array", "items": _LAYER_REF},
                "duplicates": {"type": "array", "items": _LAYER_REF},
            }
        ),
    ),
    ToolDefinition(
        name="zenbrain_consolidate",
        title="Consolidate memory",
        description=_CONSOLIDATE_DESCRIPTION,
        arguments_model=ConsolidateArguments,
        annotations=_hints(read_only=False, destructive=True, idempotent=False),
        output_schema=_counts("promoted", "decayed", "pruned"),
    ),
    ToolDefinition(
        name="zenbrain_health",
        title="Memory health",
        description=_HEALTH_DESCRIPTION,
        arguments_model=HealthArguments,
        annotations=_hints(read_only=True, destructive=False, idempotent=True),
        output_schema=_object(
            {
                "working": _counts("used", "capacity"),
                "short_term": _counts("interactions", "window"),
                "episodic": _counts("count"),
                "semantic": _counts("count", "due_for_review"),
                "procedural": _counts("count"),
                "core": _counts("blocks"),
                "cross_context": _counts("entities", "links"),
            }
        ),
    ),
)


TOOL_NAMES: tuple[str, ...] = tuple(tool.name for tool in TOOLS)
_BY_NAME: dict[str, ToolDefinition] = {tool.name: tool for tool in TOOLS}


def get_tool(name: str) -> ToolDefinition:
    """The definition called ``name``; :class:`InvalidInputError` if there is none."""
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise InvalidInputError(unknown_tool_message(name)) from None


# ---------------------------------------------------------------------------------- exports

# Keywords OpenAI's strict mode does not accept; they stay in the descriptions' wording and
# dispatch still enforces them. (Non-empty text is said with "pattern", which it accepts.)
_NOT_IN_STRICT = ("default", "minLength", "maxLength", "uniqueItems")


def strict_parameters(schema: Mapping[str, Any]) -> JSONDict:
    """``schema`` rewritten for OpenAI's strict mode: every property required, optional
    ones nullable (``["string", "null"]``; ``null`` added to enums), no ``default``,
    ``minLength`` or ``maxLength`` (``dispatch`` still enforces them), and
    ``additionalProperties: false`` on every object."""
    result = {k: copy.deepcopy(v) for k, v in schema.items() if k not in _NOT_IN_STRICT}
    if result.get("type") == "array" and isinstance(result.get("items"), Mapping):
        result["items"] = strict_parameters(result["items"])
    kind = result.get("type")
    if kind != "object" and not (isinstance(kind, list) and "object" in kind):
        return result
    originally_required = set(result.get("required", []))
    properties: JSONDict = {}
    for name, prop in result.get("properties", {}).items():
        strict_prop = strict_parameters(prop)
        if name not in originally_required:
            strict_prop = _nullable(strict_prop)
        properties[name] = strict_prop
    result["properties"] = properties
    result["required"] = list(properties)
    result["additionalProperties"] = False
    return result


def strict_output_schema(tool: ToolDefinition) -> JSONDict:
    """``tool.output_schema`` in the strict form OpenAI's Responses API and the Agents SDK
    take for a function's output. Strict schemas cannot declare an object with free-form
    keys, so a recall result's ``metadata`` is listed as an object of no declared keys (its
    description says the keys vary)."""
    return strict_parameters(tool.output_schema)


def _nullable(schema: JSONDict) -> JSONDict:
    kind = schema.get("type")
    if isinstance(kind, str):
        schema["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        schema["type"] = [*kind, "null"]
    if "enum" in schema and None not in schema["enum"]:
        schema["enum"] = [*schema["enum"], None]
    return schema


def _exported_parameters(tool: ToolDefinition, strict: bool) -> JSONDict:
    return strict_parameters(tool.parameters) if strict else copy.deepcopy(tool.parameters)


def openai_chat_tools(*, strict: bool = True) -> list[JSONDict]:
    """The tools in Chat Completions form: ``{"type": "function", "function": {...}}``.

    Chat Completions has no field for a function's output schema; the Responses form has
    (see :func:`openai_responses_tools`)."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": _exported_parameters(tool, strict),
                "strict": strict,
            },
        }
        for tool in TOOLS
    ]


def openai_responses_tools(*, strict: bool = True) -> list[JSONDict]:
    """The tools in the Responses API's flat form: ``{"type": "function", "name": ...}``,
    with ``output_schema`` describing a successful result (strict form when ``strict``)."""
    return [
        {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": _exported_parameters(tool, strict),
            "strict": strict,
            "output_schema": (
                strict_output_schema(tool) if strict else copy.deepcopy(tool.output_schema)
            ),
        }
        for tool in TOOLS
    ]
