"""``ZenBrainSession``: the Agents SDK ``Session`` protocol on zenbrain's short-term layer.

Every item of a run (user and assistant messages, tool calls, tool outputs, reasoning) is
added to the coordinator's short-term layer as one interaction: its role, its text, and
the item itself, as JSON text, in ``metadata["item"]`` (without its text when that is the
interaction's content already, ``metadata["text_at"]`` saying where). The short-term layer
keeps a session's whole transcript in the store (its window of 50 is only what
``conversation()`` shows by default), so ``get_items`` hands back exactly what
``add_items`` got, in order, however long the conversation, and a new process on the same
database sees it again.

User turns that state something (:func:`zenbrain.layers.worth_remembering`) are
also stored in long-term memory, in the same transaction as the history, where routing
files them as facts, episodes, procedures or core blocks and ``recall`` finds them from any
later session; questions are not, so a user's question never comes back as a "fact" in
the turn that asked it. ``pop_item`` and ``clear_session`` edit the history only: what a
user said stays remembered until it is forgotten with ``forget`` (or the
``zenbrain_forget`` tool).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from agents.memory.session_settings import SessionSettings, resolve_session_limit

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError
from zenbrain.types import Interaction

if TYPE_CHECKING:
    from agents.items import TResponseInputItem

__all__ = ["ZenBrainSession", "item_role", "item_text"]

logger = logging.getLogger("zenbrain_openai_agents")

# What no back end stores in text (zenbrain refuses it): shown as U+FFFD in the readable
# copy, kept exactly in the item's JSON.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
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


def _text_place(item: Mapping[str, Any]) -> list[str | int] | None:
    """Where an item holds its one text (the string ``content``, the only text part of a
    list ``content``, or a string ``output``), or None when it has no single such place."""
    content = item.get("content")
    if isinstance(content, str):
        return ["content"]
    if isinstance(content, list):
        texts = [
            i
            for i, part in enumerate(content)
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
        ]
        return ["content", texts[0], "text"] if len(texts) == 1 else None
    if item.get("type") != "function_call" and isinstance(item.get("output"), str):
        return ["output"]
    return None


def _put(item: Any, place: list[Any], text: str) -> None:
    for step in place[:-1]:
        item = item[step]
    item[place[-1]] = text


def _as_item(interaction: Interaction) -> dict[str, Any]:
    item = interaction.metadata.get("item")
    if isinstance(item, str):
        try:
            item = json.loads(item)
        except ValueError:
            item = None
    if isinstance(item, dict):
        place = interaction.metadata.get("text_at")
        if isinstance(place, list) and place:
            # Edited by other code so that the place is gone: the item as it was kept.
            with contextlib.suppress(KeyError, IndexError, TypeError):
                _put(item, place, interaction.content)
        return item
    # Added to this session by other code (add_interaction without an item): a plain message.
    return {"role": interaction.role, "content": interaction.content}


def _as_turn(item: Mapping[str, Any]) -> dict[str, Any]:
    # The item is kept as ASCII JSON text, the way SQLiteSession keeps it, so get_items
    # returns an equal item, whatever it holds (even half of a surrogate pair or a NUL).
    plain = json.loads(json.dumps(item, default=str))
    text = item_text(plain)
    readable = _UNSTORABLE.sub("\ufffd", text)
    metadata: dict[str, Any] = {}
    place = _text_place(plain)
    if place is not None and readable == text:
        # The text is the interaction's content already: the item's copy of it is left
        # out, so a turn of a million characters is kept (as SQLiteSession keeps it)
        # instead of counting twice against the 1,000,000-character metadata limit.
        _put(plain, place, "")
        metadata["text_at"] = place
    metadata["item"] = json.dumps(plain)
    return {"role": item_role(plain), "content": readable, "metadata": metadata}


class ZenBrainSession:
    """An Agents SDK session whose history and long-term memory live in zenbrain.

    ``Runner.run(agent, "...", session=ZenBrainSession("user-42", memory))``: the history is
    the short-term session ``"user-42"`` of ``memory``'s namespace. With
    ``remember_user_turns`` (default on), the user turns that state something (see
    :func:`zenbrain.layers.worth_remembering`: not questions, greetings or
    one-off commands) are stored in long-term memory in the same transaction as the
    history.
    """

    def __init__(
        self,
        session_id: str,
        coordinator: MemoryCoordinator,
        *,
        remember_user_turns: bool = True,
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
        self.session_settings = session_settings

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The history, oldest first; with ``limit``, only the latest ``limit`` items (as
        ``SQLiteSession``: 0 gives none, a negative limit everything)."""
        limit = resolve_session_limit(limit, self.session_settings)
        if limit == 0:
            return []
        count = _WHOLE_TRANSCRIPT if limit is None or limit < 0 else limit
        interactions = await self.coordinator.aconversation(count, session_id=self.session_id)
        return [_as_item(interaction) for interaction in interactions]  # type: ignore[misc]

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Append ``items`` to the history, in order, in one transaction that also stores
        the user turns worth remembering in long-term memory.

        Should zenbrain refuse to remember a turn, the items are still added, without the
        long-term side effect, and a warning is logged: a memory never costs the
        conversation its history, and nothing is half written. A message's or tool output's
        text is kept however long; an item whose other fields (a tool call's arguments,
        several text parts) pass 1,000,000 characters as JSON is refused as a whole
        (:class:`InvalidInputError`, nothing of the call written).
        """
        if not items:
            return
        turns = [_as_turn(item) for item in items]
        if self.remember_user_turns:
            try:
                await self.coordinator.aadd_interactions(
                    turns, session_id=self.session_id, remember=True
                )
                return
            except InvalidInputError as exc:
                logger.warning(
                    "zenbrain: session %s: items kept without long-term memory: %s",
                    self.session_id,
                    exc,
                )
        await self.coordinator.aadd_interactions(turns, session_id=self.session_id)

    async def pop_item(self) -> TResponseInputItem | None:
        """Remove and return the newest item, or ``None`` when the history is empty."""
        interaction = await self.coordinator.apop_interaction(session_id=self.session_id)
        return None if interaction is None else _as_item(interaction)  # type: ignore[return-value]

    async def clear_session(self) -> None:
        """Drop this session's history (long-term memories stay)."""
        await self.coordinator.aclear_session(self.session_id)
