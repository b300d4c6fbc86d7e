"""Information-bottleneck retention budget with configured context names."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from research.algorithms.ib_budget import (
    BudgetItem,
    decide_retention,
    domain_beta,
    embedding_variance,
    retention_cost,
    retention_gain,
)
from zenbrain.errors import InvalidInputError


def test_configured_contexts_have_their_own_beta() -> None:
    assert domain_beta("learning") == 0.7
    assert domain_beta("Work") == 0.6
    assert domain_beta("personal") == 0.5
    assert domain_beta("creative") == 0.4
    assert domain_beta("finance") == 0.8
    assert domain_beta("hobbies") == 0.5
    assert domain_beta("work", {"work": 0.9}) == 0.9


def test_golden_cost_gain_decision() -> None:
    item = BudgetItem(
        content_length=2500,
        entity_count=10,
        embedding_variance=0.2,
        retrieval_count=5,
        confidence=0.8,
        days_since_access=45,
        domain="learning",
    )
    assert retention_cost(item) == pytest.approx(0.4 * 0.5 + 0.3 * 0.5 + 0.3 * 0.2)
    assert retention_gain(item) == pytest.approx(0.4 * 0.5 + 0.3 * 0.8 + 0.3 * 0.5)
    decision = decide_retention(item)
    assert decision.retain is True  # 0.59 * 0.7 = 0.413 > 0.41
    assert decision.beta == 0.7
    strategy = decide_retention(dataclasses.replace(item, domain="strategy"))
    assert strategy.retain is False


def test_embedding_variance() -> None:
    assert embedding_variance([1.0, 3.0]) == pytest.approx(1.0)
    with pytest.raises(InvalidInputError):
        embedding_variance([])


def test_bad_items() -> None:
    with pytest.raises(InvalidInputError):
        retention_cost(BudgetItem(content_length=-1))
    with pytest.raises(InvalidInputError):
        retention_gain(BudgetItem(content_length=1, confidence=2.0))


@given(
    st.integers(0, 20000),
    st.integers(0, 50),
    st.floats(0, 3),
    st.integers(0, 40),
    st.floats(0, 1),
    st.floats(0, 400),
)
def test_cost_and_gain_in_range(n: int, e: int, v: float, r: int, c: float, d: float) -> None:
    item = BudgetItem(n, e, v, r, c, d)
    assert 0.0 <= retention_cost(item) <= 1.0
    assert 0.0 <= retention_gain(item) <= 1.0


@given(st.integers(0, 40), st.integers(0, 40))
def test_more_retrievals_never_hurt(r1: int, r2: int) -> None:
    low = decide_retention(BudgetItem(1000, retrieval_count=min(r1, r2)))
    high = decide_retention(BudgetItem(1000, retrieval_count=max(r1, r2)))
    assert high.gain >= low.gain
    assert high.retain or not low.retain
