"""The claim index (``zb_claims``): what each current episode and fact states, kept in the
store's own transaction, so that finding what a new memory replaces is a lookup whose work
does not grow with the store. Both back ends."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import event, text

from zenbrain import MemoryCoordinator
from zenbrain._storage.records import content_hash
from zenbrain._storage.schema import SCHEMA_VERSION
from zenbrain.layers._supersession import claim_keys


def _indexed(memory: MemoryCoordinator, memory_id: str) -> set[int]:
    """The claim-index keys (hashes) that memory ``memory_id`` is held under."""
    query = text(
        "SELECT c.about FROM zb_claims c JOIN zb_memories m ON m.pk = c.memory_pk WHERE m.id = :id"
    )
    with memory.database.read() as conn:
        return {int(about) for about in conn.execute(query, {"id": memory_id}).scalars()}


def _keys(content: str) -> set[int]:
    return {content_hash(key) for key in claim_keys(content)}


def test_a_current_statement_is_indexed_and_leaves_when_replaced(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        hamburg = memory.store("I live in Hamburg.", layer="episodic")
        chatter = memory.store("What a lovely morning at the lake.", layer="episodic")
        assert _indexed(memory, hamburg) == _keys("I live in Hamburg.") != set()
        assert _indexed(memory, chatter) == set()  # states nothing: not indexed
        berlin = memory.store("I moved to Berlin last month.", layer="episodic")
        old = memory.get(hamburg)
        assert old is not None
        assert old.superseded_by == berlin
        assert _indexed(memory, hamburg) == set()  # closed: no longer a candidate
        assert _indexed(memory, berlin) == _keys("I moved to Berlin last month.")


def test_a_memory_becomes_a_candidate_again_when_its_replacement_is_forgotten(
    store_location: str,
) -> None:
    with MemoryCoordinator(store_location) as memory:
        hamburg = memory.store("I live in Hamburg.", layer="semantic")
        berlin = memory.store("I moved to Berlin.", layer="semantic")
        assert memory.forget(berlin, layer="semantic").forgotten
        assert _indexed(memory, hamburg) == _keys("I live in Hamburg.")
        munich = memory.store("I moved to Munich.", layer="semantic")
        current = memory.get(hamburg)
        assert current is not None
        assert current.superseded_by == munich


def test_statements_stored_with_updates_off_are_read_when_they_are_turned_on(
    store_location: str,
) -> None:
    with MemoryCoordinator(store_location, supersession=False) as memory:
        hamburg = memory.store("I live in Hamburg.", layer="episodic")
        memory.store_many(
            [{"content": c, "layer": "episodic"} for c in ("I work at Acme.", "Nothing here.")]
        )
        assert _indexed(memory, hamburg) == set()
    with MemoryCoordinator(store_location) as memory:
        berlin = memory.store("I moved to Berlin.", layer="episodic")
        old = memory.get(hamburg)
        assert old is not None
        assert old.superseded_by == berlin
        with memory.database.read() as conn:
            assert conn.execute(text("SELECT count(*) FROM zb_claim_backlog")).scalar() == 0


def test_a_store_from_before_the_index_is_read_when_it_is_opened(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        hamburg = memory.store("I live in Hamburg.", layer="episodic")
        closed = memory.store("My favourite colour is blue.", layer="episodic")
        memory.store("My favourite colour is green now.", layer="episodic")
        with memory.database.write() as conn:  # back to what a version-8 store holds
            conn.execute(text("DELETE FROM zb_claims"))
            conn.execute(text("DELETE FROM zb_migrations WHERE version >= 9"))
            conn.execute(text("UPDATE zb_meta SET value = '8' WHERE key = 'schema_version'"))
            conn.execute(text("DELETE FROM zb_meta WHERE key = 'claims_version'"))
    with MemoryCoordinator(store_location) as memory:
        assert memory.database.get_meta("schema_version") == str(SCHEMA_VERSION)
        assert _indexed(memory, hamburg) == _keys("I live in Hamburg.")
        assert _indexed(memory, closed) == set()  # only current memories are candidates
        berlin = memory.store("I moved to Berlin.", layer="episodic")
        old = memory.get(hamburg)
        assert old is not None
        assert old.superseded_by == berlin


def test_a_changed_rules_version_reads_every_claim_again(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        hamburg = memory.store("I live in Hamburg.", layer="episodic")
        with memory.database.write() as conn:  # as if an older rule set had read nothing
            conn.execute(text("DELETE FROM zb_claims"))
            conn.execute(text("UPDATE zb_meta SET value = '0' WHERE key = 'claims_version'"))
    with MemoryCoordinator(store_location) as memory:
        assert _indexed(memory, hamburg) == _keys("I live in Hamburg.")


@contextmanager
def _statements(memory: MemoryCoordinator) -> Iterator[list[str]]:
    """Every SQL statement the store runs inside the block."""
    seen: list[str] = []

    def record(*args: object) -> None:
        seen.append(str(args[2]))

    engine = memory.database.engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


def _episode(content: str) -> dict[str, str]:
    return {"content": content, "layer": "episodic"}


def _update_work(memory: MemoryCoordinator, round_: int) -> tuple[int, int]:
    """Statements one update runs, and how many look the claim index up: a moved-to
    statement, which finds and closes where the speaker lived."""
    with _statements(memory) as seen:
        memory.store(f"Anna: I moved to Town{round_}.", layer="episodic")
    claim_lookups = sum("zb_claims" in s and s.lstrip().upper().startswith("SELECT") for s in seen)
    return len(seen), claim_lookups


def test_an_update_reads_the_same_whatever_the_store_holds(store_location: str) -> None:
    """The lexical search this replaced read postings that grow with the store: here the
    statements of one update are counted on a small store and on one that holds many more
    statements of the same kind (the same speaker repeating a hobby, others moving)."""
    with MemoryCoordinator(store_location) as memory:
        memory.store_many([_episode(f"Ben: I live in Village{i}.") for i in range(20)])
        memory.store("Anna: I live in Town0.", layer="episodic")
        small = _update_work(memory, 1)
        memory.store_many(
            [
                _episode(content)
                for i in range(400)
                for content in (f"Anna: I love hiking in Vale{i}.", f"Carl{i}: I live in Port{i}.")
            ]
        )
        large = _update_work(memory, 2)
        assert small == large
