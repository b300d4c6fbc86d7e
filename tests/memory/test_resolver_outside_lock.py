"""A resolver (a model deciding what a new memory replaces) is asked before the write and
outside the store's lock: a slow model holds up no other call on the store, and the write
closes only what is still current when it commits. Both back ends."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from zenbrain import MemoryCoordinator

WAIT = 30.0  # seconds: only reached when the store is stuck behind the model


class _HeldResolver:
    """Proposes every candidate, once the test lets it answer."""

    def __init__(self) -> None:
        self.asked = threading.Event()
        self.answer = threading.Event()
        self.offered: list[str] = []

    def propose(self, new: str, candidates: Sequence[tuple[str, str]]) -> list[str]:
        self.offered = [memory_id for memory_id, _ in candidates]
        self.asked.set()
        assert self.answer.wait(WAIT), "the test never let the resolver answer"
        return self.offered


@contextmanager
def _update_held_by_the_model(
    store_location: str,
) -> Iterator[tuple[MemoryCoordinator, str, list[str]]]:
    """A store with a password fact, and an update of it stored in another thread whose
    resolver is asked and held until the block ends: ``(memory, old id, [new id])``."""
    resolver = _HeldResolver()
    with MemoryCoordinator(store_location, supersession=resolver) as memory:
        old = memory.store("The office wifi password is tulip", layer="semantic")
        resolver.asked.clear()
        stored: list[str] = []

        def run() -> None:
            stored.append(memory.store("The office wifi password is now lantern", layer="semantic"))

        thread = threading.Thread(target=run)
        thread.start()
        try:
            assert resolver.asked.wait(WAIT)
            assert resolver.offered == [old]
            yield memory, old, stored
        finally:
            resolver.answer.set()
            thread.join(WAIT)
        assert not thread.is_alive() and stored


def test_a_slow_resolver_holds_up_no_other_call(store_location: str) -> None:
    with _update_held_by_the_model(store_location) as (memory, old, stored):
        # While the model is thinking, the store answers reads and takes writes.
        assert [r.id for r in memory.recall("office wifi password", limit=5)] == [old]
        other = memory.store("The printer is on the second floor", layer="episodic")
        assert memory.get(other) is not None
    replaced = memory.get(old)
    assert replaced is not None and replaced.superseded_by == stored[0]


def test_what_was_forgotten_while_the_model_thought_is_not_closed(store_location: str) -> None:
    with _update_held_by_the_model(store_location) as (memory, old, stored):
        assert memory.forget(old, "semantic").forgotten
    new = memory.get(stored[0])
    assert new is not None and new.valid_to is None  # stored, current, nothing to close
    assert memory.get(old) is None
