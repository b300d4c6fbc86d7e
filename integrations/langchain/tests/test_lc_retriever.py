"""ZenBrainRetriever against a real SQLite store, including LangChain's standard suite."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_tests.integration_tests import RetrieversIntegrationTests
from langchain_zenbrain import ZenBrainRetriever

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError, UnknownLayerError

GARDEN_NOTES = [
    "The tomatoes in the garden need water every morning.",
    "Basil grows best in the sunny corner of the garden.",
    "The garden shed holds the spare hoses and the rake.",
    "Compost from the kitchen goes to the garden bin on Fridays.",
    "The garden gate squeaks and needs oil.",
]
# Memories no garden query should bring back.
UNRELATED_NOTES = [
    "The printer on the second floor jams on thick paper.",
    "Bob plays the bass guitar in a jazz trio.",
    "The car is due for new winter tyres in November.",
]


class TestZenBrainRetrieverStandard(RetrieversIntegrationTests):
    """LangChain's own retriever suite, on both back ends, over a store where the query
    example matches only some memories (and no core block), so ``k`` is really tested."""

    @pytest.fixture(autouse=True)
    def _memory(self, store_location: str) -> Iterator[None]:
        self._coordinator = MemoryCoordinator(store_location)
        self._coordinator.store_many([*GARDEN_NOTES, *UNRELATED_NOTES])
        self._coordinator.set_core_block("persona", "The user works as a nurse in Kiel.")
        yield
        retriever = ZenBrainRetriever(coordinator=self._coordinator, k=10)
        found = [d.page_content for d in retriever.invoke(self.retriever_query_example)]
        assert sorted(found) == sorted(GARDEN_NOTES)
        self._coordinator.close()

    @property
    def retriever_constructor(self) -> type[BaseRetriever]:
        return ZenBrainRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"coordinator": self._coordinator, "k": 2}

    @property
    def retriever_query_example(self) -> str:
        return "garden"


@pytest.fixture
def filled(coordinator: MemoryCoordinator) -> MemoryCoordinator:
    coordinator.store_many(GARDEN_NOTES)
    coordinator.store(
        "The Kieler Förde is a fjord on the Baltic coast.",
        metadata={"topic": "geography"},
        context="learning",
    )
    coordinator.set_core_block("persona", "The user is a hobby gardener in Kiel.")
    return coordinator


TEA_NOTES = [
    "Ada drinks green tea every morning.",
    "Ada's favourite tea is sencha from Shizuoka.",
    "Tea with Ada and the team is on Fridays.",
]


@pytest.fixture
def tea(memory: MemoryCoordinator) -> MemoryCoordinator:
    """Six memories, three about Ada's tea, and a core block about something else."""
    memory.store_many([*TEA_NOTES, *UNRELATED_NOTES])
    memory.set_core_block("persona", "The user is a hobby gardener.")
    return memory


def test_k_returns_k_related_documents(tea: MemoryCoordinator) -> None:
    # An unrelated core block used to outrank the third tea memory ("always" core mode).
    found = ZenBrainRetriever(coordinator=tea, k=3).invoke("What tea does Ada drink?")
    assert sorted(d.page_content for d in found) == sorted(TEA_NOTES)


def test_an_unrelated_query_returns_nothing(tea: MemoryCoordinator) -> None:
    # Neither the core block nor zenbrain's score-0 fill-ins are documents.
    retriever = ZenBrainRetriever(coordinator=tea, k=4)
    assert retriever.invoke("weather forecast for tomorrow") == []
    assert retriever.invoke("weather forecast for tomorrow", min_score=0.0) == []


async def test_an_unrelated_query_returns_nothing_async(tea: MemoryCoordinator) -> None:
    assert await ZenBrainRetriever(coordinator=tea).ainvoke("weather forecast") == []


def test_core_blocks_come_back_when_they_match(tea: MemoryCoordinator) -> None:
    found = ZenBrainRetriever(coordinator=tea, k=4).invoke("Is the user a gardener?")
    assert [d.metadata["layer"] for d in found] == ["core"]
    everything = ZenBrainRetriever(coordinator=tea, k=4, core="always").invoke("green tea")
    assert "core" in {d.metadata["layer"] for d in everything}


