"""HashingEmbedder: stable, folded, normalised, and similar for similar texts."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zenbrain.errors import InvalidInputError
from zenbrain.providers import EmbeddingProvider, HashingEmbedder


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b)


def test_shape_dtype_norm_and_identity() -> None:
    embedder = HashingEmbedder()
    assert isinstance(embedder, EmbeddingProvider)
    assert embedder.dimension == 256
    assert embedder.model_id == "zenbrain-hashing-v1-256"
    assert HashingEmbedder(32).model_id == "zenbrain-hashing-v1-32"

    vectors = embedder.embed_documents(["Alice likes green tea", "Bob lives in Kiel"])

    assert vectors.dtype == np.float32
    assert vectors.shape == (2, 256)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)


def test_single_token_vector_matches_a_hand_computed_blake2b_hash() -> None:
    # "a" has two features: the word "w:a" and its one padded 3-gram "g:<a>", weight 1 each.
    dimension = 64
    expected = np.zeros(dimension)
    for feature in ("w:a", "g:<a>"):
        hashed = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "big")
        expected[hashed % dimension] += 1.0 if hashed >> 63 else -1.0
    expected /= np.linalg.norm(expected)

    vector = HashingEmbedder(dimension).embed_documents(["A!"])[0]

    np.testing.assert_allclose(vector, expected, rtol=1e-6)


def test_vectors_are_the_same_in_processes_with_different_hash_seeds() -> None:
    script = (
        "import json; from zenbrain.providers import HashingEmbedder; "
        "print(json.dumps(HashingEmbedder(16).embed_documents(['Kieler Förde, 2024']).tolist()))"
    )
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1]
    np.testing.assert_allclose(
        outputs[0], HashingEmbedder(16).embed_documents(["Kieler Förde, 2024"]), rtol=1e-6
    )


def test_folding_makes_spellings_of_one_word_identical() -> None:
    embedder = HashingEmbedder()
    a, b, c = embedder.embed_documents(["Kieler Förde", "kieler foerde", "KIELER FÖRDE!"])
    assert _cosine(a, b) == pytest.approx(1.0, abs=1e-6)
    assert _cosine(a, c) == pytest.approx(1.0, abs=1e-6)
    café, cafe = embedder.embed_documents(["Café crème", "cafe creme"])
    assert _cosine(café, cafe) == pytest.approx(1.0, abs=1e-6)


def test_similar_texts_are_closer_than_unrelated_ones() -> None:
    embedder = HashingEmbedder()
    query = embedder.embed_queries(["memory consolidation during sleep"])[0]
    related, unrelated = embedder.embed_documents(
        ["memories are consolidated while sleeping", "banana bread recipe with walnuts"]
    )
    assert _cosine(query, related) > _cosine(query, unrelated) + 0.2

    japanese = embedder.embed_documents(
        ["記憶を保存するサーバー", "記憶を保存するツール", "天気予報"]
    )
    assert _cosine(japanese[0], japanese[1]) > _cosine(japanese[0], japanese[2])


def test_queries_and_documents_share_one_space() -> None:
    embedder = HashingEmbedder()
    np.testing.assert_array_equal(
        embedder.embed_queries(["same text"]), embedder.embed_documents(["same text"])
    )


def test_text_without_words_is_the_zero_vector() -> None:
    vectors = HashingEmbedder().embed_documents(["", "?!  ..."])
    assert not np.any(vectors)
    assert HashingEmbedder().embed_documents([]).shape == (0, 256)


@pytest.mark.parametrize("dimension", [0, 1, -5, 2.5, True, "256"])
def test_bad_dimension_is_refused(dimension: object) -> None:
    with pytest.raises(InvalidInputError):
        HashingEmbedder(dimension)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", ["one string", [b"bytes"], [None]])
def test_bad_texts_are_refused(bad: object) -> None:
    with pytest.raises(InvalidInputError):
        HashingEmbedder().embed_documents(bad)  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=80), min_size=1, max_size=6))
def test_rows_are_unit_or_zero_and_independent_of_the_batch(texts: list[str]) -> None:
    embedder = HashingEmbedder(48)
    batch = embedder.embed_documents(texts)
    assert batch.shape == (len(texts), 48)
    norms = np.linalg.norm(batch, axis=1)
    assert np.all((np.abs(norms - 1.0) < 1e-5) | (norms == 0.0))
    for text, row in zip(texts, batch, strict=True):
        np.testing.assert_array_equal(embedder.embed_documents([text])[0], row)
