"""The pre-filter's recall benchmark: what its measure reports, the real-model vectors it
keeps in a cache folder, and a small run from the command line. Timings are never asserted.
(Whether bits around the centre beat bits around the origin is tested with the cache, in
tests/storage/test_vector_cache.py.)"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from benchmarks.common.synthetic_corpus import make_corpus
from benchmarks.scale import ann as scale_ann
from zenbrain.providers import HashingEmbedder


def test_measure_reports_recall_around_the_centre_and_around_the_origin() -> None:
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((21_000, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    queries = vectors[:20] + 0.02 * rng.standard_normal((20, 384)).astype(np.float32)
    result = scale_ann.measure(vectors, queries, "noise", model="test")
    assert (result.corpus, result.model, result.size, result.queries) == (
        "noise",
        "test",
        21_000,
        20,
    )
    # Each question was made next to one stored row: both codes find at least that one.
    for recall in (result.recall_limit_10, result.recall_limit_50, result.recall_around_origin):
        assert 0.1 <= recall <= 1.0
    assert result.recall_limit_50 >= result.recall_limit_10  # more candidates, never fewer hits
    table = scale_ann.markdown([result], "python -m benchmarks scale.ann --test")
    row = next(line for line in table.splitlines() if line.startswith("| noise |"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[:7] == [
        "noise", "test", "21,000", f"{result.recall_limit_10:.4f}", f"{result.recall_limit_50:.4f}",
        f"{result.recall_50_limit_50:.4f}", f"{result.recall_around_origin:.4f}",
    ]  # fmt: skip


class _CountingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__(dimension=32)
        self.documents = 0
        self.queries = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.documents += len(texts)
        return super().embed_documents(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        self.queries += len(texts)
        return super().embed_queries(texts)


def test_model_vectors_are_embedded_once_and_read_back_from_the_cache(tmp_path: Path) -> None:
    corpus = make_corpus(300, 7, seed=2)
    first = _CountingEmbedder()
    memories, queries = scale_ann.model_vectors(
        corpus, "synthetic", "minilm", cache=tmp_path, embedder=first
    )
    assert (first.documents, first.queries) == (300, 7)
    assert memories.shape == (300, 32) and queries.shape == (7, 32)
    assert np.allclose(memories, HashingEmbedder(32).embed_documents(corpus.memories))
    assert [p.name for p in tmp_path.iterdir()] == ["synthetic-minilm-300-7.npz"]
    again = _CountingEmbedder()
    cached_memories, cached_queries = scale_ann.model_vectors(
        corpus, "synthetic", "minilm", cache=tmp_path, embedder=again
    )
    assert (again.documents, again.queries) == (0, 0)
    assert np.array_equal(cached_memories, memories)
    assert np.array_equal(cached_queries, queries)
    # The corpus's own projections need no model and no cache.
    own, own_queries = scale_ann.model_vectors(corpus, "synthetic", "projection", cache=tmp_path)
    assert own is corpus.memory_vectors and own_queries is corpus.query_vectors


def test_a_small_run_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert scale_ann.main(["--sizes", "21000", "--queries", "4", "--corpus", "synthetic"]) == 0
    table = capsys.readouterr().out
    assert "| synthetic | projection | 21,000 |" in table
    assert "around 0: recall@10, limit 10" in table


def test_centre_cases_measure_the_centre_from_other_rows(
    narrow_cone: Callable[..., np.ndarray], questions_near: Callable[..., np.ndarray]
) -> None:
    vectors = narrow_cone(20_000)  # past the cache's threshold, as a layer is
    queries = questions_near(vectors, 30, seed=8)
    cases = scale_ann.centre_cases(vectors, queries, topics=2, seed=1)
    labels = [case.centre_from for case in cases]
    assert labels[0] == "the first 4,096 rows (the cache's)"
    assert labels[1] == "every row"
    assert all(label.startswith("the 4,096 rows nearest row ") for label in labels[2:4])
    assert labels[4:] == ["the origin (no centre)"]
    every, origin = cases[1], cases[4]
    assert every.cosine_to_mean == pytest.approx(1.0)
    assert origin.cosine_to_mean == 0.0
    # In a cone, bits around the mean find the neighbours and bits around the origin miss
    # many: the measure must tell the two apart.
    assert every.recall_limit_10 >= 0.95
    assert origin.recall_limit_10 <= every.recall_limit_10 - 0.05
    for case in cases[2:4]:  # one cluster's rows: a centre off the mean, but in the cone
        assert 0.5 < case.cosine_to_mean < 1.0
    table = scale_ann.centre_markdown("test", len(vectors), cases)
    assert table.splitlines()[0].startswith("| centre taken from (test, 20,000 vectors) |")
    for case in cases:
        row = f"| {case.centre_from} | {case.cosine_to_mean:.3f} | {case.recall_limit_10:.4f} |"
        assert row in table.splitlines()
