"""What the block and the chat store read from a LlamaIndex ``ChatMessage``."""

from __future__ import annotations

import hashlib

from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock

__all__ = ["ROLES", "fingerprint", "message_role", "message_text", "one_line"]

#: The roles a LlamaIndex message can have.
ROLES: tuple[str, ...] = tuple(role.value for role in MessageRole)


def message_role(message: ChatMessage) -> str:
    role = message.role
    return str(getattr(role, "value", role))


def message_text(message: ChatMessage) -> str:
    """The text of a message: its text blocks joined (images, audio and tool calls carry
    no text)."""
    return "".join(block.text for block in message.blocks if isinstance(block, TextBlock))


def one_line(text: str) -> str:
    """``text`` on one line with single spaces (one entry per line keeps truncation to
    whole entries, and makes two spellings of the same sentence compare equal)."""
    return " ".join(text.split())


def fingerprint(role: str, text: str) -> str:
    """A stable key for "this speaker said this", to write each message once."""
    return hashlib.sha256(f"{role}\n{one_line(text)}".encode()).hexdigest()[:32]
