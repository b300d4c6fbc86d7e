"""A log of removed keys, kept beside an index that processes hold in memory.

Keys only grow (AUTOINCREMENT), so a process that holds a scope in memory learns of new rows
by reading the keys above the highest it has. Removals leave nothing behind to read, so the
index logs them, in order (``seq``), pruned to the newest entries. A process remembers the
last entry it applied; when entries after it were pruned, it cannot know what it missed and
reads its scope again. Used by SQLite's postings (:mod:`.lexical`) and vector cache
(:mod:`.vectors`), each with its own table (``seq`` first, then its columns).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["append", "newest", "removed_since"]


def append(
    driver: Any, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], kept: int
) -> None:
    """Log ``rows`` (values of ``columns``) and prune the log to its newest ``kept``
    entries, in the writer's transaction."""
    marks = ", ".join("?" * len(columns))
    driver.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)
    driver.execute(f"DELETE FROM {table} WHERE seq <= (SELECT max(seq) FROM {table}) - ?", (kept,))


def newest(driver: Any, table: str) -> int:
    """The last entry logged (0 for an empty log): where a copy loaded now starts."""
    found = driver.execute(f"SELECT max(seq) FROM {table}").fetchone()
    return int(found[0] or 0) if found else 0


def removed_since(
    driver: Any, table: str, key: str, seen: int, scope: str, params: Sequence[Any]
) -> tuple[list[int], int] | None:
    """The keys logged after entry ``seen`` that match ``scope`` (a SQL condition with
    ``params``), in order, and the newest entry; None when entries after ``seen`` were
    pruned (the caller reads its scope again)."""
    oldest, last = driver.execute(f"SELECT min(seq), max(seq) FROM {table}").fetchone()
    if oldest is not None and int(oldest) > seen + 1:
        return None
    rows = driver.execute(
        f"SELECT {key} FROM {table} WHERE seq > ? AND {scope} ORDER BY seq", (seen, *params)
    ).fetchall()
    return [int(row[0]) for row in rows], int(last or 0)
