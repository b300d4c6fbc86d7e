"""Recall with an embedding provider, on both back ends: semantic matches, hybrid fusion,
model bookkeeping and backfill."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from zenbrain import EmbeddingMismatchError, InvalidInputError, MemoryCoordinator
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


class CountingEmbedder(ConceptEmbedder):
    """Counts the calibration runs (the first calibration sentence being embedded)."""

    calibrations = 0

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if any("invoice is due" in text for text in texts):
            type(self).calibrations += 1
        return super().embed_documents(texts)


def test_calibration_runs_once_per_store_and_model(store_location: str) -> None:
    CountingEmbedder.calibrations = 0
    with MemoryCoordinator(store_location, embedder=CountingEmbedder()) as memory:
        assert CountingEmbedder.calibrations == 1
        for name in ("a", "b", "c"):
            view = memory.for_namespace(name)
            view.store("The automobile is in the garage")
            assert view.recall("car", layers=["semantic"], min_score=0.01)
        floor = memory._scope.embedding.similarity_floor  # type: ignore[union-attr]
    with MemoryCoordinator(store_location, embedder=CountingEmbedder()) as reopened:
        assert reopened._scope.embedding.similarity_floor == floor  # type: ignore[union-attr]
        assert reopened.for_namespace("a").recall("car", layers=["semantic"], min_score=0.01)
    assert CountingEmbedder.calibrations == 1


class BadVectors(ConceptEmbedder):
    """Answers calibration correctly, then returns rows of ``bad`` (or ragged rows)."""

    def __init__(self, bad: object) -> None:
        self.bad = bad

    def embed_documents(self, texts: Sequence[str]) -> Any:
        if any("invoice is due" in text for text in texts):
            return super().embed_documents(texts)
        if self.bad == "ragged":  # rows of different lengths (one short row for one text)
            return [[1.0, 0.0, 0.0][: 3 - (i + 1) % 2] for i in range(len(texts))]
        return [self.bad for _ in texts]


BAD_ROWS = [
    [float("nan"), 0.0, 1.0],
    [float("inf"), 0.0, 1.0],
    ["0.1", "0.2", "0.3"],
    ["a", "b", "c"],
    [None, 1.0, 1.0],
]


@pytest.mark.parametrize("bad", [*BAD_ROWS, "ragged"])
def test_bad_vectors_are_refused_and_nothing_is_written(store_location: str, bad: Any) -> None:
    from zenbrain import ProviderError

    with MemoryCoordinator(store_location, embedder=ConceptEmbedder()) as memory:
        memory.store("a first, good memory")
    with MemoryCoordinator(store_location, embedder=BadVectors(bad)) as memory:
        with pytest.raises(ProviderError):
            memory.store("a car")
        with pytest.raises(ProviderError):
            memory.store_many(["a car", "a banana"])
        with pytest.raises(ProviderError):
            memory.set_core_block("persona", "Anna")
        with pytest.raises(ProviderError):
            memory.replace({"k": 1}, "a car")
        assert [r.content for r in memory.find()] == ["a first, good memory"]
        assert memory.core_blocks() == []
        assert len(memory.working) == 0  # rejected calls leave no copies either


@pytest.mark.parametrize("bad", [*BAD_ROWS, "ragged"])
def test_bad_calibration_vectors_are_refused_and_do_not_bind(store_location: str, bad: Any) -> None:
    from zenbrain import ProviderError

    class BadCalibration(ConceptEmbedder):
        model_id = "broken-model"

        def embed_documents(self, texts: Sequence[str]) -> Any:
            if bad == "ragged":
                return [[1.0, 0.0, 0.0], [1.0, 0.0]] + [[0.0, 1.0, 0.0]] * (len(texts) - 2)
            return [bad for _ in texts]

    with pytest.raises(ProviderError):
        MemoryCoordinator(store_location, embedder=BadCalibration())
    with MemoryCoordinator(store_location, embedder=HashingEmbedder(dimension=16)) as memory:
        memory.store("the store was not bound to the broken model")


def test_a_failing_embedder_on_open_does_not_bind_the_store(store_location: str) -> None:
    from zenbrain import ProviderError

    class Offline(ConceptEmbedder):
        model_id = "remote-model-v2"

        def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
            raise ConnectionError("the embedding service is unreachable")

    with pytest.raises(ProviderError, match="unreachable"):
        MemoryCoordinator(store_location, embedder=Offline())
    with MemoryCoordinator(store_location, embedder=ConceptEmbedder()) as memory:
        memory.store("I parked the automobile downstairs")
        assert memory.recall("car", layers=["semantic"], min_score=0.01)
    with pytest.raises(EmbeddingMismatchError):
        MemoryCoordinator(store_location, embedder=HashingEmbedder(dimension=16))


def test_progress_is_reported_per_batch(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        stored: list[tuple[int, int]] = []
        memory.store_many(
            [f"note {i}" for i in range(5)], progress=lambda d, t: stored.append((d, t))
        )
        assert stored == [(5, 5)]
        with pytest.raises(InvalidInputError):
            memory.store_many(["x"], progress="yes")  # type: ignore[arg-type]
    with MemoryCoordinator(store_location, embedder=ConceptEmbedder()) as memory:
        seen: list[tuple[int, int]] = []
        assert memory.embed_missing(batch_size=2, progress=lambda d, t: seen.append((d, t))) == 5
        assert seen == [(2, 5), (4, 5), (5, 5)]
        many: list[tuple[int, int]] = []
        memory.store_many(
            [f"car {i}" for i in range(1200)], progress=lambda d, t: many.append((d, t))
        )
        assert many == [(512, 1200), (1024, 1200), (1200, 1200)]
