"""``ZenBrainChatMessageHistory``: a LangChain chat history kept in zenbrain's short-term
layer, one history per session id."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
from zenbrain.layers import worth_remembering
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
#: The ``source`` of the long-term memories a history stores.
SOURCE = "langchain-chat-history"
# ``conversation`` returns the latest ``limit`` interactions: this many is every one.
_WHOLE_SESSION = 10**9


class ZenBrainChatMessageHistory(BaseChatMessageHistory):
    """Chat history of one session, persisted in zenbrain's short-term layer.

    Messages are appended with ``add_interactions(..., session_id=session_id)`` and read back
    with ``conversation(session_id=session_id)``, so a new coordinator on the same database
    (after a restart) sees the same history. ``messages`` is the whole session, like every
    LangChain history (``window=`` returns only the latest messages instead). The session is
    always named explicitly: it never becomes the coordinator's own current session, nor
    is it changed by it. Creating a history writes nothing.

    With ``remember=True`` (default) the user's messages that ``should_remember(role,
    content)`` accepts are also stored into long-term memory, where zenbrain routes them to
    facts, episodes or procedures. The default rule is the core's
    :func:`zenbrain.layers.worth_remembering`: statements about the user,
    preferences, decisions, standing instructions and explicit "remember that..." requests;
    not questions, small talk, one-off commands or what the assistant said. ``clear()``
    empties the session; what went into long-term memory stays (``coordinator.forget``).
    """

    def __init__(
        self,
        coordinator: MemoryCoordinator,
        session_id: str,
        *,
        remember: bool = True,
        should_remember: Callable[[str, str], bool] = worth_remembering,
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
        if not isinstance(remember, bool):
            raise InvalidInputError(
                f"remember must be True or False, got {remember!r}; pass "
                "should_remember=callable(role, content) to choose what is remembered."
            )
        if not callable(should_remember):
            raise InvalidInputError("should_remember must be a callable(role, content) -> bool.")
        if window is not None and (
            isinstance(window, bool) or not isinstance(window, int) or window < 1
        ):
            raise InvalidInputError(
                f"window must be a positive whole number or None, got {window!r}."
            )
        super().__init__()
        self.coordinator = coordinator
        self.session_id = session_id
        self.remember = remember
        self.should_remember = should_remember
        self.context = context
        self.window = window

    # ------------------------------------------------------------------ read
    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """The session's messages, oldest first (the latest ``window`` if one is set)."""
        interactions = self.coordinator.conversation(self._limit, session_id=self.session_id)
        return [_message(item) for item in interactions]

    async def aget_messages(self) -> list[BaseMessage]:
        interactions = await self.coordinator.aconversation(self._limit, session_id=self.session_id)
        return [_message(item) for item in interactions]

    @property
    def _limit(self) -> int:
        return self.window if self.window is not None else _WHOLE_SESSION

    # ------------------------------------------------------------------ write
    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        batch = _checked(messages)
        if not batch:
            return
        self.coordinator.add_interactions(_turns(batch), session_id=self.session_id)
        remembered = self._to_remember(batch)
        if remembered:
            self.coordinator.store_many(remembered)

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        batch = _checked(messages)
        if not batch:
            return
        await self.coordinator.aadd_interactions(_turns(batch), session_id=self.session_id)
        remembered = self._to_remember(batch)
        if remembered:
            await self.coordinator.astore_many(remembered)

    def clear(self) -> None:
        self.coordinator.clear_session(self.session_id)

    async def aclear(self) -> None:
        await self.coordinator.aclear_session(self.session_id)

    # ------------------------------------------------------------------ helpers
    def _to_remember(self, batch: list[BaseMessage]) -> list[dict[str, Any]]:
        if not self.remember:
            return []
        items = []
        for message in batch:
            role, text = _role(message), message.text.strip()
            if text and self.should_remember(role, text):
                metadata: dict[str, Any] = {"session_id": self.session_id, "role": role}
                if message.id is not None:
                    metadata["message_id"] = message.id
                items.append(
                    {
                        "content": text,
                        "context": self.context,
                        "conversation": self.session_id,
                        "source": SOURCE,
                        "metadata": metadata,
                    }
                )
        return items

    def __repr__(self) -> str:
        return f"ZenBrainChatMessageHistory(session_id={self.session_id!r}, {self.coordinator!r})"


def _turns(batch: list[BaseMessage]) -> list[dict[str, Any]]:
    return [
        {
            "role": _role(message),
            "content": message.text,
            "metadata": {MESSAGE_METADATA_KEY: message_to_dict(message)},
        }
        for message in batch
    ]


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
