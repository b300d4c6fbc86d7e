"""Working memory: seven slots, newcomers never evicted, decay that does not compound."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from zenbrain.layers._working import MIN_RELEVANCE, WorkingMemory

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def test_capacity_is_seven_by_default() -> None:
    wm = WorkingMemory()
    for i in range(10):
        wm.add(f"item {i}", T0)
    assert len(wm) == 7 and wm.capacity == 7


def test_a_newcomer_is_never_the_one_evicted_even_on_ties() -> None:
    wm = WorkingMemory(capacity=3)
    for i in range(3):
        wm.add(f"item {i}", T0)
    newcomer, evicted = wm.add("newcomer", T0)
    assert evicted is not None and evicted.content == "item 0"
    assert newcomer in wm.slots()


def test_the_least_relevant_slot_is_evicted() -> None:
    wm = WorkingMemory(capacity=2)
    wm.add("old", T0)
    wm.add("young", T0 + timedelta(minutes=30))
    _, evicted = wm.add("new", T0 + timedelta(minutes=31))
    assert evicted is not None and evicted.content == "old"


def test_relevance_decays_exponentially_with_age() -> None:
    wm = WorkingMemory()
    slot, _ = wm.add("x", T0)
    assert slot.relevance(T0) == 1.0
    assert slot.relevance(T0 + timedelta(minutes=10)) == pytest.approx(0.6065, abs=1e-4)


def test_decay_does_not_compound() -> None:
    wm = WorkingMemory()
    slot, _ = wm.add("x", T0)
    later = T0 + timedelta(minutes=60)
    assert wm.decay(later) == 0
    assert wm.decay(later) == 0  # calling twice at the same time removes nothing more
    assert slot.relevance(later) == pytest.approx(0.0498, abs=1e-4)


def test_slots_at_or_below_the_threshold_disappear() -> None:
    wm = WorkingMemory()
    wm.add("x", T0)
    # exp(-0.05 t) = 0.01  ->  t = 92.1 minutes
    assert wm.decay(T0 + timedelta(minutes=92)) == 0
    assert wm.decay(T0 + timedelta(minutes=93)) == 1
    assert MIN_RELEVANCE == 0.01


def test_boost_refreshes_a_slot() -> None:
    wm = WorkingMemory()
    slot, _ = wm.add("x", T0)
    later = T0 + timedelta(minutes=60)
    assert wm.boost(slot.id, later)
    [boosted] = wm.slots()
    assert boosted.relevance(later) == pytest.approx(0.2498, abs=1e-3)


def test_capacity_must_be_positive() -> None:
    with pytest.raises(ValueError):
        WorkingMemory(capacity=0)
