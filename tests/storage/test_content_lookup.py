"""Exact content is looked up through the content-hash index, which leads with each memory's
key block (``pk / CONTENT_HASH_KEY_BLOCK``): a lookup probes every block, so twins stored
thousands of memories apart are still found, and the planner really uses the index."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import event

from zenbrain import MemoryCoordinator
from zenbrain._storage.schema import CONTENT_HASH_KEY_BLOCK

NEEDLE = "The spare key hangs behind the blue door"


def _fill(memory: MemoryCoordinator, count: int) -> list[str]:
    return memory.store_many([f"filler memory {i} about nothing at all" for i in range(count)])


def test_forget_lists_twins_stored_in_every_key_block(memory: MemoryCoordinator) -> None:
    first = memory.store(NEEDLE, layer="semantic")
    _fill(memory, CONTENT_HASH_KEY_BLOCK)  # the next twin lands in the second block
    middle = memory.store(NEEDLE, layer="episodic")
    _fill(memory, CONTENT_HASH_KEY_BLOCK)
    last = memory.store(NEEDLE, layer="semantic")
    assert memory.health().semantic["count"] + memory.health().episodic["count"] > (
        2 * CONTENT_HASH_KEY_BLOCK
    )
    result = memory.forget(first, "semantic")
    assert result.forgotten
    assert sorted(result.duplicates, key=lambda d: d["id"]) == sorted(
        [{"id": middle, "layer": "episodic"}, {"id": last, "layer": "semantic"}],
        key=lambda d: d["id"],
    )
    # Forgetting the newest finds the one left in the middle block, and no other.
    assert memory.forget(last, "semantic").duplicates == [{"id": middle, "layer": "episodic"}]


def test_a_lookup_by_content_uses_the_key_block_index(memory: MemoryCoordinator) -> None:
    memory.store(NEEDLE, layer="semantic")
    doomed = memory.store(NEEDLE, layer="episodic")
    seen: list[tuple[str, Any]] = []

    def capture(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        if "content_hash IN" in statement:
            seen.append((statement, parameters))

    engine = memory.database.engine
    event.listen(engine, "before_cursor_execute", capture)
    try:
        assert len(memory.forget(doomed, "episodic").duplicates) == 1
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    [(statement, parameters)] = seen
    with engine.connect() as conn:
        driver = conn.connection.driver_connection
        assert driver is not None
        cursor = driver.cursor()
        if memory.database.dialect == "sqlite":
            cursor.execute("EXPLAIN QUERY PLAN " + statement, parameters)
        else:
            # A tiny table is cheaper to scan; forbid that to see whether the index applies.
            cursor.execute("BEGIN")
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("EXPLAIN " + statement, parameters)
        plan = " ".join(str(row) for row in cursor.fetchall())
        if memory.database.dialect != "sqlite":
            cursor.execute("ROLLBACK")
    assert "zb_memories_content_by_block" in plan


@pytest.mark.parametrize("count", [0, 1])
def test_a_lookup_in_a_store_with_few_memories_finds_exactly_the_twins(
    memory: MemoryCoordinator, count: int
) -> None:
    """With no other memory, and with one: every key is in the first block."""
    _fill(memory, count)
    lone = memory.store(NEEDLE, layer="semantic")
    assert memory.forget(lone, "semantic").duplicates == []
