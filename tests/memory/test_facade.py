"""The facade: an injected clock is where every "now" comes from, the async twins keep the
sync signatures, and a slow embedder in one thread does not block calls in another."""

from __future__ import annotations

import inspect
import threading
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from zenbrain import InvalidInputError, MemoryCoordinator
from zenbrain.providers import HashingEmbedder

T0 = datetime(2031, 3, 1, 9, 0, tzinfo=UTC)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment


def test_a_fixed_clock_dates_memories_interactions_and_facts(store_location: str) -> None:
    clock = Clock(T0)
    with MemoryCoordinator(store_location, clock=clock) as memory:
        fact = memory.store("The staging database runs on port 5433", layer="semantic")
        episode = memory.store(
            "I was thrilled when the launch finally worked!", layer="episodic",
            emotional_weight=0.9,
        )  # fmt: skip
        memory.add_interaction("user", "hello")
        found = memory.get(fact)
        assert found is not None and found.created_at == T0
        assert memory.get(episode).created_at == T0  # type: ignore[union-attr]
        assert memory.conversation()[0].timestamp == T0
        block = memory.set_core_block("persona", "Anna")
        assert block.updated_at == T0
        clock.moment = T0 + timedelta(days=3)
        assert memory.consolidate().promoted == 1
        promoted = [r for r in memory.find(layers=["semantic"]) if r.source == "consolidation"]
        assert [r.created_at for r in promoted] == [T0 + timedelta(days=3)]


def test_review_due_dates_follow_the_clock(store_location: str) -> None:
    clock = Clock(T0)
    with MemoryCoordinator(store_location, clock=clock) as memory:
        fact = memory.store("Rust's borrow checker enforces aliasing rules", layer="semantic")
        assert memory.review_queue() == []  # not due on the day it was learnt
        assert memory.health().semantic["due_for_review"] == 0
        clock.moment = T0 + timedelta(days=60)
        assert [item.id for item in memory.review_queue()] == [fact]
        assert memory.health().semantic["due_for_review"] == 1
        reviewed = memory.record_review(fact, 3)
        assert reviewed.due > clock.moment
        assert reviewed.due < clock.moment + timedelta(days=3650)
        assert memory.review_queue() == []


def test_working_memory_decays_by_the_clock(store_location: str) -> None:
    clock = Clock(T0)
    with MemoryCoordinator(store_location, clock=clock) as memory:
        memory.store("scratch note about the build", layer="working")
        fresh = memory.recall("scratch", layers=["working"])[0].notes["relevance"]
        clock.moment = T0 + timedelta(hours=2)
        later = memory.recall("scratch", layers=["working"])[0].notes["relevance"]
        assert later < fresh


def test_a_clock_must_return_an_aware_datetime(store_location: str) -> None:
    with pytest.raises(InvalidInputError, match="clock"):
        MemoryCoordinator(store_location, clock="now")  # type: ignore[arg-type]
    with MemoryCoordinator(store_location, clock=lambda: datetime(2031, 1, 1)) as memory:
        with pytest.raises(InvalidInputError, match="aware datetime"):
            memory.store("anything")
        assert memory.find() == []


def test_views_share_the_clock(store_location: str) -> None:
    with MemoryCoordinator(store_location, clock=Clock(T0)) as memory:
        other = memory.for_namespace("other")
        memory_id = other.store("A note in another namespace")
        assert other.get(memory_id).created_at == T0  # type: ignore[union-attr]


ASYNC_TWINS = [
    name[1:]
    for name, _ in inspect.getmembers(MemoryCoordinator, inspect.iscoroutinefunction)
    if name.startswith("a") and not name.startswith("__") and hasattr(MemoryCoordinator, name[1:])
]


def test_every_public_method_has_a_twin() -> None:
    public = {
        name
        for name, member in vars(MemoryCoordinator).items()
        if callable(member) and not name.startswith("_") and not name.startswith("a")
        and name not in ("for_namespace", "close")
    }  # fmt: skip
    missing = {name for name in public if not hasattr(MemoryCoordinator, "a" + name)}
    assert missing == set()
    assert {"store", "recall", "find", "replace", "add_interactions"} <= set(ASYNC_TWINS)


@pytest.mark.parametrize("name", ASYNC_TWINS)
def test_async_twins_have_the_sync_signature(name: str) -> None:
    sync = inspect.signature(getattr(MemoryCoordinator, name))
    twin = inspect.signature(getattr(MemoryCoordinator, "a" + name))
    assert list(twin.parameters.values()) == list(sync.parameters.values())
    assert str(twin.return_annotation) == str(sync.return_annotation)


