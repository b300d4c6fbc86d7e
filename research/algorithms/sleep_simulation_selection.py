"""Simulation-selection sleep: tag experiences by learning value, keep the valuable ones.

Source: offline replay that prioritises experiences by their learning value — reward and
prediction error (Mattar & Daw 2018, "Prioritized memory access explains planning and
hippocampal replay") — with a synaptic tag deciding what is kept (synaptic tagging and
capture, Frey & Morris 1997), in the weighting of the TypeScript original (inventory §4.2
"sleep-simulation-selection").

Tag of an experience (0..1), from the temporal-difference (prediction) error ``td``, the
reward ``R`` (0..1), novelty ``N = min(1, 0.2 · entities)`` and affect:

- with neuromodulation: ``0.34 |td| + 0.30 R + 0.21 N + 0.15 |valence| · arousal``;
- without it (ablation): ``0.40 |td| + 0.35 R + 0.25 N``.

Experiences tagged above 0.5 are strengthened (weight = tag), the rest decay (weight 0.05).
Counterfactual candidates — surprising but unrewarded, worth simulating alternatives for —
have ``td > 0.6`` and ``R < 0.3``.

Difference from the original: the ablation switch was a global registry lookup of a
proprietary feature; here it is the ``neuromodulation`` argument. ``|td|`` is capped at 1 so
the tag stays within 0..1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from research.algorithms.checks import check_finite, check_unit
from zenbrain.errors import InvalidInputError

__all__ = [
    "STRENGTHEN_THRESHOLD",
    "Experience",
    "SelectionAction",
    "SelectionDecision",
    "SimulationCycleReport",
    "counterfactual_candidates",
    "novelty",
    "run_simulation_selection_cycle",
    "select_and_apply",
    "selection_tag",
]

STRENGTHEN_THRESHOLD: Final = 0.5
DECAY_WEIGHT: Final = 0.05
_COUNTERFACTUAL_TD: Final = 0.6
_COUNTERFACTUAL_REWARD: Final = 0.3

SelectionAction = Literal["strengthen", "decay"]


@dataclass(frozen=True, slots=True)
class Experience:
    memory_id: str
    td_error: float
    reward: float = 0.0
    entity_count: int = 0
    valence: float = 0.0
    arousal: float = 0.0


@dataclass(frozen=True, slots=True)
class SelectionDecision:
    memory_id: str
    tag: float
    action: SelectionAction
    weight: float


@dataclass(frozen=True, slots=True)
class SimulationCycleReport:
    decisions: list[SelectionDecision]
    strengthened: list[str]
    decayed: list[str]
    counterfactual: list[str]


def novelty(entity_count: int) -> float:
    """``min(1, 0.2 · entities)``: five new entities make an experience fully novel."""
    if isinstance(entity_count, bool) or not isinstance(entity_count, int) or entity_count < 0:
        raise InvalidInputError(f"entity_count must be an int >= 0, got {entity_count!r}")
    return min(1.0, 0.2 * entity_count)


def selection_tag(experience: Experience, neuromodulation: bool = True) -> float:
    """Learning value of ``experience`` (0..1); see the module docstring."""
    td = min(1.0, abs(check_finite(experience.td_error, "td_error")))
    reward = check_unit(experience.reward, "reward")
    new = novelty(experience.entity_count)
    if not neuromodulation:
        return 0.40 * td + 0.35 * reward + 0.25 * new
    valence = check_finite(experience.valence, "valence")
    if not -1.0 <= valence <= 1.0:
        raise InvalidInputError(f"valence must be within -1..1, got {valence}")
    affect = abs(valence) * check_unit(experience.arousal, "arousal")
    return 0.34 * td + 0.30 * reward + 0.21 * new + 0.15 * affect


def select_and_apply(
    experiences: Sequence[Experience], neuromodulation: bool = True
) -> list[SelectionDecision]:
    """Strengthen (weight = tag) experiences tagged above 0.5, decay (weight 0.05) the rest."""
    decisions = []
    for experience in experiences:
        tag = selection_tag(experience, neuromodulation)
        if tag > STRENGTHEN_THRESHOLD:
            decisions.append(SelectionDecision(experience.memory_id, tag, "strengthen", tag))
        else:
            decisions.append(SelectionDecision(experience.memory_id, tag, "decay", DECAY_WEIGHT))
    return decisions


def counterfactual_candidates(experiences: Sequence[Experience]) -> list[str]:
    """Ids of surprising (td > 0.6) but unrewarded (reward < 0.3) experiences."""
    return [
        e.memory_id
        for e in experiences
        if e.td_error > _COUNTERFACTUAL_TD and e.reward < _COUNTERFACTUAL_REWARD
    ]


def run_simulation_selection_cycle(
    experiences: Sequence[Experience], neuromodulation: bool = True
) -> SimulationCycleReport:
    """One offline cycle: decisions for every experience plus the counterfactual list."""
    decisions = select_and_apply(experiences, neuromodulation)
    return SimulationCycleReport(
        decisions=decisions,
        strengthened=[d.memory_id for d in decisions if d.action == "strengthen"],
        decayed=[d.memory_id for d in decisions if d.action == "decay"],
        counterfactual=counterfactual_candidates(experiences),
    )
