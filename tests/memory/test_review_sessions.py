"""FSRS review scheduling, short-term sessions, procedures, core blocks, async twins."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta

import pytest

from zenbrain import MemoryCoordinator
from zenbrain.layers import _semantic as review


def test_new_facts_get_an_fsrs_schedule_and_fall_due(memory: MemoryCoordinator) -> None:
    memory.store("Fresh fact")
    assert memory.review_queue() == []  # first review is days away
    old = memory.store("Old fact", created_at=datetime.now(UTC) - timedelta(days=5))
    queue = memory.review_queue()
    assert [item.id for item in queue] == [old]
    assert memory.health().semantic["due_for_review"] == 1
    assert queue[0].stability == pytest.approx(2.3065)  # FSRS-6 initial stability for "good"


def test_recording_a_review_moves_the_due_date_and_persists(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        fid = memory.store("Old fact", created_at=datetime.now(UTC) - timedelta(days=5))
        easy = memory.record_review(fid, 4)
        assert easy.due > datetime.now(UTC) + timedelta(days=5)
        assert memory.review_queue() == []
    with MemoryCoordinator(store_location) as memory:
        assert memory.review_queue() == []
        again = memory.record_review(fid, 1)
        assert again.due < easy.due
        assert again.stability is not None and easy.stability is not None
        assert again.stability < easy.stability


def test_fsrs_golden_values() -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    card = review.first_schedule(t0)
    assert card["due"] == "2026-01-03T00:00:00+00:00"
    later = review.review(card, 3, datetime(2026, 1, 3, tzinfo=UTC))
    assert later["stability"] > card["stability"]
    assert review.retrievability(card, datetime(2026, 1, 3, tzinfo=UTC)) == pytest.approx(
        0.9, abs=0.01
    )


def test_procedure_feedback_is_a_running_mean(memory: MemoryCoordinator) -> None:
    pid = memory.store("How to restart: turn it off and on")
    assert memory.procedure_feedback(pid, False) == pytest.approx(0.5)
    assert memory.procedure_feedback(pid, True) == pytest.approx(2 / 3)
    assert memory.procedure_feedback(pid, False) == pytest.approx(0.5)


def test_sessions_window_and_restart(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        memory.start_session("first")
        for i in range(60):
            memory.add_interaction("user" if i % 2 == 0 else "assistant", f"message {i}", {"n": i})
        window = memory.conversation()
        assert len(window) == 50
        assert window[0].content == "message 10" and window[-1].content == "message 59"
        assert window[-1].metadata == {"n": 59} and window[-1].role == "assistant"
        assert len(memory.conversation(limit=100)) == 60  # the transcript is kept
        assert memory.health().short_term["interactions"] == 50
        memory.start_session("second")
        assert memory.conversation() == []
    with MemoryCoordinator(store_location) as memory:
        assert memory.session_id == "second"
        memory.start_session("first")  # resuming keeps its messages
        assert len(memory.conversation()) == 50
        popped = memory.pop_interaction()
        assert popped is not None and popped.content == "message 59"
        assert memory.clear_session() == 59
        assert memory.conversation() == []


def test_core_block_api(memory: MemoryCoordinator) -> None:
    memory.set_core_block("persona", "Anna")
    memory.set_core_block("style", "brief")
    memory.set_core_block("persona", "Anna, engineer")
    assert [(b.label, b.content) for b in memory.core_blocks()] == [
        ("persona", "Anna, engineer"),
        ("style", "brief"),
    ]
    assert memory.core_context() == "[persona]: Anna, engineer\n[style]: brief"
    assert memory.delete_core_block("style")
    assert not memory.delete_core_block("style")
    assert memory.health().core["blocks"] == 1


def test_auto_labels_keep_non_latin_letters(memory: MemoryCoordinator) -> None:
    memory.store("Über mich: ich heiße Jürgen", confidence=1.0)
    [block] = memory.core_blocks()
    assert block.label.startswith("Über mich ich heiße Jürgen #")


class SlowEmbedder:
    """Sleeps inside embed calls so a blocking coordinator would stall the event loop."""

    model_id = "slow-test-embedder"
    dimension = 4

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        time.sleep(0.2)
        return [[1.0, float(len(t) % 3), 0.5, 0.0] for t in texts]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents(texts)


async def test_async_twins_do_not_block_the_event_loop(store_location: str) -> None:
    memory = MemoryCoordinator(store_location, embedder=SlowEmbedder())
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    mid = await memory.astore("async fact about herons")
    results = await memory.arecall("herons")
    task.cancel()
    assert results[0].id == mid
    assert ticks >= 10  # the loop kept running while store and recall slept in a thread
    assert (await memory.ahealth()).semantic["count"] == 1
    await memory.aadd_interaction("user", "hi")
    assert [i.content for i in await memory.aconversation()] == ["hi"]
    memory.close()
