"""The HTTP API's request and response bodies: pydantic models, which also generate the
OpenAPI document. Requests forbid unknown fields; values are checked by the coordinator
itself (its messages), the models only fix the JSON shapes. New fields go at the end of a
model with a default, so older clients keep working."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, Strict

__all__ = [
    "ApiKeyInfo",
    "ClearResponse",
    "ConsolidationResponse",
    "CoreBlockModel",
    "CoreBlockRequest",
    "CoreContextResponse",
    "DeletedResponse",
    "EditRequest",
    "EmbedMissingRequest",
    "EmbeddedResponse",
    "FeedbackRequest",
    "FeedbackResponse",
    "FindRequest",
    "ForgetResponse",
    "HealthModel",
    "IdResponse",
    "IdsResponse",
    "ImportResponse",
    "InteractionModel",
    "InteractionsRequest",
    "MemoryModel",
    "MemoryRef",
    "MergeCandidateModel",
    "NamespacesResponse",
    "PopRequest",
    "Problem",
    "Promotion",
    "ProvenanceModel",
    "RecallRequest",
    "RecalledMemory",
    "ReplaceRequest",
    "ReviewItemModel",
    "ReviewRequest",
    "ScoreParts",
    "SessionRequest",
    "SessionResponse",
    "StoreManyRequest",
    "StoreRequest",
    "Turn",
    "WhoAmI",
]

Text = Field(max_length=1_000_000)
LaxTime = Annotated[datetime, Strict(False)]


class _Request(BaseModel):
    # Strict: a JSON boolean is no number and a number no string, as in the library.
    model_config = ConfigDict(extra="forbid", strict=True)


class Problem(BaseModel):
    """An error, as RFC 9457 problem details: ``error`` is the ZenbrainError class."""

    type: str
    title: str
    status: int
    detail: str
    error: str
    instance: str | None = None


# ---------------------------------------------------------------------- memories
class StoreRequest(_Request):
    """The arguments of ``MemoryCoordinator.store``."""

    content: str = Text
    layer: str = "auto"
    context: str | None = None
    emotional_weight: float | None = None
    confidence: float | None = None
    source: str | None = None
    steps: list[str] | None = None
    tools: list[str] | None = None
    outcome: str | None = None
    metadata: dict[str, Any] | None = None
    created_at: str | None = None
    supersedes: list[str] | None = None  # ids this memory replaces


class StoreManyRequest(_Request):
    items: list[StoreRequest | str] = Field(max_length=100_000)


class ReplaceRequest(StoreRequest):
    """``replace(match, content, **store arguments)``."""

    match: dict[str, Any]


class EditRequest(_Request):
    content: str = Text


class IdResponse(BaseModel):
    id: str


class IdsResponse(BaseModel):
    ids: list[str]


class MemoryModel(BaseModel):
    """One memory, as ``RecallResult`` (``score`` 1.0 outside recall)."""

    id: str
    layer: str
    content: str
    score: float
    confidence: float | None = None
    emotional_weight: float | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None  # None while current
    superseded_by: str | None = None  # the memory that replaced it


class ScoreParts(BaseModel):
    """Why a recall result scored what it did (see zenbrain.memory.inspection.explain)."""

    id: str
    score: float
    lexical: float | None
    semantic: float | None
    fused: float | None
    layer: float | None
    neighbours: float | None
    fill_in: bool


class RecalledMemory(MemoryModel):
    explain: ScoreParts | None = None


class RecallRequest(_Request):
    query: str = Text
    layers: list[str] | None = None
    limit: int = 10
    min_score: float = 0.0
    min_confidence: float = 0.0
    core: Literal["always", "matching"] = "always"
    context: str | None = None
    where: dict[str, Any] | None = None
    subtree: bool = False
    current_only: bool = False  # leave out memories a newer one replaced
    # Times arrive as ISO 8601 text: parsed, the one lax conversion of a strict body.
    as_of: LaxTime | None = None  # answer as of this moment (with a timezone)
    time_range: Annotated[tuple[LaxTime, LaxTime], Strict(False)] | None = None  # this span first
    explain: bool = False


class FindRequest(_Request):
    metadata: dict[str, Any] | None = None
    layers: list[str] | None = None
    limit: int | None = None
    offset: int = 0
    subtree: bool = False


class MemoryRef(BaseModel):
    id: str
    layer: str


class ForgetResponse(BaseModel):
    """What forget did, or (``dry_run``) would do."""

    forgotten: bool
    also_forgotten: list[MemoryRef] = Field(default_factory=list)
    duplicates: list[MemoryRef] = Field(default_factory=list)
    dry_run: bool = False


class ReviewCard(BaseModel):
    due: str
    card: dict[str, Any]


class ProvenanceModel(BaseModel):
    """A memory with where it came from: the episodes a fact was consolidated from, the
    facts made from an episode, and a fact's FSRS review card."""

    memory: MemoryModel
    source: str | None = None
    consolidated_from: list[str] = Field(default_factory=list)
    consolidated_into: list[str] = Field(default_factory=list)
    review: ReviewCard | None = None