async def test_async_twins_pass_keywords_through(store_location: str) -> None:
    async with MemoryCoordinator(store_location, clock=Clock(T0)) as memory:
        memory_id = await memory.astore(
            "The office is in Hamburg", layer="semantic", metadata={"kind": "place"}
        )
        hits = await memory.arecall("office", where={"kind": "place"}, limit=1)
        assert [hit.id for hit in hits] == [memory_id]
        assert [r.id for r in await memory.afind({"kind": "place"})] == [memory_id]


class GatedEmbedder(HashingEmbedder):
    """Blocks inside embed_documents once ``gate`` is armed, until released."""

    def __init__(self) -> None:
        super().__init__(dimension=32)
        self.armed = False
        self.entered = threading.Event()
        self.release = threading.Event()

    def embed_documents(self, texts: Sequence[str]) -> Any:
        if self.armed:
            self.entered.set()
            assert self.release.wait(30), "the test never released the embedder"
        return super().embed_documents(texts)


def test_a_slow_embedder_does_not_block_other_threads(store_location: str) -> None:
    embedder = GatedEmbedder()
    with MemoryCoordinator(store_location, embedder=embedder) as memory:
        memory.set_core_block("persona", "Anna")
        embedder.armed = True
        order: list[str] = []
        slow = threading.Thread(
            target=lambda: order.append("store:" + memory.store("slow remote embedding"))
        )
        slow.start()
        assert embedder.entered.wait(30)
        others_done = threading.Event()

        def other_calls() -> None:
            memory.add_interaction("user", "still responsive")
            assert memory.core_context() == "[persona]: Anna"
            memory.health()
            memory.recall("persona", layers=["core"])
            order.append("others")
            others_done.set()

        other = threading.Thread(target=other_calls)
        other.start()
        # Waits only on failure: with the lock held during embedding this never happens.
        finished_while_embedding = others_done.wait(30)
        embedder.release.set()
        slow.join(30)
        other.join(30)
        assert finished_while_embedding
        assert order[0] == "others" and order[1].startswith("store:")
        assert memory.health().semantic["count"] == 1


def test_the_api_guide_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    import re
    from pathlib import Path

    guide = Path(__file__).resolve().parents[2] / "docs" / "guide" / "api.md"
    section = guide.read_text(encoding="utf-8").split("## A clock, sessions and metadata", 1)[1]
    block = re.search(r"```python\n(.*?)```", section, re.S)
    assert block is not None
    exec(compile(block.group(1), "docs/guide/api.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["['Anna is vegan']", "Anna is vegan", "['chat/anna']"]


def test_stages_take_their_time_from_the_clock(store_location: str) -> None:
    from sqlalchemy import select

    from zenbrain._storage.schema import entities, memory_edges
    from zenbrain._storage.timestamps import from_db
    from zenbrain.stages import CrossContextStage, MemoryGraphStage

    clock = Clock(T0)
    stages = [CrossContextStage(), MemoryGraphStage()]
    with MemoryCoordinator(store_location, clock=clock, stages=stages) as memory:
        memory.store("Anna Schmidt reviewed the payments service", context="work")
        memory.store("Anna Schmidt goes sailing on the Kieler Foerde", context="personal")
        assert len(memory.recall("Anna Schmidt", min_score=0.01)) == 2  # co-recall: an edge

        def edges() -> list[tuple[datetime, float]]:
            with memory.database.read() as conn:
                query = select(memory_edges.c.updated_at, memory_edges.c.weight)
                return [(from_db(at), float(w)) for at, w in conn.execute(query).all()]

        with memory.database.read() as conn:
            created = [from_db(at) for at in conn.execute(select(entities.c.created_at)).scalars()]
        assert created and set(created) == {T0}
        [(updated, weight)] = edges()
        assert updated == T0
        clock.moment = T0 + timedelta(days=30)
        memory.consolidate()
        assert all(w < weight for _, w in edges())  # decayed by 30 days of the clock


@pytest.mark.parametrize(
    "options",
    [
        {"working_capacity": 0},
        {"working_capacity": "7"},
        {"contexts": "work"},
        {"clock": 3},
        {"stages": "graph"},
        {"embedder": object()},
    ],
)
def test_bad_options_are_refused_before_the_store_is_opened(
    tmp_path: Any, options: dict[str, Any]
) -> None:
    path = tmp_path / "never.db"
    with pytest.raises(InvalidInputError):
        MemoryCoordinator(path, **options)
    assert not path.exists()
