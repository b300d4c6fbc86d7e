"""Information-bottleneck retention budget: keep a memory when its value beats its cost.

Source: the information bottleneck principle (Tishby, Pereira & Bialek 1999): compress
what you keep while preserving what is relevant, traded off by a factor β. In the form of
the TypeScript original (inventory §4.2 "ib-budget") a memory is retained iff
``gain · β > cost`` with

- ``cost = 0.4 min(1, characters / 5000) + 0.3 min(1, entities / 20)
  + 0.3 min(1, embedding variance)``
- ``gain = 0.4 min(1, retrievals / 10) + 0.3 confidence + 0.3 max(0, 1 - days since access / 90)``

and β per context domain (higher β = the domain's memories are worth more).

Difference from the original: its code knew the domains finance, people, operations and
strategy while its documentation — and zenbrain's configured contexts
(``ZENBRAIN_CONTEXTS``, default personal, work, learning, creative) — named others, so
every configured context silently fell back to the default. Both sets are accepted here,
case-insensitively: learning 0.7 (study material is meant to last), work 0.6,
personal 0.5, creative 0.4 (drafts and ideas are cheap to regenerate), finance 0.8,
people 0.6, operations 0.4, strategy 0.3; any other context uses 0.5, and ``betas=`` can
override the table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

import numpy as np

from research.algorithms.checks import check_finite, check_unit
from zenbrain.errors import InvalidInputError

__all__ = [
    "DEFAULT_BETA",
    "DOMAIN_BETAS",
    "BudgetDecision",
    "BudgetItem",
    "decide_retention",
    "domain_beta",
    "embedding_variance",
    "retention_cost",
    "retention_gain",
]

DOMAIN_BETAS: Final = MappingProxyType(
    {
        "learning": 0.7,
        "work": 0.6,
        "personal": 0.5,
        "creative": 0.4,
        "finance": 0.8,
        "people": 0.6,
        "operations": 0.4,
        "strategy": 0.3,
    }
)
DEFAULT_BETA: Final = 0.5


@dataclass(frozen=True, slots=True)
class BudgetItem:
    content_length: int
    entity_count: int = 0
    embedding_variance: float = 0.0
    retrieval_count: int = 0
    confidence: float = 0.5
    days_since_access: float = 0.0
    domain: str = "personal"


@dataclass(frozen=True, slots=True)
class BudgetDecision:
    retain: bool
    gain: float
    cost: float
    beta: float


def domain_beta(domain: str, betas: Mapping[str, float] = DOMAIN_BETAS) -> float:
    """β of a context domain (case-insensitive); unknown domains get 0.5."""
    if not isinstance(domain, str):
        raise InvalidInputError(f"domain must be a str, got {type(domain).__name__}")
    return betas.get(domain.strip().lower(), DEFAULT_BETA)


def embedding_variance(vector: Sequence[float] | np.ndarray) -> float:
    """Variance of an embedding's components (a cheap proxy for how much it encodes)."""
    array = np.asarray(vector, dtype=np.float64)
    if array.ndim != 1 or array.size == 0 or not np.all(np.isfinite(array)):
        raise InvalidInputError("embedding must be a non-empty 1-D vector of finite numbers")
    return float(np.var(array))


def _count(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInputError(f"{name} must be an int >= 0, got {value!r}")
    return value


def retention_cost(item: BudgetItem) -> float:
    """Storage/complexity cost of keeping ``item`` (0..1)."""
    variance = check_finite(item.embedding_variance, "embedding_variance")
    if variance < 0:
        raise InvalidInputError(f"embedding_variance must be >= 0, got {variance}")
    return (
        0.4 * min(1.0, _count("content_length", item.content_length) / 5000)
        + 0.3 * min(1.0, _count("entity_count", item.entity_count) / 20)
        + 0.3 * min(1.0, variance)
    )


def retention_gain(item: BudgetItem) -> float:
    """Expected value of keeping ``item`` (0..1): use, confidence and recency."""
    days = check_finite(item.days_since_access, "days_since_access")
    if days < 0:
        raise InvalidInputError(f"days_since_access must be >= 0, got {days}")
    return (
        0.4 * min(1.0, _count("retrieval_count", item.retrieval_count) / 10)
        + 0.3 * check_unit(item.confidence, "confidence")
        + 0.3 * max(0.0, 1.0 - days / 90)
    )


def decide_retention(item: BudgetItem, betas: Mapping[str, float] = DOMAIN_BETAS) -> BudgetDecision:
    """Retain ``item`` iff ``gain · β > cost``."""
    beta = domain_beta(item.domain, betas)
    gain, cost = retention_gain(item), retention_cost(item)
    return BudgetDecision(retain=gain * beta > cost, gain=gain, cost=cost, beta=beta)
