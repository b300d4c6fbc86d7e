"""The five memory tools as Agents SDK ``FunctionTool`` objects.

Generated from :data:`zenbrain.tools.TOOLS`: the SDK sees the same names, descriptions,
(strict) argument schemas and result schemas (``output_json_schema``, sent to the Responses
API as the function's ``output_schema``) as every other surface. Each call runs through
:func:`zenbrain.tools.adispatch`, so bad arguments, and any other failure, come back to the
model as a readable ``{"error": ...}`` result instead of failing the run.

One process can serve many users: ``namespace=`` picks, per call, the namespace of the store
the tools act on, from the run context the application passed to ``Runner.run(...,
context=...)``::

    tools = memory_tools(memory, namespace=lambda ctx: f"user:{ctx.context.user_id}")
"""

from __future__ import annotations

import inspect
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from agents import FunctionTool, RunContextWrapper, Tool
from agents.tool_context import ToolContext

from zenbrain import MemoryCoordinator
from zenbrain.tools import (
    TOOLS,
    ToolDefinition,
    adispatch,
    strict_output_schema,
    strict_parameters,
)

__all__ = ["NamespaceSource", "memory_tool", "memory_tools"]

logger = logging.getLogger("zenbrain_openai_agents")

#: A fixed namespace, or a function of the run context (sync or async) returning one;
#: ``None`` from the function means the coordinator's own namespace.
NamespaceSource = (
    str | Callable[[RunContextWrapper[Any]], str | Awaitable[str | None] | None] | None
)


async def _namespace(source: NamespaceSource, context: RunContextWrapper[Any]) -> str | None:
    if source is None or isinstance(source, str):
        return source
    chosen = source(context)
    if inspect.isawaitable(chosen):
        chosen = await chosen
    return chosen


def memory_tool(
    coordinator: MemoryCoordinator,
    definition: ToolDefinition,
    *,
    strict: bool = True,
    namespace: NamespaceSource = None,
) -> FunctionTool:
    """One tool definition bound to ``coordinator`` (and ``namespace``) as a
    ``FunctionTool``."""

    async def invoke(context: ToolContext[Any], arguments: str) -> str:
        try:
            chosen = await _namespace(namespace, context)
        except Exception as exc:
            logger.exception("zenbrain: the namespace function failed")
            result: dict[str, Any] = {
                "error": {
                    "type": type(exc).__name__,
                    "message": f"Could not choose the memory namespace for this call: {exc}",
                }
            }
        else:
            result = await adispatch(coordinator, definition.name, arguments, namespace=chosen)
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
        output_json_schema=strict_output_schema(definition),
    )


def memory_tools(
    coordinator: MemoryCoordinator,
    *,
    strict: bool = True,
    namespace: NamespaceSource = None,
) -> list[Tool]:
    """``zenbrain_store``, ``zenbrain_recall``, ``zenbrain_forget``, ``zenbrain_consolidate``
    and ``zenbrain_health`` acting on ``coordinator``, ready for ``Agent(tools=...)``.

    ``strict`` (the default) sends OpenAI strict schemas: every argument present, optional
    ones as ``null``. ``namespace`` is a namespace of the same store, or a function of the
    run context (``RunContextWrapper``; sync or async) that returns one per call, e.g.
    ``lambda ctx: ctx.context.user_id``. Each entry is a ``FunctionTool`` (typed as ``Tool``
    so the list can be passed straight to ``Agent(tools=...)``).
    """
    return [
        memory_tool(coordinator, definition, strict=strict, namespace=namespace)
        for definition in TOOLS
    ]
