"""The arguments of the five tools as pydantic models, and the validation of a call.

Each model generates its tool's published JSON Schema (:class:`ToolArgumentsSchema`) and
validates calls against the same rules, so schema and validation cannot drift apart. This is
where pydantic earns its place as a core dependency of zenbrain.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import core_schema

from zenbrain._validation import shown
from zenbrain.errors import InvalidInputError
from zenbrain.types import DEFAULT_RECALL_LAYERS, Layer

__all__ = [
    "ARGUMENT_MODELS",
    "FORGET_LAYERS",
    "RECALL_LAYERS",
    "STORE_TYPE_TO_LAYER",
    "ConsolidateArguments",
    "ForgetArguments",
    "HealthArguments",
    "RecallArguments",
    "StoreArguments",
    "ToolArguments",
    "ToolArgumentsSchema",
    "parse_arguments",
    "printable",
    "published_schema",
    "show",
    "unknown_tool_message",
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
RECALL_LAYERS: tuple[Layer, ...] = (*DEFAULT_RECALL_LAYERS, "working")
FORGET_LAYERS: tuple[Layer, ...] = DEFAULT_RECALL_LAYERS

if TYPE_CHECKING:
    StoreType = str
    RecallLayer = str
    ForgetLayer = str
else:  # the choices come from the tables above, so they are written once
    StoreType = Literal[tuple(STORE_TYPE_TO_LAYER)]
    RecallLayer = Literal[RECALL_LAYERS]
    ForgetLayer = Literal[FORGET_LAYERS]


# ------------------------------------------------------------------------ argument models


class ToolArgumentsSchema(GenerateJsonSchema):
    """Generates the published form of an arguments model: no titles, and an optional
    argument (``X | None = None``) is published as plain ``X`` left out of ``required``,
    because ``null`` only means "not given" (strict exports add ``null`` back)."""

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JSONDict:
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JSONDict:
        generated = super().default_schema(schema)
        if generated.get("default", ...) is None:
            del generated["default"]
        return generated

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def model_schema(self, schema: core_schema.ModelSchema) -> JSONDict:
        generated = super().model_schema(schema)
        generated.pop("title", None)
        generated.pop("description", None)  # the tool's description says it
        generated.setdefault("required", [])
        return generated


def _integral_float_to_int(value: Any) -> Any:
    # JSON Schema counts 2.0 as an integer; pydantic's strict mode would not.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# A text argument must have at least one non-space character. ``pattern`` (unlike
# ``minLength``) survives OpenAI's strict mode, so the strict schema says it too.
NonBlankText = Annotated[str, Field(min_length=1, pattern=r"\S")]
ShortText = Annotated[str, Field(min_length=1, max_length=200, pattern=r"\S")]
UnitInterval = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
RecallLimit = Annotated[int, Field(ge=1, le=100), BeforeValidator(_integral_float_to_int)]


class ToolArguments(BaseModel):
    """Base of the five argument models: unknown arguments are refused and types are taken
    as JSON gives them (no ``"3"`` for 3, no ``true`` for 1). ``model_json_schema()``
    returns the published schema."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    tool_name: ClassVar[str]

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> JSONDict:
        """The published schema (pass ``schema_generator=`` for pydantic's own form)."""
        if len(args) < 3:
            kwargs.setdefault("schema_generator", ToolArgumentsSchema)
        return super().model_json_schema(*args, **kwargs)

    def arguments(self) -> JSONDict:
        """The arguments that were given (optional ones left out or ``null`` are absent)."""
        return self.model_dump(exclude_unset=True, exclude_none=True)


class StoreArguments(ToolArguments):
    """Arguments of ``zenbrain_store``."""

    tool_name: ClassVar[str] = "zenbrain_store"

    content: NonBlankText = Field(description="The text to remember.")
    type: StoreType = Field(
        default="auto",
        description="Which kind of memory; 'auto' routes by the rules above.",
    )
    context: ShortText | None = Field(
        default=None, description="Domain or situation, e.g. 'work' or 'personal'."
    )
    confidence: UnitInterval | None = Field(
        default=None, description="How sure the fact is, 0..1; above 0.9 routes to core."
    )
    emotional_weight: UnitInterval | None = Field(
        default=None, description="How much it mattered, 0..1; above 0.5 routes to episode."
    )
    source: ShortText | None = Field(default=None, description="Where the information came from.")
    steps: list[NonBlankText] | None = Field(
        default=None, description="Steps of a procedure, in order; makes it a procedure."
    )
    tools: list[NonBlankText] | None = Field(default=None, description="Tools a procedure uses.")
    outcome: str | None = Field(default=None, description="What a procedure achieves.")


