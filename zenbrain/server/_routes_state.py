"""``/v1`` routes of the rest of a namespace's state: core blocks, sessions, review,
consolidation, health, namespaces and cross-context entities."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request

from zenbrain import inspection
from zenbrain.server._access import Caller, Memory
from zenbrain.server._models import (
    ClearResponse,
    ConsolidationResponse,
    CoreBlockRequest,
    CoreContextResponse,
    DeletedResponse,
    InteractionsRequest,
    MergeCandidateModel,
    NamespacesResponse,
    PopRequest,
    Promotion,
    ReviewRequest,
    SessionRequest,
    SessionResponse,
    WhoAmI,
)
from zenbrain.server._problems import NotFound
from zenbrain.types import CoreBlock, Health, Interaction, ReviewItem

__all__ = ["router"]

router = APIRouter()
Label = Annotated[str, Path(max_length=200, description="A core block's label.")]
SessionQuery = Annotated[
    str | None, Query(max_length=200, description="Default: the current session.")
]
Limit = Annotated[int, Query(ge=1, le=10_000)]


# ---------------------------------------------------------------------- core blocks
@router.get("/core-blocks", response_model=list[CoreBlock], tags=["core"])
async def core_blocks(memory: Memory) -> list[CoreBlock]:
    """Every core block, by label."""
    return list(await memory.acore_blocks())


@router.put("/core-blocks/{label}", response_model=CoreBlock, tags=["core"])
async def set_core_block(label: Label, body: CoreBlockRequest, memory: Memory) -> CoreBlock:
    """Create or replace the core block ``label``."""
    return await memory.aset_core_block(label, body.content)


@router.delete("/core-blocks/{label}", response_model=DeletedResponse, tags=["core"])
async def delete_core_block(label: Label, memory: Memory) -> DeletedResponse:
    """Delete the core block ``label`` (404 when there is none)."""
    if not await memory.adelete_core_block(label):
        raise NotFound(f"no core block labelled {label[:80]!r} in {memory.namespace[:80]!r}")
    return DeletedResponse(deleted=1)


@router.get("/core-context", response_model=CoreContextResponse, tags=["core"])
async def core_context(memory: Memory) -> CoreContextResponse:
    """The core blocks as ``[label]: content`` lines, for a system prompt."""
    return CoreContextResponse(text=await memory.acore_context())


# ---------------------------------------------------------------------- sessions
@router.post("/sessions", response_model=SessionResponse, tags=["sessions"])
async def start_session(body: SessionRequest, memory: Memory) -> SessionResponse:
    """Make ``session_id`` (a new one when omitted) the current session."""
    return SessionResponse(session_id=await memory.astart_session(body.session_id))


@router.get("/sessions/current", response_model=SessionResponse, tags=["sessions"])
async def current_session(memory: Memory) -> SessionResponse:
    """The current session's id (null before the first)."""
    return SessionResponse(session_id=await asyncio.to_thread(lambda: memory.session_id))


@router.post("/interactions", response_model=list[Interaction], tags=["sessions"])
async def add_interactions(body: InteractionsRequest, memory: Memory) -> list[Interaction]:
    """Append turns to a session in one transaction (``remember``: also store the turns
    worth remembering as long-term memories)."""
    turns = [turn.model_dump(exclude_none=True) for turn in body.turns]
    added = await memory.aadd_interactions(
        turns, session_id=body.session_id, remember=body.remember
    )
    return list(added)


@router.get("/interactions", response_model=list[Interaction], tags=["sessions"])
async def conversation(
    memory: Memory,
    session_id: SessionQuery = None,
    limit: Annotated[int | None, Query(ge=1, le=100_000)] = None,
) -> list[Interaction]:
    """A session's latest interactions, oldest first."""
    turns = await memory.aconversation(limit, session_id=session_id)
    return list(turns)


@router.post("/interactions/pop", response_model=Interaction | None, tags=["sessions"])
async def pop_interaction(body: PopRequest, memory: Memory) -> Interaction | None:
    """Remove and return a session's latest interaction (null when it has none)."""
    popped = await memory.apop_interaction(session_id=body.session_id)
    return popped


@router.delete("/interactions", response_model=ClearResponse, tags=["sessions"])
async def clear_session(memory: Memory, session_id: SessionQuery = None) -> ClearResponse:
    """Delete every interaction of a session."""
    return ClearResponse(cleared=await memory.aclear_session(session_id))


# ---------------------------------------------------------------------- maintenance
@router.post("/consolidate", response_model=ConsolidationResponse, tags=["maintenance"])
async def consolidate(memory: Memory) -> ConsolidationResponse:
    """One maintenance pass; ``promotions`` names each episode promoted and its facts."""
    candidates = await asyncio.to_thread(inspection.promotable_episodes, memory)
    report = await memory.aconsolidate()
    promotions = []
    for episode_id in candidates if report.promoted else []:
        links = await asyncio.to_thread(inspection.consolidation_links, memory, episode_id)
        if links["consolidated_into"]:
            promotions.append(Promotion(episode_id=episode_id, fact_ids=links["consolidated_into"]))
    return ConsolidationResponse(**report.to_dict(), promotions=promotions)


@router.get("/review-queue", response_model=list[ReviewItem], tags=["review"])
async def review_queue(memory: Memory, limit: Limit = 10) -> list[ReviewItem]:
    """Facts due for review now, most overdue first."""
    return list(await memory.areview_queue(limit))


@router.post("/reviews", response_model=ReviewItem, tags=["review"])
async def record_review(body: ReviewRequest, memory: Memory) -> ReviewItem:
    """Grade a review of a fact (1 again, 2 hard, 3 good, 4 easy); returns its next due."""
    return await memory.arecord_review(body.fact_id, body.grade)


@router.get("/health", response_model=Health, tags=["maintenance"])
async def health(memory: Memory) -> Health:
    """Per-layer counts of this namespace."""
    return await memory.ahealth()


@router.get("/namespaces", response_model=NamespacesResponse, tags=["namespaces"])
async def namespaces(
    memory: Memory,
    request: Request,
    prefix: Annotated[str, Query(max_length=200)] = "",
) -> NamespacesResponse:
    """The store's namespaces starting with ``prefix`` that the caller's key opens."""
    who: Caller = request.state.caller
    found = await memory.anamespaces(prefix)
    return NamespacesResponse(namespaces=[ns for ns in found if who.allows(ns)])


@router.delete("/namespace", response_model=DeletedResponse, tags=["namespaces"])
async def drop_namespace(memory: Memory) -> DeletedResponse:
    """Delete all of this namespace (memories, sessions, stage rows)."""
    return DeletedResponse(deleted=await memory.adrop_namespace())


@router.get("/merge-candidates", response_model=list[MergeCandidateModel], tags=["entities"])
async def merge_candidates(memory: Memory, limit: Limit = 20) -> list[MergeCandidateModel]:
    """Entities of different contexts linked as probably the same (the cross-context
    layer), most similar first."""
    found = await memory.amerge_candidates(limit)
    return [MergeCandidateModel.model_validate(c, from_attributes=True) for c in found]


@router.get("/whoami", response_model=WhoAmI, tags=["namespaces"])
async def whoami(memory: Memory, request: Request) -> WhoAmI:
    """The namespace this request opened, and the key it came with."""
    who: Caller = request.state.caller
    key = who.key
    return WhoAmI(
        namespace=memory.namespace,
        is_prefix=key.is_prefix if key else True,
        key_id=key.key_id if key else None,
        keys_required=who.keys_required,
    )
