"""Pausing Python's cyclic garbage collector while a batch of memories is built and written.

Every object a ``store_many`` batch makes (validated items, term lists, rows) lives until
its commit and is then freed by reference counting. The collector cannot know that: it
finds them alive, promotes them to its oldest generation and, every few batches, runs a full
collection of the whole process heap (the application's objects too) that frees nothing.
At 100k memories those collections were 9% of ``store_many``'s time.

The pause nests and is shared by threads: the first entry disables the collector, the last
exit enables it again, and only if it was enabled at the first entry.
"""

from __future__ import annotations

import gc
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
