"""The five memory tools as Agents SDK ``FunctionTool`` objects.

Generated from :data:`zenbrain.tools.TOOLS`: the SDK sees the same names, descriptions and
(strict) argument schemas as every other surface, and each call runs through
:func:`zenbrain.tools.adispatch`, so bad arguments come back to the model as a readable
``{"error": ...}`` result instead of failing the run.
"""

from __future__ import annotations

import json
from typing import Any

from agents import FunctionTool, Tool
from agents.tool_context import ToolContext

from zenbrain import MemoryCoordinator
from zenbrain.tools import TOOLS, ToolDefinition, adispatch, strict_parameters

__all__ = ["memory_tool", "memory_tools"]


def memory_tool(
    coordinator: MemoryCoordinator, definition: ToolDefinition, *, strict: bool = True
) -> FunctionTool:
    """One tool definition bound to ``coordinator`` as a ``FunctionTool``."""

    async def invoke(_context: ToolContext[Any], arguments: str) -> str:
        result = await adispatch(coordinator, definition.name, arguments)
        return json.dumps(result, ensure_ascii=False)

    parameters = (
        strict_parameters(definition.parameters)
        if strict
        else json.loads(json.dumps(definition.parameters))
    )
    return FunctionTool(
        name=definition.name,
        description=definition.description,
        params_json_schema=parameters,
        on_invoke_tool=invoke,
        strict_json_schema=strict,
    )


def memory_tools(coordinator: MemoryCoordinator, *, strict: bool = True) -> list[Tool]:
    """``zenbrain_store``, ``zenbrain_recall``, ``zenbrain_forget``, ``zenbrain_consolidate``
    and ``zenbrain_health`` acting on ``coordinator``, ready for ``Agent(tools=...)``.

    ``strict`` (the default) sends OpenAI strict schemas: every argument present, optional
    ones as ``null``. Each entry is a ``FunctionTool`` (typed as ``Tool`` so the list can be
    passed straight to ``Agent(tools=...)``).
    """
    return [memory_tool(coordinator, definition, strict=strict) for definition in TOOLS]
