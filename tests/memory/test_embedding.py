"""Recall with an embedding provider, on both back ends: semantic matches, hybrid fusion,
model bookkeeping and backfill."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from zenbrain import EmbeddingMismatchError, MemoryCoordinator
from zenbrain.providers import HashingEmbedder

TOPICS = {
    "vehicle": ["car", "automobile", "vehicle", "truck"],
    "fruit": ["banana", "apple", "fruit", "mango"],
}


class ConceptEmbedder:
    """Maps words of one topic onto one axis: a tiny stand-in for a real model, so
    "car" and "automobile" are neighbours while sharing no letters."""

    model_id = "concept-test-v1"
    dimension = 3

    def _vector(self, text: str) -> list[float]:
        words = text.lower().replace("?", " ").split()
        v = [0.0, 0.0, 0.05]
        for axis, topic in enumerate(TOPICS.values()):
            v[axis] += sum(w.strip(".,") in topic for w in words)
        return v

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]


def test_semantic_recall_relates_synonyms(store_location: str) -> None:
    with MemoryCoordinator(store_location, embedder=ConceptEmbedder()) as memory:
        auto = memory.store("I parked the automobile downstairs")
        memory.store("A ripe banana is on the table")
        results = memory.recall("where is my car?", layers=["semantic"], min_score=0.01)
        assert [r.id for r in results] == [auto]


def test_hybrid_prefers_memories_matching_both_signals(store_location: str) -> None:
    with MemoryCoordinator(store_location, embedder=ConceptEmbedder()) as memory:
        both = memory.store("The red truck needs new tyres")
        lexical_only = memory.store("Red paint for the fence")
        semantic_only = memory.store("The automobile is in the garage")
        results = memory.recall("red truck", layers=["semantic"], min_score=0.01)
        ids = [r.id for r in results]
        assert ids[0] == both
        assert set(ids[1:]) == {lexical_only, semantic_only}
        assert all(0 < r.score <= 1 for r in results)


def test_model_id_and_dimension_are_recorded(store_location: str) -> None:
    with MemoryCoordinator(store_location, embedder=HashingEmbedder(dimension=64)) as memory:
        memory.store("first note")
    with pytest.raises(EmbeddingMismatchError) as info:
        MemoryCoordinator(store_location, embedder=HashingEmbedder(dimension=128))
    message = str(info.value)
    assert "zenbrain-hashing-v1-64" in message and "zenbrain-hashing-v1-128" in message
    with MemoryCoordinator(store_location, embedder=HashingEmbedder(dimension=64)) as memory:
        assert memory.recall("first note", min_score=0.1)[0].content == "first note"


def test_backfill_embeds_memories_stored_without_an_embedder(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        memory.store_many(["I parked the automobile downstairs", "A ripe banana"])
    with MemoryCoordinator(store_location, embedder=ConceptEmbedder()) as memory:
        assert memory.recall("car", layers=["semantic"], min_score=0.01) == []
        assert memory.embed_missing(batch_size=1) == 2
        assert memory.embed_missing() == 0
        hit = memory.recall("car", layers=["semantic"], min_score=0.01)
        assert [r.content for r in hit] == ["I parked the automobile downstairs"]


def test_forgotten_memories_leave_the_vector_index(store_location: str) -> None:
    with MemoryCoordinator(store_location, embedder=ConceptEmbedder()) as memory:
        gone = memory.store("The automobile was sold")
        memory.forget(gone, "semantic")
        assert memory.recall("car", layers=["semantic"], min_score=0.01) == []


def test_a_broken_embedder_is_a_clear_error(store_location: str) -> None:
    class WrongShape(ConceptEmbedder):
        def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
            return [[1.0, 2.0] for _ in texts]

    from zenbrain import ProviderError

    with pytest.raises(ProviderError, match="shape"):
        MemoryCoordinator(store_location, embedder=WrongShape())


def test_vectors_are_unit_length_in_the_store(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "v.db"
    with MemoryCoordinator(path, embedder=ConceptEmbedder()) as memory:
        memory.store("car car car")
        with memory.database.engine.connect() as conn:
            blob = conn.exec_driver_sql("SELECT vector FROM zb_vectors").scalar_one()
    assert np.linalg.norm(np.frombuffer(blob, dtype=np.float32)) == pytest.approx(1.0)
