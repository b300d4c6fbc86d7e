"""ZenBrainMemoryBlock inside a real LlamaIndex Memory, on a real SQLite file."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock
from llama_index.core.llms.mock import MockFunctionCallingLLMWithChatMemoryOfLastCall
from llama_index.core.memory import Memory, StaticMemoryBlock
from llama_index.core.storage.chat_store.sql import MessageStatus
from llama_index.core.utils import get_tokenizer
from llama_index.memory.zenbrain import ZenBrainMemoryBlock
from llama_index.memory.zenbrain.block import CORE_HEADING, RECALLED_HEADING
from sqlalchemy.ext.asyncio import AsyncEngine

from zenbrain import MemoryCoordinator


@pytest.fixture
def coordinator(tmp_path: Path) -> Iterator[MemoryCoordinator]:
    with MemoryCoordinator(tmp_path / "memory.db") as memory:
        yield memory


def _system_text(messages: list[ChatMessage]) -> str:
    system = [m for m in messages if m.role == MessageRole.SYSTEM]
    assert system, "Memory inserted no system message"
    return "".join(b.text for b in system[0].blocks if isinstance(b, TextBlock))


async def test_block_text_has_core_first_then_recalled(coordinator: MemoryCoordinator) -> None:
    coordinator.set_core_block("user", "The user is Ada, a compiler engineer in Kiel.")
    coordinator.store("Ada's favourite tea is sencha.")
    coordinator.store("The office plant needs water on Mondays.")
    block = ZenBrainMemoryBlock(coordinator=coordinator, k=1, min_score=0.1)
    text = await block.aget([ChatMessage(role="user", content="Which tea does Ada like?")])
    assert text == (
        f"{CORE_HEADING}\n[user]: The user is Ada, a compiler engineer in Kiel.\n\n"
        f"{RECALLED_HEADING}\n- (semantic) Ada's favourite tea is sencha."
    )
    # Without messages there is no query: only the core blocks.
    assert (
        await block.aget([])
        == f"{CORE_HEADING}\n[user]: The user is Ada, a compiler engineer in Kiel."
    )
    # Core off and nothing matching: an empty block, which Memory leaves out.
    quiet = ZenBrainMemoryBlock(coordinator=coordinator, include_core=False, min_score=0.1)
    assert await quiet.aget([ChatMessage(role="user", content="quantum chromodynamics")]) == ""


async def test_flushed_messages_are_stored_and_recalled_inside_memory(
    coordinator: MemoryCoordinator,
    chat_engine: AsyncEngine,
) -> None:
    # Writing only what Memory flushes, every message of both speakers.
    block = ZenBrainMemoryBlock(
        coordinator=coordinator,
        k=3,
        min_score=0.1,
        store_new_messages=False,
        store_roles=["user", "assistant"],
        only_worth_remembering=False,
    )
    memory = Memory.from_defaults(
        async_engine=chat_engine,
        session_id="chat-1",
        token_limit=80,
        token_flush_size=20,
        chat_history_token_ratio=0.5,
        memory_blocks=[block],
    )
    turns = [
        ("user", "My bicycle is a green Gazelle with a basket."),
        ("assistant", "Noted, a green Gazelle bicycle with a basket."),
        ("user", "I park it in the courtyard behind the bakery."),
        ("assistant", "Good to know where the bike lives."),
        ("user", "Tomorrow I cycle to the harbour to watch the ferries."),
        ("assistant", "Enjoy the harbour and the ferries."),
        ("user", "What colour was my bicycle again?"),
    ]
    for role, text in turns:
        await memory.aput(ChatMessage(role=role, content=text))

    archived = await memory.sql_store.get_messages("chat-1", status=MessageStatus.ARCHIVED)
    assert len(archived) >= 2, "the token limit should have flushed messages"
    stored = coordinator.find()
    assert [r.content for r in stored] == [m.content for m in archived]
    for found, message in zip(stored, archived, strict=True):
        assert found.layer == ("semantic" if message.role == MessageRole.USER else "episodic")
        assert found.metadata["role"] == message.role.value
        assert found.metadata["session_id"] == "chat-1" == found.conversation

    messages = await memory.aget()
    system = _system_text(messages)
    assert "<zenbrain>" in system
    assert "- (semantic) user: My bicycle is a green Gazelle with a basket." in system
    # The flushed messages left the chat history; the latest turn is still there.
    chat = [m for m in messages if m.role != MessageRole.SYSTEM]
    assert chat[-1].content == "What colour was my bicycle again?"
    assert all(m.content != turns[0][1] for m in chat)


async def test_store_roles_and_accept_short_term_memory(coordinator: MemoryCoordinator) -> None:
    users_only = ZenBrainMemoryBlock(coordinator=coordinator, store_roles=["user"])
    await users_only.aput(
        [
            ChatMessage(role="user", content="The boat is called Seagull."),
            ChatMessage(role="assistant", content="The boat is called Seagull, got it."),
            ChatMessage(role="tool", content="ok"),
        ],
        from_short_term_memory=True,
        session_id="s",
    )
    contents = [r.content for r in coordinator.recall("boat Seagull", min_score=0.1)]
    assert contents == ["The boat is called Seagull."]

    refusing = ZenBrainMemoryBlock(
        coordinator=coordinator, name="refusing", accept_short_term_memory=False
    )
    await refusing.aput(
        [ChatMessage(role="user", content="The canoe is called Heron.")],
        from_short_term_memory=True,
    )
    assert coordinator.recall("canoe Heron", min_score=0.1) == []


async def test_truncation_drops_least_relevant_first(coordinator: MemoryCoordinator) -> None:
    coordinator.set_core_block("user", "The user is Ada.")
    block = ZenBrainMemoryBlock(coordinator=coordinator)
    content = (
        f"{CORE_HEADING}\n[user]: The user is Ada.\n\n"
        f"{RECALLED_HEADING}\n- (semantic) best match about tea\n- (semantic) weaker match"
    )
    one_line = len(get_tokenizer()("- (semantic) weaker match"))
    truncated = await block.atruncate(content, one_line)
    assert truncated == (
        f"{CORE_HEADING}\n[user]: The user is Ada.\n\n"
        f"{RECALLED_HEADING}\n- (semantic) best match about tea"
    )
    core_only = await block.atruncate(content, 2 * one_line + 2)
    assert core_only == f"{CORE_HEADING}\n[user]: The user is Ada."
    assert await block.atruncate(content, 10_000) is None
    assert await block.atruncate(content, 0) == content


async def test_priority_decides_what_memory_truncates(
    coordinator: MemoryCoordinator, chat_engine: AsyncEngine
) -> None:
    coordinator.set_core_block("user", "The user is Ada.")
    for n in range(6):
        coordinator.store(f"Ada collected stamp number {n} from the harbour museum.")
    static = StaticMemoryBlock(
        name="rules", static_content=[TextBlock(text="Always answer briefly.")], priority=0
    )
    recalled = ZenBrainMemoryBlock(coordinator=coordinator, k=6, priority=1)
    roomy = Memory.from_defaults(
        async_engine=chat_engine, session_id="a", token_limit=4000, memory_blocks=[static, recalled]
    )
    tight = Memory.from_defaults(
        async_engine=chat_engine, session_id="b", token_limit=90, memory_blocks=[static, recalled]
    )
    for memory in (roomy, tight):
        await memory.aput(
            ChatMessage(role="user", content="Which stamps did Ada collect at the harbour?")
        )
    full = _system_text(await roomy.aget())
    cut = _system_text(await tight.aget())
    assert full.count("stamp number") == 6
    assert "Always answer briefly." in cut  # priority 0 is never truncated
    assert 0 < cut.count("stamp number") < 6  # the zenbrain block lost its weakest entries
    assert "[user]: The user is Ada." in cut  # core blocks go last


# Building a FunctionAgent walks its pydantic fields with inspect.getmembers, which trips
# pydantic's deprecation warnings inside llama-index's workflow code, not ours.
@pytest.mark.filterwarnings("ignore::DeprecationWarning:inspect")
async def test_block_with_a_function_agent(
    coordinator: MemoryCoordinator, chat_engine: AsyncEngine
) -> None:
    coordinator.store("Ada's bicycle is a green Gazelle.")
    llm = MockFunctionCallingLLMWithChatMemoryOfLastCall()
    memory = Memory.from_defaults(
        async_engine=chat_engine,
        session_id="agent",
        token_limit=4000,
        memory_blocks=[ZenBrainMemoryBlock(coordinator=coordinator, min_score=0.1)],
    )
    agent = FunctionAgent(llm=llm, tools=[], system_prompt="Be brief.")
    await agent.run("What colour is Ada's bicycle?", memory=memory)
    sent = llm.last_chat_messages
    assert sent is not None
    memory_text = [
        m.content for m in sent if m.role == MessageRole.SYSTEM and "<memory>" in (m.content or "")
    ]
    assert len(memory_text) == 1
    assert "- (semantic) Ada's bicycle is a green Gazelle." in (memory_text[0] or "")
    assert sent[-1].content == "What colour is Ada's bicycle?"


def test_readme_quickstart_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = Path(__file__).resolve().parents[1] / "README.md"
    match = re.search(r"## Quickstart\s+```python\n(.*?)```", readme.read_text(), re.DOTALL)
    assert match is not None, "README lost its quickstart"
    code = match.group(1)
    assert len(code.strip().splitlines()) <= 14
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__readme__"}
    exec(compile(code, str(readme), "exec"), namespace)
    printed = capsys.readouterr().out
    assert "- (semantic) Ada's bicycle is a green Gazelle." in printed
    zen = namespace["zen"]
    assert isinstance(zen, MemoryCoordinator)
    zen.close()
