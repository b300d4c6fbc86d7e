"""The value objects the coordinator returns. Plain frozen dataclasses: cheap, hashable,
and easy to turn into JSON with :func:`dataclasses.asdict` (see ``to_dict`` on each)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, get_args

__all__ = [
    "ALL_LAYERS",
    "DEFAULT_RECALL_LAYERS",
    "FORGETTABLE_LAYERS",
    "RECALLABLE_LAYERS",
    "SEARCHED_LAYERS",
    "STORABLE_LAYERS",
    "ConsolidationReport",
    "CoreBlock",
    "ForgetResult",
    "Health",
    "Interaction",
    "Layer",
    "Procedure",
    "RecallResult",
    "ReviewItem",
    "ScoreParts",
]

Layer = Literal[
    "working", "short_term", "episodic", "semantic", "procedural", "core", "cross_context"
]
# The one list of layer names and the groups the public methods accept; every other module
# takes its layer names from here.
ALL_LAYERS: tuple[Layer, ...] = get_args(Layer)
# Layers whose memories are searched by text and vector and followed by the stages.
SEARCHED_LAYERS: tuple[Layer, ...] = ("episodic", "semantic", "procedural")
DEFAULT_RECALL_LAYERS: tuple[Layer, ...] = (*SEARCHED_LAYERS, "core")
# ``store(layer=...)``: the short-term layer is written by ``add_interaction`` and the
# cross-context layer by its stage, never directly.
STORABLE_LAYERS: tuple[Layer, ...] = (*DEFAULT_RECALL_LAYERS, "working")
RECALLABLE_LAYERS: tuple[Layer, ...] = ("working", *DEFAULT_RECALL_LAYERS)
FORGETTABLE_LAYERS: tuple[Layer, ...] = RECALLABLE_LAYERS


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


class _ToDict:
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (datetimes as ISO-8601 strings)."""
        return _jsonable(dataclasses.asdict(self))  # type: ignore[call-overload]


@dataclass(frozen=True, slots=True)
class Procedure(_ToDict):
    """What a procedural memory holds beside its text."""

    steps: list[str]
    tools: list[str]
    outcome: str
    success_rate: float
    execution_count: int


@dataclass(frozen=True, slots=True)
class ScoreParts(_ToDict):
    """Why a recall result scored what it did (``recall(..., explain=True)``): ``lexical``
    (BM25 with proximity over everything the recall searched), ``semantic`` (the cosine on
    0..1; None without an embedder), ``fused`` (the two combined), ``layer`` (what the
    layer's prior changed: a procedure's success rate) and ``neighbours`` (the rest of the
    final score: what its conversation lent, the turns stored beside it and its other
    matches, and the stages). ``fill_in``: a result with no
    match, shown for its layer (score 0)."""

    lexical: float | None
    semantic: float | None
    fused: float | None
    layer: float | None
    neighbours: float | None
    fill_in: bool


@dataclass(frozen=True, slots=True)
class RecallResult(_ToDict):
    """One memory. ``score`` is 0..1 (1.0 outside recall); 0 marks a fill-in from a layer
    with no match. ``metadata`` is the caller's own, exactly as stored; what zenbrain knows
    of the memory has fields of its own: ``context``, ``conversation``, ``namespace``, a
    fact's ``source``, a core block's ``label`` and ``pinned``, a procedure's details
    (``procedure``), and ``notes``: what recall found on the way (``via``, ``temporal``,
    ``linked_via``, ``contradicts``, ``supported_by``; a working slot's ``relevance``).
    ``valid_from``/``valid_to`` bound the time it was current (``valid_to`` None: it still
    is); ``superseded_by`` names the memory that replaced it (docs/guide/knowledge-updates.md).
    ``explanation``: its score in parts, when the recall asked for them.
    """

    id: str
    layer: Layer
    content: str
    score: float
    confidence: float | None = None
    emotional_weight: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: datetime | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    superseded_by: str | None = None
    context: str | None = None
    conversation: str | None = None
    namespace: str | None = None
    source: str | None = None
    label: str | None = None
    pinned: bool | None = None
    procedure: Procedure | None = None
    notes: dict[str, Any] = field(default_factory=dict)
    explanation: ScoreParts | None = None


@dataclass(frozen=True, slots=True)
class ForgetResult(_ToDict):
    """What ``forget`` did: ``also_forgotten`` went with it through consolidation links or
    working-memory copies; ``duplicates`` are stand-alone memories with the same content
    that were kept."""

    forgotten: bool
    also_forgotten: list[dict[str, str]] = field(default_factory=list)
    duplicates: list[dict[str, str]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ConsolidationReport(_ToDict):
    promoted: int
    decayed: int
    pruned: int


@dataclass(frozen=True, slots=True)
class ReviewItem(_ToDict):
    id: str
    content: str
    confidence: float
    due: datetime
    stability: float | None = None
    difficulty: float | None = None


@dataclass(frozen=True, slots=True)
class CoreBlock(_ToDict):
    id: str
    label: str
    content: str
    pinned: bool
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class Interaction(_ToDict):
    role: str
    content: str
    timestamp: datetime
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Health(_ToDict):
    """Per-layer counts, as ``health()`` reports them."""

    working: dict[str, int]
    short_term: dict[str, int]
    episodic: dict[str, int]
    semantic: dict[str, int]
    procedural: dict[str, int]
    core: dict[str, int]
    cross_context: dict[str, int]
