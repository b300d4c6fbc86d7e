"""LlamaIndex embeddings and LLMs as zenbrain's EmbeddingProvider and Summarizer."""

from __future__ import annotations

from pathlib import Path

import pytest
from llama_index.core.base.llms.types import ChatMessage, ChatResponse
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import MockLLM
from llama_index.core.llms.mock import MockLLMWithChatMemoryOfLastCall
from llama_index.memory.zenbrain import LlamaIndexEmbedding, LlamaIndexSummarizer

from zenbrain import MemoryCoordinator
from zenbrain.errors import EmbeddingMismatchError, InvalidInputError, ProviderError
from zenbrain.providers import EmbeddingProvider, Summarizer


class LengthEmbedding(MockEmbedding):
    """MockEmbedding whose vectors tell texts and queries apart (and texts from each other)."""

    def _get_text_embedding(self, text: str) -> list[float]:
        return [float(len(text))] + [0.0] * (self.embed_dim - 1)

    async def _aget_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embedding(text)

    def _get_query_embedding(self, query: str) -> list[float]:
        return [0.0] * (self.embed_dim - 1) + [float(len(query))]

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)


class BrokenLLM(MockLLM):
    def chat(self, messages: object, **kwargs: object) -> ChatResponse:
        raise TimeoutError("the model server timed out")


def test_embedding_maps_texts_and_queries() -> None:
    provider = LlamaIndexEmbedding(LengthEmbedding(embed_dim=3))
    assert isinstance(provider, EmbeddingProvider)
    assert provider.model_id == "MockEmbedding:unknown"
    assert provider.dimension == 3
    assert provider.embed_documents(["ab", "abcd"]) == [[2.0, 0.0, 0.0], [4.0, 0.0, 0.0]]
    assert provider.embed_queries(["abc"]) == [[0.0, 0.0, 3.0]]
    assert provider.embed_documents([]) == []
    named = LlamaIndexEmbedding(MockEmbedding(embed_dim=8), model_id="mock-8", dimension=8)
    assert (named.model_id, named.dimension) == ("mock-8", 8)


def test_embedding_inside_a_coordinator(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    with MemoryCoordinator(db, embedder=LlamaIndexEmbedding(MockEmbedding(embed_dim=8))) as memory:
        memory_id = memory.store("Ada keeps bees on the roof.")
        assert memory.recall("bees roof", layers=["semantic"])[0].id == memory_id
    with pytest.raises(EmbeddingMismatchError, match="MockEmbedding:unknown"):
        MemoryCoordinator(db, embedder=LlamaIndexEmbedding(MockEmbedding(embed_dim=4)))


def test_embedding_errors() -> None:
    wrong = LlamaIndexEmbedding(MockEmbedding(embed_dim=8), dimension=4)
    with pytest.raises(ProviderError, match="length 8, expected 4"):
        wrong.embed_queries(["x"])
    with pytest.raises(InvalidInputError):
        LlamaIndexEmbedding("text-embedding-3-small")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        LlamaIndexEmbedding(MockEmbedding(embed_dim=8), model_id=" ")
    with pytest.raises(InvalidInputError):
        LlamaIndexEmbedding(MockEmbedding(embed_dim=8), dimension=-1)


def test_summarizer_sends_instructions_and_texts() -> None:
    llm = MockLLMWithChatMemoryOfLastCall(max_tokens=None)
    summarizer = LlamaIndexSummarizer(llm, instructions="Condense these.")
    assert isinstance(summarizer, Summarizer)
    summary = summarizer.summarize(["Ada packed boxes.", "Ada moved to Kiel."])
    sent = list(llm.last_chat_messages or [])
    assert [m.role.value for m in sent] == ["system", "user"]
    assert sent[0].content == "Condense these."
    assert sent[1].content == "- Ada packed boxes.\n- Ada moved to Kiel."
    # MockLLM echoes its prompt: the summary is what the LLM answered, stripped.
    assert (
        summary
        == "system: Condense these.\nuser: - Ada packed boxes.\n- Ada moved to Kiel.\nassistant:"
    )


def test_summarizer_in_consolidation(tmp_path: Path) -> None:
    summarizer = LlamaIndexSummarizer(MockLLM(max_tokens=None), instructions="Summarise.")
    with MemoryCoordinator(tmp_path / "memory.db", summarizer=summarizer) as memory:
        memory.store("We won the sailing regatta today!", layer="episodic", emotional_weight=0.9)
        assert memory.consolidate().promoted == 1
        (fact,) = memory.recall("sailing regatta", layers=["semantic"], min_score=0.1)
        assert fact.content.startswith("system: Summarise.")
        assert "We won the sailing regatta today!" in fact.content


def test_summarizer_errors() -> None:
    with pytest.raises(ProviderError, match="timed out"):
        LlamaIndexSummarizer(BrokenLLM(max_tokens=None)).summarize(["anything"])
    with pytest.raises(InvalidInputError):
        LlamaIndexSummarizer(MockLLM(max_tokens=None)).summarize([" "])
    with pytest.raises(InvalidInputError):
        LlamaIndexSummarizer("gpt-4o")  # type: ignore[arg-type]


def test_chat_message_import_is_the_one_memory_uses() -> None:
    # The block and the adapters build llama-index ChatMessages; guard against a moved type.
    assert ChatMessage(role="user", content="x").content == "x"
