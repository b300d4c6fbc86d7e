"""Request bodies that are the library's own values: a recall's body is a
:class:`~zenbrain.RecallQuery`, a store's a :class:`~zenbrain.StoreItem`, read by their
``from_json`` (the same checks and messages as the library) and published in the OpenAPI
document from the same dataclasses. A rejected body is a 422 problem naming the field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter

from zenbrain.errors import InvalidInputError
from zenbrain.operations import StoreItem

__all__ = [
    "MAX_BATCH",
    "batch_items",
    "batch_schema",
    "body_schema",
    "object_body",
    "split_off",
]

MAX_BATCH = 100_000  # memories in one batch request


def _value_schema(value: type[Any], **extra: Any) -> dict[str, Any]:
    """``value``'s JSON Schema as a closed object; ``extra`` adds properties."""
    schema = TypeAdapter(value).json_schema(ref_template="#/components/schemas/{model}")
    schema.pop("description", None)
    schema["properties"].update(extra)
    schema["additionalProperties"] = False
    return schema


def _request_body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


def body_schema(value: type[Any], **extra: Any) -> dict[str, Any]:
    """``openapi_extra`` publishing ``value``'s JSON Schema as a route's request body;
    ``extra`` adds properties (a replace's ``match``, for one)."""
    return _request_body(_value_schema(value, **extra))


def batch_schema() -> dict[str, Any]:
    """``openapi_extra`` of a batch: ``{"items": [...]}``, each a string or a store body."""
    item = {"anyOf": [{"type": "string"}, _value_schema(StoreItem)]}
    items = {"type": "array", "items": item}
    return _request_body(
        {
            "type": "object",
            "properties": {"items": items},
            "required": ["items"],
            "additionalProperties": False,
        }
    )


def object_body(body: object) -> dict[str, Any]:
    if not isinstance(body, Mapping):
        raise InvalidInputError(
            f"the request body must be a JSON object, got {type(body).__name__}"
        )
    return dict(body)


def split_off(body: object, name: str) -> tuple[Any, dict[str, Any]]:
    """``body[name]`` (required) and the rest of the object."""
    fields = object_body(body)
    if name not in fields:
        raise InvalidInputError(f"the request body needs {name!r}")
    return fields.pop(name), fields


def batch_items(body: object) -> list[StoreItem]:
    """``{"items": [...]}``: each a string or a store body, checked in order (the first bad
    one is named by its position, and nothing is stored)."""
    items, rest = split_off(body, "items")
    if rest:
        raise InvalidInputError(f"unknown field(s) {', '.join(map(repr, sorted(rest)))}")
    if not isinstance(items, list) or len(items) > MAX_BATCH:
        raise InvalidInputError(
            f"items must be a list of at most {MAX_BATCH:,} memories, got {type(items).__name__}"
            + (f" of {len(items):,}" if isinstance(items, list) else "")
        )
    checked = []
    for position, item in enumerate(items):
        try:
            checked.append(StoreItem(item) if isinstance(item, str) else StoreItem.from_json(item))
        except InvalidInputError as exc:
            raise InvalidInputError(f"item {position}: {exc}") from exc
    return checked
