"""The shipped fakes: DeterministicEmbedder and ScriptedSummarizer."""

from __future__ import annotations

import numpy as np
import pytest

from zenbrain.errors import InvalidInputError, ProviderError
from zenbrain.providers import EmbeddingProvider, HashingEmbedder, Summarizer
from zenbrain.testing import DeterministicEmbedder, ScriptedSummarizer


def test_deterministic_embedder_is_the_hashing_embedder_and_records_calls() -> None:
    embedder = DeterministicEmbedder()
    assert isinstance(embedder, EmbeddingProvider)
    assert embedder.dimension == 64
    assert embedder.model_id == HashingEmbedder(64).model_id

    documents = embedder.embed_documents(["Alice likes tea", "Bob likes coffee"])
    query = embedder.embed_queries(("what does Alice drink",))

    np.testing.assert_array_equal(
        documents, HashingEmbedder(64).embed_documents(["Alice likes tea", "Bob likes coffee"])
    )
    assert query.shape == (1, 64)
    assert embedder.document_calls == [["Alice likes tea", "Bob likes coffee"]]
    assert embedder.query_calls == [["what does Alice drink"]]


def test_deterministic_embedder_refuses_a_bare_string_without_recording_it() -> None:
    embedder = DeterministicEmbedder()
    with pytest.raises(InvalidInputError):
        embedder.embed_queries("oops")
    assert embedder.query_calls == []


def test_default_summary_joins_the_texts() -> None:
    summarizer = ScriptedSummarizer()
    assert isinstance(summarizer, Summarizer)
    assert summarizer.summarize(["Alice likes tea.", "She drinks it daily."]) == (
        "Alice likes tea. She drinks it daily."
    )
    assert summarizer.calls == [["Alice likes tea.", "She drinks it daily."]]


def test_fixed_answer_is_given_every_time() -> None:
    summarizer = ScriptedSummarizer("Alice likes tea.")
    assert summarizer.summarize(["a"]) == "Alice likes tea."
    assert summarizer.summarize(["b", "c"]) == "Alice likes tea."
    assert summarizer.calls == [["a"], ["b", "c"]]


def test_scripted_answers_come_in_order_then_fail_loudly() -> None:
    summarizer = ScriptedSummarizer(["first", "second"])
    assert summarizer.summarize(["x"]) == "first"
    assert summarizer.summarize(["y"]) == "second"
    with pytest.raises(ProviderError, match="called 3 times but scripted only 2"):
        summarizer.summarize(["z"])
    assert summarizer.calls == [["x"], ["y"], ["z"]]


def test_function_answers_from_the_texts() -> None:
    summarizer = ScriptedSummarizer(lambda texts: f"{len(texts)} notes, first: {texts[0]}")
    assert summarizer.summarize(["alpha", "beta"]) == "2 notes, first: alpha"


def test_function_must_return_text() -> None:
    summarizer = ScriptedSummarizer(lambda texts: 42)  # type: ignore[arg-type,return-value]
    with pytest.raises(ProviderError, match="returned int"):
        summarizer.summarize(["x"])


def test_bad_scripts_and_inputs_are_refused() -> None:
    with pytest.raises(InvalidInputError):
        ScriptedSummarizer(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError):
        ScriptedSummarizer().summarize("a bare string")
