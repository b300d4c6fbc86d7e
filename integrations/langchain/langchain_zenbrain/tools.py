"""zenbrain's five memory tools as LangChain tools.

The tools are generated from :data:`zenbrain.tools.TOOLS`, the one definition the MCP server
and the OpenAI tools use too: same names, descriptions and JSON-schema arguments (each
tool's pydantic arguments model is its ``args_schema``). Calls go through
:func:`zenbrain.tools.dispatch`; an error it answers (``{"error": ...}``) becomes a
``ToolMessage`` with ``status="error"`` whose content is that JSON, so a model can read it
and correct its call.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool, ToolException
from langchain_core.tools.base import ArgsSchema
from pydantic import ValidationError
from pydantic.v1 import ValidationError as ValidationErrorV1

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError
from zenbrain.tools import TOOLS, ToolDefinition, adispatch, dispatch

__all__ = ["ZenBrainTool", "create_zenbrain_tools"]


class ZenBrainTool(StructuredTool):
    """A zenbrain memory tool. Its ``args_schema`` is the tool's pydantic arguments model
    (LangChain validates calls with it; ``get_input_schema()`` is specific); the schema a
    chat model is shown is the published one, as on every other surface (OpenAI, MCP)."""

    definition: ToolDefinition

    @property
    def tool_call_schema(self) -> ArgsSchema:
        # LangChain would otherwise rebuild the model and show optional arguments as
        # nullable; zenbrain publishes them as plain optional properties.
        return {**self.definition.parameters, "description": self.description}

    def _to_args_and_kwargs(
        self, tool_input: str | dict[str, Any], tool_call_id: str | None
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        # BaseTool drops every argument of a tool whose schema has no fields, so that
        # zenbrain_consolidate called with junk ran. Such a call goes on to dispatch, which
        # refuses it as it does on every other surface (and as MCP does).
        if not self.definition.arguments_model.model_fields and tool_input:
            if isinstance(tool_input, dict):
                return (), dict(tool_input)
            self.definition.arguments_model.model_validate(tool_input)  # raises: not a dict
        return super()._to_args_and_kwargs(tool_input, tool_call_id)


def _as_tool(coordinator: MemoryCoordinator, definition: ToolDefinition) -> ZenBrainTool:
    name = definition.name

    def call(**arguments: Any) -> tuple[str, dict[str, Any]]:
        return _answer(dispatch(coordinator, name, arguments))

    async def acall(**arguments: Any) -> tuple[str, dict[str, Any]]:
        return _answer(await adispatch(coordinator, name, arguments))

    return ZenBrainTool(
        definition=definition,
        name=name,
        description=definition.description,
        # The pydantic model that generates the published schema: LangChain validates
        # calls with it and get_input_schema() is specific to the tool.
        args_schema=definition.arguments_model,
        func=call,
        coroutine=acall,
        # The model reads the JSON text; the dict rides along as the ToolMessage artifact.
        response_format="content_and_artifact",
        metadata={"title": definition.title, "annotations": dict(definition.annotations)},
        # An error answer becomes a ToolMessage with status="error" whose content is the
        # JSON error object, so the model can read it and correct its call.
        handle_tool_error=True,
        handle_validation_error=_validation_error,
    )


def _answer(result: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    text = json.dumps(result, ensure_ascii=False)
    if "error" in result:
        raise ToolException(text)
    return text, result


def _validation_error(error: ValidationError | ValidationErrorV1) -> str:
    """Arguments LangChain's schema check refused, as the same JSON error object that
    :func:`zenbrain.tools.dispatch` gives for bad arguments."""
    problems = "; ".join(
        f"{'.'.join(str(part) for part in problem['loc']) or 'arguments'}: {problem['msg']}"
        for problem in error.errors()
    )
    return json.dumps(
        {"error": {"type": "InvalidInputError", "message": problems}}, ensure_ascii=False
    )


def create_zenbrain_tools(
    coordinator: MemoryCoordinator, *, names: Iterable[str] | None = None
) -> list[BaseTool]:
    """LangChain tools for ``coordinator``: all five (``zenbrain_store``, ``zenbrain_recall``,
    ``zenbrain_forget``, ``zenbrain_consolidate``, ``zenbrain_health``) or those in ``names``.

    Each tool answers with the JSON text of :func:`zenbrain.tools.dispatch`'s result (errors
    included, as ``{"error": {...}}``); called with a tool call, the returned ``ToolMessage``
    carries the result dict as its ``artifact``.
    """
    definitions = {definition.name: definition for definition in TOOLS}
    wanted = list(definitions) if names is None else list(names)
    unknown = [name for name in wanted if name not in definitions]
    if unknown:
        raise InvalidInputError(
            f"Unknown zenbrain tool name(s) {unknown}; expected some of {sorted(definitions)}."
        )
    return [_as_tool(coordinator, definitions[name]) for name in wanted]
