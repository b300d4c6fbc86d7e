"""Pausing Python's cyclic garbage collector while a batch of memories is validated and
while it is written.

Every object a ``store_many`` batch makes (validated items, term lists, rows) lives until
its commit and is then freed by reference counting. The collector cannot know that: it
finds them alive, promotes them to its oldest generation and, every few batches, runs a full
collection of the whole process heap (the application's objects too) that frees nothing.
At 100k memories those collections were 9% of ``store_many``'s time.

The pause nests and is shared by threads: the first entry disables the collector, the last
exit enables it again, and only if it was enabled at the first entry. A process forked
during a pause (by another thread) starts with no pause held and the collector as it was
before the pause.
"""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]

_lock = threading.Lock()
_holders = 0
_resume = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """Disable the cyclic garbage collector inside the block (see the module docstring)."""
    global _holders, _resume
    with _lock:
        if _holders == 0:
            _resume = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _resume:
                gc.enable()


def _reset_in_child() -> None:
    # The batch that paused the collector runs on in the parent only.
    global _lock, _holders, _resume
    _lock = threading.Lock()  # the parent's may have been held by a thread that is gone
    if _holders and _resume:
        gc.enable()
    _holders, _resume = 0, False


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_reset_in_child)