def test_documents_carry_id_and_metadata(filled: MemoryCoordinator) -> None:
    retriever = ZenBrainRetriever(coordinator=filled, k=1, layers=["semantic"])
    (document,) = retriever.invoke("Kieler Foerde")
    assert isinstance(document, Document)
    assert document.page_content == "The Kieler Förde is a fjord on the Baltic coast."
    recalled = filled.get(document.id or "")
    assert recalled is not None and recalled.content == document.page_content
    metadata = document.metadata
    assert metadata["id"] == document.id
    assert metadata["layer"] == "semantic"
    assert 0 < metadata["score"] <= 1
    assert metadata["confidence"] == recalled.confidence
    assert metadata["emotional_weight"] == recalled.emotional_weight
    assert datetime.fromisoformat(metadata["created_at"]) == recalled.created_at
    assert metadata["topic"] == "geography"
    assert metadata["context"] == "learning"


def test_k_per_call_overrides_the_field(filled: MemoryCoordinator) -> None:
    retriever = ZenBrainRetriever(coordinator=filled, k=4, layers=["semantic"])
    assert len(retriever.invoke("garden")) == 4
    assert len(retriever.invoke("garden", k=2)) == 2
    assert len(retriever.invoke("garden")) == 4


def test_layers_min_score_and_core_mode(filled: MemoryCoordinator) -> None:
    everything = ZenBrainRetriever(coordinator=filled, k=10, core="always").invoke("garden")
    assert "core" in {d.metadata["layer"] for d in everything}

    semantic_only = ZenBrainRetriever(coordinator=filled, k=10, layers="semantic")  # type: ignore[arg-type]
    assert {d.metadata["layer"] for d in semantic_only.invoke("garden")} == {"semantic"}

    # "fjord" shares no word with the persona block: "matching" leaves it out.
    matching = ZenBrainRetriever(coordinator=filled, k=10, core="matching")
    assert all(d.metadata["layer"] != "core" for d in matching.invoke("fjord"))
    assert any(d.metadata["layer"] == "core" for d in matching.invoke("gardener Kiel"))

    strict = ZenBrainRetriever(coordinator=filled, k=10, layers=["semantic"], min_score=0.5)
    found = strict.invoke("tomatoes water")
    assert [d.page_content for d in found] == [GARDEN_NOTES[0]]


def test_context_per_call(filled: MemoryCoordinator) -> None:
    retriever = ZenBrainRetriever(coordinator=filled, k=10, layers=["semantic"])
    in_context = retriever.invoke("coast", context="learning", min_score=0.01)
    assert [d.metadata["context"] for d in in_context] == ["learning"]


async def test_async_matches_sync(filled: MemoryCoordinator) -> None:
    retriever = ZenBrainRetriever(coordinator=filled, k=3)
    sync_ids = [d.id for d in retriever.invoke("garden water")]
    async_ids = [d.id for d in await retriever.ainvoke("garden water")]
    assert async_ids == sync_ids
    assert len(await retriever.ainvoke("garden", k=1)) == 1


def test_bad_input_is_a_clear_error(filled: MemoryCoordinator) -> None:
    retriever = ZenBrainRetriever(coordinator=filled)
    with pytest.raises(InvalidInputError, match="unknown keyword"):
        retriever.invoke("garden", top_k=3)
    with pytest.raises(InvalidInputError, match="limit"):
        retriever.invoke("garden", k=0)
    with pytest.raises(UnknownLayerError):
        retriever.invoke("garden", layers=["dreams"])
    with pytest.raises(ValueError):
        ZenBrainRetriever(coordinator=filled, k=0)
    with pytest.raises(ValueError):
        ZenBrainRetriever(coordinator="not a coordinator")  # type: ignore[arg-type]


def test_documents_carry_validity(coordinator: MemoryCoordinator) -> None:
    old = coordinator.store("I live in Hamburg.", created_at="2025-05-01T00:00:00+00:00")
    new = coordinator.store("I moved to Berlin.", created_at="2025-10-01T00:00:00+00:00")
    retriever = ZenBrainRetriever(coordinator=coordinator, k=5, layers=["semantic"])
    documents = {d.id: d for d in retriever.invoke("Hamburg Berlin")}
    replaced, current = documents[old].metadata, documents[new].metadata
    assert replaced["superseded_by"] == new
    assert datetime.fromisoformat(replaced["valid_to"]) == datetime.fromisoformat(
        "2025-10-01T00:00:00+00:00"
    )
    assert current["valid_to"] is None and current["superseded_by"] is None
    assert datetime.fromisoformat(current["valid_from"]) == datetime.fromisoformat(
        "2025-10-01T00:00:00+00:00"
    )
