"""The five memory tools, defined once for every surface that exposes them.

OpenAI function calling, the OpenAI Agents SDK, the MCP server, LangChain and LlamaIndex all
publish these same definitions (name, description, JSON Schema of the arguments, JSON Schema
of the result, behaviour hints) and run calls through :func:`dispatch` / :func:`adispatch`::

    from zenbrain import MemoryCoordinator
    from zenbrain.tools import dispatch, openai_chat_tools

    memory = MemoryCoordinator("memory.db")
    tools = openai_chat_tools()                       # pass to chat.completions.create(...)
    result = dispatch(memory, "zenbrain_recall", '{"query": "Kieler Foerde"}')

Each tool's arguments are a pydantic model (``TOOLS[i].arguments_model``, e.g.
:class:`StoreArguments`). The model is the single source: it *generates* the published JSON
Schema (``ToolDefinition.parameters``; ``StoreArguments.model_json_schema()`` gives the same)
and it validates every call. This is why pydantic is a core dependency of zenbrain; the
adapters reuse the models too (LangChain's ``args_schema``, for instance).

``dispatch`` never raises: an unknown tool, arguments that are not JSON or break the schema
(wrong types, unknown arguments, NaN, integers hundreds of digits long, text with lone
surrogates) and any exception from the store come back as
``{"error": {"type": ..., "message": ...}}`` so the model can read and correct its call.

The canonical argument schemas mark optional arguments by leaving them out of ``required``.
OpenAI's strict mode demands every property be required, so :func:`strict_parameters`
rewrites optional arguments as nullable; ``dispatch`` treats a ``null`` optional argument as
not given, so both forms are accepted everywhere. Strict mode also refuses ``minLength``:
text that must not be empty carries ``"pattern": "\\\\S"`` (at least one non-space
character) in both forms, which strict mode does accept, so a strict model cannot legally
send ``""``; a caller that sends it anyway gets an error result saying the text must not be
empty. ``maxLength`` is dropped from strict schemas and enforced by ``dispatch`` with an
error that gives the limit.

Tools act on the coordinator passed to each call, so one process can serve many users:
pass ``namespace=`` to run the call in that namespace of the same store (views are cached
per coordinator, so working memory survives between calls of the same user)::

    dispatch(memory, "zenbrain_store", {"content": "..."}, namespace=f"user:{user_id}")
"""

from zenbrain.tools._arguments import (
    FORGET_LAYERS,
    RECALL_LAYERS,
    STORE_TYPE_TO_LAYER,
    ConsolidateArguments,
    ForgetArguments,
    HealthArguments,
    RecallArguments,
    StoreArguments,
    ToolArguments,
    parse_arguments,
)
from zenbrain.tools._definitions import (
    TOOL_NAMES,
    TOOLS,
    ToolDefinition,
    get_tool,
    openai_chat_tools,
    openai_responses_tools,
    strict_output_schema,
    strict_parameters,
)
from zenbrain.tools._dispatch import adispatch, dispatch

__all__ = [
    "FORGET_LAYERS",
    "RECALL_LAYERS",
    "STORE_TYPE_TO_LAYER",
    "TOOLS",
    "TOOL_NAMES",
    "ConsolidateArguments",
    "ForgetArguments",
    "HealthArguments",
    "RecallArguments",
    "StoreArguments",
    "ToolArguments",
    "ToolDefinition",
    "adispatch",
    "dispatch",
    "get_tool",
    "openai_chat_tools",
    "openai_responses_tools",
    "parse_arguments",
    "strict_output_schema",
    "strict_parameters",
]
