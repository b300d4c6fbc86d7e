"""``/v1`` routes of long-term memory: store, get, find, recall, replace, forget."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Query, Request

from zenbrain import inspection
from zenbrain.operations import RecallQuery, StoreItem
from zenbrain.server._access import Memory, check_subtree_allowed
from zenbrain.server._bodies import batch_items, batch_schema, body_schema, split_off
from zenbrain.server._models import (
    EditRequest,
    EmbeddedResponse,
    EmbedMissingRequest,
    FeedbackRequest,
    FeedbackResponse,
    FindRequest,
    ForgetResponse,
    IdResponse,
    IdsResponse,
    ProvenanceModel,
)
from zenbrain.server._problems import NotFound
from zenbrain.types import RecallResult

__all__ = ["router"]

# Each StoreItem field's default, to tell a null that means None from one that means "left out".
_DEFAULTS = {f.name: f.default for f in dataclasses.fields(StoreItem)}

router = APIRouter(tags=["memories"])
MemoryId = Annotated[str, Path(max_length=200, description="A memory's id.")]
# A JSON body read by the library's own value (zenbrain.server._bodies), not by a model.
JsonBody = Annotated[Any, Body()]
_STORE_BODY = body_schema(StoreItem)
_BATCH_BODY = batch_schema()


def _not_found(memory_id: str, namespace: str) -> NotFound:
    return NotFound(
        f"no memory {memory_id[:80]!r} in the namespace {namespace[:80]!r}: it was forgotten, "
        "belongs to another namespace, or the id is mistyped"
    )


@router.post("/memories", response_model=IdResponse, status_code=201, openapi_extra=_STORE_BODY)
async def store(body: JsonBody, memory: Memory) -> IdResponse:
    """Store one memory (``MemoryCoordinator.store``, the body a ``StoreItem``); returns
    its id."""
    return IdResponse(id=await memory.astore(StoreItem.from_json(body)))


@router.get("/memories", response_model=list[RecallResult])
async def browse(
    memory: Memory,
    layer: Annotated[list[str] | None, Query(max_length=4, description="Repeatable.")] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
) -> list[RecallResult]:
    """This namespace's long-term memories, oldest first, a page at a time."""
    return await memory.afind(None, layers=layer or None, limit=limit, offset=offset)


@router.post(
    "/memories/batch", response_model=IdsResponse, status_code=201, openapi_extra=_BATCH_BODY
)
async def store_many(body: JsonBody, memory: Memory) -> IdsResponse:
    """Store many memories in one transaction: all, or (on any bad item) none."""
    return IdsResponse(ids=await memory.astore_many(batch_items(body)))


@router.get("/memories/{memory_id}", response_model=RecallResult)
async def get(memory_id: MemoryId, memory: Memory) -> RecallResult:
    """One long-term memory of this namespace (404 for any other id)."""
    found = await memory.aget(memory_id)
    if found is None:
        raise _not_found(memory_id, memory.namespace)
    return found


@router.get("/memories/{memory_id}/provenance", response_model=ProvenanceModel)
async def provenance(memory_id: MemoryId, memory: Memory) -> ProvenanceModel:
    """Where a memory came from: the episodes a fact was consolidated from, the facts made
    from an episode, its source and (for a fact) its FSRS review card."""
    found = await memory.aget(memory_id)
    if found is None:
        raise _not_found(memory_id, memory.namespace)
    details = await asyncio.to_thread(inspection.provenance, memory, memory_id)
    if details is None:
        raise _not_found(memory_id, memory.namespace)
    return ProvenanceModel(
        memory=found,
        source=details["source"],
        consolidated_from=details["consolidated_from"],
        consolidated_into=details["consolidated_into"],
        review=details["review"],
    )


