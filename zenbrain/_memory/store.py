"""Storing: validating a memory, routing it to its layer, embedding it (outside the lock)
and writing it with its layer rows, index entries and stage hooks in one transaction."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from zenbrain import _validation as check
from zenbrain._algorithms.emotional import weight_folded
from zenbrain._memory import supersede
from zenbrain._memory.collector import collector_paused
from zenbrain._memory.embedding import Progress
from zenbrain._memory.scope import MemoryScope
from zenbrain._storage.records import NewMemory
from zenbrain.errors import InvalidInputError
from zenbrain.layers._core import derive_label
from zenbrain.layers._routing import extract_steps, route
from zenbrain.layers._semantic import DEFAULT_FACT_CONFIDENCE, first_schedule
from zenbrain.operations import StoreItem
from zenbrain.stages import StoredMemory
from zenbrain.text import terms_of_words, words

__all__ = [
    "embed",
    "prepare",
    "prepare_items",
    "remember_in_working",
    "schedule_facts",
    "store",
    "store_many",
    "update",
    "write",
]

STORE_BATCH = 512


def prepare(item: StoreItem, now: datetime) -> NewMemory:
    """A checked :class:`~zenbrain.StoreItem` routed to its layer, with its index terms."""
    text = item.content
    weight = item.emotional_weight
    conf = item.confidence
    steps = None if item.steps is None else list(item.steps)
    folded = words(text)  # once, for the emotion lexicon and the index terms
    if weight is None:
        weight = weight_folded(text, folded)
    chosen = item.layer
    if chosen == "auto":
        chosen = route(text, emotional_weight=weight, confidence=conf, steps=steps)
    memory = NewMemory(
        content=text,
        layer=chosen,
        context=item.context,
        conversation=item.conversation,
        emotional_weight=weight,
        confidence=conf,
        source=item.source,
        metadata=dict(item.metadata or {}),
        created_at=item.created_at or now,
        supersedes=list(item.supersedes),
        folded=folded,
    )
    if memory.layer == "procedural":
        memory.steps = steps or extract_steps(text)
        memory.tools = list(item.tools or ())
        memory.outcome = item.outcome or ""
        memory.confidence = None
    elif memory.layer == "semantic":
        memory.confidence = conf if conf is not None else DEFAULT_FACT_CONFIDENCE
        memory.source = item.source or "user"
    elif memory.layer == "core":
        memory.label = derive_label(text)
        memory.confidence = 1.0
    indexed = memory.indexed_text
    if len(indexed) > check.MAX_CONTENT_CHARS:  # content, steps and outcome together
        raise InvalidInputError(
            f"the procedure with its steps and outcome has {len(indexed):,} "
            f"characters; at most {check.MAX_CONTENT_CHARS:,} are accepted"
        )
    if memory.layer != "working":  # index terms now, outside the write lock
        memory.terms = terms_of_words(folded if indexed is text else words(indexed))
    return memory


def prepare_items(items: Iterable[object], now: datetime) -> list[NewMemory]:
    """``store_many()``'s items (strings, dicts of store()'s fields, StoreItems), checked."""
    batch: list[NewMemory] = []
    for position, item in enumerate(items):
        try:
            batch.append(prepare(StoreItem.from_item(item), now))
        except InvalidInputError as exc:
            raise type(exc)(f"item {position}: {exc}") from exc
    return batch


def embed(scope: MemoryScope, batch: Sequence[NewMemory]) -> None:
    """Give the durable memories of ``batch`` their vectors (call outside the lock)."""
    durable = [item for item in batch if item.layer != "working"]
    if scope.embedding is None or not durable:
        return
    matrix = scope.embedding.documents([item.indexed_text for item in durable])
    for item, vector in zip(durable, matrix, strict=True):
        item.vector = vector


def write(
    scope: MemoryScope, conn: Connection, batch: Sequence[NewMemory], now: datetime
) -> list[str]:
    """Write ``batch`` in the caller's transaction; returns the ids in order. Working-memory
    items and copies are the caller's to add after the commit (:func:`remember_in_working`)."""
    repo = scope.repo
    supersede.check_explicit(scope, conn, batch)  # before any write: a refusal changes nothing
    ids: list[str] = [item.id for item in batch]
    fresh: list[NewMemory] = []
    upserted: list[tuple[int, NewMemory]] = []
    stored: list[StoredMemory] = []
    for position, item in enumerate(batch):
        if item.layer == "working":
            continue
        if item.layer == "core":
            # Upserts go one by one: a batch may hold the same core content twice.
            ids[position], pk = repo.upsert_core(conn, item, now)
            stored.append(_stored(pk, ids[position], item, now))
            upserted.append((pk, item))
            continue
        fresh.append(item)
    schedule_facts(fresh, now)
    pks = repo.insert(conn, fresh, now)
    stored.extend(_stored(pk, item.id, item, now) for pk, item in zip(pks, fresh, strict=True))
    supersede.apply(scope, conn, [*upserted, *zip(pks, fresh, strict=True)])
    scope.after_store(conn, stored)
    return ids


