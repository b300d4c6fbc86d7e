"""``ZenBrainChatStore``: a LlamaIndex ``BaseChatStore`` kept in zenbrain's short-term layer.

Each chat key is a namespace of the zenbrain store (``key_prefix`` + key, so keys are listed
with ``namespaces(prefix)``) whose one short-term session holds the chat: one interaction
per message, with its role, its text and the whole message (``model_dump``) in the
metadata, so tool calls, images and ``additional_kwargs`` come back as they were put. The
chat lives in the database file (or PostgreSQL), so it survives a restart; use it wherever
LlamaIndex takes a ``chat_store`` (``ChatMemoryBuffer.from_defaults(chat_store=...,
chat_store_key=...)``, ``ChatSummaryMemoryBuffer``, ...).
"""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.bridge.pydantic import ConfigDict, Field
from llama_index.core.storage.chat_store.base import BaseChatStore

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError
from zenbrain.types import Interaction

from .messages import message_role, message_text

__all__ = ["SESSION", "ZenBrainChatStore"]

#: The short-term session that holds a key's chat inside its namespace.
SESSION = "llamaindex-chat"
# conversation() shows a window unless asked for more; a chat store returns everything.
_EVERYTHING = 10**9


def _turn(message: ChatMessage) -> dict[str, Any]:
    if not isinstance(message, ChatMessage):
        raise InvalidInputError(
            f"a chat store keeps llama_index ChatMessage objects, got {type(message).__name__}"
        )
    return {
        "role": message_role(message),
        "content": message_text(message),
        "metadata": {"message": message.model_dump(mode="json")},
    }


def _message(interaction: Interaction) -> ChatMessage:
    dumped = interaction.metadata.get("message")
    if isinstance(dumped, dict):
        return ChatMessage.model_validate(dumped)
    # Written by other code (add_interaction without a message): a plain text message.
    return ChatMessage(role=interaction.role, content=interaction.content)


class ZenBrainChatStore(BaseChatStore):
    """Chat histories in a zenbrain store, one namespace per key.

    ``ZenBrainChatStore(coordinator=memory)`` keeps the chat of key ``"ada"`` in namespace
    ``"llamaindex-chat/ada"`` of ``memory``'s store. Adding messages is one transaction;
    replacing (``set_messages``) and deleting one message in the middle rewrite the key's
    chat in two (clear, then write).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    coordinator: MemoryCoordinator = Field(
        exclude=True, description="The zenbrain memory whose store holds the chats."
    )
    key_prefix: str = Field(
        default="llamaindex-chat/",
        description="Prefix of the namespace that holds each key's chat.",
    )

    @classmethod
    def class_name(cls) -> str:
        return "ZenBrainChatStore"

    def _chat(self, key: str) -> MemoryCoordinator:
        if not isinstance(key, str) or not key:
            raise InvalidInputError(f"a chat key must be a non-empty string, got {key!r}")
        return self.coordinator.for_namespace(self.key_prefix + key)  # one view per key

    # ------------------------------------------------------------------ sync
    def set_messages(self, key: str, messages: list[ChatMessage]) -> None:
        """Replace the chat of ``key`` with ``messages``."""
        turns = [_turn(message) for message in messages]  # refuse bad input before clearing
        chat = self._chat(key)
        chat.clear_session(SESSION)
        chat.add_interactions(turns, session_id=SESSION)

    def get_messages(self, key: str) -> list[ChatMessage]:
        """The chat of ``key``, oldest first (empty for an unknown key)."""
        chat = self._chat(key)
        return [_message(i) for i in chat.conversation(_EVERYTHING, session_id=SESSION)]

    def add_message(self, key: str, message: ChatMessage, idx: int | None = None) -> None:
        """Append ``message`` (or insert it at ``idx``)."""
        if idx is None:
            self._chat(key).add_interactions([_turn(message)], session_id=SESSION)
            return
        messages = self.get_messages(key)
        messages.insert(idx, message)
        self.set_messages(key, messages)

    def delete_messages(self, key: str) -> list[ChatMessage] | None:
        """Delete the chat of ``key`` and return it; ``None`` if there was none."""
        if key not in self.get_keys():
            return None
        messages = self.get_messages(key)
        self._chat(key).drop_namespace()
        return messages

    def delete_message(self, key: str, idx: int) -> ChatMessage | None:
        """Delete and return the message at ``idx``; ``None`` if there is none."""
        messages = self.get_messages(key)
        if not messages or not -len(messages) <= idx < len(messages):
            return None
        removed = messages.pop(idx)
        self.set_messages(key, messages)
        return removed

    def delete_last_message(self, key: str) -> ChatMessage | None:
        """Delete and return the newest message; ``None`` if the chat is empty."""
        popped = self._chat(key).pop_interaction(session_id=SESSION)
        return None if popped is None else _message(popped)

    def get_keys(self) -> list[str]:
        """Every key with a chat in the store."""
        prefix = self.key_prefix
        return [ns[len(prefix) :] for ns in self.coordinator.namespaces(prefix)]

    # ------------------------------------------------------------------ async
    async def aset_messages(self, key: str, messages: list[ChatMessage]) -> None:
        turns = [_turn(message) for message in messages]
        chat = self._chat(key)
        await chat.aclear_session(SESSION)
        await chat.aadd_interactions(turns, session_id=SESSION)

    async def aget_messages(self, key: str) -> list[ChatMessage]:
        chat = self._chat(key)
        interactions = await chat.aconversation(_EVERYTHING, session_id=SESSION)
        return [_message(i) for i in interactions]

    async def async_add_message(
        self, key: str, message: ChatMessage, idx: int | None = None
    ) -> None:
        if idx is None:
            await self._chat(key).aadd_interactions([_turn(message)], session_id=SESSION)
            return
        await asyncio.to_thread(self.add_message, key, message, idx)

    async def adelete_messages(self, key: str) -> list[ChatMessage] | None:
        return await asyncio.to_thread(self.delete_messages, key)

    async def adelete_message(self, key: str, idx: int) -> ChatMessage | None:
        return await asyncio.to_thread(self.delete_message, key, idx)

    async def adelete_last_message(self, key: str) -> ChatMessage | None:
        popped = await self._chat(key).apop_interaction(session_id=SESSION)
        return None if popped is None else _message(popped)

    async def aget_keys(self) -> list[str]:
        return await asyncio.to_thread(self.get_keys)