class RecallArguments(ToolArguments):
    """Arguments of ``zenbrain_recall``."""

    tool_name: ClassVar[str] = "zenbrain_recall"

    query: NonBlankText = Field(description="What to look for.")
    layers: list[RecallLayer] | None = Field(
        default=None,
        min_length=1,
        description="Layers to search; default episodic, semantic, procedural and core.",
    )
    limit: RecallLimit = Field(default=10, description="Most results to return.")
    min_score: UnitInterval = Field(
        default=0, description="Drop results scoring below this; above 0 drops fill-ins."
    )
    min_confidence: UnitInterval = Field(
        default=0, description="Drop facts less certain than this."
    )
    core: Literal["always", "matching"] = Field(
        default="always",
        description="'always': every core block competes; 'matching': only blocks sharing a "
        "word with the query.",
    )
    current_only: bool = Field(
        default=False,
        description="Leave out memories that a newer one replaced (their valid_to is set).",
    )


class ForgetArguments(ToolArguments):
    """Arguments of ``zenbrain_forget``."""

    tool_name: ClassVar[str] = "zenbrain_forget"

    id: NonBlankText = Field(description="Id from a zenbrain_recall result.")
    layer: ForgetLayer = Field(description="Layer from the same zenbrain_recall result.")


class ConsolidateArguments(ToolArguments):
    """``zenbrain_consolidate`` takes no arguments."""

    tool_name: ClassVar[str] = "zenbrain_consolidate"


class HealthArguments(ToolArguments):
    """``zenbrain_health`` takes no arguments."""

    tool_name: ClassVar[str] = "zenbrain_health"


# ------------------------------------------------------------------------------- validation


