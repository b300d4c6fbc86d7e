"""LangChain embeddings and chat models as zenbrain's EmbeddingProvider and Summarizer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings
from langchain_core.language_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_zenbrain import LangChainEmbeddings, LangChainSummarizer

from zenbrain import MemoryCoordinator
from zenbrain.errors import EmbeddingMismatchError, InvalidInputError, ProviderError
from zenbrain.providers import EmbeddingProvider, Summarizer


class QueryPrefixedEmbedding(DeterministicFakeEmbedding):
    """Like e5 models: queries are embedded with a prefix, documents without."""

    def embed_query(self, text: str) -> list[float]:
        return super().embed_query(f"query: {text}")


class BrokenEmbedding(Embeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise ConnectionError("embedding service unreachable")

    def embed_query(self, text: str) -> list[float]:
        raise ConnectionError("embedding service unreachable")


class PromptRecorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.prompts: list[list[BaseMessage]] = []

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], **kwargs: Any
    ) -> None:
        self.prompts.extend(messages)


def test_embeddings_map_documents_and_queries() -> None:
    inner = QueryPrefixedEmbedding(size=16)
    provider = LangChainEmbeddings(inner, model_id="fake-16")
    assert isinstance(provider, EmbeddingProvider)
    assert provider.model_id == "fake-16"
    assert provider.dimension == 16
    texts = ["Ada drinks tea", "Bob rows a kayak"]
    assert provider.embed_documents(texts) == inner.embed_documents(texts)
    assert provider.embed_queries(texts) == [inner.embed_query(t) for t in texts]
    assert provider.embed_queries(texts) != provider.embed_documents(texts)
    assert provider.embed_documents([]) == []


def test_embeddings_inside_a_coordinator(db_path: Path) -> None:
    provider = LangChainEmbeddings(DeterministicFakeEmbedding(size=32), model_id="fake-32")
    with MemoryCoordinator(db_path, embedder=provider) as memory:
        memory_id = memory.store("Ada keeps her bike in the courtyard.")
        found = memory.recall("Ada keeps her bike in the courtyard.", layers=["semantic"])
        assert found[0].id == memory_id
    other = LangChainEmbeddings(DeterministicFakeEmbedding(size=8), model_id="fake-8")
    with pytest.raises(EmbeddingMismatchError, match="fake-32"):
        MemoryCoordinator(db_path, embedder=other)


def test_embedding_failures_and_bad_arguments() -> None:
    broken = LangChainEmbeddings(BrokenEmbedding(), model_id="broken", dimension=4)
    with pytest.raises(ProviderError, match="unreachable"):
        broken.embed_documents(["x"])
    with pytest.raises(ProviderError, match="unreachable"):
        broken.embed_queries(["x"])
    wrong_size = LangChainEmbeddings(DeterministicFakeEmbedding(size=8), model_id="m", dimension=4)
    with pytest.raises(ProviderError, match="length 8, expected 4"):
        wrong_size.embed_documents(["x"])
    with pytest.raises(InvalidInputError):
        LangChainEmbeddings(DeterministicFakeEmbedding(size=8), model_id="")
    with pytest.raises(InvalidInputError):
        LangChainEmbeddings("text-embedding-3-small", model_id="m")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        LangChainEmbeddings(DeterministicFakeEmbedding(size=8), model_id="m", dimension=0)


def test_summarizer_sends_the_texts_and_returns_the_reply() -> None:
    recorder = PromptRecorder()
    model = FakeListChatModel(responses=["Ada moved to Kiel in 2024."], callbacks=[recorder])
    summarizer = LangChainSummarizer(model)
    assert isinstance(summarizer, Summarizer)
    summary = summarizer.summarize(["Ada packed boxes all week.", "Ada arrived in Kiel."])
    assert summary == "Ada moved to Kiel in 2024."
    (prompt,) = recorder.prompts
    assert prompt[0].type == "system"
    assert "Ada packed boxes all week." in prompt[1].text
    assert "Ada arrived in Kiel." in prompt[1].text


def test_summarizer_in_consolidation(db_path: Path) -> None:
    model = FakeListChatModel(responses=["Ada passed her driving test."])
    with MemoryCoordinator(db_path, summarizer=LangChainSummarizer(model)) as memory:
        memory.store(
            "I passed my driving test today, I am so happy!", layer="episodic", emotional_weight=0.9
        )
        report = memory.consolidate()
        assert report.promoted == 1
        facts = memory.recall("driving test", layers=["semantic"], min_score=0.1)
        assert [f.content for f in facts] == ["Ada passed her driving test."]


def test_summarizer_failures() -> None:
    exhausted = LangChainSummarizer(GenericFakeChatModel(messages=iter([])))
    with pytest.raises(ProviderError, match="GenericFakeChatModel"):
        exhausted.summarize(["anything"])
    empty = LangChainSummarizer(GenericFakeChatModel(messages=iter([AIMessage("  ")])))
    with pytest.raises(ProviderError, match="empty summary"):
        empty.summarize(["anything"])
    with pytest.raises(InvalidInputError):
        LangChainSummarizer(FakeListChatModel(responses=["x"])).summarize(["", "  "])
    with pytest.raises(InvalidInputError):
        LangChainSummarizer("gpt-4o")  # type: ignore[arg-type]
