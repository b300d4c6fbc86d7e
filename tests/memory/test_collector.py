"""store_many pauses Python's cyclic garbage collector while it validates and writes a batch
(not while it embeds it), and always leaves it as it found it: enabled or disabled, after
success or rejection, with nested and concurrent pauses, and in a forked child."""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from zenbrain import MemoryCoordinator, ZenbrainError
from zenbrain._memory.collector import collector_paused
from zenbrain.stages import Stage
from zenbrain.testing import DeterministicEmbedder


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


class _CollectorAtWrite(Stage):
    """Records whether the collector runs while the memories are written."""

    def __init__(self) -> None:
        self.seen: list[bool] = []

    def after_store(self, conn: Any, scope: Any, stored: Any) -> None:
        self.seen.append(gc.isenabled())


class _CollectorAtEmbedding(DeterministicEmbedder):
    """Records whether the collector runs while the memories are embedded."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[bool] = []

    def embed_documents(self, texts: Sequence[str]) -> Any:
        if len(texts) > 1:  # not the single calibration sentence of the first open
            self.seen.append(gc.isenabled())
        return super().embed_documents(texts)


def test_store_many_writes_with_the_collector_paused_and_embeds_with_it_running(
    tmp_path: Path,
) -> None:
    gc.enable()
    stage, embedder = _CollectorAtWrite(), _CollectorAtEmbedding()
    location = str(tmp_path / "m.db")
    with MemoryCoordinator(location, stages=[stage], embedder=embedder) as memory:
        memory.store_many([f"Mia planted {n} tulips in the garden" for n in range(600)])
        assert stage.seen == [False]
        assert embedder.seen and all(embedder.seen)
        memory.store("Mia watered the tulips")  # a single store writes paused too
        assert stage.seen == [False, False]
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