@router.put("/memories/{memory_id}", response_model=IdResponse)
async def edit(memory_id: MemoryId, body: EditRequest, memory: Memory) -> IdResponse:
    """Correct a memory's text: a core block is set again under its label; any other memory
    gets a new version (``update()``: same layer, context, conversation and metadata; the old
    version stays readable as its history). Returns the id that now holds the text."""
    found = await memory.aget(memory_id)
    if found is None:
        raise _not_found(memory_id, memory.namespace)
    if found.layer == "core":
        block = await memory.aset_core_block(str(found.label), body.content)
        return IdResponse(id=block.id)
    return IdResponse(id=await memory.aupdate(memory_id, body.content))


@router.post("/memories/{memory_id}/update", response_model=IdResponse, openapi_extra=_STORE_BODY)
async def update(memory_id: MemoryId, body: JsonBody, memory: Memory) -> IdResponse:
    """Store ``content`` as the new version of the memory and close the old one, in one
    transaction (both stay readable: its history); returns the new id. What the body leaves
    out (its layer, context, metadata, ...) the new version keeps from the old, as
    ``update()`` does: ``layer`` is not read as store's ``"auto"``; a field given as null
    is cleared, as ``None`` does in the library."""
    item = StoreItem.from_json(body)
    if await memory.aget(memory_id) is None:
        raise _not_found(memory_id, memory.namespace)
    return IdResponse(id=await memory.aupdate(memory_id, item.content, **_given(item, body)))


@router.get("/memories/{memory_id}/history", response_model=list[RecallResult])
async def history(memory_id: MemoryId, memory: Memory) -> list[RecallResult]:
    """The chain of versions the memory belongs to, oldest first."""
    if await memory.aget(memory_id) is None:
        raise _not_found(memory_id, memory.namespace)
    return await memory.ahistory(memory_id)


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
        result = await asyncio.to_thread(inspection.forget_preview, memory, memory_id, layer)
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


@router.post("/find", response_model=list[RecallResult])
async def find(body: FindRequest, memory: Memory, request: Request) -> list[RecallResult]:
    """Memories whose metadata contains every given key/value, oldest first (paged with
    ``limit`` and ``offset``)."""
    check_subtree_allowed(request, memory, body.subtree)
    return await memory.afind(
        body.metadata, layers=body.layers, limit=body.limit, offset=body.offset,
        subtree=body.subtree,
    )  # fmt: skip


@router.post("/recall", response_model=list[RecallResult], openapi_extra=body_schema(RecallQuery))
async def recall(body: JsonBody, memory: Memory, request: Request) -> list[RecallResult]:
    """Memories relevant to ``query``, best first (the body a ``RecallQuery``);
    ``explain=true`` adds each result's score parts (lexical, semantic, fused, layer,
    neighbours) from the same search."""
    query = RecallQuery.from_json(body)
    check_subtree_allowed(request, memory, query.subtree)
    return await memory.arecall(query)


_REPLACE_BODY = body_schema(StoreItem, match={"type": "object"})


@router.post("/replace", response_model=IdResponse, openapi_extra=_REPLACE_BODY)
async def replace(body: JsonBody, memory: Memory) -> IdResponse:
    """Delete every memory whose metadata contains ``match`` and store ``content``, in
    one transaction; returns the new memory's id."""
    match, fields = split_off(body, "match")
    item = StoreItem.from_json(fields)
    return IdResponse(id=await memory.areplace(match, item.content, **_given(item, fields)))


def _given(item: StoreItem, fields: dict[str, Any]) -> dict[str, Any]:
    """``item``'s fields that the body named (content aside), checked. A null where the
    library takes None (context, metadata, ...) is given as None, so ``update`` clears the
    field; elsewhere (layer) it is left out, as a field the body does not name."""
    return {
        name: getattr(item, name)
        for name, value in fields.items()
        if name != "content" and (value is not None or _DEFAULTS.get(name, 0) is None)
    }


@router.post("/embed-missing", response_model=EmbeddedResponse)
async def embed_missing(body: EmbedMissingRequest, memory: Memory) -> EmbeddedResponse:
    """Embed the memories stored before an embedder was configured."""
    return EmbeddedResponse(embedded=await memory.aembed_missing(body.batch_size))
