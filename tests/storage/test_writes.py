"""Bulk writes: ``store_many`` writes exactly the rows (memories, layer rows, entities and
mentions, the lexical index and its counts) that storing the same items one by one writes,
on SQLite and PostgreSQL; :func:`insert_many` stores what SQLAlchemy's insert stores; a
single ``store()`` runs no statement it does not need."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, select

from zenbrain import MemoryCoordinator
from zenbrain._storage.database import Database
from zenbrain._storage.records import content_hash
from zenbrain._storage.schema import entities, facts, memories
from zenbrain._storage.sqlite.engine import PAGE_CACHE_KIB
from zenbrain._storage.writes import insert_many
from zenbrain.config import resolve_location
from zenbrain.testing.postgres import fresh_database

T0 = datetime(2031, 3, 1, 9, 0, tzinfo=UTC)

# Core blocks first: store_many upserts them before inserting the rest, so only then do
# both ways hand out the same keys in the same order.
ITEMS: list[str | dict[str, Any]] = [
    {"content": "The user is Dana Weber, a nurse from Kiel", "confidence": 0.95},
    "How to deploy the app:\n1. build the image\n2. push it to the registry\n3. restart",
    {
        "content": "Rotate the API keys",
        "layer": "procedural",
        "steps": ["open the vault", "rotate"],
        "tools": ["vault"],
        "outcome": "new keys live",
    },
    "I was thrilled when Anna Schmidt won the award in Berlin!",
    "Heute war ich mit Anna Schmidt an der Kieler Förde. Der Hund von Herrn Müller bellte.",
    {
        "content": "Dana Weber moved the quarterly report meeting to Friday",
        "context": "work",
        "metadata": {"ticket": 7, "tags": ["q3", "report"], "done": False, "note": None},
        "created_at": datetime(2030, 12, 24, 18, 30, 15, 123456, tzinfo=UTC),
    },
    {"content": "Remember to buy milk", "layer": "working"},
    "Caroline: Hey Mel! Good to see you! How have you been? Melanie said hi to Caroline.",
    {"content": "The staging database runs on port 5433", "layer": "semantic", "source": "ops"},
    "Melanie: I ran a charity race for mental health last Saturday with Caroline.",
    "Melanie: I ran a charity race for mental health last Saturday with Caroline.",
    {"content": "My grandmother died last spring; the funeral was in Hamburg", "context": "family"},
]


EXPECTED_LAYERS = [
    "core",
    "procedural",
    "procedural",
    "episodic",
    "semantic",
    "semantic",
    None,
    "semantic",
    "semantic",
    "semantic",
    "semantic",
    "episodic",
]


@pytest.fixture
def second_location(
    store_location: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[str]:
    """Another fresh store on the same back end as ``store_location``."""
    if not store_location.startswith("postgresql"):
        yield str(tmp_path / "second.db")
        return
    with fresh_database(request.getfixturevalue("postgres_url")) as url:
        yield url


def _dump(memory: MemoryCoordinator) -> dict[str, list[tuple[Any, ...]]]:
    """Every row the store path writes, as stored (JSON and times in their stored form)."""
    queries = {
        "memories": "SELECT pk, namespace, layer, content, context, emotional_weight, "
        "confidence, source, metadata, created_at, updated_at FROM zb_memories ORDER BY pk",
        "facts": "SELECT * FROM zb_facts ORDER BY memory_pk",
        "procedures": "SELECT * FROM zb_procedures ORDER BY memory_pk",
        "core": "SELECT * FROM zb_core_blocks ORDER BY memory_pk",
        "entities": "SELECT * FROM zb_entities ORDER BY pk",
        "mentions": "SELECT * FROM zb_entity_mentions ORDER BY entity_pk, memory_pk",
    }
    if memory.database.dialect == "sqlite":
        queries["lexical"] = (
            "SELECT memory_pk, scope, ctx, terms FROM zb_lexical ORDER BY memory_pk"
        )
        queries["lengths"] = "SELECT * FROM zb_lexical_lengths ORDER BY scope"
    else:
        queries["lexical"] = (
            "SELECT memory_pk, ctx, CAST(terms AS TEXT), length, ordered FROM zb_lexical"
            " ORDER BY memory_pk"
        )
        queries["lengths"] = "SELECT * FROM zb_lexical_counts ORDER BY namespace, layer"
    with memory.database.read() as conn:
        return {
            name: [tuple(row) for row in conn.exec_driver_sql(sql)] for name, sql in queries.items()
        }


def test_store_many_writes_what_one_by_one_stores_write(
    store_location: str, second_location: str
) -> None:
    with MemoryCoordinator(store_location, clock=lambda: T0) as bulk:
        bulk_ids = bulk.store_many(ITEMS)
        bulk_rows = _dump(bulk)
        stored = [bulk.get(memory_id) for memory_id in bulk_ids]
    # Routing as before the bulk path was sped up (None: the working-memory item).
    assert [m.layer if m else None for m in stored] == EXPECTED_LAYERS
    dated, plain = stored[5], stored[3]
    assert dated is not None and plain is not None
    given: dict[str, Any] = ITEMS[5]["metadata"]  # type: ignore[index,assignment]
    assert dated.created_at == ITEMS[5]["created_at"]  # type: ignore[index]
    assert {key: dated.metadata.get(key) for key in given} == given
    assert bulk_rows["memories"][5][4] == "work"  # its context
    assert plain.created_at == T0 and plain.emotional_weight == pytest.approx(0.74)
    with MemoryCoordinator(second_location, clock=lambda: T0) as single:
        single_ids = [
            single.store(item) if isinstance(item, str) else single.store(**item) for item in ITEMS
        ]
        single_rows = _dump(single)
    assert len(bulk_ids) == len(single_ids) == len(ITEMS)
    assert {name: len(rows) for name, rows in bulk_rows.items()} == {
        name: len(rows) for name, rows in single_rows.items()
    }
    assert len(bulk_rows["memories"]) == len(ITEMS) - 1  # all but the working-memory item
    assert bulk_rows["entities"] and bulk_rows["mentions"] and bulk_rows["facts"]
    for name in bulk_rows:
        assert bulk_rows[name] == single_rows[name], name


def test_insert_many_stores_what_sqlalchemy_stores(store_location: str) -> None:
    db = Database(*resolve_location(store_location))
    card = {"due": "2031-03-02T09:00:00+00:00", "state": 1, "nested": {"a": [1.5, None]}}
    due = datetime(2031, 3, 2, 9, 0, 0, 250)

    def memory_row(pk: int) -> dict[str, Any]:
        return {
            "pk": pk,
            "id": f"id-{pk}",
            "namespace": "ns",
            "layer": "semantic",
            "content": "fact \u00fc\u2603",
            "content_hash": content_hash("fact \u00fc\u2603"),
            "context": None,
            "emotional_weight": 0.25,
            "confidence": None,
            "source": "user",
            "metadata": {"k": [1, "x"], "n": None},
            "created_at": due,
            "updated_at": due,
        }

    try:
        with db.write() as conn:
            conn.execute(memories.insert(), [memory_row(1), memory_row(2)])
            insert_many(conn, memories, [memory_row(3), memory_row(4)])
            # zb_facts has constant defaults (reviews, access_count) the rows leave out.
            conn.execute(
                facts.insert(),
                [{"memory_pk": pk, "namespace": "ns", "due": due, "card": card} for pk in (1, 2)],
            )
            insert_many(
                conn,
                facts,
                [{"memory_pk": pk, "namespace": "ns", "due": due, "card": card} for pk in (3, 4)],
            )
            entity = {
                "namespace": "ns",
                "name": "Kiel",
                "key": "kiel",
                "context": "",
                "created_at": due,
            }
            on = ("namespace", "key", "context")
            insert_many(conn, entities, [entity, entity], ignore_conflicts_on=on)
            insert_many(
                conn, entities, [entity, {**entity, "key": "kiel2"}], ignore_conflicts_on=on
            )
        with db.read() as conn:
            stored = {
                table.name: [
                    tuple(row)
                    for row in conn.exec_driver_sql(f"SELECT * FROM {table.name} ORDER BY 1")
                ]
                for table in (memories, facts)
            }
            keys = list(conn.execute(select(entities.c.key).order_by(entities.c.pk)).scalars())
    finally:
        db.close()

    def without_key(row: tuple[Any, ...]) -> tuple[Any, ...]:
        return row[2:] if len(row) > 10 else row[1:]  # memories: pk and id; facts: memory_pk

    for rows in stored.values():
        assert len(rows) == 4
        assert [without_key(row) for row in rows[2:]] == [without_key(row) for row in rows[:2]]
    assert keys == ["kiel", "kiel2"]  # colliding rows were skipped, not duplicated


def test_a_plain_store_skips_the_old_mentions_lookup(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        memory.store("Anna Schmidt lives in Kiel")
        statements: list[str] = []
        event.listen(
            memory.database.engine,
            "before_cursor_execute",
            lambda _conn, _cursor, statement, *_: statements.append(statement),
        )
        memory.store("Anna Schmidt moved from Kiel to Berlin")
        assert any("INSERT INTO zb_entity_mentions" in s for s in statements)
        # A fresh memory has no mentions to replace: only a rewritten core block does.
        assert not any(
            s.lstrip().startswith("SELECT") and "FROM zb_entity_mentions" in s for s in statements
        )


def test_sqlite_connections_get_a_page_cache_for_bulk_writes(tmp_path: Path) -> None:
    # 2 MiB (SQLite's default) no longer holds the index pages a 100k-memory bulk write
    # touches; each connection gets PAGE_CACHE_KIB instead.
    with MemoryCoordinator(str(tmp_path / "cache.db")) as memory, memory.database.read() as conn:
        pages = conn.exec_driver_sql("PRAGMA cache_size").scalar()
        journal = conn.exec_driver_sql("PRAGMA journal_mode").scalar()
        synchronous = conn.exec_driver_sql("PRAGMA synchronous").scalar()
    assert pages == -PAGE_CACHE_KIB and PAGE_CACHE_KIB >= 16_384
    assert (journal, synchronous) == ("wal", 1)  # durability unchanged: WAL, NORMAL


def test_sqlite_index_rows_hold_the_scope_context_and_terms_in_order(
    tmp_path: Path, insert_memories: Any
) -> None:
    from zenbrain._storage.indexes import IndexedText
    from zenbrain._storage.postings.scopes import scope_tokens

    rows = [
        IndexedText(1, "ns", "semantic", None, ["kiel", "harbour", "kiel"]),
        IndexedText(2, "ns", "semantic", "work", []),
        IndexedText(3, "other", "episodic", "work", ["x"]),
    ]
    with MemoryCoordinator(str(tmp_path / "terms.db")) as memory:
        db = memory.database
        with db.write() as conn:
            insert_memories(conn, rows)
            db.lexical.add(conn, rows)
        with db.read() as conn:
            stored = {
                pk: (scope, ctx, terms)
                for pk, scope, ctx, terms in conn.exec_driver_sql(
                    "SELECT memory_pk, scope, ctx, terms FROM zb_lexical"
                )
            }
    for row in rows:
        scope, ctx = scope_tokens(row.namespace, row.layer, row.context)
        assert stored[row.pk] == (scope, ctx or "", " ".join(row.terms))


def test_memory_ids_are_uuid7_ordered_by_time_and_unique(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ids made in later milliseconds sort later (what keeps a batch's id-index inserts on
    the same pages), each is a version-7 UUID, and none repeats."""
    import uuid

    from zenbrain._storage import records

    clock = iter(range(1_700_000_000_000, 1_700_000_000_000 + 3_000))
    monkeypatch.setattr(records.time, "time_ns", lambda: next(clock) * 1_000_000)
    made = [records.new_memory_id() for _ in range(3_000)]
    assert made == sorted(made)
    assert len(set(made)) == len(made)
    assert {(uuid.UUID(i).version, uuid.UUID(i).variant) for i in made} == {(7, uuid.RFC_4122)}
    assert int(made[0][:12], 16) == 1_700_000_000_000  # the millisecond leads
    monkeypatch.undo()
    with MemoryCoordinator(str(tmp_path / "ids.db")) as memory:
        stored = memory.store_many(["first fact", "second fact"])
        assert all(uuid.UUID(i).version == 7 for i in stored)


