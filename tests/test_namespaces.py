"""A namespace is a hard boundary on every path, by-id calls included."""

from __future__ import annotations

import pytest

from zenbrain import InvalidInputError, MemoryCoordinator

EPISODE = "I am absolutely thrilled — the garden finally bloomed!"


def test_two_namespaces_on_one_file_see_nothing_of_each_other(store_location: str) -> None:
    with (
        MemoryCoordinator(store_location, namespace="alice") as alice,
        MemoryCoordinator(store_location, namespace="bob") as bob,
    ):
        fact = alice.store("Alice's locker code is 4711")
        episode = alice.store(EPISODE)
        proc = alice.store("How to open the locker: turn left twice")
        block = alice.set_core_block("persona", "Alice likes tea")
        alice.start_session("s1")
        alice.add_interaction("user", "hello from alice")

        assert bob.recall("locker code 4711") == []
        assert bob.recall("Alice tea", layers=["core"]) == []
        assert all(bob.get(i) is None for i in (fact, episode, proc, block.id))
        health = bob.health()
        assert (health.semantic["count"], health.episodic["count"], health.core["blocks"]) == (
            0,
            0,
            0,
        )
        assert bob.conversation() == []
        assert bob.core_blocks() == [] and bob.core_context() == ""
        assert bob.review_queue() == []

        # by-id calls cannot change or delete across the boundary
        assert not bob.forget(fact, "semantic").forgotten
        assert not bob.forget(block.id, "core").forgotten
        with pytest.raises(InvalidInputError):
            bob.record_review(fact, 3)
        with pytest.raises(InvalidInputError):
            bob.procedure_feedback(proc, False)
        assert not bob.delete_core_block("persona")
        assert bob.consolidate().promoted == 0

        assert alice.get(fact) is not None and alice.get(proc) is not None
        assert alice.recall("locker", layers=["procedural"])[0].confidence == 1.0
        assert alice.core_blocks()[0].content == "Alice likes tea"
        assert alice.consolidate().promoted == 1


def test_same_core_label_in_two_namespaces(store_location: str) -> None:
    with (
        MemoryCoordinator(store_location, namespace="a") as a,
        MemoryCoordinator(store_location, namespace="b") as b,
    ):
        a.set_core_block("persona", "A")
        b.set_core_block("persona", "B")
        assert a.core_context() == "[persona]: A"
        assert b.core_context() == "[persona]: B"


def test_forget_does_not_list_duplicates_from_other_namespaces(store_location: str) -> None:
    with (
        MemoryCoordinator(store_location, namespace="a") as a,
        MemoryCoordinator(store_location, namespace="b") as b,
    ):
        mine = a.store("shared text")
        b.store("shared text")
        assert a.forget(mine, "semantic").duplicates == []
        assert b.health().semantic["count"] == 1


def test_idf_is_computed_within_the_namespace(store_location: str) -> None:
    with (
        MemoryCoordinator(store_location, namespace="a") as a,
        MemoryCoordinator(store_location, namespace="b") as b,
    ):
        a.store("apples and pears")
        a.store("apples and plums")
        before = [r.score for r in a.recall("apples pears", layers=["semantic"])]
        b.store_many(["pears pears"] * 50)
        after = [r.score for r in a.recall("apples pears", layers=["semantic"])]
        assert before == after


def test_for_namespace_shares_the_store(store_location: str) -> None:
    with MemoryCoordinator(store_location, namespace="a") as a:
        b = a.for_namespace("b")
        b.store("only in b")
        assert a.recall("only", min_score=0.1) == []
        assert b.recall("only", min_score=0.1)[0].content == "only in b"
