"""Opt-in stages of ``store()``, ``recall()``, ``consolidate()`` and ``forget()``.

Pass stage objects to the coordinator: ``MemoryCoordinator(db, stages=[...])``. Without
``stages=`` the coordinator runs :func:`default_stages` (the cross-context layer, which the
SPEC requires and which costs little); ``stages=()`` runs none.

- :class:`CrossContextStage` (``cross_context``): entities, cross-context links, merge
  candidates, link following on recall. On by default.
- :class:`MemoryGraphStage` (``graph``): Hebbian edges between memories recalled together,
  spreading activation on recall, decay and pruning on consolidation.
- :class:`SleepReplayStage` (``replay``): consolidation replays selected facts, raising their
  FSRS stability.
- :class:`ConfidenceStage` (``confidence``): supporting and contradicting facts, Bayesian
  confidence propagation.
- :class:`TemporalStage` (``temporal``): before/after/first/last questions use the memories'
  time.

Each stage owns its tables and their clean-up (:attr:`Stage.tables`, :meth:`Stage.forget`,
:meth:`Stage.drop_namespace`); :func:`forget_stage_rows` and :func:`drop_stage_rows` run
those hooks of every stage type, configured or not.
"""

from __future__ import annotations

from collections.abc import Sequence

from zenbrain.stages._base import (
    RecallRequest,
    Stage,
    StageConnection,
    StageScope,
    StoredMemory,
)
from zenbrain.stages._confidence import ConfidenceStage
from zenbrain.stages._cross_context import CrossContextStage, MergeCandidate
from zenbrain.stages._memory_graph import MemoryGraphStage
from zenbrain.stages._sleep_replay import SleepReplayStage
from zenbrain.stages._temporal import TemporalStage

__all__ = [
    "STAGE_TYPES",
    "ConfidenceStage",
    "CrossContextStage",
    "MemoryGraphStage",
    "MergeCandidate",
    "RecallRequest",
    "SleepReplayStage",
    "Stage",
    "StageConnection",
    "StageScope",
    "StoredMemory",
    "TemporalStage",
    "default_stages",
    "drop_stage_rows",
    "forget_stage_rows",
    "stage_by_name",
]

STAGE_TYPES: dict[str, type[Stage]] = {
    stage.name: stage
    for stage in (
        CrossContextStage,
        MemoryGraphStage,
        SleepReplayStage,
        ConfidenceStage,
        TemporalStage,
    )
}


def default_stages() -> tuple[Stage, ...]:
    """The stages a coordinator runs when none are given."""
    return (CrossContextStage(),)


def forget_stage_rows(conn: StageConnection, namespace: str, memory_pks: Sequence[int]) -> None:
    """Delete what any stage stored about ``memory_pks`` (memories of ``namespace`` being
    deleted), whether or not the stage is configured now."""
    pks = list(memory_pks)
    if pks:
        for stage_type in STAGE_TYPES.values():
            stage_type.forget(conn, namespace, pks)


def drop_stage_rows(conn: StageConnection, namespace: str) -> None:
    """Delete everything any stage stored in ``namespace``."""
    for stage_type in STAGE_TYPES.values():
        stage_type.drop_namespace(conn, namespace)


def stage_by_name(name: str) -> Stage:
    """A stage with default settings from its name (``"graph"``, ``"replay"``, ...)."""
    from zenbrain.errors import InvalidInputError

    if name not in STAGE_TYPES:
        raise InvalidInputError(f"unknown stage {name!r}; choose from {', '.join(STAGE_TYPES)}")
    return STAGE_TYPES[name]()
