"""Connections are never shared with a forked process.

A process forked after a store was opened (a pre-forking web server such as gunicorn with
``--preload``, a ``multiprocessing`` pool, a prefork task queue) inherits the parent's
pooled connections. Two processes talking through one connection corrupt each other's
session: on PostgreSQL both see "server closed the connection unexpectedly" or a
transaction they never began, and SQLite forbids using a connection across ``fork()``.
So each engine registered here starts with an empty pool in every forked child, which then
opens connections of its own. The inherited ones are kept, never closed: closing one in the
child could end the parent's session (a driver may send its goodbye over the shared socket).

Not covered: a fork while another thread of the parent is inside a zenbrain call (its locks
are copied held, as with any Python lock), and in-memory SQLite stores, whose one
connection is the data itself: a child uses its own copy of it.
"""

from __future__ import annotations

import os
import weakref

from sqlalchemy import Engine
from sqlalchemy.pool import Pool

__all__ = ["fresh_pool_after_fork"]

_ENGINES: weakref.WeakSet[Engine] = weakref.WeakSet()
_INHERITED: list[Pool] = []  # the parent's pools, kept alive in the child (see above)


def fresh_pool_after_fork(engine: Engine) -> None:
    """Give ``engine`` an empty pool in every process forked from this one."""
    _ENGINES.add(engine)


def _in_forked_child() -> None:
    for engine in list(_ENGINES):
        _INHERITED.append(engine.pool)
        engine.dispose(close=False)


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_in_forked_child)
