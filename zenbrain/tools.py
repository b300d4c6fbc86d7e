"""The five memory tools, defined once for every surface that exposes them.

OpenAI function calling, the OpenAI Agents SDK, the MCP server and the LangChain tools all
publish these same definitions (name, description, JSON Schema of the arguments, JSON Schema
of the result, behaviour hints) and run calls through :func:`dispatch` / :func:`adispatch`::

    from zenbrain import MemoryCoordinator
    from zenbrain.tools import dispatch, openai_chat_tools

    memory = MemoryCoordinator("memory.db")
    tools = openai_chat_tools()                       # pass to chat.completions.create(...)
    result = dispatch(memory, "zenbrain_recall", '{"query": "Kieler Foerde"}')

``dispatch`` never raises for bad input: an unknown tool, arguments that are not JSON or
break the schema, and every :class:`~zenbrain.errors.ZenbrainError` come back as
``{"error": {"type": ..., "message": ...}}`` so the model can read and correct its call.

The canonical argument schemas (``ToolDefinition.parameters``) mark optional arguments by
leaving them out of ``required``. OpenAI's strict mode demands every property be required,
so :func:`strict_parameters` rewrites optional arguments as nullable; ``dispatch`` treats a
``null`` optional argument as not given, so both forms are accepted everywhere.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any

from zenbrain.errors import InvalidInputError, ZenbrainError
from zenbrain.types import ALL_LAYERS, DEFAULT_RECALL_LAYERS, RECALLABLE_LAYERS

__all__ = [
    "FORGET_LAYERS",
    "RECALL_LAYERS",
    "STORE_TYPE_TO_LAYER",
    "TOOLS",
    "TOOL_NAMES",
    "ToolDefinition",
    "adispatch",
    "dispatch",
    "get_tool",
    "openai_chat_tools",
    "openai_responses_tools",
    "strict_parameters",
]

JSONDict = dict[str, Any]

# What the store tool calls a memory type, and the layer it lands in.
STORE_TYPE_TO_LAYER: Mapping[str, str] = {
    "auto": "auto",
    "fact": "semantic",
    "episode": "episodic",
    "procedure": "procedural",
    "core": "core",
}
RECALL_LAYERS: tuple[str, ...] = (*DEFAULT_RECALL_LAYERS, "working")
FORGET_LAYERS: tuple[str, ...] = DEFAULT_RECALL_LAYERS


@dataclass(frozen=True)
class ToolDefinition:
    """One tool as every surface publishes it.

    ``parameters`` is the canonical JSON Schema (Draft 2020-12) of the arguments;
    ``output_schema`` describes a successful result; ``annotations`` are the MCP behaviour
    hints (``readOnlyHint``, ``destructiveHint``, ``idempotentHint``, ``openWorldHint``).
    Treat the dicts as read-only; the export functions hand out copies.
    """

    name: str
    title: str
    description: str
    parameters: JSONDict
    annotations: dict[str, bool]
    output_schema: JSONDict


def _hints(*, read_only: bool, destructive: bool, idempotent: bool) -> dict[str, bool]:
    # Memory lives in a local store: no tool reaches out to the open world.
    return {
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": False,
    }


def _object(properties: JSONDict, required: tuple[str, ...] = ()) -> JSONDict:
    return {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }


_UNIT = {"type": "number", "minimum": 0, "maximum": 1}
_STRING_LIST = {"type": "array", "items": {"type": "string", "minLength": 1}}
_SHORT_TEXT = {"type": "string", "minLength": 1, "maxLength": 200}
_LAYER_REF = _object(
    {"id": {"type": "string"}, "layer": {"type": "string"}},
    ("id", "layer"),
)
_COUNTS = {"type": "object", "additionalProperties": {"type": "integer"}}

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
    "score 0.8 when they share a word with the query and 0.5 otherwise, so they can outrank "
    "weak matches; by default every block competes for the limit, with core='matching' only "
    "blocks sharing a word with the query come back. Without an embedding provider the "
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

TOOLS: tuple[ToolDefinition, ...] = (
    ToolDefinition(
        name="zenbrain_store",
        title="Store a memory",
        description=_STORE_DESCRIPTION,
        parameters=_object(
            {
                "content": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The text to remember.",
                },
                "type": {
                    "type": "string",
                    "enum": list(STORE_TYPE_TO_LAYER),
                    "default": "auto",
                    "description": "Which kind of memory; 'auto' routes by the rules above.",
                },
                "context": {
                    **_SHORT_TEXT,
                    "description": "Domain or situation, e.g. 'work' or 'personal'.",
                },
                "confidence": {
                    **_UNIT,
                    "description": "How sure the fact is, 0..1; above 0.9 routes to core.",
                },
                "emotional_weight": {
                    **_UNIT,
                    "description": "How much it mattered, 0..1; above 0.5 routes to episode.",
                },
                "source": {**_SHORT_TEXT, "description": "Where the information came from."},
                "steps": {
                    **_STRING_LIST,
                    "description": "Steps of a procedure, in order; makes it a procedure.",
                },
                "tools": {**_STRING_LIST, "description": "Tools a procedure uses."},
                "outcome": {"type": "string", "description": "What a procedure achieves."},
            },
            ("content",),
        ),
        annotations=_hints(read_only=False, destructive=False, idempotent=False),
        output_schema=_object(
            {
                "id": {"type": "string", "description": "Id of the stored memory."},
                "layer": {
                    "type": ["string", "null"],
                    "description": "Layer it was stored in (for zenbrain_forget).",
                },
            },
            ("id", "layer"),
        ),
    ),
    ToolDefinition(
        name="zenbrain_recall",
        title="Recall memories",
        description=_RECALL_DESCRIPTION,
        parameters=_object(
            {
                "query": {
                    "type": "string",
                    "minLength": 1,
                    "description": "What to look for.",
                },
                "layers": {
                    "type": "array",
                    "items": {"type": "string", "enum": list(RECALL_LAYERS)},
                    "minItems": 1,
                    "description": "Layers to search; default episodic, semantic, "
                    "procedural and core.",
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 100,
                    "default": 10,
                    "description": "Most results to return.",
                },
                "min_score": {
                    **_UNIT,
                    "default": 0,
                    "description": "Drop results scoring below this; above 0 drops fill-ins.",
                },
                "min_confidence": {
                    **_UNIT,
                    "default": 0,
                    "description": "Drop facts less certain than this.",
                },
                "core": {
                    "type": "string",
                    "enum": ["always", "matching"],
                    "default": "always",
                    "description": "'always': every core block competes; 'matching': only "
                    "blocks sharing a word with the query.",
                },
            },
            ("query",),
        ),
        annotations=_hints(read_only=True, destructive=False, idempotent=True),
        output_schema=_object(
            {
                "count": {"type": "integer", "minimum": 0},
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
                            "metadata": {"type": "object"},
                            "created_at": {"type": ["string", "null"]},
                        },
                        "required": ["id", "layer", "content", "score"],
                    },
                },
            },
            ("count", "results"),
        ),
    ),
    ToolDefinition(
        name="zenbrain_forget",
        title="Forget a memory",
        description=_FORGET_DESCRIPTION,
        parameters=_object(
            {
                "id": {
                    "type": "string",
                    "minLength": 1,
                    "description": "Id from a zenbrain_recall result.",
                },
                "layer": {
                    "type": "string",
                    "enum": list(FORGET_LAYERS),
                    "description": "Layer from the same zenbrain_recall result.",
                },
            },
            ("id", "layer"),
        ),
        annotations=_hints(read_only=False, destructive=True, idempotent=True),
        output_schema=_object(
            {
                "forgotten": {"type": "boolean"},
                "also_forgotten": {"type": "array", "items": _LAYER_REF},
                "duplicates": {"type": "array", "items": _LAYER_REF},
            },
            ("forgotten", "also_forgotten", "duplicates"),
        ),
    ),
    ToolDefinition(
        name="zenbrain_consolidate",
        title="Consolidate memory",
        description=_CONSOLIDATE_DESCRIPTION,
        parameters=_object({}),
        annotations=_hints(read_only=False, destructive=True, idempotent=False),
        output_schema=_object(
            {
                "promoted": {"type": "integer", "minimum": 0},
                "decayed": {"type": "integer", "minimum": 0},
                "pruned": {"type": "integer", "minimum": 0},
            },
            ("promoted", "decayed", "pruned"),
        ),
    ),
    ToolDefinition(
        name="zenbrain_health",
        title="Memory health",
        description=_HEALTH_DESCRIPTION,
        parameters=_object({}),
        annotations=_hints(read_only=True, destructive=False, idempotent=True),
        output_schema={
            "type": "object",
            "properties": {layer: _COUNTS for layer in ALL_LAYERS},
            "required": list(RECALLABLE_LAYERS),
        },
    ),
)

TOOL_NAMES: tuple[str, ...] = tuple(tool.name for tool in TOOLS)
_BY_NAME: dict[str, ToolDefinition] = {tool.name: tool for tool in TOOLS}


def get_tool(name: str) -> ToolDefinition:
    """The definition called ``name``; :class:`InvalidInputError` if there is none."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise InvalidInputError(
            f"There is no tool named {name!r}; the tools are {', '.join(TOOL_NAMES)}."
        ) from None


