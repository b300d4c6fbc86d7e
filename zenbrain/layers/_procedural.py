"""Procedural memory: how to do things, with a success rate kept as a running mean."""

from __future__ import annotations

__all__ = ["render_procedure", "success_weighted", "update_success_rate"]


def update_success_rate(rate: float, count: int, success: bool) -> tuple[float, int]:
    """Fold one outcome into the running mean: ``rate += (x - rate) / (count + 1)``."""
    outcome = 1.0 if success else 0.0
    return rate + (outcome - rate) / (count + 1), count + 1


def success_weighted(score: float, success_rate: float) -> float:
    """A match score weighted by the procedure's success rate: a procedure that always
    fails keeps half its score, one that always works keeps all of it."""
    return score * (0.5 + 0.5 * success_rate)


def render_procedure(content: str, steps: list[str], outcome: str) -> str:
    """The procedure as one text: its content, then its steps unless the content already
    lists them, then its expected outcome."""
    text = content
    if steps and not all(step in content for step in steps):
        text = f"{content}\nSteps: {' → '.join(steps)}"
    return f"{text}\nOutcome: {outcome}" if outcome else text
