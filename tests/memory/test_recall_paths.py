"""recall() reads every searched layer's lexical candidates at once (one statement, one row
read, scores on the terms the index keeps); it must return exactly what reading each layer
on its own returns."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from zenbrain import MemoryCoordinator
from zenbrain._memory import candidates as candidates_module
from zenbrain._storage.records import indexed_text
from zenbrain._storage.repository import Repository
from zenbrain.providers import HashingEmbedder
from zenbrain.text import tokenize

COMMON = ["project", "meeting", "garden", "travel", "budget", "coffee"]
RARE = ["zeppelin", "quasar", "marzipan", "fjord", "obsidian", "kumquat", "theremin"]
FILLER = ["notes", "about", "weekly", "plans", "with", "team", "friends", "after", "lunch"]


def _sentence(rng: random.Random, words: int) -> str:
    pool = COMMON * 4 + RARE + FILLER * 3
    return " ".join(rng.choice(pool) for _ in range(words))


def _fill(memory: MemoryCoordinator) -> None:
    """Every searched layer, contexts, repeated texts (equal scores), long and short texts,
    procedures with different success rates, core blocks, and more matches of a common word
    than the candidate pool holds (so the cut at the pool matters)."""
    rng = random.Random(5)
    items: list[dict[str, Any]] = []
    for i in range(160):
        items.append(
            {
                "content": _sentence(rng, rng.randint(3, 30)),
                "layer": "semantic",
                "context": rng.choice([None, "work", "home"]),
                "metadata": {"n": i % 4},
            }
        )
    items += [{"content": "garden project budget", "layer": "semantic"}] * 3  # ties
    for _ in range(40):
        items.append({"content": _sentence(rng, rng.randint(4, 12)), "layer": "episodic"})
    memory.store_many(items)
    for i in range(6):
        pid = memory.store(
            f"procedure {RARE[i]} for the {COMMON[i]}",
            steps=[_sentence(rng, 4), _sentence(rng, 3)],
            outcome=rng.choice(["done", "shipped"]),
        )
        for success in [True, False][: i % 3]:
            memory.procedure_feedback(pid, success)
    memory.set_core_block("persona", "likes coffee and travel to the fjord")
    memory.set_core_block("project", "zeppelin budget owner")


QUERIES = [
    "garden project budget",
    "quasar zeppelin",
    "coffee",
    "travel to the fjord with friends",
    "theremin lunch plans weekly",
    "nothing matches this xylophone",
    "procedure marzipan",
]
OPTIONS: list[dict[str, Any]] = [
    {},
    {"limit": 1},
    {"limit": 3},
    {"limit": 25},
    {"layers": ["semantic", "episodic"]},
    {"layers": ["procedural", "core", "working"]},
    {"context": "work"},
    {"min_score": 0.3},
    {"min_confidence": 0.6},
    {"core": "matching"},
]


@pytest.fixture(params=["lexical", "hybrid"])
def varied(request: pytest.FixtureRequest, store_location: str) -> Iterator[MemoryCoordinator]:
    embedder = HashingEmbedder(dimension=64) if request.param == "hybrid" else None
    # A fixed clock: working memory's relevance decays with time between the two passes.
    noon = datetime(2026, 6, 1, 12, tzinfo=UTC)
    with MemoryCoordinator(store_location, embedder=embedder, clock=lambda: noon) as memory:
        _fill(memory)
        yield memory


def _all_recalls(memory: MemoryCoordinator) -> list[Any]:
    return [memory.recall(q, **options) for q in QUERIES for options in OPTIONS]


def test_reading_all_layers_at_once_returns_what_the_per_layer_path_returns(
    varied: MemoryCoordinator, monkeypatch: pytest.MonkeyPatch
) -> None:
    at_once = _all_recalls(varied)
    assert any(len(results) >= 10 and results[0].score > 0 for results in at_once)
    assert any(r.layer == "procedural" and r.score > 0 for results in at_once for r in results)
    # Without the read-ahead every layer's lexical candidates are read on their own.
    monkeypatch.setattr(candidates_module.Search, "read_ahead", False)
    per_layer = _all_recalls(varied)
    assert at_once == per_layer


def test_fill_ins_are_read_only_when_matches_leave_room(
    store_location: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with MemoryCoordinator(store_location) as memory:
        memory.store_many([f"quasar observation number {i}" for i in range(12)])
        memory.store("A walk in the park", emotional_weight=0.9)  # episodic, never matches
        reads: list[str] = []
        latest = Repository.latest_rows

        def counted(self: Repository, conn: Any, layer: str, *args: Any) -> Any:
            reads.append(layer)
            return latest(self, conn, layer, *args)

        monkeypatch.setattr(Repository, "latest_rows", counted)
        full = memory.recall("quasar observation", limit=5)
        assert [r.score > 0 for r in full] == [True] * 5
        assert reads == []  # five matches: no layer's newest memories are needed
        roomy = memory.recall("quasar observation", limit=20)
        assert "episodic" in reads
        assert next(r.content for r in roomy if r.score == 0) == "A walk in the park"


def test_candidates_of_all_layers_match_each_layers_own(varied: MemoryCoordinator) -> None:
    lexical = varied.database.lexical
    namespace = varied.namespace
    layers = ["episodic", "semantic", "procedural", "core"]
    terms = {layer: tokenize("garden project budget zeppelin coffee") for layer in layers}
    terms["core"] = []  # a layer without terms gets no candidates
    for context in (None, "work"):
        with varied.database.read() as conn:
            together = lexical.candidates_by_layer(conn, namespace, terms, context, 7)
            alone = {
                layer: lexical.candidates(conn, namespace, layer, terms[layer], context, 7)
                for layer in layers
            }
        assert together == alone
        assert len(together["semantic"]) == 7


def test_indexed_terms_are_the_tokens_of_the_indexed_text(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        memory.store("Paintings, painted and PAINTING: the Kieler Förde again and again")
        memory.store("brew coffee", steps=["grind the beans", "pour water"], outcome="coffee")
        memory.set_core_block("persona", "Prefers tea")
        with memory.database.read() as conn:
            rows = memory._scope.repo.find_rows(conn, {}, None, None, 0)
            by_layer: dict[str, list[int]] = {}
            for row in rows:
                by_layer.setdefault(row.layer, []).append(int(row.pk))
            by_layer.setdefault("episodic", []).append(10_000)  # not stored: left out
            indexed = memory.database.lexical.indexed_documents(conn, memory.namespace, by_layer)
        assert indexed is not None
        stored = {
            pk: (entry.documents.words(i), entry.created_at[i])
            for entry in indexed.values()
            for i, pk in enumerate(entry.pks)
        }
        assert len(stored) == len(rows) == 3
        for row in rows:
            text = indexed_text(
                row.layer,
                row.content,
                steps=row.steps or [],
                outcome=row.outcome or "",
                label=row.label,
            )
            assert stored[int(row.pk)] == (tuple(tokenize(text)), row.created_at)


def test_neighbours_lend_only_within_their_conversation(memory: MemoryCoordinator) -> None:
    """Two memories stored one after the other lend each other relevance when they were
    told in one conversation, not when each names another (issue 42)."""
    for conversation in ("standup", "retro"):
        memory.for_namespace(conversation).store_many(
            [
                {"content": "The backup runs every night at two.", "conversation": "a"},
                {
                    "content": "How to release: run the tests, then tag the build.",
                    "conversation": "a" if conversation == "standup" else "b",
                },
            ]
        )
    lifted = {
        name: {r.content[:6]: r.score for r in memory.for_namespace(name).recall(
            "when does the backup run", layers=["semantic", "procedural"], min_score=0.001
        )}
        for name in ("standup", "retro")
    }  # fmt: skip
    # It shares "run" with the question either way; only its own conversation lends more.
    assert lifted["standup"]["How to"] > lifted["retro"]["How to"] > 0
