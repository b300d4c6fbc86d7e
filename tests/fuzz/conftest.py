"""Shared by the hostile-input suites: a seeded store on each back end and a snapshot of
everything a rejected call must leave unchanged."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect, text

from zenbrain import MemoryCoordinator
from zenbrain.providers import HashingEmbedder

Snapshot = dict[str, Any]

_DERIVED = ("sqlite_",)  # SQLite's own bookkeeping (sqlite_sequence)


def _rows(conn: Any, table: str) -> list[tuple[str, ...]]:
    rows = conn.execute(text(f"SELECT * FROM {table}"))
    return sorted(tuple(repr(value) for value in row) for row in rows)


def snapshot(memory: MemoryCoordinator) -> Snapshot:
    """Every row of every zenbrain table, plus the process state a call may touch
    (working memory and the current session)."""
    state: Snapshot = {}
    with memory.database.engine.connect() as conn:
        for table in sorted(inspect(conn).get_table_names()):
            if table.startswith("zb_") and not table.startswith(_DERIVED):
                state[table] = _rows(conn, table)
    state["working"] = [
        (s.id, s.content, s.kind, s.source_id, s.source_layer) for s in memory.working.slots()
    ]
    state["session"] = memory.session_id
    state["core_blocks"] = [(b.label, b.content) for b in memory.core_blocks()]
    return state


@dataclass
class Seeded:
    memory: MemoryCoordinator
    location: str
    ids: list[str]
    snapshot: Callable[[MemoryCoordinator], Snapshot]
    tmp: Path


@pytest.fixture
def seeded(store_location: str, tmp_path: Path) -> Iterator[Seeded]:
    """A store with something in every layer, opened with a small real embedder."""
    with MemoryCoordinator(store_location, embedder=HashingEmbedder(32)) as memory:
        ids = [
            memory.store("Anna lives in Kiel and works on payments", layer="semantic"),
            memory.store("The outage on Friday was stressful", layer="episodic"),
            memory.store("deploy", layer="procedural", steps=["test", "tag"], outcome="live"),
        ]
        memory.set_core_block("persona", "Anna, engineer")
        memory.start_session("seed-session")
        memory.add_interaction("user", "hello there")
        yield Seeded(memory, store_location, ids, snapshot, tmp_path)
