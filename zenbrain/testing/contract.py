"""The storage contract: what every zenbrain back end must do, as a pytest suite to subclass.

The tests use only the public :class:`~zenbrain.MemoryCoordinator` API, so the same suite
runs on the SQLite default, on PostgreSQL with pgvector, and on any store location you point
it at. A back end passes when every test passes; zenbrain's own suite runs it on both of its
back ends (``tests/storage/test_contract_sqlite.py`` and ``test_contract_postgres.py``).

To run it against your own store, subclass :class:`StorageContract` in a test module (the
class name must start with ``Test`` so pytest collects it) and override one fixture,
``location``, returning the location of a fresh, empty store (a SQLite path, ``:memory:``
is not enough because the suite reopens the store, or a SQLAlchemy URL)::

    import pytest
    from zenbrain.testing.contract import StorageContract

    class TestMyPostgres(StorageContract):
        @pytest.fixture
        def location(self, postgres_database_url: str) -> str:
            return postgres_database_url   # a new database per test

(``postgres_database_url`` comes from :mod:`zenbrain.testing.pytest_postgres`.) The suite
covers storing and recalling (ranking, layers, contexts, every script), forgetting,
consolidation, FSRS review, sessions, core blocks, isolation between namespaces, that a
rejected call changes nothing, and that everything survives closing and reopening the store.
It needs ``pytest``.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

import pytest

from zenbrain._coordinator import MemoryCoordinator
from zenbrain.errors import InvalidInputError, UnknownLayerError

__all__ = ["StorageContract"]


class StorageContract:
    """The contract suite; subclass it and override :meth:`location`."""

    @pytest.fixture
    def location(self) -> str:
        """The location of a fresh, empty store for one test: override this."""
        raise NotImplementedError(
            "subclass StorageContract and override the `location` fixture with the location "
            "of a fresh, empty store (a SQLite file path or a SQLAlchemy URL)"
        )

    @pytest.fixture
    def memory(self, location: str) -> Iterator[MemoryCoordinator]:
        with MemoryCoordinator(location) as coordinator:
            yield coordinator

    # ------------------------------------------------------------------ store and recall
    def test_a_stored_memory_comes_back_as_stored(self, memory: MemoryCoordinator) -> None:
        memory_id = memory.store(
            "Anna's staging database is PostgreSQL 17 with pgvector.",
            layer="semantic",
            context="work",
            metadata={"source": "standup", "tags": ["db", "staging"], "count": 2},
        )
        got = memory.get(memory_id)
        assert got is not None
        assert got.content == "Anna's staging database is PostgreSQL 17 with pgvector."
        assert got.layer == "semantic"
        assert got.metadata["source"] == "standup"
        assert got.metadata["tags"] == ["db", "staging"] and got.metadata["count"] == 2
        assert got.context == "work"
        assert memory.get("no-such-id") is None

    def test_recall_ranks_the_matching_memory_first(self, memory: MemoryCoordinator) -> None:
        memory.store("The office plants need water on Mondays.", layer="semantic")
        wanted = memory.store("Anna's staging database is PostgreSQL 17.", layer="semantic")
        memory.store("Bob prefers tea over coffee.", layer="semantic")
        results = memory.recall("which database does staging use?", limit=3)
        assert results[0].id == wanted
        assert results[0].score > 0
        assert all(a.score >= b.score for a, b in pairwise(results))

    def test_recall_searches_only_the_layers_asked_for(self, memory: MemoryCoordinator) -> None:
        episode = memory.store("We celebrated the launch of the harbour app.", layer="episodic")
        memory.store("The harbour app is written in Kotlin.", layer="semantic")
        results = memory.recall("harbour app", layers=["episodic"], min_score=0.01)
        assert [r.id for r in results] == [episode]
        with pytest.raises(UnknownLayerError):
            memory.recall("harbour app", layers=["no_such_layer"])

    def test_recall_stays_inside_the_context_asked_for(self, memory: MemoryCoordinator) -> None:
        work = memory.store("The quarterly report is due Friday.", layer="semantic", context="work")
        memory.store("The bird count report is due Friday.", layer="semantic", context="personal")
        results = memory.recall("report due Friday", context="work", min_score=0.01)
        assert [r.id for r in results] == [work]

    def test_every_script_is_stored_and_found(self, memory: MemoryCoordinator) -> None:
        texts = {
            "Wir segeln im Sommer auf der Kieler Förde.": "kieler foerde",
            "東京の会議は来週の火曜日です。": "東京の会議は来週の火曜日です",
            "Встреча в Москве перенесена на пятницу.": "встреча в москве",
        }
        ids = {text: memory.store(text, layer="semantic") for text in texts}
        for text, query in texts.items():
            got = memory.get(ids[text])
            assert got is not None and got.content == text
            assert memory.recall(query, limit=1)[0].id == ids[text], query

    # ------------------------------------------------------------------ forget
    def test_a_forgotten_memory_is_gone_everywhere(self, memory: MemoryCoordinator) -> None:
        doomed = memory.store("My old locker code is 4711.", layer="semantic")
        kept = memory.store("My bike lock code is 1234.", layer="semantic")
        assert memory.forget(doomed, "semantic").forgotten
        assert memory.get(doomed) is None
        assert doomed not in {r.id for r in memory.recall("locker code", min_score=0.01)}
        assert memory.get(kept) is not None
        assert not memory.forget(doomed, "semantic").forgotten

    # ------------------------------------------------------------------ consolidate
    def test_consolidation_promotes_an_emotional_episode_once(
        self, memory: MemoryCoordinator
    ) -> None:
        episode = memory.store(
            "I was thrilled when my talk got accepted at PyCon!",
            layer="episodic",
            emotional_weight=0.9,
        )
        memory.store("A quiet walk in the park.", layer="episodic", emotional_weight=0.1)
        assert memory.consolidate().promoted == 1
        assert memory.consolidate().promoted == 0
        facts = memory.recall("talk accepted PyCon", layers=["semantic"], min_score=0.01)
        assert [(f.source, f.metadata) for f in facts] == [("consolidation", {})]
        assert memory.get(episode) is not None

    # ------------------------------------------------------------------ review
    def test_review_schedules_the_next_review_later(self, memory: MemoryCoordinator) -> None:
        fact = memory.store("The capital of Australia is Canberra.", layer="semantic")
        assert fact not in {item.id for item in memory.review_queue()}  # learned just now
        easy = memory.record_review(fact, 4)
        again = memory.record_review(fact, 1)
        assert easy.id == again.id == fact
        assert easy.due > again.due
        with pytest.raises(InvalidInputError):
            memory.record_review("no-such-fact", 3)
        with pytest.raises(InvalidInputError):
            memory.record_review(fact, 5)

    # ------------------------------------------------------------------ sessions
    def test_a_session_keeps_its_turns_in_order(self, memory: MemoryCoordinator) -> None:
        memory.start_session("chat-1")
        memory.add_interaction("user", "Hi, I'm planning a trip to Kyoto.")
        memory.add_interaction("assistant", "Lovely! When are you going?")
        memory.add_interaction("user", "In April, for the cherry blossoms.")
        turns = memory.conversation()
        assert [(t.role, t.content) for t in turns] == [
            ("user", "Hi, I'm planning a trip to Kyoto."),
            ("assistant", "Lovely! When are you going?"),
            ("user", "In April, for the cherry blossoms."),
        ]
        popped = memory.pop_interaction()
        assert popped is not None and popped.content == "In April, for the cherry blossoms."
        assert len(memory.conversation()) == 2
        memory.start_session("chat-2")
        assert memory.conversation() == []
        memory.start_session("chat-1")
        assert len(memory.conversation()) == 2
        memory.clear_session("chat-1")
        assert memory.conversation() == []

    # ------------------------------------------------------------------ core blocks
    def test_core_blocks_are_set_replaced_and_deleted(self, memory: MemoryCoordinator) -> None:
        memory.set_core_block("persona", "Anna, payments engineer in Kiel.")
        memory.set_core_block("persona", "Anna, payments engineer in Hamburg.")
        memory.set_core_block("style", "Short answers, British English.")
        blocks = {block.label: block.content for block in memory.core_blocks()}
        assert blocks == {
            "persona": "Anna, payments engineer in Hamburg.",
            "style": "Short answers, British English.",
        }
        assert "[persona]: Anna, payments engineer in Hamburg." in memory.core_context()
        assert memory.delete_core_block("persona")
        assert not memory.delete_core_block("persona")
        assert [block.label for block in memory.core_blocks()] == ["style"]

    # ------------------------------------------------------------------ namespaces
    def test_namespaces_do_not_see_each_other(self, memory: MemoryCoordinator) -> None:
        other = memory.for_namespace("someone-else")
        mine = memory.store("My passport number ends in 42.", layer="semantic")
        memory.set_core_block("persona", "Anna")
        memory.start_session("shared-name")
        memory.add_interaction("user", "a private turn")
        assert other.get(mine) is None
        assert other.recall("passport number", min_score=0.01) == []
        assert not other.forget(mine, "semantic").forgotten
        assert other.core_blocks() == []
        other.start_session("shared-name")
        assert other.conversation() == []
        assert other.health().semantic["count"] == 0
        assert memory.get(mine) is not None
        assert memory.health().semantic["count"] == 1

    # ------------------------------------------------------------------ atomicity, durability
    def test_a_rejected_call_changes_nothing(self, memory: MemoryCoordinator) -> None:
        before = memory.health().to_dict()
        with pytest.raises(InvalidInputError):
            memory.store("   ")
        with pytest.raises(InvalidInputError):
            memory.store("valid text", confidence=1.5)
        with pytest.raises(InvalidInputError):
            memory.store_many(["first is fine", ""])
        assert memory.health().to_dict() == before

    def test_everything_survives_closing_and_reopening(self, location: str) -> None:
        with MemoryCoordinator(location) as first:
            fact = first.store("The boiler was serviced in March.", layer="semantic")
            first.set_core_block("persona", "Anna")
            first.start_session("kept")
            first.add_interaction("user", "remember the boiler")
        with MemoryCoordinator(location) as second:
            got = second.get(fact)
            assert got is not None and got.content == "The boiler was serviced in March."
            assert [b.label for b in second.core_blocks()] == ["persona"]
            second.start_session("kept")
            assert [t.content for t in second.conversation()] == ["remember the boiler"]
            assert second.recall("boiler serviced", limit=1)[0].id == fact
