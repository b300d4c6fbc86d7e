"""Putting zenbrain's core blocks into an agent's instructions.

Core blocks are the few pinned facts that belong in every conversation (the Letta/MemGPT
pattern). The Agents SDK accepts a callable as ``instructions`` and calls it before every
model turn, so blocks stored or changed during a run show up from the next turn on.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from agents import Agent, RunContextWrapper

from zenbrain import MemoryCoordinator

__all__ = ["DEFAULT_CORE_HEADER", "core_memory_instructions", "render_instructions"]

DEFAULT_CORE_HEADER = "Core memory (pinned facts that always apply):"

DynamicInstructions = Callable[[RunContextWrapper[Any], Agent[Any]], Awaitable[str]]


def render_instructions(base_instructions: str, core_context: str, header: str) -> str:
    """``base_instructions`` followed by the header and the core lines, if there are any."""
    base = base_instructions.rstrip()
    core = core_context.strip()
    if not core:
        return base
    return f"{base}\n\n{header}\n{core}" if base else f"{header}\n{core}"


def core_memory_instructions(
    coordinator: MemoryCoordinator,
    base_instructions: str = "",
    *,
    header: str = DEFAULT_CORE_HEADER,
) -> DynamicInstructions:
    """Dynamic instructions for ``Agent(instructions=...)``: ``base_instructions`` plus the
    coordinator's core blocks as ``[label]: content`` lines, read afresh on every turn."""

    async def instructions(_context: RunContextWrapper[Any], _agent: Agent[Any]) -> str:
        return render_instructions(base_instructions, await coordinator.acore_context(), header)

    return instructions