# ---------------------------------------------------------------------------------- exports

# Keywords OpenAI's strict mode does not accept; they stay in the descriptions' wording.
_NOT_IN_STRICT = ("default", "minLength", "maxLength", "uniqueItems")


def strict_parameters(schema: Mapping[str, Any]) -> JSONDict:
    """``schema`` rewritten for OpenAI's strict mode: every property required, optional
    ones nullable (``["string", "null"]``; ``null`` added to enums), no ``default``,
    ``minLength`` or ``maxLength`` (``dispatch`` still enforces them), and
    ``additionalProperties: false`` on every object."""
    result = {k: copy.deepcopy(v) for k, v in schema.items() if k not in _NOT_IN_STRICT}
    if result.get("type") == "array" and isinstance(result.get("items"), Mapping):
        result["items"] = strict_parameters(result["items"])
    if result.get("type") != "object":
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
    """The tools in Chat Completions form: ``{"type": "function", "function": {...}}``."""
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
    """The tools in the Responses API's flat form: ``{"type": "function", "name": ...}``."""
    return [
        {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": _exported_parameters(tool, strict),
            "strict": strict,
        }
        for tool in TOOLS
    ]


# ------------------------------------------------------------------------------- validation

_JSON_TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "array": "an array",
    "object": "an object",
    "null": "null",
}


