"""store_many pauses Python's cyclic garbage collector while it builds and writes a batch,
and always leaves it as it found it: enabled or disabled, after success or rejection, with
nested and concurrent pauses."""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from zenbrain import MemoryCoordinator, ZenbrainError
from zenbrain.memory.collector import collector_paused


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    was_enabled = gc.isenabled()
    yield
    if was_enabled:
        gc.enable()
    else:
        gc.disable()


def test_a_pause_disables_the_collector_and_its_end_enables_it() -> None:
    gc.enable()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_nested_pauses_resume_at_the_outermost_end() -> None:
    gc.enable()
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_disabled_before_stays_disabled() -> None:
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_an_exception_inside_still_resumes_the_collector() -> None:
    gc.enable()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("inside")
    assert gc.isenabled()


def test_overlapping_pauses_on_threads_resume_after_the_last() -> None:
    gc.enable()
    first_inside, second_done = threading.Event(), threading.Event()
    seen: list[bool] = []

    def first() -> None:
        with collector_paused():
            first_inside.set()
            second_done.wait(10)
            seen.append(gc.isenabled())  # the other thread's end must not resume it

    thread = threading.Thread(target=first)
    thread.start()
    assert first_inside.wait(10)
    with collector_paused():
        pass
    second_done.set()
    thread.join(10)
    assert seen == [False]
    assert gc.isenabled()


def test_store_many_runs_with_the_collector_paused(tmp_path: Path) -> None:
    gc.enable()
    during: list[bool] = []
    with MemoryCoordinator(str(tmp_path / "m.db")) as memory:
        items = [f"Mia planted {n} tulips in the garden" for n in range(600)]
        memory.store_many(items, progress=lambda done, total: during.append(gc.isenabled()))
    assert during and not any(during)
    assert gc.isenabled()


def test_a_rejected_store_many_resumes_the_collector(tmp_path: Path) -> None:
    gc.enable()
    with MemoryCoordinator(str(tmp_path / "m.db")) as memory:
        with pytest.raises(ZenbrainError):
            memory.store_many(["a fine memory", 42])  # type: ignore[list-item]
        assert gc.isenabled()
        assert memory.recall("fine memory") == []


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the platform has no fork")
def test_a_process_forked_during_a_pause_starts_with_the_collector_running() -> None:
    gc.enable()
    read, write = os.pipe()
    with collector_paused():
        child = os.fork()
        if child == 0:  # pragma: no cover - runs in the child
            os.close(read)
            with collector_paused():
                paused = not gc.isenabled()
            os.write(write, b"%d%d" % (paused, gc.isenabled()))
            os._exit(0)
        os.close(write)
        reported = os.read(read, 2)
        os.close(read)
        os.waitpid(child, 0)
        assert not gc.isenabled()  # the parent's pause goes on
    assert reported == b"11"
    assert gc.isenabled()
