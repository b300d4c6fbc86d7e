"""Simulation-selection tags, decisions and counterfactual candidates."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from research.algorithms.sleep_simulation_selection import (
    Experience,
    novelty,
    run_simulation_selection_cycle,
    selection_tag,
)
from zenbrain.errors import InvalidInputError


def test_tag_golden() -> None:
    exp = Experience("e", td_error=-0.5, reward=0.4, entity_count=3, valence=-0.8, arousal=0.5)
    assert selection_tag(exp) == pytest.approx(0.34 * 0.5 + 0.30 * 0.4 + 0.21 * 0.6 + 0.15 * 0.4)
    assert selection_tag(exp, neuromodulation=False) == pytest.approx(
        0.40 * 0.5 + 0.35 * 0.4 + 0.25 * 0.6
    )
    assert novelty(7) == 1.0


def test_cycle() -> None:
    experiences = [
        Experience("big", td_error=0.9, reward=0.9, entity_count=5),
        Experience("dull", td_error=0.1, reward=0.1),
        Experience("surprise", td_error=0.8, reward=0.1, entity_count=2),
    ]
    report = run_simulation_selection_cycle(experiences)
    assert report.strengthened == ["big"]
    assert report.decayed == ["dull", "surprise"]
    assert report.counterfactual == ["surprise"]
    big = report.decisions[0]
    assert big.weight == big.tag
    assert report.decisions[1].weight == 0.05


def test_bad_input() -> None:
    with pytest.raises(InvalidInputError):
        selection_tag(Experience("e", 0.5, reward=1.5))
    with pytest.raises(InvalidInputError):
        novelty(-1)


@given(
    st.floats(-5, 5),
    st.floats(0, 1),
    st.integers(0, 20),
    st.floats(-1, 1),
    st.floats(0, 1),
    st.booleans(),
)
def test_tag_in_unit_range(td: float, r: float, n: int, v: float, a: float, neuro: bool) -> None:
    assert 0.0 <= selection_tag(Experience("e", td, r, n, v, a), neuro) <= 1.0 + 1e-12


@given(st.floats(0, 1), st.floats(0, 1))
def test_more_reward_never_lowers_tag(r1: float, r2: float) -> None:
    low = selection_tag(Experience("e", 0.3, min(r1, r2)))
    high = selection_tag(Experience("e", 0.3, max(r1, r2)))
    assert high >= low
