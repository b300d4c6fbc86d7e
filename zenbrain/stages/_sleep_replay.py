"""Sleep replay in ``consolidate()``: rehearse a few facts, making them more stable.

Each consolidation looks at the ``pool`` most recently updated facts that were not replayed
in the last ``min_interval`` (one "night"), picks up to ``limit`` of them by replay
priority (:func:`zenbrain._algorithms.sleep_consolidation.select_for_replay`: frequently
accessed, emotional, recently used and still fragile facts first) and replays them
(:func:`~zenbrain._algorithms.sleep_consolidation.replay`): the FSRS stability of each grows
by 1.5 (1.8 for an emotional fact), capped at 365 days. The next review moves out
accordingly (:func:`zenbrain.layers._semantic.after_replay`): FSRS schedules a review when
retrievability falls to 90 %, which is ``stability`` days after the last review; a due date
is never brought forward. Replays are
recorded in ``zb_fact_replays``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Final

from sqlalchemy import delete, select, update

from zenbrain._algorithms.sleep_consolidation import (
    MAX_REPLAYS,
    ReplayCandidate,
    replay,
    select_for_replay,
)
from zenbrain._storage.schema import fact_replays, facts, memories
from zenbrain._storage.timestamps import to_db
from zenbrain._validation import check_duration, check_int
from zenbrain.layers._semantic import after_replay
from zenbrain.stages._base import Stage, StageConnection, StageScope, upsert

__all__ = ["SleepReplayStage"]

_DEFAULT_POOL: Final = 500


def _aware(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


class SleepReplayStage(Stage):
    """Replays the highest-priority facts once per ``min_interval``."""

    name = "replay"
    tables = (fact_replays,)
    core_updates = (facts,)  # the replayed fact's review card

    def __init__(
        self,
        *,
        limit: int = MAX_REPLAYS,
        min_interval: timedelta = timedelta(hours=20),
        pool: int = _DEFAULT_POOL,
    ) -> None:
        self.limit = check_int(limit, "limit", 1, 100_000)
        self.min_interval = check_duration(min_interval, "min_interval")
        self.pool = check_int(pool, "pool", 1, 100_000)

    def __repr__(self) -> str:
        return (
            f"SleepReplayStage(limit={self.limit}, min_interval={self.min_interval!r}, "
            f"pool={self.pool})"
        )

    def consolidate(self, conn: StageConnection, scope: StageScope, now: datetime) -> int:
        cutoff = to_db(now - self.min_interval)
        rows = conn.execute(
            select(
                memories.c.pk,
                memories.c.emotional_weight,
                memories.c.created_at,
                facts.c.card,
                facts.c.due,
                facts.c.access_count,
                facts.c.last_accessed,
                fact_replays.c.replays,
            )
            .join(facts, facts.c.memory_pk == memories.c.pk)
            .outerjoin(fact_replays, fact_replays.c.memory_pk == memories.c.pk)
            .where(
                memories.c.namespace == scope.namespace,
                (fact_replays.c.replayed_at.is_(None)) | (fact_replays.c.replayed_at <= cutoff),
            )
            .order_by(memories.c.updated_at.desc(), memories.c.pk.desc())
            .limit(self.pool)
        ).all()
        by_key = {str(row.pk): row for row in rows if (row.card or {}).get("stability")}
        candidates = [
            ReplayCandidate(
                memory_id=key,
                stability=float(row.card["stability"]),
                access_count=int(row.access_count or 0),
                last_accessed=_aware(row.last_accessed or row.created_at),
                emotional_weight=min(1.0, max(0.0, float(row.emotional_weight or 0.0))),
            )
            for key, row in by_key.items()
        ]
        if not candidates:
            return 0
        selected = select_for_replay(candidates, _aware(now), self.limit)
        outcome = replay(selected)
        moment = to_db(now)
        for key, stability in outcome.stabilities.items():
            row = by_key[key]
            card = after_replay(row.card, stability)
            due = datetime.fromisoformat(card["due"])
            conn.execute(
                update(facts).where(facts.c.memory_pk == row.pk).values(card=card, due=to_db(due))
            )
        upsert(
            conn,
            fact_replays,
            [
                {
                    "memory_pk": by_key[key].pk,
                    "namespace": scope.namespace,
                    "replayed_at": moment,
                    "replays": 1,
                }
                for key in outcome.stabilities
            ],
            update={"replayed_at": moment, "replays": fact_replays.c.replays + 1},
        )
        return 0

    # ------------------------------------------------------------------ clean-up
    @classmethod
    def forget(cls, conn: StageConnection, namespace: str, memory_pks: Sequence[int]) -> None:
        if memory_pks:
            conn.execute(
                delete(fact_replays).where(
                    fact_replays.c.namespace == namespace,
                    fact_replays.c.memory_pk.in_(list(memory_pks)),
                )
            )
