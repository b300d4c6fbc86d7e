"""The block inside real LlamaIndex ``Memory`` / ``FunctionAgent`` objects: the edge cases,
sessions, what is written and what is injected, side by side with ``VectorMemoryBlock``."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock
from llama_index.core.bridge.pydantic import Field, ValidationError
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import MockLLM
from llama_index.core.llms.mock import MockFunctionCallingLLMWithChatMemoryOfLastCall
from llama_index.core.memory import Memory, VectorMemoryBlock
from llama_index.core.schema import BaseNode
from llama_index.core.settings import Settings
from llama_index.core.vector_stores.types import (
    BasePydanticVectorStore,
    MetadataFilter,
    MetadataFilters,
    VectorStoreQuery,
    VectorStoreQueryResult,
)
from llama_index.memory.zenbrain import (
    LlamaIndexEmbedding,
    LlamaIndexSummarizer,
    ZenBrainMemoryBlock,
)
from sqlalchemy.ext.asyncio import AsyncEngine

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError

# Building a FunctionAgent walks its pydantic fields with inspect.getmembers, which trips
# pydantic's deprecation warnings inside llama-index's workflow code, not ours.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:inspect")


@pytest.fixture
def coordinator(tmp_path: Path) -> Iterator[MemoryCoordinator]:
    with MemoryCoordinator(tmp_path / "memory.db") as memory:
        yield memory


def _system_text(messages: list[ChatMessage]) -> str:
    system = [m for m in messages if m.role == MessageRole.SYSTEM]
    return "".join(b.text for b in system[0].blocks if isinstance(b, TextBlock)) if system else ""


def _contents(memory: MemoryCoordinator) -> list[str]:
    return [result.content for result in memory.find()]


# ---------------------------------------------------------------------------- the crash


async def test_a_new_user_with_one_oversized_message_does_not_crash_the_agent(
    coordinator: MemoryCoordinator,
    chat_engine: AsyncEngine,
) -> None:
    # A new namespace: the block has nothing to show, and the chat alone is over the limit,
    # so Memory asks the block to truncate the empty list it holds for it.
    fresh = coordinator.for_namespace("brand-new-user")
    block = ZenBrainMemoryBlock(coordinator=fresh, include_core=False)
    memory = Memory.from_defaults(
        async_engine=chat_engine, session_id="s", token_limit=2000, memory_blocks=[block]
    )
    llm = MockFunctionCallingLLMWithChatMemoryOfLastCall()
    agent = FunctionAgent(llm=llm, tools=[], system_prompt="Be brief.")
    long_message = "Please summarise the quarterly harbour logistics report. " + " ".join(
        f"Berth {n} handled {n * 7} containers of grain and timber." for n in range(300)
    )
    assert len(memory.tokenizer_fn(long_message)) > 3000
    await agent.run(long_message, memory=memory)
    assert llm.last_chat_messages is not None
    assert llm.last_chat_messages[-1].content == long_message


async def test_truncating_the_empty_content_memory_passes_returns_nothing(
    coordinator: MemoryCoordinator,
) -> None:
    block = ZenBrainMemoryBlock(coordinator=coordinator)
    assert await block.atruncate([], 500) is None
    assert await block.atruncate("", 500) is None


async def test_truncation_counts_tokens_with_the_given_tokenizer(
    coordinator: MemoryCoordinator,
) -> None:
    content = "Recalled memories:\n- (semantic) a b c d\n- (semantic) e f g h"

    def by_character(text: str) -> list[str]:
        return list(text)

    by_words = ZenBrainMemoryBlock(coordinator=coordinator, tokenizer_fn=str.split)
    by_chars = ZenBrainMemoryBlock(coordinator=coordinator, tokenizer_fn=by_character)
    # 7 tokens: the last entry is 6 words (+1) but 20 characters (+1).
    assert await by_words.atruncate(content, 7) == "Recalled memories:\n- (semantic) a b c d"
    assert await by_chars.atruncate(content, 7) == "Recalled memories:\n- (semantic) a b c d"
    assert await by_words.atruncate(content, 8) is None
    assert await by_chars.atruncate(content, 8) == "Recalled memories:\n- (semantic) a b c d"


# -------------------------------------------------------------------------- construction


@pytest.mark.parametrize(
    ("field", "value", "fragment"),
    [
        ("layers", ["semantc"], "semantic"),
        ("layers", [], "layers"),
        ("store_roles", ["human"], "user"),
        ("recall_scope", "everything", "session"),
        ("min_score", 2, "1"),
    ],
)
def test_bad_settings_are_rejected_at_construction(
    coordinator: MemoryCoordinator, field: str, value: Any, fragment: str
) -> None:
    with pytest.raises(ValidationError, match=fragment):
        ZenBrainMemoryBlock(coordinator=coordinator, **{field: value})


def test_from_defaults_opens_a_store_and_namespace(tmp_path: Path) -> None:
    db = str(tmp_path / "defaults.db")
    block = ZenBrainMemoryBlock.from_defaults(
        db=db, namespace="ada", embed_model=MockEmbedding(embed_dim=8), llm=MockLLM(), k=3
    )
    memory = block.coordinator
    assert memory.namespace == "ada" and block.k == 3
    assert isinstance(memory.embedder, LlamaIndexEmbedding)
    assert isinstance(memory.summarizer, LlamaIndexSummarizer)
    memory.store("Ada rows on Sundays.")
    memory.close()
    with MemoryCoordinator(db, namespace="ada") as reopened:
        assert [r.content for r in reopened.find()] == ["Ada rows on Sundays."]
    with pytest.raises(InvalidInputError, match="either a coordinator"):
        ZenBrainMemoryBlock.from_defaults(db=db, coordinator=reopened)


def test_from_defaults_falls_back_to_llama_index_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    embed, llm = MockEmbedding(embed_dim=4), MockLLM()
    monkeypatch.setattr(Settings, "_embed_model", embed)
    monkeypatch.setattr(Settings, "_llm", llm)
    block = ZenBrainMemoryBlock.from_defaults(db=str(tmp_path / "settings.db"))
    memory = block.coordinator
    assert isinstance(memory.embedder, LlamaIndexEmbedding)
    assert memory.embedder.embed_model is embed
    assert isinstance(memory.summarizer, LlamaIndexSummarizer)
    assert memory.summarizer.llm is llm
    memory.close()


# ------------------------------------------------------------------------------- writing


async def test_messages_are_written_as_they_are_put_not_only_when_flushed(
    coordinator: MemoryCoordinator,
    chat_engine: AsyncEngine,
) -> None:
    eager = ZenBrainMemoryBlock(coordinator=coordinator)
    memory = Memory.from_defaults(
        async_engine=chat_engine, session_id="chat", token_limit=30_000, memory_blocks=[eager]
    )
    await memory.aput(ChatMessage(role="user", content="I am allergic to peanuts."))
    await memory.aget()  # what an agent does before each model call
    assert _contents(coordinator) == ["I am allergic to peanuts."]
    found = coordinator.find()[0]
    assert found.metadata["role"] == "user" and found.metadata["session_id"] == "chat"
    # Seen again on every later turn, written once.
    await memory.aput(ChatMessage(role="assistant", content="Noted."))
    await memory.aget()
    assert _contents(coordinator) == ["I am allergic to peanuts."]


async def test_with_writing_off_nothing_is_written_before_memory_flushes(
    coordinator: MemoryCoordinator,
    chat_engine: AsyncEngine,
) -> None:
    lazy = ZenBrainMemoryBlock(coordinator=coordinator, store_new_messages=False)
    memory = Memory.from_defaults(
        async_engine=chat_engine, session_id="chat", token_limit=30_000, memory_blocks=[lazy]
    )
    await memory.aput(ChatMessage(role="user", content="I am allergic to peanuts."))
    await memory.aget()
    assert _contents(coordinator) == []


async def test_only_what_is_worth_remembering_is_written(coordinator: MemoryCoordinator) -> None:
    block = ZenBrainMemoryBlock(coordinator=coordinator, store_roles=["user", "assistant"])
    await block.aput(
        [
            ChatMessage(role="user", content="What is the capital of France?"),
            ChatMessage(role="user", content="thanks!"),
            ChatMessage(role="user", content="My daughter is called Mia."),
            ChatMessage(
                role="assistant",
                content="How to pack:\n- passport\n- charger\n- tickets",
            ),
        ],
        session_id="s",
    )
    stored = {r.content: r.layer for r in coordinator.find()}
    assert stored == {
        "My daughter is called Mia.": "semantic",
        # The assistant's bulleted reply is a record of what it said, not a procedure.
        "How to pack:\n- passport\n- charger\n- tickets": "episodic",
    }


async def test_the_users_question_is_not_recalled_back_in_the_same_turn(
    coordinator: MemoryCoordinator,
    chat_engine: AsyncEngine,
) -> None:
    block = ZenBrainMemoryBlock(coordinator=coordinator, only_worth_remembering=False)
    memory = Memory.from_defaults(
        async_engine=chat_engine, session_id="q", token_limit=30_000, memory_blocks=[block]
    )
    await memory.aput(ChatMessage(role="user", content="Which harbour ferry goes to Laboe?"))
    first = _system_text(await memory.aget())
    assert "Laboe" not in first  # nothing was known before this turn
    assert _contents(coordinator) == ["Which harbour ferry goes to Laboe?"]
    second = _system_text(await memory.aget())
    assert "Laboe" not in second  # it is in the chat history already: not injected again


# ----------------------------------------------------------------------------- injecting


async def test_injected_lines_name_the_speaker_and_repeat_nothing(
    coordinator: MemoryCoordinator,
) -> None:
    writer = ZenBrainMemoryBlock(coordinator=coordinator)
    for session in ("monday", "tuesday"):
        await writer.aput(
            [ChatMessage(role="user", content="I am allergic to peanuts.")], session_id=session
        )
    coordinator.store("Peanut sauce is common in satay dishes.")
    reader = ZenBrainMemoryBlock(coordinator=coordinator, recall_scope="all")
    text = await reader.aget([ChatMessage(role="user", content="Can I eat peanuts satay?")])
    assert text.count("I am allergic to peanuts.") == 1
    assert "- (semantic) user: I am allergic to peanuts." in text
    assert "- (semantic) Peanut sauce is common in satay dishes." in text


async def test_no_unrelated_fill_ins_by_default(coordinator: MemoryCoordinator) -> None:
    coordinator.store("The boiler was serviced in March.", layer="episodic")
    block = ZenBrainMemoryBlock(coordinator=coordinator, include_core=False)
    assert await block.aget([ChatMessage(role="user", content="Favourite poets?")]) == ""
    keeping = ZenBrainMemoryBlock(coordinator=coordinator, include_core=False, min_score=0)
    assert "boiler" in await keeping.aget([ChatMessage(role="user", content="Favourite poets?")])


# ------------------------------------------------------------------------------ sessions


class TextVectorStore(BasePydanticVectorStore):
    """The smallest text-keeping vector store, for VectorMemoryBlock (llama-index-core ships
    none that keeps text): every node matches, in insertion order, filtered by metadata."""

    stores_text: bool = True
    nodes: list[BaseNode] = Field(default_factory=list)

    @property
    def client(self) -> None:
        return None

    def add(self, nodes: Sequence[BaseNode], **kwargs: Any) -> list[str]:
        self.nodes.extend(nodes)
        return [node.node_id for node in nodes]

    def delete(self, ref_doc_id: str, **kwargs: Any) -> None:
        self.nodes = [node for node in self.nodes if node.ref_doc_id != ref_doc_id]

    def query(self, query: VectorStoreQuery, **kwargs: Any) -> VectorStoreQueryResult:
        filters = query.filters or MetadataFilters(filters=[])
        wanted = {f.key: f.value for f in filters.filters if isinstance(f, MetadataFilter)}
        found = [
            node
            for node in self.nodes
            if all(node.metadata.get(key) == value for key, value in wanted.items())
        ][: query.similarity_top_k]
        return VectorStoreQueryResult(
            nodes=found, similarities=[1.0] * len(found), ids=[n.node_id for n in found]
        )


async def test_sessions_are_kept_apart_like_llama_index_vector_memory_block(
    coordinator: MemoryCoordinator,
) -> None:
    # One block per Memory, as an application builds them; the stores are shared.
    # (A VectorMemoryBlock keeps the first session's filter in its query_kwargs, so one
    # instance cannot serve two sessions.)
    store = TextVectorStore()

    def vector() -> VectorMemoryBlock:
        return VectorMemoryBlock(vector_store=store, embed_model=MockEmbedding(embed_dim=4))

    def zen() -> ZenBrainMemoryBlock:
        return ZenBrainMemoryBlock(coordinator=coordinator, include_core=False)

    coordinator.store("The office wifi password is on the fridge.")  # tied to no session
    said = [ChatMessage(role="user", content="My locker number is 42.")]
    asked = [ChatMessage(role="user", content="What is my locker number?")]
    seen: dict[str, dict[str, str]] = {}
    for name, make in (("vector", vector), ("zen", zen)):
        await make().aput(
            [m.model_copy() for m in said], from_short_term_memory=True, session_id="a"
        )
        seen[name] = {s: await make().aget(asked, session_id=s) for s in ("a", "b")}
    for name in ("vector", "zen"):
        assert "locker number is 42" in seen[name]["a"], name
        assert "locker number is 42" not in seen[name]["b"], name
    # zenbrain also shares what belongs to no session; with recall_scope="all", everything.
    wifi = [ChatMessage(role="user", content="Where is the office wifi password?")]
    assert "wifi password" in await zen().aget(wifi, session_id="b")
    everything = ZenBrainMemoryBlock(coordinator=coordinator, recall_scope="all")
    assert "locker number is 42" in await everything.aget(asked, session_id="b")


async def test_a_restart_keeps_what_was_written_once(tmp_path: Path) -> None:
    db = tmp_path / "restart.db"
    history = [ChatMessage(role="user", content="My bike is a blue Gazelle.")]
    for _ in range(2):  # two processes, each seeing the same chat history
        with MemoryCoordinator(db) as memory:
            block = ZenBrainMemoryBlock(coordinator=memory)
            await block.aget(history, session_id="s")
    with MemoryCoordinator(db) as memory:
        assert _contents(memory) == ["My bike is a blue Gazelle."]
