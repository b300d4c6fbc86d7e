"""``/v1`` routes of long-term memory: store, get, find, recall, replace, forget."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request

from zenbrain.cli._transfer import export_row
from zenbrain.memory import inspection
from zenbrain.server.access import Memory, check_subtree_allowed
from zenbrain.server.models import (
    EditRequest,
    EmbeddedResponse,
    EmbedMissingRequest,
    FeedbackRequest,
    FeedbackResponse,
    FindRequest,
    ForgetResponse,
    IdResponse,
    IdsResponse,
    MemoryModel,
    ProvenanceModel,
    RecalledMemory,
    RecallRequest,
    ReplaceRequest,
    ScoreParts,
    StoreManyRequest,
    StoreRequest,
)
from zenbrain.server.problems import NotFound
from zenbrain.types import RecallResult

__all__ = ["router"]

router = APIRouter(tags=["memories"])
MemoryId = Annotated[str, Path(max_length=200, description="A memory's id.")]


def _store_arguments(body: StoreRequest) -> dict[str, Any]:
    return body.model_dump(exclude_none=True, exclude={"match"})


def memory_model(result: RecallResult) -> MemoryModel:
    return MemoryModel(**result.to_dict())


def _not_found(memory_id: str, namespace: str) -> NotFound:
    return NotFound(
        f"no memory {memory_id[:80]!r} in the namespace {namespace[:80]!r}: it was forgotten, "
        "belongs to another namespace, or the id is mistyped"
    )


@router.post("/memories", response_model=IdResponse, status_code=201)
async def store(body: StoreRequest, memory: Memory) -> IdResponse:
    """Store one memory (``MemoryCoordinator.store``); returns its id."""
    return IdResponse(id=await memory.astore(**_store_arguments(body)))


@router.get("/memories", response_model=list[MemoryModel])
async def browse(
    memory: Memory,
    layer: Annotated[list[str] | None, Query(max_length=4, description="Repeatable.")] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
) -> list[MemoryModel]:
    """This namespace's long-term memories, oldest first, a page at a time."""
    found = await memory.afind(None, layers=layer or None, limit=limit, offset=offset)
    return [memory_model(r) for r in found]


@router.post("/memories/batch", response_model=IdsResponse, status_code=201)
async def store_many(body: StoreManyRequest, memory: Memory) -> IdsResponse:
    """Store many memories in one transaction: all, or (on any bad item) none."""
    items = [item if isinstance(item, str) else _store_arguments(item) for item in body.items]
    return IdsResponse(ids=await memory.astore_many(items))


@router.get("/memories/{memory_id}", response_model=MemoryModel)
async def get(memory_id: MemoryId, memory: Memory) -> MemoryModel:
    """One long-term memory of this namespace (404 for any other id)."""
    found = await memory.aget(memory_id)
    if found is None:
        raise _not_found(memory_id, memory.namespace)
    return memory_model(found)


@router.get("/memories/{memory_id}/provenance", response_model=ProvenanceModel)
async def provenance(memory_id: MemoryId, memory: Memory) -> ProvenanceModel:
    """Where a memory came from: the episodes a fact was consolidated from, the facts made
    from an episode, its source and (for a fact) its FSRS review card."""
    found = await memory.aget(memory_id)
    if found is None:
        raise _not_found(memory_id, memory.namespace)
    details = await asyncio.to_thread(inspection.provenance, memory._scope, memory_id)
    if details is None:
        raise _not_found(memory_id, memory.namespace)
    return ProvenanceModel(
        memory=memory_model(found),
        source=details["source"],
        consolidated_from=details["consolidated_from"],
        consolidated_into=details["consolidated_into"],
        review=details["review"],
    )


@router.put("/memories/{memory_id}", response_model=IdResponse)
async def edit(memory_id: MemoryId, body: EditRequest, memory: Memory) -> IdResponse:
    """Correct a memory's text: a core block is set again under its label; any other memory
    is stored anew (same layer, context, metadata and time) and the old one forgotten, with
    its cascade. Returns the id that now holds the text."""
    found = await memory.aget(memory_id)
    if found is None:
        raise _not_found(memory_id, memory.namespace)
    arguments = {k: v for k, v in export_row(found).items() if v is not None}
    if found.layer == "core":
        block = await memory.aset_core_block(str(arguments["label"]), body.content)
        return IdResponse(id=block.id)
    for key in ("id", "label"):
        arguments.pop(key, None)
    arguments["content"] = body.content
    new_id = await memory.astore(**arguments)
    if new_id != memory_id:
        await memory.aforget(memory_id, found.layer)
    return IdResponse(id=new_id)


