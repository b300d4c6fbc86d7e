"""One ranking for a namespace: a score means the same whichever layer routing filed a memory
in, however small that layer is, and both back ends rank the same store the same way."""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from zenbrain import MemoryCoordinator
from zenbrain._ranking import FUNCTION_WORD_WEIGHT, Collection, query_weights
from zenbrain.providers import HashingEmbedder
from zenbrain.testing.postgres import fresh_database
from zenbrain.text import tokenize

CODING_ASSISTANT = [
    "The minimum supported Python version is 3.11.",
    "The project uses ruff for linting and mypy for type checks.",
    "Releases are cut every second Tuesday.",
    "The staging database runs PostgreSQL 17 with pgvector.",
    "CI runs on two cores and must finish within ten minutes.",
    "The docs are built with mkdocs and published on every release.",
    "Anna maintains the payments service.",
    "The API rate limit is 600 requests per minute per key.",
    "Feature flags live in the flags.yaml file at the repository root.",
    "The flaky login test was fixed on Monday by pinning the clock.",
    "How to cut a release:\n1. bump the version\n2. update the changelog\n3. tag and push",
    "How to run the integration tests:\n1. start PostgreSQL\n2. export the URL\n3. run pytest",
    "Steps: open the dashboard, pick the service, press restart",
    "Absolutely horrible, I panicked: the release script deleted the staging bucket!",
    "So happy and excited: the new search shipped and users love it!",
]
QUESTIONS = {
    "what is the minimum Python version": 0,
    "when was the flaky login test fixed": 9,
    "how often are releases cut": 2,
    "which database does staging run": 3,
    "how do I run the integration tests": 11,
    "what happened to the staging bucket": 13,
}


def _load(memory: MemoryCoordinator, *, layer: str | None = None) -> list[str]:
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    items = []
    for i, text in enumerate(CODING_ASSISTANT):
        item: dict[str, object] = {"content": text, "created_at": start + timedelta(hours=i)}
        if layer is not None:
            item["layer"] = layer
        items.append(item)
    return memory.store_many(items)


def test_routing_spreads_the_store_over_several_layers(tmp_path: Path) -> None:
    with MemoryCoordinator(tmp_path / "m.db") as memory:
        _load(memory)
        layers = {r.layer for r in memory.find(limit=100)}
    assert {"semantic", "procedural", "episodic"} <= layers


def test_the_right_memory_comes_first_in_a_store_of_small_layers(tmp_path: Path) -> None:
    with MemoryCoordinator(tmp_path / "m.db") as memory:
        ids = _load(memory)
        memory.set_core_block("persona", "Anna, payments engineer in Kiel")
        memory.set_core_block("style", "Answer briefly, with code first")
        for question, answer in QUESTIONS.items():
            results = memory.recall(question, limit=3)
            assert results[0].id == ids[answer], (question, [r.content for r in results])
            # One shared word of a small layer never makes a perfect score.
            assert all(r.score < 1.0 for r in results[1:]), question


def test_a_score_does_not_depend_on_the_layer_a_memory_sits_in(tmp_path: Path) -> None:
    """The routed store and the same memories forced into one layer score every memory the
    same: the statistics are the namespace's, not the layer's."""
    with (
        MemoryCoordinator(tmp_path / "routed.db") as routed,
        MemoryCoordinator(tmp_path / "one.db") as one_layer,
    ):
        _load(routed)
        _load(one_layer, layer="semantic")
        for question in [*QUESTIONS, "release", "when", "staging database release script"]:
            # Matches only: what fills in for a layer without one differs, as it should.
            spread = {r.content: r.score for r in routed.recall(question, limit=20) if r.score}
            single = {r.content: r.score for r in one_layer.recall(question, limit=20) if r.score}
            assert spread == pytest.approx(single, abs=1e-6), question


