"""A purge leaves nothing: after ``drop_namespace()`` or ``forget()``, distinctive words
written before are in no table, no in-memory postings and no vector cache of the process
(both back ends), and on SQLite nowhere in the file's bytes, its ``-wal`` or a backup."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import inspect, text

from zenbrain import MemoryCoordinator
from zenbrain.providers import HashingEmbedder

# Words no tokenizer splits or stems, so the index terms on disk are these words too.
SECRETS = ("zorblaxik", "vimbreltox", "quandrivex", "plixotrumb")
KEPT = "harmless neighbour note about the weather"


def _write_secrets(memory: MemoryCoordinator) -> list[tuple[str, str]]:
    """Each secret in every place a user's words land; returns (id, layer) of each memory."""
    a, b, c, d = SECRETS
    written = [
        (memory.store(f"My diagnosis is {a} syndrome", layer="semantic"), "semantic"),
        (memory.store(f"I cried at the {b} clinic", layer="episodic"), "episodic"),
        (memory.store(f"To refill {c}: call the pharmacy", steps=["call"]), "procedural"),
    ]
    memory.recall(f"{a} {b} {c}")  # fills the postings and vector caches
    memory.add_interaction("user", f"my password is {d}")
    return written


def _every_cell(memory: MemoryCoordinator) -> Iterator[str]:
    """Every text cell of every zenbrain table, as text."""
    engine = memory.database.engine
    with engine.connect() as conn:
        for table in inspect(conn).get_table_names():
            if table.startswith("zb_"):
                for row in conn.execute(text(f'SELECT * FROM "{table}"')):
                    yield from (str(value) for value in row if value is not None)


def _cached_words(memory: MemoryCoordinator) -> set[str]:
    """Every word the process's postings hold (live or marked dead)."""
    held = memory.database.lexical._cache  # type: ignore[attr-defined]
    return {word for postings in held.values() for word in postings._vocabulary}


def _cached_vectors(memory: MemoryCoordinator) -> np.ndarray:
    """Every vector row the process's SQLite vector cache holds, spare capacity included."""
    held = getattr(memory.database.vectors, "_cache", {})
    rows = [cached._vectors for cached in held.values()]
    return np.concatenate(rows) if rows else np.zeros((0, 64), dtype=np.float32)


def _secret_vectors(embedder: HashingEmbedder, contents: list[str]) -> np.ndarray:
    vectors = np.asarray(embedder.embed_documents(contents), dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _assert_gone(memory: MemoryCoordinator, contents: list[str], embedder: HashingEmbedder):
    cells = "\n".join(_every_cell(memory))
    words = _cached_words(memory)
    for secret in SECRETS:
        assert secret not in cells, f"{secret} is still in a table"
        assert not any(secret in word for word in words), f"{secret} is in the postings"
    held = _cached_vectors(memory)
    for vector in _secret_vectors(embedder, contents):
        assert not np.any(np.all(np.isclose(held, vector, atol=1e-6), axis=1))
    assert KEPT in cells  # the purge took what it should, and no more


def _assert_not_in_bytes(store: Path, backup: Path) -> None:
    wal = store.with_name(store.name + "-wal")
    for path in (store, wal, backup):
        if not path.exists():
            continue
        raw = path.read_bytes()
        for secret in SECRETS:
            assert secret.encode() not in raw, f"{secret} is in the bytes of {path.name}"


Purge = Callable[[MemoryCoordinator, list[tuple[str, str]]], None]


def _drop(memory: MemoryCoordinator, written: list[tuple[str, str]]) -> None:
    assert memory.drop_namespace() == len(written)


def _forget(memory: MemoryCoordinator, written: list[tuple[str, str]]) -> None:
    for memory_id, layer in written:
        assert memory.forget(memory_id, layer).forgotten
    assert memory.clear_session() >= 1


PURGES = [pytest.param(_drop, id="drop_namespace"), pytest.param(_forget, id="forget")]


@pytest.mark.parametrize("purge", PURGES)
def test_a_purge_leaves_no_trace_in_tables_or_caches(store_location: str, purge: Purge) -> None:
    embedder = HashingEmbedder(dimension=64)
    with MemoryCoordinator(store_location, embedder=embedder) as memory:
        neighbour = memory.for_namespace("neighbour")
        neighbour.store(KEPT)
        user = memory.for_namespace("user-42")
        written = _write_secrets(user)
        contents = [str(user.get(memory_id).content) for memory_id, _ in written]  # type: ignore[union-attr]
        assert any(SECRETS[0] in word for word in _cached_words(memory))  # the test can fail
        purge(user, written)
        _assert_gone(memory, contents, embedder)
        assert user.recall(" ".join(SECRETS), min_score=0.01) == []
        assert [r.content for r in neighbour.recall("weather")] == [KEPT]


@pytest.mark.parametrize("purge", PURGES)
def test_a_purge_leaves_no_trace_in_the_sqlite_file_its_wal_or_a_backup(
    tmp_path: Path, purge: Purge
) -> None:
    store, backup = tmp_path / "memory.db", tmp_path / "after.db"
    with MemoryCoordinator(store, embedder=HashingEmbedder(dimension=64)) as memory:
        memory.store(KEPT)
        user = memory.for_namespace("user-42")
        for _ in range(3):  # several versions of the pages in the -wal
            written = _write_secrets(user)
        raw = store.read_bytes() + store.with_name("memory.db-wal").read_bytes()
        assert SECRETS[0].encode() in raw  # the words were on disk: the test can fail
        purge(user, user_memories(user))
        memory.backup(backup)
        _assert_not_in_bytes(store, backup)
        assert written  # (the last round's ids were among those purged)
    _assert_not_in_bytes(store, backup)  # and once every connection is closed


def user_memories(memory: MemoryCoordinator) -> list[tuple[str, str]]:
    return [(r.id, r.layer) for r in memory.find(layers=["semantic", "episodic", "procedural"])]
