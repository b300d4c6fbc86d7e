"""A stage sees its transaction through a narrow connection: it reads any table and writes
only its own, so a stage written outside zenbrain cannot change zenbrain's tables. Runs on
SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, func, insert, select, text, update

from zenbrain import MemoryCoordinator, StorageError
from zenbrain._storage.schema import facts, memories
from zenbrain.stages import Stage, StageConnection, StageScope, StoredMemory
from zenbrain.stages._base import GuardedConnection, upsert

notes = Table(
    "test_stage_notes",
    MetaData(),
    Column("memory_pk", Integer, primary_key=True),
    Column("namespace", String, nullable=False),
    Column("words", Integer, nullable=False),
)


class NoteStage(Stage):
    """Counts each stored memory's words into a table of its own; ``attempt`` is what it
    then tries beside (a write into zenbrain's tables, or raw SQL)."""

    name = "notes"
    tables = (notes,)

    def __init__(self, attempt: str | None = None) -> None:
        self.attempt = attempt
        self.seen: list[type] = []
        self.memories_read = 0

    def after_store(
        self, conn: StageConnection, scope: StageScope, stored: Sequence[StoredMemory]
    ) -> None:
        self.seen.append(type(conn))
        self.memories_read = int(conn.execute(select(func.count()).select_from(memories)).scalar())
        rows = [
            {"memory_pk": m.pk, "namespace": scope.namespace, "words": len(m.content.split())}
            for m in stored
        ]
        upsert(conn, notes, rows)
        pk = stored[0].pk
        if self.attempt == "update memories":
            conn.execute(update(memories).where(memories.c.pk == pk).values(content="owned"))
        elif self.attempt == "insert facts":
            conn.execute(insert(facts).values(memory_pk=pk, namespace="x", due=None, card={}))
        elif self.attempt == "raw sql":
            conn.execute(text("DELETE FROM zb_memories"))


@pytest.fixture
def location(store_location: str) -> str:
    with MemoryCoordinator(store_location) as memory, memory.database.write() as conn:
        notes.create(conn, checkfirst=True)
    return store_location


def test_a_stage_writes_its_own_table_and_reads_any(location: str) -> None:
    stage = NoteStage()
    with MemoryCoordinator(location, stages=[stage]) as memory:
        memory.store("Otters hold hands while they sleep", layer="semantic")
        assert stage.seen == [GuardedConnection]
        assert stage.memories_read == 1
        with memory.database.read() as conn:
            assert conn.execute(select(notes.c.words)).scalars().all() == [6]


@pytest.mark.parametrize("attempt", ["update memories", "insert facts", "raw sql"])
def test_a_stage_cannot_write_zenbrains_tables_and_the_store_rolls_back(
    location: str, attempt: str
) -> None:
    with MemoryCoordinator(location, stages=[NoteStage(attempt)]) as memory:
        with pytest.raises(StorageError, match="stage 'notes'"):
            memory.store("Otters hold hands while they sleep", layer="semantic")
        assert memory.find() == []  # the whole store transaction rolled back
        with memory.database.read() as conn:
            assert conn.execute(select(func.count()).select_from(notes)).scalar() == 0


def test_only_zenbrains_own_stages_may_update_its_tables() -> None:
    with pytest.raises(TypeError, match="core_updates"):

        class Sneaky(Stage):
            core_updates = (memories,)