@router.post("/memories/{memory_id}/update", response_model=IdResponse)
async def update(memory_id: MemoryId, body: StoreRequest, memory: Memory) -> IdResponse:
    """Store ``content`` as the new version of the memory and close the old one, in one
    transaction (both stay readable: its history); returns the new id. What the body leaves
    out (its layer, context, metadata, ...) the new version keeps from the old, as
    ``update()`` does: ``layer`` is not read as store's ``"auto"``."""
    if await memory.aget(memory_id) is None:
        raise _not_found(memory_id, memory.namespace)
    arguments = body.model_dump(exclude_unset=True, exclude_none=True, exclude={"match"})
    content = arguments.pop("content")
    return IdResponse(id=await memory.aupdate(memory_id, content, **arguments))


@router.get("/memories/{memory_id}/history", response_model=list[MemoryModel])
async def history(memory_id: MemoryId, memory: Memory) -> list[MemoryModel]:
    """The chain of versions the memory belongs to, oldest first."""
    if await memory.aget(memory_id) is None:
        raise _not_found(memory_id, memory.namespace)
    return [memory_model(r) for r in await memory.ahistory(memory_id)]


@router.delete("/memories/{memory_id}", response_model=ForgetResponse)
async def forget(
    memory_id: MemoryId,
    memory: Memory,
    layer: Annotated[
        str | None, Query(max_length=40, description="Its layer. Default: looked up.")
    ] = None,
    dry_run: Annotated[
        bool, Query(description="List what would be forgotten; delete nothing.")
    ] = False,
) -> ForgetResponse:
    """Forget a memory with what consolidation linked to it (``also_forgotten``);
    ``dry_run=true`` lists that cascade without deleting anything."""
    if layer is None:
        found = await memory.aget(memory_id)
        if found is None:
            raise _not_found(memory_id, memory.namespace)
        layer = found.layer
    if dry_run:
        result = await asyncio.to_thread(inspection.forget_preview, memory._scope, memory_id, layer)
    else:
        result = await memory.aforget(memory_id, layer)
    if not result.forgotten:
        raise _not_found(memory_id, memory.namespace)
    return ForgetResponse(**result.to_dict(), dry_run=dry_run)


@router.post("/memories/{memory_id}/feedback", response_model=FeedbackResponse)
async def procedure_feedback(
    memory_id: MemoryId, body: FeedbackRequest, memory: Memory
) -> FeedbackResponse:
    """Whether following a procedure worked; returns its new success rate (404 for an id
    this namespace does not hold, as on every by-id route)."""
    if await memory.aget(memory_id) is None:
        raise _not_found(memory_id, memory.namespace)
    return FeedbackResponse(success_rate=await memory.aprocedure_feedback(memory_id, body.success))


@router.post("/find", response_model=list[MemoryModel])
async def find(body: FindRequest, memory: Memory, request: Request) -> list[MemoryModel]:
    """Memories whose metadata contains every given key/value, oldest first (paged with
    ``limit`` and ``offset``)."""
    check_subtree_allowed(request, memory, body.subtree)
    found = await memory.afind(
        body.metadata, layers=body.layers, limit=body.limit, offset=body.offset,
        subtree=body.subtree,
    )  # fmt: skip
    return [memory_model(r) for r in found]


@router.post("/recall", response_model=list[RecalledMemory])
async def recall(body: RecallRequest, memory: Memory, request: Request) -> list[RecalledMemory]:
    """Memories relevant to ``query``, best first; ``explain=true`` adds each result's score
    parts (lexical, semantic, fused, layer, neighbours)."""
    check_subtree_allowed(request, memory, body.subtree)
    results = await memory.arecall(
        body.query, layers=body.layers, limit=body.limit, min_score=body.min_score,
        min_confidence=body.min_confidence, core=body.core, context=body.context,
        where=body.where, subtree=body.subtree, current_only=body.current_only,
        as_of=body.as_of, time_range=body.time_range,
    )  # fmt: skip
    parts: list[dict[str, Any]] = []
    if body.explain and results:
        parts = await asyncio.to_thread(
            inspection.explain, memory._scope, body.query, results, body.context, body.layers
        )
    shown = []
    for index, result in enumerate(results):
        explained = ScoreParts(**parts[index]) if parts else None
        shown.append(RecalledMemory(**result.to_dict(), explain=explained))
    return shown


@router.post("/replace", response_model=IdResponse)
async def replace(body: ReplaceRequest, memory: Memory) -> IdResponse:
    """Delete every memory whose metadata contains ``match`` and store ``content``, in
    one transaction; returns the new memory's id."""
    arguments = _store_arguments(body)
    content = arguments.pop("content")
    return IdResponse(id=await memory.areplace(body.match, content, **arguments))


@router.post("/embed-missing", response_model=EmbeddedResponse)
async def embed_missing(body: EmbedMissingRequest, memory: Memory) -> EmbeddedResponse:
    """Embed the memories stored before an embedder was configured."""
    return EmbeddedResponse(embedded=await memory.aembed_missing(body.batch_size))
