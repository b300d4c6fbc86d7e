"""``ZenBrainChatMessageHistory``: a LangChain chat history kept in zenbrain's short-term
layer, one history per session id."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    message_to_dict,
    messages_from_dict,
)

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError
from zenbrain.types import Interaction

__all__ = ["MESSAGE_METADATA_KEY", "ZenBrainChatMessageHistory"]

#: Interaction metadata key holding the full serialised LangChain message, so tool calls,
#: ids and content blocks come back exactly as they went in.
MESSAGE_METADATA_KEY = "langchain_message"

# LangChain message types -> the role names zenbrain (and most chat APIs) use.
_ROLE_OF_TYPE = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}
_MESSAGE_OF_ROLE: dict[str, type[BaseMessage]] = {
    "user": HumanMessage,
    "human": HumanMessage,
    "assistant": AIMessage,
    "ai": AIMessage,
    "system": SystemMessage,
}
_MESSAGE_TYPES = frozenset({"human", "ai", "system", "tool", "function", "chat"})


class ZenBrainChatMessageHistory(BaseChatMessageHistory):
    """Chat history of one session, persisted in zenbrain's short-term layer.

    Messages are stored with ``add_interaction`` under ``session_id`` and read back with
    ``conversation``; because zenbrain persists sessions, a new coordinator on the same
    database (after a restart) sees the same history. ``messages`` returns the latest
    ``window`` messages (zenbrain's short-term window of 50 by default).

    Messages whose type is in ``remember`` (human messages by default) are also stored
    into long-term memory through ``coordinator.store``, where zenbrain's routing files them
    as facts, episodes or procedures. ``clear()`` empties the session's history; what went
    into long-term memory stays there (forget it with ``coordinator.forget``).
    """

    def __init__(
        self,
        coordinator: MemoryCoordinator,
        session_id: str,
        *,
        remember: Collection[str] = ("human",),
        context: str | None = None,
        window: int | None = None,
    ) -> None:
        if not isinstance(coordinator, MemoryCoordinator):
            raise InvalidInputError(
                "ZenBrainChatMessageHistory needs a zenbrain.MemoryCoordinator, "
                f"got {type(coordinator).__name__}."
            )
        if not isinstance(session_id, str) or not session_id.strip():
            raise InvalidInputError(f"session_id must be a non-empty string, got {session_id!r}.")
        if isinstance(remember, str):
            remember = (remember,)
        unknown = set(remember) - _MESSAGE_TYPES
        if unknown:
            raise InvalidInputError(
                f"remember names unknown message type(s) {sorted(unknown)}; "
                f"use some of {sorted(_MESSAGE_TYPES)}."
            )
        if window is not None and (isinstance(window, bool) or not isinstance(window, int)):
            raise InvalidInputError(f"window must be a whole number or None, got {window!r}.")
        super().__init__()
        self.coordinator = coordinator
        self.session_id = session_id
        self.remember = frozenset(remember)
        self.context = context
        self.window = window
        # A private view of the same namespace and connection pool: it carries its own
        # "current session", so histories of different sessions (and the coordinator's own
        # session) never switch each other's session, even when used from several threads.
        self._session_view = coordinator.for_namespace(coordinator.namespace)
        self._session_view.start_session(session_id)

    # ------------------------------------------------------------------ read
    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """The session's latest messages, oldest first."""
        return [_message(item) for item in self._session_view.conversation(self.window)]

    async def aget_messages(self) -> list[BaseMessage]:
        interactions = await self._session_view.aconversation(self.window)
        return [_message(item) for item in interactions]

    # ------------------------------------------------------------------ write
    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        batch = _checked(messages)
        for message in batch:
            self._session_view.add_interaction(
                _role(message), message.text, {MESSAGE_METADATA_KEY: message_to_dict(message)}
            )
        for message in batch:
            if self._remembers(message):
                self.coordinator.store(message.text, **self._store_options(message))

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        batch = _checked(messages)
        for message in batch:
            await self._session_view.aadd_interaction(
                _role(message), message.text, {MESSAGE_METADATA_KEY: message_to_dict(message)}
            )
        for message in batch:
            if self._remembers(message):
                await self.coordinator.astore(message.text, **self._store_options(message))

    def clear(self) -> None:
        self._session_view.clear_session(self.session_id)

    async def aclear(self) -> None:
        await self._session_view.aclear_session(self.session_id)

    # ------------------------------------------------------------------ helpers
    def _remembers(self, message: BaseMessage) -> bool:
        return message.type in self.remember and bool(message.text.strip())

    def _store_options(self, message: BaseMessage) -> dict[str, Any]:
        metadata: dict[str, Any] = {"session_id": self.session_id, "role": _role(message)}
        if message.id is not None:
            metadata["message_id"] = message.id
        return {"context": self.context, "source": "langchain-chat-history", "metadata": metadata}

    def __repr__(self) -> str:
        return f"ZenBrainChatMessageHistory(session_id={self.session_id!r}, {self.coordinator!r})"


def _checked(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    batch = list(messages)
    for message in batch:
        if not isinstance(message, BaseMessage):
            raise InvalidInputError(
                f"add_messages expects LangChain messages, got {type(message).__name__}."
            )
    return batch


def _role(message: BaseMessage) -> str:
    if isinstance(message, ChatMessage):
        return message.role
    return _ROLE_OF_TYPE.get(message.type, message.type)


def _message(interaction: Interaction) -> BaseMessage:
    stored = interaction.metadata.get(MESSAGE_METADATA_KEY)
    if isinstance(stored, dict):
        return messages_from_dict([stored])[0]
    # Written by another adapter or by add_interaction directly: rebuild from the role.
    message_class = _MESSAGE_OF_ROLE.get(interaction.role)
    if message_class is None:
        return ChatMessage(role=interaction.role, content=interaction.content)
    return message_class(content=interaction.content)