def _is_json_type(value: Any, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "number":
        return is_number and math.isfinite(value)
    if kind == "integer":
        return is_number and math.isfinite(value) and float(value).is_integer()
    raise AssertionError(f"schema uses unsupported type {kind!r}")  # pragma: no cover


def _show(value: Any) -> str:
    """A short JSON rendering of a rejected value for an error message."""
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= 60 else text[:57] + "..."


def _check(schema: Mapping[str, Any], value: Any, where: str) -> Any:
    """Validate ``value`` against the subset of JSON Schema the tool definitions use and
    return it normalised (integral floats for integer fields become ints). Raises
    :class:`InvalidInputError` naming the argument, what was expected and what came."""
    kind = schema.get("type")
    if kind is not None:
        kinds = [kind] if isinstance(kind, str) else list(kind)
        if not any(_is_json_type(value, k) for k in kinds):
            expected = " or ".join(_JSON_TYPE_NAMES[k] for k in kinds)
            raise InvalidInputError(f"{where} must be {expected}, got {_show(value)}.")
        if "integer" in kinds and not isinstance(value, bool) and isinstance(value, float):
            value = int(value)
    if "enum" in schema and value not in schema["enum"]:
        choices = ", ".join(json.dumps(choice) for choice in schema["enum"])
        raise InvalidInputError(f"{where} must be one of {choices}, got {_show(value)}.")
    if isinstance(value, str):
        if len(value.strip()) < schema.get("minLength", 0):
            raise InvalidInputError(f"{where} must not be empty.")
        if len(value) > schema.get("maxLength", math.inf):
            raise InvalidInputError(
                f"{where} must be at most {schema['maxLength']} characters, got {len(value)}."
            )
    if isinstance(value, int | float) and not isinstance(value, bool):
        low, high = schema.get("minimum"), schema.get("maximum")
        if (low is not None and value < low) or (high is not None and value > high):
            raise InvalidInputError(
                f"{where} must be between {low} and {high}, got {_show(value)}."
            )
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            raise InvalidInputError(f"{where} must list at least {schema['minItems']} item(s).")
        item_schema = schema.get("items", {})
        value = [_check(item_schema, item, f"{where}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, dict) and "properties" in schema:
        value = _check_object(schema, value, where)
    return value


def _check_object(schema: Mapping[str, Any], value: Mapping[str, Any], where: str) -> JSONDict:
    properties: Mapping[str, Any] = schema["properties"]
    required = set(schema.get("required", []))
    unknown = sorted(set(value) - set(properties))
    if unknown:
        accepted = ", ".join(properties) or "none"
        raise InvalidInputError(
            f"{where} got unknown argument(s) {', '.join(unknown)}; it accepts: {accepted}."
        )
    checked: JSONDict = {}
    for name, prop in properties.items():
        item = value.get(name)
        if item is None:
            # Strict-mode callers send null for an optional argument they leave out.
            if name in required:
                raise InvalidInputError(f"{where} is missing the required argument {name!r}.")
            continue
        checked[name] = _check(prop, item, f"argument {name!r}")
    return checked


def _parse_arguments(arguments: str | Mapping[str, Any] | None) -> Mapping[str, Any]:
    if arguments is None:
        return {}
    if isinstance(arguments, str):
        if not arguments.strip():
            return {}
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(
                f"The arguments must be a JSON object; could not parse them: {exc.msg} "
                f"at position {exc.pos}."
            ) from None
    if not isinstance(arguments, Mapping):
        raise InvalidInputError(
            f"The arguments must be a JSON object, got {type(arguments).__name__}."
        )
    return arguments


# --------------------------------------------------------------------------------- dispatch

# A tool call is written once, as a generator: it yields (coordinator method, keyword
# arguments), receives that method's return value, and finally returns the JSON result.
# dispatch() drives it with the sync methods, adispatch() with their async twins.
_Calls = Generator[tuple[str, JSONDict], Any, JSONDict]


def _store(args: JSONDict) -> _Calls:
    kwargs = {key: value for key, value in args.items() if key != "type"}
    kwargs["layer"] = STORE_TYPE_TO_LAYER[args.get("type", "auto")]
    memory_id = yield "store", kwargs
    # Tell the model where routing put it: forget needs the layer as well as the id.
    stored = yield "get", {"id": memory_id}
    return {"id": str(memory_id), "layer": stored.layer if stored is not None else None}


def _recall(args: JSONDict) -> _Calls:
    results = yield "recall", dict(args)
    rendered = [result.to_dict() for result in results]
    return {"count": len(rendered), "results": rendered}


def _forget(args: JSONDict) -> _Calls:
    outcome = yield "forget", {"id": args["id"], "layer": args["layer"]}
    return outcome.to_dict()


def _report(method: str) -> Callable[[JSONDict], _Calls]:
    def calls(_args: JSONDict) -> _Calls:
        report = yield method, {}
        return report.to_dict()

    return calls


_CALLS: dict[str, Callable[[JSONDict], _Calls]] = {
    "zenbrain_store": _store,
    "zenbrain_recall": _recall,
    "zenbrain_forget": _forget,
    "zenbrain_consolidate": _report("consolidate"),
    "zenbrain_health": _report("health"),
}


def _error(type_name: str, message: str) -> JSONDict:
    return {"error": {"type": type_name, "message": message}}


def _prepare(name: str, arguments: str | Mapping[str, Any] | None) -> _Calls | JSONDict:
    """The calls to make, or the error result explaining why there are none."""
    if name not in _BY_NAME:
        return _error(
            "UnknownToolError",
            f"There is no tool named {name!r}; the tools are {', '.join(TOOL_NAMES)}.",
        )
    try:
        parsed = _parse_arguments(arguments)
        if name == "zenbrain_forget" and parsed.get("layer") == "working":
            raise InvalidInputError(
                "Working-memory slots are copies and cannot be forgotten on their own; "
                "forget the long-term result (layer episodic, semantic, procedural or core) "
                "and its working-memory copies go with it."
            )
        checked = _check_object(_BY_NAME[name].parameters, parsed, name)
    except InvalidInputError as exc:
        return _error(type(exc).__name__, str(exc))
    return _CALLS[name](checked)


def dispatch(
    coordinator: Any, name: str, arguments: str | Mapping[str, Any] | None = None
) -> JSONDict:
    """Run the tool ``name`` with ``arguments`` (a JSON string or a mapping) against
    ``coordinator`` and return its JSON-ready result, or ``{"error": {"type", "message"}}``
    for an unknown tool, bad arguments or any :class:`ZenbrainError`."""
    calls = _prepare(name, arguments)
    if isinstance(calls, dict):
        return calls
    try:
        method, kwargs = next(calls)
        while True:
            method, kwargs = calls.send(getattr(coordinator, method)(**kwargs))
    except StopIteration as finished:
        return finished.value
    except ZenbrainError as exc:
        return _error(type(exc).__name__, str(exc))


async def adispatch(
    coordinator: Any, name: str, arguments: str | Mapping[str, Any] | None = None
) -> JSONDict:
    """Async twin of :func:`dispatch`: awaits the coordinator's ``a``-prefixed methods, so
    the event loop is never blocked."""
    calls = _prepare(name, arguments)
    if isinstance(calls, dict):
        return calls
    try:
        method, kwargs = next(calls)
        while True:
            method, kwargs = calls.send(await getattr(coordinator, "a" + method)(**kwargs))
    except StopIteration as finished:
        return finished.value
    except ZenbrainError as exc:
        return _error(type(exc).__name__, str(exc))
