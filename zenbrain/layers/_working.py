"""Working memory: a handful of slots for the current task (Baddeley's 7 ± 2).

Relevance decays exponentially with a slot's age, computed from the time it was added, so
calling :meth:`WorkingMemory.decay` twice does not decay twice (the original compounded).
When every slot is taken the least relevant *older* slot makes room: a newcomer is never the
one evicted (the original dropped the newcomer when relevances tied).
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass, field, replace
from datetime import datetime

__all__ = [
    "DEFAULT_CAPACITY",
    "DEFAULT_DECAY_PER_MINUTE",
    "MAX_CAPACITY",
    "MIN_RELEVANCE",
    "Slot",
    "WorkingMemory",
]

DEFAULT_CAPACITY = 7
MAX_CAPACITY = 1_000
DEFAULT_DECAY_PER_MINUTE = 0.05
MIN_RELEVANCE = 0.01


@dataclass(frozen=True, slots=True)
class Slot:
    id: str
    content: str
    added_at: datetime
    initial_relevance: float = 1.0
    kind: str = "fact"
    source_id: str | None = None
    source_layer: str | None = None
    metadata: dict[str, object] = field(default_factory=dict)

    def relevance(self, now: datetime, decay_per_minute: float = DEFAULT_DECAY_PER_MINUTE) -> float:
        age_minutes = max(0.0, (now - self.added_at).total_seconds() / 60.0)
        return self.initial_relevance * math.exp(-decay_per_minute * age_minutes)


class WorkingMemory:
    """The slots of one namespace, in process. Not thread-safe on its own: the coordinator
    serialises access."""

    def __init__(
        self, capacity: int = DEFAULT_CAPACITY, decay_per_minute: float = DEFAULT_DECAY_PER_MINUTE
    ) -> None:
        from zenbrain._validation import check_int

        # InvalidInputError is a ValueError too; checked before any store is opened.
        self.capacity = check_int(capacity, "working_capacity", 1, MAX_CAPACITY)
        self.decay_per_minute = decay_per_minute
        self._slots: list[Slot] = []

    def add(
        self,
        content: str,
        now: datetime,
        *,
        relevance: float = 1.0,
        kind: str = "fact",
        source_id: str | None = None,
        source_layer: str | None = None,
    ) -> tuple[Slot, Slot | None]:
        """Add a slot; return it and the slot it evicted, if any."""
        slot = Slot(
            id=uuid.uuid4().hex,
            content=content,
            added_at=now,
            initial_relevance=relevance,
            kind=kind,
            source_id=source_id,
            source_layer=source_layer,
        )
        evicted = None
        if len(self._slots) >= self.capacity:
            # Least relevant first; among equals the oldest goes.
            evicted = min(
                self._slots, key=lambda s: (s.relevance(now, self.decay_per_minute), s.added_at)
            )
            self._slots.remove(evicted)
        self._slots.append(slot)
        return slot, evicted

    def decay(self, now: datetime) -> int:
        """Drop slots whose relevance has fallen to ``MIN_RELEVANCE`` or below; return how many."""
        keep = [s for s in self._slots if s.relevance(now, self.decay_per_minute) > MIN_RELEVANCE]
        removed = len(self._slots) - len(keep)
        self._slots = keep
        return removed

    def boost(self, slot_id: str, now: datetime, amount: float = 0.2) -> bool:
        """Refresh a slot: its relevance restarts from now, raised by ``amount`` (at most 1)."""
        for i, slot in enumerate(self._slots):
            if slot.id == slot_id:
                current = slot.relevance(now, self.decay_per_minute)
                self._slots[i] = replace(
                    slot, added_at=now, initial_relevance=min(1.0, current + amount)
                )
                return True
        return False

    def remove(self, slot_id: str) -> bool:
        before = len(self._slots)
        self._slots = [s for s in self._slots if s.id != slot_id]
        return len(self._slots) != before

    def remove_copies_of(self, source_ids: set[str], contents: set[str]) -> list[Slot]:
        """Remove the slots copied from these memories (by id) or holding this content."""
        gone = [s for s in self._slots if s.source_id in source_ids or s.content in contents]
        self._slots = [s for s in self._slots if s not in gone]
        return gone

    def slots(self) -> list[Slot]:
        return list(self._slots)

    def clear(self) -> None:
        self._slots.clear()

    def __len__(self) -> int:
        return len(self._slots)