def schedule_facts(batch: Sequence[NewMemory], now: datetime) -> None:
    """Give each new fact its first review card (FSRS: learned, rated Good, when stored)."""
    cards: dict[datetime, dict[str, Any]] = {}  # a batch shares one creation time
    for item in batch:
        if item.layer == "semantic" and item.schedule is None:
            created = item.created_at or now
            if created not in cards:
                cards[created] = first_schedule(created)
            item.schedule = cards[created]


def _stored(pk: int, memory_id: str, item: NewMemory, now: datetime) -> StoredMemory:
    return StoredMemory(
        pk, memory_id, item.layer, item.content, item.context, item.created_at or now,
        item.confidence,
    )  # fmt: skip


def remember_in_working(
    scope: MemoryScope, batch: Sequence[NewMemory], ids: Sequence[str], now: datetime
) -> list[str]:
    """After a commit: working-memory items take a slot (their ids are the slots'), and
    the newest stored memories get a copy there. Returns the final ids."""
    final = list(ids)
    for position, item in enumerate(batch):
        if item.layer == "working":
            slot, _ = scope.working.add(item.content, now, kind="fact")
            final[position] = slot.id
    # Only the newest copies can survive in working memory's few slots.
    copies = [(item, i) for item, i in zip(batch, final, strict=True) if item.layer != "working"]
    for item, memory_id in copies[-scope.working.capacity :]:
        for slot in scope.working.slots():
            if slot.source_id == memory_id:
                scope.working.remove(slot.id)
        scope.working.add(item.content, now, source_id=memory_id, source_layer=item.layer)
    return final


def store(scope: MemoryScope, item: StoreItem) -> str:
    now = scope.now()
    return _store_batch(scope, [prepare(item, now)], now)[0]


def update(scope: MemoryScope, memory_id: object, item: StoreItem, given: Iterable[str]) -> str:
    """Store ``item`` as the new version of ``memory_id`` (its layer, context, conversation,
    source and metadata unless ``given``) and close the old one, in one transaction;
    returns the new id."""
    old = None
    if isinstance(memory_id, str) and memory_id:
        with scope.lock, scope.repo.read() as conn:
            old = scope.repo.row(conn, memory_id)
    if old is None or old.layer not in (*supersede.RULE_LAYERS, "procedural"):
        raise InvalidInputError(
            f"update needs the id of an episode, fact or procedure of namespace "
            f"{scope.namespace!r}, got {check.shown(memory_id)}; core blocks change with "
            "set_core_block"
        )
    if "supersedes" in given:
        raise InvalidInputError("update supersedes the memory it updates: drop supersedes=")
    inherited = {
        "layer": old.layer,
        "context": old.context,
        "conversation": old.conversation,
        "metadata": dict(old.metadata or {}),
    }
    if old.layer == "semantic":
        inherited["source"] = old.source
    kept = {name: value for name, value in inherited.items() if name not in given}
    return store(scope, dataclasses.replace(item, **kept, supersedes=(str(memory_id),)))


def store_many(
    scope: MemoryScope,
    items: Iterable[object],
    progress: Progress | None = None,
) -> list[str]:
    """All items in one transaction (embedded first, in batches, reporting progress)."""
    if isinstance(items, str | bytes | Mapping) or not isinstance(items, Iterable):
        raise InvalidInputError(
            "items must be a list of strings or dicts of store() arguments, "
            f"got {type(items).__name__}"
        )
    if progress is not None and not callable(progress):
        raise InvalidInputError(f"progress must be a callable(done, total), got {progress!r}")
    now = scope.now()
    # The collector is paused while the batch is validated and while it is written, not
    # while it is embedded: a model may take minutes, and the pause is the whole process's.
    with collector_paused():
        batch = prepare_items(items, now)
    if not batch:
        return []
    total = len(batch)
    for start in range(0, total, STORE_BATCH):
        embed(scope, batch[start : start + STORE_BATCH])
        if progress is not None and start + STORE_BATCH < total:
            progress(start + STORE_BATCH, total)
    ids = _store_batch(scope, batch, now, embedded=True)
    if progress is not None:
        progress(total, total)
    return ids


def _store_batch(
    scope: MemoryScope, batch: list[NewMemory], now: datetime, *, embedded: bool = False
) -> list[str]:
    if not embedded:
        embed(scope, batch)
    supersede.plan(scope, batch)  # a resolver's model call, outside the lock
    with scope.lock, collector_paused():  # paused once the lock is held, not while waiting
        with scope.repo.write() as conn:
            ids = write(scope, conn, batch, now)
        return remember_in_working(scope, batch, ids, now)
