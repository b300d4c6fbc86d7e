"""Short-term memory: sessions of interactions (the conversation so far).

A coordinator has its own *current* session: the one it started, or else the newest one
started in its namespace (so a reopened store resumes it). Every call may instead name a
``session_id`` explicitly: such a call reads and writes that session only, never changes
the current one, and leaves no trace that a reopened store would adopt (only
:func:`start_session` records a session as startable).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection

from zenbrain import _validation as check
from zenbrain._memory import store as store_pipeline
from zenbrain._memory.scope import MemoryScope
from zenbrain._storage.records import NewMemory
from zenbrain._storage.timestamps import from_db
from zenbrain.errors import InvalidInputError
from zenbrain.layers._short_term import SHORT_TERM_WINDOW, worth_remembering
from zenbrain.operations import StoreItem
from zenbrain.types import Interaction

__all__ = [
    "SHORT_TERM_WINDOW",
    "add_interactions",
    "clear_session",
    "conversation",
    "current_session",
    "pop_interaction",
    "start_session",
]


def current_session(scope: MemoryScope, conn: Connection) -> str | None:
    """The coordinator's current session, adopting the namespace's newest one if needed."""
    if scope.session_id is None:
        scope.session_id = scope.repo.latest_session(conn)
    return scope.session_id


def _explicit(session_id: object) -> str | None:
    return check.check_optional_text(session_id, "session_id")


def start_session(scope: MemoryScope, session_id: str | None) -> str:
    sid = _explicit(session_id) or uuid.uuid4().hex
    with scope.lock:
        with scope.repo.write() as conn:
            scope.repo.upsert_session(conn, sid, scope.now())
        scope.session_id = sid
    return sid


def _check_turn(turn: object, position: int | None) -> tuple[str, str, dict[str, Any]]:
    where = "" if position is None else f"turn {position}: "
    if not isinstance(turn, Mapping):
        raise InvalidInputError(
            f"{where}a turn must be a dict with 'role' and 'content', got {type(turn).__name__}"
        )
    unknown = set(turn) - {"role", "content", "metadata"}
    if unknown:
        raise InvalidInputError(f"{where}unknown keys {sorted(map(str, unknown))}")
    role = turn.get("role")
    if not isinstance(role, str) or not role.strip() or len(role) > 50:
        raise InvalidInputError(
            f"{where}role must be a non-empty string such as 'user' or 'assistant', got {role!r}"
        )
    content = turn.get("content")
    if not isinstance(content, str):
        raise InvalidInputError(f"{where}content must be text (str), got {type(content).__name__}")
    check.check_storable(role, f"{where}role")
    check.check_storable(content, f"{where}content")
    return role, content, check.check_metadata(turn.get("metadata"))


def add_interactions(
    scope: MemoryScope,
    turns: Sequence[Mapping[str, Any]],
    *,
    session_id: str | None,
    remember: bool,
    single: bool = False,
) -> list[Interaction]:
    """Append turns to a session in one transaction; with ``remember`` the turns that
    :func:`zenbrain.layers.worth_remembering` accepts are stored as long-term
    memories in that transaction too."""
    if isinstance(turns, str | bytes | Mapping) or not isinstance(turns, Sequence):
        raise InvalidInputError(
            f"turns must be a list of dicts with 'role' and 'content', got {type(turns).__name__}"
        )
    if not isinstance(remember, bool):
        raise InvalidInputError(f"remember must be True or False, got {remember!r}")
    checked = [_check_turn(turn, None if single else i) for i, turn in enumerate(turns)]
    explicit = _explicit(session_id)
    now = scope.now()
    memories: list[NewMemory] = []
    if remember:
        for role, content, _ in checked:
            if content.strip() and worth_remembering(role, content):
                # A memory zenbrain makes of a turn: its metadata names who said it (the
                # turn's own metadata stays with the turn), its conversation the session.
                item = StoreItem(content, metadata={"role": role})
                memories.append(store_pipeline.prepare(item, now))
        store_pipeline.embed(scope, memories)
    if not checked:
        return []
    with scope.lock:
        sid = explicit
        if sid is None:
            with scope.repo.read() as conn:
                sid = current_session(scope, conn)
        with scope.repo.write() as conn:
            if sid is None:
                sid = uuid.uuid4().hex
                scope.repo.upsert_session(conn, sid, now)
            scope.repo.add_interactions(conn, sid, checked, now)
            for memory in memories:  # the session the turns were told in
                memory.conversation = sid
            ids = store_pipeline.write(scope, conn, memories, now) if memories else []
        if explicit is None:
            scope.session_id = sid
        if memories:
            store_pipeline.remember_in_working(scope, memories, ids, now)
    return [Interaction(role, content, now, metadata) for role, content, metadata in checked]


def conversation(
    scope: MemoryScope, limit: int | None, session_id: str | None
) -> list[Interaction]:
    """A session's latest interactions, oldest first: the window of 50 by default."""
    count = SHORT_TERM_WINDOW if limit is None else check.check_int(limit, "limit", 1, 10**9)
    explicit = _explicit(session_id)
    with scope.lock, scope.repo.read() as conn:
        sid = explicit or current_session(scope, conn)
        rows = [] if sid is None else scope.repo.interactions(conn, sid, count)
    return [
        Interaction(
            role=row.role,
            content=row.content,
            timestamp=from_db(row.created_at),
            metadata=dict(row.metadata or {}),
        )
        for row in reversed(rows)
    ]


def pop_interaction(scope: MemoryScope, session_id: str | None) -> Interaction | None:
    """Remove and return a session's latest interaction."""
    explicit = _explicit(session_id)
    with scope.lock, scope.repo.write() as conn:
        sid = explicit or current_session(scope, conn)
        rows = [] if sid is None else scope.repo.interactions(conn, sid, 1)
        if not rows:
            return None
        row = rows[0]
        scope.repo.delete_interaction(conn, int(row.pk))
    return Interaction(row.role, row.content, from_db(row.created_at), dict(row.metadata or {}))


def clear_session(scope: MemoryScope, session_id: str | None) -> int:
    """Delete every interaction of a session (the current one by default)."""
    explicit = _explicit(session_id)
    with scope.lock:
        with scope.repo.write() as conn:
            sid = explicit or current_session(scope, conn)
            cleared = 0 if sid is None else scope.repo.clear_interactions(conn, sid)
        if cleared:  # a purge: the transcript leaves no copy in the -wal either
            scope.repo.database.purge(scope.namespace)
    return cleared