def test_function_words_alone_never_decide(tmp_path: Path) -> None:
    with MemoryCoordinator(tmp_path / "m.db") as memory:
        # Stored days apart: two conversations, so neither lends the other relevance.
        office = memory.store(
            "The office is closed on public holidays.", created_at=datetime(2026, 3, 1, tzinfo=UTC)
        )
        memory.store(
            "Terrible news today, when will this ever end!",
            emotional_weight=0.9,
            created_at=datetime(2026, 3, 5, tzinfo=UTC),
        )
        results = memory.recall("when is the office closed")
        assert results[0].id == office
        assert results[1].score < 0.2 * results[0].score


def test_layer_counts_add_up_to_the_statistics_of_one_index() -> None:
    layers = [
        [tokenize(text) for text in CODING_ASSISTANT[:10]],
        [tokenize(text) for text in CODING_ASSISTANT[10:13]],
        [tokenize(text) for text in CODING_ASSISTANT[13:]],
    ]
    terms = tokenize("when was the release script run on staging")
    summed = Collection(terms)
    for docs in layers:
        frequencies = {t: sum(t in doc for doc in docs) for t in set(terms)}
        summed.add_counts(len(docs), sum(map(len, docs)) / len(docs), frequencies)
    whole = Collection(terms)
    whole.add_documents(doc for docs in layers for doc in docs)
    assert summed.documents == whole.documents == len(CODING_ASSISTANT)
    assert summed.average_length == pytest.approx(whole.average_length)
    assert summed.frequencies == whole.frequencies
    assert summed.weights() == query_weights(whole.documents, whole.frequencies)


def test_a_query_of_function_words_only_keeps_their_weight() -> None:
    weights = query_weights(10, {"when": 1, "often": 2})
    assert weights == {
        "when": pytest.approx(math.log(1 + 10 / 2)),
        "often": pytest.approx(math.log(1 + 10 / 3)),
    }
    damped = query_weights(10, {"when": 1, "release": 1})
    assert damped["when"] == pytest.approx(FUNCTION_WORD_WEIGHT * damped["release"])


@pytest.fixture
def both_back_ends(tmp_path: Path, postgres_url: str) -> Iterator[tuple[str, str]]:
    with fresh_database(postgres_url) as url:
        yield str(tmp_path / "m.db"), url


@pytest.mark.postgres
@pytest.mark.parametrize("hybrid", [False, True], ids=["lexical", "hybrid"])
def test_both_back_ends_rank_the_same_store_the_same_way(
    both_back_ends: tuple[str, str], hybrid: bool
) -> None:
    rankings = []
    for location in both_back_ends:
        embedder = HashingEmbedder(dimension=64) if hybrid else None
        with MemoryCoordinator(location, embedder=embedder) as memory:
            _load(memory)
            memory.set_core_block("persona", "Anna, payments engineer in Kiel")
            rankings.append(
                [
                    [(r.content, round(r.score, 5)) for r in memory.recall(q, limit=8)]
                    for q in [*QUESTIONS, "payments", "release staging"]
                ]
            )
    assert rankings[0] == rankings[1]


def test_one_shared_word_out_of_many_is_not_a_perfect_score(tmp_path: Path) -> None:
    with MemoryCoordinator(tmp_path / "m.db") as memory:
        memory.store("Kim got 72 in the statistics coursework.")
        only = memory.recall("coursework")[0].score
        many = memory.recall("how do I hand in the coursework portal upload")[0].score
    assert only == 1.0
    # Three of four content words are held by no memory: the one found is a quarter of the
    # query's weight, or thereabouts, whatever the store holds.
    assert 0 < many < 0.5


def test_words_no_memory_holds_scale_scores_without_changing_their_order(tmp_path: Path) -> None:
    with MemoryCoordinator(tmp_path / "m.db") as memory:
        memory.store_many(CODING_ASSISTANT)
        plain = memory.recall("staging release database", limit=6)
        padded = memory.recall("staging release database zanzibar quokka", limit=6)
    assert [r.id for r in plain] == [r.id for r in padded]
    ratios = [p.score / q.score for p, q in zip(plain, padded, strict=True) if q.score]
    assert len(ratios) >= 3 and ratios[0] > 1
    assert ratios == pytest.approx([ratios[0]] * len(ratios), rel=1e-4)  # scores are rounded
