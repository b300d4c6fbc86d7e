"""ZenBrainChatStore: LlamaIndex's BaseChatStore contract, next to SimpleChatStore, inside a
real ChatMemoryBuffer, and across a restart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.base.llms.types import ChatMessage, ImageBlock, TextBlock
from llama_index.core.memory import ChatMemoryBuffer
from llama_index.core.storage.chat_store import SimpleChatStore
from llama_index.memory.zenbrain import ZenBrainChatStore

from zenbrain import MemoryCoordinator


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "chat.db"


@pytest.fixture
def coordinator(db: Path) -> Iterator[MemoryCoordinator]:
    with MemoryCoordinator(db) as memory:
        yield memory


def _m(role: str, text: str) -> ChatMessage:
    return ChatMessage(role=role, content=text)


def _run(store: SimpleChatStore | ZenBrainChatStore) -> list[Any]:
    """One call sequence; everything it observes (copied: SimpleChatStore hands out its
    own lists)."""
    seen: list[Any] = []
    store.add_message("ada", _m("user", "hi"))
    store.add_message("ada", _m("assistant", "hello"))
    store.add_message("ada", _m("user", "first"), idx=0)
    store.add_message("bob", _m("user", "yo"))
    seen.append(list(store.get_messages("ada")))
    seen.append(sorted(store.get_keys()))
    seen.append(store.delete_message("ada", 1))
    seen.append(store.delete_message("ada", 7))
    seen.append(store.delete_last_message("ada"))
    seen.append(list(store.get_messages("ada")))
    store.set_messages("ada", [_m("user", "a"), _m("assistant", "b")])
    seen.append(list(store.get_messages("ada")))
    seen.append(store.delete_messages("bob"))
    seen.append(store.delete_messages("bob"))
    seen.append(list(store.get_messages("bob")))
    seen.append(sorted(store.get_keys()))
    seen.append(store.get_messages("nobody"))
    return seen


def test_the_same_calls_give_what_simple_chat_store_gives(coordinator: MemoryCoordinator) -> None:
    assert _run(ZenBrainChatStore(coordinator=coordinator)) == _run(SimpleChatStore())


async def test_the_async_methods_match_the_sync_ones(coordinator: MemoryCoordinator) -> None:
    store = ZenBrainChatStore(coordinator=coordinator)
    await store.async_add_message("k", _m("user", "one"))
    await store.async_add_message("k", _m("user", "zero"), idx=0)
    assert await store.aget_messages("k") == store.get_messages("k")
    assert (await store.adelete_last_message("k")) == _m("user", "one")
    await store.aset_messages("k", [_m("user", "x")])
    assert await store.aget_keys() == ["k"]
    assert await store.adelete_message("k", 0) == _m("user", "x")
    # An emptied chat leaves no trace in the store, so its key is no longer listed
    # (SimpleChatStore keeps the empty list).
    assert await store.aget_keys() == []
    assert await store.adelete_messages("k") is None


def test_a_chat_memory_buffer_keeps_its_chat_across_a_restart(db: Path) -> None:
    picture = ChatMessage(
        role="user",
        blocks=[TextBlock(text="Look at this"), ImageBlock(url="https://example.org/a.png")],
        additional_kwargs={"tag": "photo"},
    )
    with MemoryCoordinator(db) as memory:
        buffer = ChatMemoryBuffer.from_defaults(
            chat_store=ZenBrainChatStore(coordinator=memory), chat_store_key="ada"
        )
        buffer.put(_m("user", "My cat is called Miso."))
        buffer.put(_m("assistant", "Miso is a lovely name."))
        buffer.put(picture)
    with MemoryCoordinator(db) as memory:
        again = ChatMemoryBuffer.from_defaults(
            chat_store=ZenBrainChatStore(coordinator=memory), chat_store_key="ada"
        )
        history = again.get_all()
    assert [m.content for m in history[:2]] == ["My cat is called Miso.", "Miso is a lovely name."]
    assert history[2] == picture  # blocks and additional_kwargs come back as they were put


def test_the_chat_lives_beside_long_term_memory_without_mixing(
    coordinator: MemoryCoordinator,
) -> None:
    store = ZenBrainChatStore(coordinator=coordinator)
    store.add_message("ada", _m("user", "My cat is called Miso."))
    assert coordinator.find() == []  # the chat is not long-term memory
    assert coordinator.namespaces() == ["llamaindex-chat/ada"]