def printable(text: str) -> str:
    # Error messages go back over JSON/UTF-8 transports: never echo a lone surrogate.
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def show(value: Any) -> str:
    """A short JSON rendering of a rejected value for an error message."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        # str() of a huge int is slow and refused past 4,300 digits: say its size instead.
        if value.bit_length() < 14_000:
            return f"an integer of {len(str(abs(value)))} digits"
        return f"an integer of about {int(math.log10(abs(value))) + 1} digits"
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except (ValueError, TypeError, RecursionError):  # RecursionError: nested too deep
        text = shown(value)
    text = printable(text)
    return text if len(text) <= 60 else text[:57] + "..."


def _where(location: tuple[int | str, ...]) -> str:
    name, *rest = location
    return f"argument {name!r}" + "".join(f"[{index}]" for index in rest)


def _property_schema(parameters: JSONDict, location: tuple[int | str, ...]) -> JSONDict:
    schema: JSONDict = parameters.get("properties", {}).get(location[0], {})
    for _ in location[1:]:
        schema = schema.get("items", {})
    return schema


def _range(schema: JSONDict) -> str:
    return f"between {schema.get('minimum')} and {schema.get('maximum')}"


def _problem(error: Any, parameters: JSONDict) -> str:
    """One pydantic error as a sentence a model can act on."""
    location = tuple(error["loc"])
    where = _where(location)
    kind = error["type"]
    value = error.get("input")
    schema = _property_schema(parameters, location)
    if kind in ("string_too_short", "string_pattern_mismatch"):
        return f"{where} must not be empty or only spaces."
    if kind == "string_too_long":
        limit = error.get("ctx", {}).get("max_length")
        return f"{where} must be at most {limit} characters, got {len(value)}."
    if kind == "string_unicode":
        return (
            f"{where} is not valid Unicode text (it contains a lone surrogate such as "
            f"{show(value)}); send the text as proper UTF-8."
        )
    if kind == "string_type":
        return f"{where} must be a string, got {show(value)}."
    if kind == "literal_error":
        choices = ", ".join(json.dumps(choice) for choice in schema.get("enum", []))
        return f"{where} must be one of {choices}, got {show(value)}."
    if kind in ("list_type",):
        return f"{where} must be an array, got {show(value)}."
    if kind == "too_short":
        return f"{where} must list at least {schema.get('minItems', 1)} item(s)."
    if schema.get("type") == "integer":
        return f"{where} must be an integer {_range(schema)}, got {show(value)}."
    if schema.get("type") == "number":
        return f"{where} must be a number {_range(schema)}, got {show(value)}."
    return f"{where}: {error['msg']} (got {show(value)})."  # pragma: no cover - safety net


def _describe(error: ValidationError, name: str, parameters: JSONDict) -> str:
    errors = error.errors(include_url=False)
    unknown = [str(e["loc"][0]) for e in errors if e["type"] == "extra_forbidden"]
    missing = [str(e["loc"][0]) for e in errors if e["type"] == "missing"]
    sentences: list[str] = []
    if unknown:
        accepted = ", ".join(parameters["properties"]) or "none"
        names = ", ".join(printable(n) for n in unknown)
        sentences.append(f"{name} got unknown argument(s) {names}; it accepts: {accepted}.")
    sentences.extend(f"{name} is missing the required argument {n!r}." for n in missing)
    sentences.extend(
        _problem(e, parameters) for e in errors if e["type"] not in ("extra_forbidden", "missing")
    )
    return " ".join(sentences)


def _parse_json(arguments: str | Mapping[str, Any] | None) -> Mapping[str, Any]:
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
        except ValueError:  # the one other refusal: an integer over 4,300 digits
            raise InvalidInputError(
                "The arguments must be a JSON object; could not parse them: a number in "
                "them is too long (over 4,300 digits)."
            ) from None
    if not isinstance(arguments, Mapping):
        raise InvalidInputError(
            f"The arguments must be a JSON object, got {type(arguments).__name__}."
        )
    return arguments


ARGUMENT_MODELS: Mapping[str, type[ToolArguments]] = {
    model.tool_name: model
    for model in (
        StoreArguments,
        RecallArguments,
        ForgetArguments,
        ConsolidateArguments,
        HealthArguments,
    )
}
_SCHEMAS: dict[type[ToolArguments], JSONDict] = {}


def published_schema(model: type[ToolArguments]) -> JSONDict:
    """The JSON Schema ``model`` generates, made once (treat it as read-only)."""
    if model not in _SCHEMAS:
        _SCHEMAS[model] = model.model_json_schema()
    return _SCHEMAS[model]


def unknown_tool_message(name: object) -> str:
    return f"There is no tool named {show(name)}; the tools are {', '.join(ARGUMENT_MODELS)}."


def parse_arguments(name: str, arguments: str | Mapping[str, Any] | None) -> ToolArguments:
    """Validate ``arguments`` (a JSON object as text or a mapping; ``null`` for an optional
    argument means "not given") for the tool ``name``. Raises :class:`InvalidInputError`
    with a message that names each bad argument, what was expected and what came."""
    model = ARGUMENT_MODELS.get(name) if isinstance(name, str) else None
    if model is None:
        raise InvalidInputError(unknown_tool_message(name))
    parsed = _parse_json(arguments)
    bad_names = [key for key in parsed if not isinstance(key, str) or printable(key) != key]
    if bad_names:
        raise InvalidInputError(
            f"{name} got argument name(s) that are not valid text: "
            f"{', '.join(show(key) for key in bad_names)}."
        )
    if name == "zenbrain_forget" and parsed.get("layer") == "working":
        raise InvalidInputError(
            "Working-memory slots are copies and cannot be forgotten on their own; "
            "forget the long-term result (layer episodic, semantic, procedural or core) "
            "and its working-memory copies go with it."
        )
    given = {key: value for key, value in parsed.items() if value is not None}
    try:
        return model.model_validate(given)
    except ValidationError as exc:
        raise InvalidInputError(_describe(exc, name, published_schema(model))) from None
