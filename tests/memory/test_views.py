"""Namespace views are the core's: one object per namespace of a store, bounded once."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from zenbrain import InvalidInputError, MemoryCoordinator
from zenbrain._memory.views import VIEWS_KEPT, NamespaceViews


def test_the_same_view_comes_back_with_its_working_memory(tmp_path: Path) -> None:
    with MemoryCoordinator(tmp_path / "memory.db") as memory:
        ada = memory.for_namespace("ada")
        assert memory.for_namespace("ada") is ada
        ada.working.add("the kettle is on", ada.clock())
        assert [slot.content for slot in memory.for_namespace("ada").working.slots()] == [
            "the kettle is on"
        ]
        assert memory.for_namespace("bob") is not ada
        # The opener stands for its own namespace; a view hands out the same views.
        assert memory.for_namespace(memory.namespace) is memory
        assert ada.for_namespace(memory.namespace) is memory
        assert ada.for_namespace("bob") is memory.for_namespace("bob")
        assert ada.for_namespace("ada") is ada


def test_views_share_the_store_but_not_each_others_memories(tmp_path: Path) -> None:
    with MemoryCoordinator(tmp_path / "memory.db") as memory:
        memory.for_namespace("ada").store("Ada likes tea", layer="semantic")
        assert memory.for_namespace("ada").find() != []
        assert memory.for_namespace("bob").find() == []
        assert memory.find() == []


def test_the_bound_holds_and_the_least_recently_used_view_goes(tmp_path: Path) -> None:
    with MemoryCoordinator(tmp_path / "memory.db") as memory:
        first = memory.for_namespace("user-0")
        views = [memory.for_namespace(f"user-{i}") for i in range(1, VIEWS_KEPT)]
        assert memory.for_namespace("user-0") is first  # used again: now the most recent
        memory.for_namespace("one-more")  # pushes out user-1, the least recently used
        assert memory.for_namespace("user-0") is first
        assert memory.for_namespace("user-1") is not views[0]
        assert memory.for_namespace(memory.namespace) is memory  # pinned, never pushed out


def test_the_bound_counts_views_not_the_opener() -> None:
    views: NamespaceViews[object] = NamespaceViews(kept=2)
    opener = object()
    views.pin("root", opener)
    made = [views.get(name, object) for name in ("a", "b", "c")]
    assert len(views) == 3  # the opener and the two most recent
    assert views.get("root", object) is opener
    assert views.get("c", object) is made[2] and views.get("b", object) is made[1]
    assert views.get("a", object) is not made[0]


def test_threads_asking_at_once_get_one_view(tmp_path: Path) -> None:
    with MemoryCoordinator(tmp_path / "memory.db") as memory:
        got: list[MemoryCoordinator] = []
        barrier = threading.Barrier(8)

        def ask() -> None:
            barrier.wait()
            got.append(memory.for_namespace("shared"))

        threads = [threading.Thread(target=ask) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(got) == 8 and all(view is got[0] for view in got)


@pytest.mark.parametrize("namespace", ["", "   ", 42, None, "x" * 201])
def test_a_bad_namespace_is_refused_and_no_view_is_kept(tmp_path: Path, namespace: object) -> None:
    with MemoryCoordinator(tmp_path / "memory.db") as memory:
        with pytest.raises(InvalidInputError, match="namespace must be"):
            memory.for_namespace(namespace)  # type: ignore[arg-type]
        assert memory.for_namespace("fine") is memory.for_namespace("fine")
