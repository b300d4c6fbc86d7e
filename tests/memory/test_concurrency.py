"""Writers racing on one store, on both back ends: separate coordinators (as separate
processes would be) on threads, started together at a barrier."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from zenbrain import MemoryCoordinator


def _race(
    store_location: str, count: int, work: Callable[[MemoryCoordinator, int], object]
) -> list[object]:
    coordinators = [MemoryCoordinator(store_location) for _ in range(count)]
    start = threading.Barrier(count)
    results: list[object] = [None] * count

    def run(i: int) -> None:
        try:
            start.wait(30)
            results[i] = work(coordinators[i], i)
        except BaseException as exc:
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
    finally:
        for coordinator in coordinators:
            coordinator.close()
    errors = [r for r in results if isinstance(r, BaseException)]
    assert errors == [], errors
    return results


class MeetingSummarizer:
    """Makes both consolidation passes read their episodes before either writes."""

    def __init__(self, parties: int) -> None:
        self.meeting = threading.Barrier(parties)
        self.met = threading.local()

    def summarize(self, texts: Sequence[str]) -> str:
        if not getattr(self.met, "done", False):
            self.met.done = True
            self.meeting.wait(30)
        return "Summary: " + " ".join(texts)


def test_two_consolidations_at_once_promote_each_episode_once(store_location: str) -> None:
    episodes = [f"I was overjoyed when release {i} shipped!" for i in range(5)]
    with MemoryCoordinator(store_location) as memory:
        memory.store_many(
            [{"content": e, "layer": "episodic", "emotional_weight": 0.9} for e in episodes]
        )
    summarizer = MeetingSummarizer(2)
    coordinators = [MemoryCoordinator(store_location, summarizer=summarizer) for _ in range(2)]
    reports: list[object] = [None, None]

    def run(i: int) -> None:
        try:
            reports[i] = coordinators[i].consolidate()
        except BaseException as exc:
            reports[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    for coordinator in coordinators:
        coordinator.close()
    assert not any(isinstance(r, BaseException) for r in reports), reports
    assert sum(r.promoted for r in reports) == 5  # type: ignore[union-attr]
    with MemoryCoordinator(store_location) as memory:
        facts = memory.find(layers=["semantic"])
        assert sorted(f.content for f in facts) == sorted("Summary: " + e for e in episodes)
        assert memory.consolidate().promoted == 0


def test_concurrent_core_block_upserts_leave_one_block(store_location: str) -> None:
    _race(
        store_location, 4, lambda m, i: [m.set_core_block("persona", f"v{i}.{n}") for n in range(5)]
    )
    with MemoryCoordinator(store_location) as memory:
        blocks = memory.core_blocks()
        assert [b.label for b in blocks] == ["persona"]
        assert blocks[0].content.startswith("v")
        assert memory.health().core["blocks"] == 1
        assert [r.content for r in memory.recall("persona", layers=["core"])] == [blocks[0].content]


def test_concurrent_session_starts_all_succeed(store_location: str) -> None:
    results = _race(store_location, 4, lambda m, i: [m.start_session("shared") for _ in range(5)])
    assert all(r == ["shared"] * 5 for r in results)
    with MemoryCoordinator(store_location) as memory:
        assert memory.session_id == "shared"
