"""One value per operation (issue 40): ``RecallQuery`` and ``StoreItem`` are checked once,
when built; the facade's keywords, the JSON of the HTTP API and the command line all become
the same value; ``explain`` comes from the one search (the query is embedded once)."""

from __future__ import annotations

import dataclasses
import typing
from datetime import UTC, datetime

import pytest

from zenbrain import InvalidInputError, MemoryCoordinator, RecallQuery, StoreItem
from zenbrain.operations import RecallOptions, StoreOptions
from zenbrain.testing import DeterministicEmbedder

SPAN = (datetime(2025, 1, 1, tzinfo=UTC), datetime(2025, 6, 1, tzinfo=UTC))


@pytest.mark.parametrize(
    ("value", "options"), [(RecallQuery, RecallOptions), (StoreItem, StoreOptions)]
)
def test_the_keyword_options_are_the_values_fields(value: type, options: type) -> None:
    """The facade's ``**options`` are typed by a TypedDict: it must name every field."""
    names = [f.name for f in dataclasses.fields(value)][1:]  # the query or content first
    assert list(typing.get_type_hints(options)) == names


def test_a_value_is_checked_once_and_normalised() -> None:
    query = RecallQuery("tea", layers=["semantic", "semantic"], time_range=list(SPAN))
    assert query.layers == ("semantic",) and query.time_range == SPAN
    assert StoreItem("x", steps=[" a "], supersedes=None).steps == ("a",)
    for bad in (
        {"limit": True},
        {"layers": "semantic"},
        {"core": "sometimes"},
        {"as_of": datetime(2025, 1, 1)},  # naive
        {"time_range": SPAN[:1]},
        {"where": {"a": [1]}},
        {"explain": 1},
    ):
        with pytest.raises(InvalidInputError):
            RecallQuery("tea", **bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="unknown RecallQuery field"):
        RecallQuery.of("tea", {"limt": 3})
    with pytest.raises(InvalidInputError, match="confidence"):
        StoreItem("x", confidence=True)  # JSON booleans are not numbers here either


def test_json_round_trips_and_names_what_it_refuses() -> None:
    query = RecallQuery("tea", limit=3, as_of=SPAN[0], time_range=SPAN, where={"k": 1})
    assert RecallQuery.from_json(query.to_json()) == query
    assert query.to_json()["as_of"] == "2025-01-01T00:00:00+00:00"
    item = StoreItem("x", layer="fact", metadata={"context": "mine"}, created_at="2024-05-01")
    assert StoreItem.from_json(item.to_json()) == item
    with pytest.raises(InvalidInputError, match="'confidense'"):
        StoreItem.from_json({"content": "x", "confidense": 0.5})
    with pytest.raises(InvalidInputError, match="as_of"):
        RecallQuery.from_json({"query": "x", "as_of": "yesterday"})


def test_a_rejected_value_changes_nothing(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        memory.store("Anna prefers tea.")
        with pytest.raises(InvalidInputError):
            memory.store_many(["fine", {"content": "bad", "emotional_weight": 2}])
        with pytest.raises(InvalidInputError):
            memory.store("x", bogus=1)  # type: ignore[call-arg]
        # A value passed whole with options replacing its fields: the same refusal.
        with pytest.raises(InvalidInputError, match="'bogus'"):
            memory.store(StoreItem("x"), bogus=1)  # type: ignore[call-arg]
        with pytest.raises(InvalidInputError, match="'limt'"):
            memory.recall(RecallQuery("tea"), limt=3)  # type: ignore[call-arg]
        assert [r.content for r in memory.find()] == ["Anna prefers tea."]


def test_explain_comes_from_the_one_search(store_location: str) -> None:
    embedder = DeterministicEmbedder()  # records each query it embeds
    with MemoryCoordinator(store_location, embedder=embedder) as memory:
        memory.store("The staging database listens on port 5433.", layer="semantic")
        memory.store("Bob prefers tea over coffee.", layer="semantic")
        plain = memory.recall("staging database")
        before = len(embedder.query_calls)
        explained = memory.recall(RecallQuery("staging database", explain=True))
        assert embedder.query_calls[before:] == [["staging database"]]  # once, one search
    assert [(r.id, r.score) for r in explained] == [(r.id, r.score) for r in plain]
    assert all(r.explanation is None for r in plain)
    first = explained[0].explanation
    assert first is not None and first.lexical is not None and first.semantic is not None
    total = (first.fused or 0) + (first.layer or 0) + (first.neighbours or 0)
    assert total == pytest.approx(explained[0].score, abs=1e-5)
