"""``ZenBrainSession``: the Agents SDK ``Session`` protocol on zenbrain's short-term layer.

Every item of a run (user and assistant messages, tool calls, tool outputs, reasoning) is
added to the coordinator's short-term layer as one interaction: its role, its text, and
the item itself, verbatim, in ``metadata["item"]``. The short-term layer keeps a session's
whole transcript in the store (its window of 50 is only what ``conversation()`` shows by
default), so ``get_items`` hands back exactly what ``add_items`` got, in order, however
long the conversation, and a new process on the same database sees it again.

The text of each user turn is also stored in long-term memory with ``store``, where routing
files it as a fact, episode, procedure or core block and ``recall`` finds it from any later
session. ``pop_item`` and ``clear_session`` edit the history only: what a user said stays
remembered until it is forgotten with ``forget`` (or the ``zenbrain_forget`` tool).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from agents.memory.session_settings import SessionSettings, resolve_session_limit

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError
from zenbrain.types import Interaction

if TYPE_CHECKING:
    from agents.items import TResponseInputItem

__all__ = ["ZenBrainSession", "item_role", "item_text"]

# conversation() shows the window of 50 unless asked for more; this asks for everything.
_WHOLE_TRANSCRIPT = 10**9


def item_role(item: Mapping[str, Any]) -> str:
    """The role a session item is recorded under: a message's role (``user``,
    ``assistant``, ...), else the item's type (``function_call``, ``reasoning``, ...)."""
    role = item.get("role")
    if isinstance(role, str) and role:
        return role
    kind = item.get("type")
    return kind if isinstance(kind, str) and kind else "item"


def item_text(item: Mapping[str, Any]) -> str:
    """A readable text for an item: a message's text (string content or its text parts),
    a tool call as ``name arguments``, a tool output as its text, else empty."""
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part["text"]
            for part in content
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
        )
    if item.get("type") == "function_call":
        return f"{item.get('name', '')} {item.get('arguments', '')}".strip()
    output = item.get("output")
    if isinstance(output, str):
        return output
    if output is not None:
        return json.dumps(output, ensure_ascii=False, default=str)
    return ""


def _as_item(interaction: Interaction) -> dict[str, Any]:
    item = interaction.metadata.get("item")
    if isinstance(item, dict):
        return item
    # Added to this session by other code (add_interaction without an item): a plain message.
    return {"role": interaction.role, "content": interaction.content}


class ZenBrainSession:
    """An Agents SDK session whose history and long-term memory live in zenbrain.

    ``Runner.run(agent, "...", session=ZenBrainSession("user-42", memory))``: the history is
    the short-term session ``"user-42"`` of ``memory``'s namespace. ``remember_user_turns``
    (default on) stores each user turn in long-term memory, with ``context`` (e.g.
    ``"work"``) passed to ``store``.
    """

    def __init__(
        self,
        session_id: str,
        coordinator: MemoryCoordinator,
        *,
        remember_user_turns: bool = True,
        context: str | None = None,
        session_settings: SessionSettings | None = None,
    ) -> None:
        if not isinstance(session_id, str) or not session_id.strip() or len(session_id) > 200:
            raise InvalidInputError(
                f"session_id must be a non-empty string of at most 200 characters, got "
                f"{session_id!r}; use a stable id per conversation such as a thread id."
            )
        self.session_id = session_id
        self.coordinator = coordinator
        self.remember_user_turns = remember_user_turns
        self.context = context
        self.session_settings = session_settings
        # A view of the same store with its own "current session", so this session's
        # history never lands in another session that the caller's coordinator switched to.
        self._history = coordinator.for_namespace(coordinator.namespace)
        self._history_ready = False
        self._lock = asyncio.Lock()

    async def _ready(self) -> MemoryCoordinator:
        if not self._history_ready:
            await self._history.astart_session(self.session_id)
            self._history_ready = True
        return self._history

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The history, oldest first; with ``limit``, only the latest ``limit`` items."""
        limit = resolve_session_limit(limit, self.session_settings)
        if limit is not None and limit <= 0:
            return []
        async with self._lock:
            history = await self._ready()
            interactions = await history.aconversation(
                _WHOLE_TRANSCRIPT if limit is None else limit
            )
        return [_as_item(interaction) for interaction in interactions]  # type: ignore[misc]

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Append ``items`` to the history, in order, and store user turns in long-term
        memory."""
        if not items:
            return
        plain: list[dict[str, Any]] = [dict(item) for item in items]
        async with self._lock:
            history = await self._ready()
            for item in plain:
                await history.aadd_interaction(item_role(item), item_text(item), {"item": item})
            if self.remember_user_turns:
                await self._remember_user_turns(plain)

    async def _remember_user_turns(self, items: list[dict[str, Any]]) -> None:
        for item in items:
            text = item_text(item).strip()
            if item.get("role") == "user" and text:
                await self.coordinator.astore(
                    text,
                    context=self.context,
                    source=f"openai-agents session {self.session_id}",
                    metadata={"session_id": self.session_id},
                )

    async def pop_item(self) -> TResponseInputItem | None:
        """Remove and return the newest item, or ``None`` when the history is empty."""
        async with self._lock:
            history = await self._ready()
            interaction = await history.apop_interaction()
        return None if interaction is None else _as_item(interaction)  # type: ignore[return-value]

    async def clear_session(self) -> None:
        """Drop this session's history (long-term memories stay)."""
        async with self._lock:
            await self._history.aclear_session(self.session_id)
