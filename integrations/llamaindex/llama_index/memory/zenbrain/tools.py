"""zenbrain's five memory tools as LlamaIndex ``FunctionTool`` objects.

Generated from :data:`zenbrain.tools.TOOLS`, the definition the MCP server, the OpenAI
tools, the Agents SDK and LangChain share: same names and descriptions, and each tool's
``fn_schema`` is its zenbrain argument model, so the LLM sees the same JSON Schema. Calls go
through :func:`zenbrain.tools.dispatch` / :func:`~zenbrain.tools.adispatch`, which never
raise: a bad call comes back to the agent as ``{"error": {"type", "message"}}`` text it can
read and correct.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from llama_index.core.tools import FunctionTool, ToolMetadata

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError
from zenbrain.tools import TOOL_NAMES, TOOLS, ToolDefinition, adispatch, dispatch

__all__ = ["zenbrain_tool", "zenbrain_tools"]


def _as_json(result: Any) -> str:
    return json.dumps(result, ensure_ascii=False)


def zenbrain_tool(
    coordinator: MemoryCoordinator, definition: ToolDefinition, *, namespace: str | None = None
) -> FunctionTool:
    """One tool definition bound to ``coordinator`` (in ``namespace`` of its store, when
    given). The tool's ``raw_output`` is the result dict; its content is the JSON text."""
    name = definition.name

    def call(**arguments: Any) -> dict[str, Any]:
        return dispatch(coordinator, name, arguments, namespace=namespace)

    async def acall(**arguments: Any) -> dict[str, Any]:
        return await adispatch(coordinator, name, arguments, namespace=namespace)

    call.__name__ = acall.__name__ = name
    return FunctionTool(
        fn=call,
        async_fn=acall,
        metadata=ToolMetadata(
            name=name, description=definition.description, fn_schema=definition.arguments_model
        ),
        callback=_as_json,
        async_callback=_ajson,
    )


async def _ajson(result: Any) -> str:
    return _as_json(result)


def zenbrain_tools(
    coordinator: MemoryCoordinator,
    *,
    names: Iterable[str] | None = None,
    namespace: str | None = None,
) -> list[FunctionTool]:
    """LlamaIndex tools for ``coordinator``: all five (``zenbrain_store``,
    ``zenbrain_recall``, ``zenbrain_forget``, ``zenbrain_consolidate``,
    ``zenbrain_health``) or those in ``names``, for ``FunctionAgent(tools=...)``.
    ``namespace`` runs them in that namespace of the coordinator's store (e.g. per user)."""
    wanted = list(TOOL_NAMES) if names is None else list(names)
    unknown = [name for name in wanted if name not in TOOL_NAMES]
    if unknown:
        raise InvalidInputError(
            f"Unknown zenbrain tool name(s) {unknown}; expected some of {list(TOOL_NAMES)}."
        )
    by_name = {definition.name: definition for definition in TOOLS}
    return [zenbrain_tool(coordinator, by_name[name], namespace=namespace) for name in wanted]
