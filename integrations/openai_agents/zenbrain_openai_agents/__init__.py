"""zenbrain memory for the OpenAI Agents SDK.

* :func:`memory_tools` — the five memory tools as ``FunctionTool`` objects;
* :class:`ZenBrainSession` — a ``Session`` whose history is kept losslessly in zenbrain's
  short-term layer and whose user turns flow into long-term memory;
* :func:`core_memory_instructions` — dynamic instructions carrying the core blocks.
"""

from .instructions import DEFAULT_CORE_HEADER, core_memory_instructions, render_instructions
from .session import ZenBrainSession, item_role, item_text
from .tools import NamespaceSource, memory_tool, memory_tools

__all__ = [
    "DEFAULT_CORE_HEADER",
    "NamespaceSource",
    "ZenBrainSession",
    "core_memory_instructions",
    "item_role",
    "item_text",
    "memory_tool",
    "memory_tools",
    "render_instructions",
]
