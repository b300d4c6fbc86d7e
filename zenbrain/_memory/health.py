"""Health: per-layer counts of one namespace."""

from __future__ import annotations

from zenbrain._memory.scope import MemoryScope
from zenbrain._memory.sessions import SHORT_TERM_WINDOW, current_session
from zenbrain.stages import CrossContextStage
from zenbrain.types import Health

__all__ = ["health"]


def health(scope: MemoryScope) -> Health:
    repo = scope.repo
    with scope.lock:
        now = scope.now()
        with repo.read() as conn:
            counts = repo.layer_counts(conn)
            due = repo.due_count(conn, now)
            session = current_session(scope, conn)
            in_session = 0 if session is None else repo.interaction_count(conn, session)
            cross_context = CrossContextStage.counts(conn, scope.namespace)
        working = {"used": len(scope.working), "capacity": scope.working.capacity}
    return Health(
        working=working,
        short_term={
            "interactions": min(in_session, SHORT_TERM_WINDOW),
            "window": SHORT_TERM_WINDOW,
        },
        episodic={"count": counts.get("episodic", 0)},
        semantic={"count": counts.get("semantic", 0), "due_for_review": due},
        procedural={"count": counts.get("procedural", 0)},
        core={"blocks": counts.get("core", 0)},
        cross_context=cross_context,
    )