class FeedbackRequest(_Request):
    success: bool


class FeedbackResponse(BaseModel):
    success_rate: float


class EmbedMissingRequest(_Request):
    batch_size: int = 64


class EmbeddedResponse(BaseModel):
    embedded: int


# ---------------------------------------------------------------------- maintenance
class Promotion(BaseModel):
    episode_id: str
    fact_ids: list[str]


class ConsolidationResponse(BaseModel):
    promoted: int
    decayed: int
    pruned: int
    promotions: list[Promotion] = Field(default_factory=list)


class ReviewItemModel(BaseModel):
    id: str
    content: str
    confidence: float
    due: datetime
    stability: float | None = None
    difficulty: float | None = None


class ReviewRequest(_Request):
    fact_id: str
    grade: int


class HealthModel(BaseModel):
    """Per-layer counts."""

    working: dict[str, int]
    short_term: dict[str, int]
    episodic: dict[str, int]
    semantic: dict[str, int]
    procedural: dict[str, int]
    core: dict[str, int]
    cross_context: dict[str, int]


class NamespacesResponse(BaseModel):
    namespaces: list[str]


class DeletedResponse(BaseModel):
    deleted: int


class ImportResponse(BaseModel):
    imported: int
    ids: list[str]


class MergeCandidateModel(BaseModel):
    name: str
    context: str
    other_name: str
    other_context: str
    similarity: float
    mentions: int
    other_mentions: int


class WhoAmI(BaseModel):
    """What the caller may open: ``namespace`` is the one a request without
    ``?namespace=`` uses."""

    namespace: str
    is_prefix: bool
    key_id: str | None = None
    keys_required: bool


class ApiKeyInfo(BaseModel):
    key_id: str
    name: str
    namespace: str
    is_prefix: bool
    created_at: datetime
    revoked_at: datetime | None = None


# ---------------------------------------------------------------------- core blocks
class CoreBlockModel(BaseModel):
    id: str
    label: str
    content: str
    pinned: bool
    updated_at: datetime


class CoreBlockRequest(_Request):
    content: str = Text


class CoreContextResponse(BaseModel):
    text: str


# ---------------------------------------------------------------------- sessions
class SessionRequest(_Request):
    session_id: str | None = None


class SessionResponse(BaseModel):
    session_id: str | None


class Turn(_Request):
    role: str
    content: str = Text
    metadata: dict[str, Any] | None = None


class InteractionsRequest(_Request):
    turns: list[Turn] = Field(max_length=10_000)
    session_id: str | None = None
    remember: bool = False


class PopRequest(_Request):
    session_id: str | None = None


class InteractionModel(BaseModel):
    role: str
    content: str
    timestamp: datetime
    metadata: dict[str, Any] = Field(default_factory=dict)


class ClearResponse(BaseModel):
    cleared: int