def test_storage_writes_the_review_card_the_store_pipeline_decided(store_location: str) -> None:
    """FSRS policy is the pipeline's (a first card per creation time); storage writes it as
    given, and refuses a fact that arrives without one."""
    from zenbrain._memory.store import schedule_facts
    from zenbrain._storage.records import NewMemory
    from zenbrain._storage.repository import Repository
    from zenbrain.layers._semantic import first_schedule

    when = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    with MemoryCoordinator(store_location) as memory:
        memory.store("Otters hold hands while they sleep", layer="semantic", created_at=when)
        with memory.database.read() as conn:
            [(card, due)] = conn.execute(select(facts.c.card, facts.c.due)).all()
        assert card == first_schedule(when)
        assert due.replace(tzinfo=UTC) == datetime.fromisoformat(card["due"])
        given = {**first_schedule(when), "stability": 42.0}
        fact = NewMemory(content="Given its own card", layer="semantic", created_at=when)
        fact.schedule = given
        schedule_facts([fact], when)  # a card already decided is kept
        repo = Repository(memory.database, "default")
        with memory.database.write() as conn:
            [pk] = repo.insert(conn, [fact], when)
        with memory.database.read() as conn:
            written = conn.execute(select(facts.c.card).where(facts.c.memory_pk == pk)).scalar()
        assert written == given
        bare = NewMemory(content="No card", layer="semantic", created_at=when)
        with pytest.raises(ValueError, match="first review card"), memory.database.write() as c:
            repo.insert(c, [bare], when)
