"""The HTTP API's bodies that are not the library's own values (those, from
:mod:`zenbrain.operations` and :mod:`zenbrain.types`, are served as they are): pydantic
models, which also generate the OpenAPI document. Requests forbid unknown fields; values
are checked by the coordinator itself (its messages), the models only fix the JSON shapes.
New fields go at the end of a model with a default, so older clients keep working."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from zenbrain.types import RecallResult

__all__ = [
    "ApiKeyInfo",
    "ClearResponse",
    "ConsolidationResponse",
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
    "IdResponse",
    "IdsResponse",
    "ImportResponse",
    "InteractionsRequest",
    "MemoryRef",
    "MergeCandidateModel",
    "NamespacesResponse",
    "PopRequest",
    "Problem",
    "Promotion",
    "ProvenanceModel",
    "ReviewRequest",
    "SessionRequest",
    "SessionResponse",
    "Turn",
    "WhoAmI",
]

Text = Field(max_length=1_000_000)


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


class EditRequest(_Request):
    content: str = Text


class IdResponse(BaseModel):
    id: str


class IdsResponse(BaseModel):
    ids: list[str]


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

    memory: RecallResult
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


class ReviewRequest(_Request):
    fact_id: str
    grade: int


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


class ClearResponse(BaseModel):
    cleared: int
