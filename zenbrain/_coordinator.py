"""``MemoryCoordinator``: the one entry point to zenbrain's seven memory layers. A facade
that checks arguments and delegates each call to one pipeline of :mod:`zenbrain._memory`;
each method has an ``a``-prefixed async twin that runs it in a worker thread."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Unpack

from zenbrain import _validation as check
from zenbrain._memory import backfill, find, forget, health, namespaces, recall, review, sessions
from zenbrain._memory import consolidate as consolidation
from zenbrain._memory import core_blocks as core
from zenbrain._memory import store as storing
from zenbrain._memory.embedding import Progress, bind_embedder
from zenbrain._memory.scope import (
    DEFAULT_CONTEXTS,
    Clock,
    MemoryScope,
    check_clock,
    check_contexts,
    check_providers,
    check_stages,
)
from zenbrain._memory.supersede import check_supersession
from zenbrain._memory.supersede import history as read_history
from zenbrain._storage.backup import backup as backup_store
from zenbrain._storage.database import Database
from zenbrain._storage.postgres.hnsw import AsyncBulkLoad, BulkLoad, abulk_load, bulk_load
from zenbrain._storage.repository import Repository
from zenbrain.config import resolve_key, resolve_location
from zenbrain.layers._working import WorkingMemory
from zenbrain.operations import (
    RecallOptions,
    RecallQuery,
    StoreItem,
    StoreOptions,
)
from zenbrain.providers import EmbeddingProvider, Resolver, Summarizer
from zenbrain.stages import MergeCandidate, Stage
from zenbrain.stages._cross_context import merge_candidates as list_merge_candidates
from zenbrain.types import (
    ConsolidationReport,
    CoreBlock,
    ForgetResult,
    Health,
    Interaction,
    RecallResult,
    ReviewItem,
)

__all__ = ["DEFAULT_CONTEXTS", "MemoryCoordinator"]


class MemoryCoordinator:
    """Routes what is stored, ranks what is recalled, consolidates, schedules review and
    forgets, over one store (SQLite by default, or PostgreSQL), for one namespace
    (:meth:`for_namespace`: one cached view per namespace). Every method has an async twin
    prefixed ``a``. ``clock``: where every "now" comes from (an aware datetime). ``key``
    (default ``$ZENBRAIN_KEY``/``$ZENBRAIN_KEY_FILE``) encrypts a SQLite file.
    ``supersession``: knowledge updates by rules (True), off, or a Resolver."""

    def __init__(
        self,
        db: str | Any | None = None,
        *,
        namespace: str = "default",
        embedder: EmbeddingProvider | None = None,
        summarizer: Summarizer | None = None,
        contexts: Sequence[str] | None = None,
        working_capacity: int = 7,
        stages: Sequence[Stage] | None = None,
        clock: Clock | None = None,
        key: str | None = None,
        supersession: bool | Resolver = True,
        _database: Database | None = None,
        _shared: MemoryScope | None = None,
    ) -> None:
        self.namespace = check.check_namespace(namespace)
        self.stages = check_stages(stages)
        check_providers(embedder, summarizer)
        self.contexts = check_contexts(contexts)
        self.embedder = embedder
        self.summarizer = summarizer
        self.clock = check_clock(clock)
        working = WorkingMemory(capacity=working_capacity)
        self._owns_database = _database is None
        self._db = _database or Database(*resolve_location(db), key=resolve_key(key))
        repo = Repository(self._db, self.namespace)
        try:
            if _shared is not None:
                bound = _shared.embedding
            else:
                bound = None if embedder is None else bind_embedder(repo, embedder)
        except BaseException:
            if self._owns_database:
                self._db.close()
            raise
        lock = _shared.lock if _shared is not None else threading.RLock()
        self._scope = MemoryScope(repo, self.contexts, self.stages, working, self.clock, lock)
        self._scope.embedding, self._scope.summarizer = bound, summarizer
        self._scope.supersession = self.supersession = check_supersession(supersession)
        if _shared is None:
            self._scope.views.pin(self.namespace, self)
        else:
            self._scope.views = _shared.views
        self.working = working

    # ------------------------------------------------------------------ lifecycle
    @property
    def database(self) -> Database:  # internal: zenbrain's own tests and benchmarks
        return self._db

    @property
    def location(self) -> str | None:
        """Where the store is, to open it again: its file, its URL, or None (in memory)."""
        if self._db.path is not None:
            return str(self._db.path)
        return None if self._db.dialect == "sqlite" else self._db.url

    @property
    def embedding_model(self) -> str | None:
        """The embedding model recorded in the store (None before any was used)."""
        return self._db.get_meta("embedding_model")

    def for_namespace(self, namespace: str) -> MemoryCoordinator:
        """The view of ``namespace`` on this store, one cached object (memory/views.py)."""
        view: MemoryCoordinator = self._scope.views.get(check.check_namespace(namespace), partial(
            MemoryCoordinator, namespace=namespace, embedder=self.embedder,
            summarizer=self.summarizer, contexts=self.contexts, clock=self.clock,
            working_capacity=self.working.capacity, stages=self.stages, _database=self._db,
            supersession=self.supersession, _shared=self._scope))  # fmt: skip
        return view

    def close(self) -> None:
        """Clear working memory and release the database (if this coordinator opened it)."""
        self.working.clear()
        if self._owns_database:
            self._db.close()

    def __enter__(self) -> MemoryCoordinator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> MemoryCoordinator:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.close)

    def __repr__(self) -> str:
        where = self._db.path or self._db.url
        return f"MemoryCoordinator(db={str(where)!r}, namespace={self.namespace!r})"

    # ------------------------------------------------------------------ long-term memory
    def store(self, content: str | StoreItem, **options: Unpack[StoreOptions]) -> str:
        """Store one memory and return its id (its fields: :class:`~zenbrain.StoreItem`).
        ``layer="auto"``: ``steps`` or step-like content → procedural; emotional weight
        above 0.5 → episodic; confidence above 0.9 → core; otherwise a fact. Same core
        content again updates that block. ``metadata`` is the caller's, returned as given;
        ``supersedes``: ids this memory replaces (docs/guide/knowledge-updates.md)."""
        return storing.store(self._scope, StoreItem.of(content, options))

    def update(self, id: str, content: str, **options: Unpack[StoreOptions]) -> str:
        """Store ``content`` as the new version of ``id``, closing the old (one transaction)."""
        return storing.update(self._scope, id, StoreItem.of(content, options), set(options))

    def history(self, id: str) -> list[RecallResult]:
        """The chain of versions memory ``id`` belongs to, oldest first (empty if unknown)."""
        return read_history(self._scope, id)

    def store_many(
        self, items: Iterable[str | StoreItem | Mapping[str, Any]], *,
        progress: Progress | None = None,
    ) -> list[str]:  # fmt: skip
        """Store many memories (strings, :class:`~zenbrain.StoreItem` or dicts of its fields)
        in one transaction, all or none."""
        return storing.store_many(self._scope, items, progress)

    def replace(
        self, match: Mapping[str, Any], content: str, **options: Unpack[StoreOptions]
    ) -> str:
        """In one transaction, delete every memory whose metadata contains ``match`` and
        store ``content`` (its metadata gets ``match`` too); returns the new id."""
        return find.replace(self._scope, match, StoreItem.of(content, options))

    def recall(
        self, query: str | RecallQuery, **options: Unpack[RecallOptions]
    ) -> list[RecallResult]:
        """Memories relevant to ``query``, best first, on one 0..1 scale for every layer
        (its options: :class:`~zenbrain.RecallQuery`; docs/guide/recall-and-scores.md).
        Fill-ins score 0 (``min_score`` > 0 drops them); ``context``, ``where`` filter
        first; ``subtree`` adds ``<namespace>.*``. Replaced memories rank below their
        replacements (``current_only``, ``as_of``, ``time_range``:
        docs/guide/knowledge-updates.md); ``explain`` adds each score's parts;
        ``per_conversation=1`` ranks conversations (one result each, by its best match)."""
        return recall.recall(self._scope, RecallQuery.of(query, options))

    def find(
        self, metadata: Mapping[str, Any] | None = None, *,
        layers: Sequence[str] | None = None, limit: int | None = None, offset: int = 0,
        subtree: bool = False,
    ) -> list[RecallResult]:  # fmt: skip
        """Memories whose metadata holds every key/value, oldest first, score 1.0 (``subtree``:
        also ``<namespace>.*``, each result naming its namespace in its metadata)."""
        return find.find(self._scope, metadata, layers=layers, limit=limit, offset=offset,
                         subtree=subtree)  # fmt: skip

    def get(self, id: str) -> RecallResult | None:
        """One long-term memory by id (score 1.0), or None if this namespace has none."""
        return find.get(self._scope, id)

    def forget(self, id: str, layer: str) -> ForgetResult:
        """Delete a memory for good, with the facts made from an episode (or the episodes
        of a fact) and working-memory copies (``also_forgotten``); same-content memories are
        kept (``duplicates``). Versions it replaced are relinked, never deleted."""
        return forget.forget(self._scope, id, layer)

    def consolidate(self) -> ConsolidationReport:
        """One maintenance pass: the 100 newest unpromoted episodes of weight above 0.5 become
        facts (summarised, or verbatim), linked; working memory decays; nothing is deleted."""
        return consolidation.consolidate(self._scope)

    def embed_missing(self, batch_size: int = 64, *, progress: Progress | None = None) -> int:
        """Embed the memories stored before an embedder was configured; returns how many."""
        return backfill.embed_missing(self._scope, batch_size, progress)

    def _find_pages(self, metadata: Any, layers: Any, size: int) -> Iterator[list[RecallResult]]:
        return find.find_pages(self._scope, metadata, layers=layers, size=size)  # for exports

    def bulk_load(self, parallel_workers: int = 2, maintenance_work_mem: str = "1GB") -> BulkLoad:
        """``with memory.bulk_load(): store_many(...)``: HNSW built once at the end (PG)."""
        return bulk_load(self._db, parallel_workers, maintenance_work_mem)

    def health(self) -> Health:
        """Per-layer counts."""
        return health.health(self._scope)

    def namespaces(self, prefix: str = "") -> list[str]:
        """The store's namespaces that start with ``prefix``, sorted."""
        return namespaces.namespaces(self._scope, prefix)

    def drop_namespace(self) -> int:
        """Delete all of this namespace; returns the number of memories deleted."""
        return namespaces.drop_namespace(self._scope)

    def backup(self, path: str | Path) -> Path:
        """Copy the whole store to ``path`` while others write; returns the absolute path."""
        return backup_store(self._db, path)

    # ------------------------------------------------------------------ review, procedures
    def review_queue(self, limit: int = 10) -> list[ReviewItem]:
        """Facts due for review now, most overdue first."""
        return review.review_queue(self._scope, limit)

    def record_review(self, fact_id: str, grade: int) -> ReviewItem:
        """Record a review (grade 1 again .. 4 easy); returns the fact with its next due date."""
        return review.record_review(self._scope, fact_id, grade)

    def procedure_feedback(self, id: str, success: bool) -> float:
        """Record whether following a procedure worked; returns the new success rate."""
        return review.procedure_feedback(self._scope, id, success)

    # ------------------------------------------------------------------ core, cross-context
    def set_core_block(self, label: str, content: str) -> CoreBlock:
        """Create or replace the core block ``label``."""
        return core.set_core_block(self._scope, label, content)

    def core_blocks(self) -> list[CoreBlock]:
        """Every core block, by label."""
        return core.core_blocks(self._scope)

    def delete_core_block(self, label: str) -> bool:
        """Delete the block ``label``; False when there is none."""
        return core.delete_core_block(self._scope, label)

    def core_context(self) -> str:
        """The core blocks as ``[label]: content`` lines, ready for a system prompt."""
        return core.core_context(self._scope)

    def merge_candidates(self, limit: int = 20) -> list[MergeCandidate]:
        """Entities of different contexts linked as probably the same, most similar first."""
        limit = check.check_int(limit, "limit", 1, 10_000)
        with self._scope.lock, self._db.read() as conn:
            return list_merge_candidates(conn, self.namespace, limit)

    # ------------------------------------------------------------------ short-term memory
    def start_session(self, session_id: str | None = None) -> str:
        """Make ``session_id`` (a new one when omitted) the current session; an existing one
        resumes."""
        return sessions.start_session(self._scope, session_id)

    @property
    def session_id(self) -> str | None:
        """The current session's id, or None before the first session."""
        with self._scope.lock, self._db.read() as conn:
            return sessions.current_session(self._scope, conn)

    def add_interaction(
        self, role: str, content: str, metadata: Mapping[str, Any] | None = None, *,
        session_id: str | None = None,
    ) -> None:  # fmt: skip
        """Append one message to ``session_id``, or to the current session (starting one
        if there is none)."""
        turn = {"role": role, "content": content, "metadata": metadata}
        sessions.add_interactions(self._scope, [turn], session_id=session_id, remember=False,
                                  single=True)  # fmt: skip

    def add_interactions(
        self,
        turns: Sequence[Mapping[str, Any]],
        *,
        session_id: str | None = None,
        remember: bool = False,
    ) -> list[Interaction]:
        """Append turns (dicts of ``role``, ``content``, ``metadata``) in one transaction;
        ``remember=True`` also stores the turns worth remembering as long-term memories."""
        return sessions.add_interactions(self._scope, turns, session_id=session_id,
                                         remember=remember)  # fmt: skip

    def conversation(
        self, limit: int | None = None, *, session_id: str | None = None
    ) -> list[Interaction]:
        """A session's latest interactions, oldest first: the window of 50, or ``limit``."""
        return sessions.conversation(self._scope, limit, session_id)

    def pop_interaction(self, *, session_id: str | None = None) -> Interaction | None:
        """Remove and return a session's latest interaction."""
        return sessions.pop_interaction(self._scope, session_id)

    def clear_session(self, session_id: str | None = None) -> int:
        """Delete every interaction of a session (the current one by default)."""
        return sessions.clear_session(self._scope, session_id)

    # ------------------------------------------------------------------ async twins
    async def astore(self, content: str | StoreItem, **options: Unpack[StoreOptions]) -> str:
        return await asyncio.to_thread(partial(self.store, content, **options))

    async def aupdate(self, id: str, content: str, **options: Unpack[StoreOptions]) -> str:
        return await asyncio.to_thread(partial(self.update, id, content, **options))

    async def ahistory(self, id: str) -> list[RecallResult]:
        return await asyncio.to_thread(self.history, id)

    async def astore_many(
        self, items: Iterable[str | StoreItem | Mapping[str, Any]], *,
        progress: Progress | None = None,
    ) -> list[str]:  # fmt: skip
        return await asyncio.to_thread(self.store_many, items, progress=progress)

    async def areplace(
        self, match: Mapping[str, Any], content: str, **options: Unpack[StoreOptions]
    ) -> str:
        return await asyncio.to_thread(partial(self.replace, match, content, **options))

    async def arecall(
        self, query: str | RecallQuery, **options: Unpack[RecallOptions]
    ) -> list[RecallResult]:
        return await asyncio.to_thread(partial(self.recall, query, **options))

    async def afind(
        self, metadata: Mapping[str, Any] | None = None, *,
        layers: Sequence[str] | None = None, limit: int | None = None, offset: int = 0,
        subtree: bool = False,
    ) -> list[RecallResult]:  # fmt: skip
        return await asyncio.to_thread(
            self.find, metadata, layers=layers, limit=limit, offset=offset, subtree=subtree
        )

    async def aget(self, id: str) -> RecallResult | None:
        return await asyncio.to_thread(self.get, id)

    async def aforget(self, id: str, layer: str) -> ForgetResult:
        return await asyncio.to_thread(self.forget, id, layer)

    async def aconsolidate(self) -> ConsolidationReport:
        return await asyncio.to_thread(self.consolidate)

    async def aembed_missing(
        self, batch_size: int = 64, *, progress: Progress | None = None
    ) -> int:
        return await asyncio.to_thread(self.embed_missing, batch_size, progress=progress)

    def abulk_load(
        self, parallel_workers: int = 2, maintenance_work_mem: str = "1GB"
    ) -> AsyncBulkLoad:
        return abulk_load(self._db, parallel_workers, maintenance_work_mem)

    async def ahealth(self) -> Health:
        return await asyncio.to_thread(self.health)

    async def abackup(self, path: str | Path) -> Path:
        return await asyncio.to_thread(self.backup, path)

    async def anamespaces(self, prefix: str = "") -> list[str]:
        return await asyncio.to_thread(self.namespaces, prefix)

    async def adrop_namespace(self) -> int:
        return await asyncio.to_thread(self.drop_namespace)

    async def areview_queue(self, limit: int = 10) -> list[ReviewItem]:
        return await asyncio.to_thread(self.review_queue, limit)

    async def arecord_review(self, fact_id: str, grade: int) -> ReviewItem:
        return await asyncio.to_thread(self.record_review, fact_id, grade)

    async def aprocedure_feedback(self, id: str, success: bool) -> float:
        return await asyncio.to_thread(self.procedure_feedback, id, success)

    async def aset_core_block(self, label: str, content: str) -> CoreBlock:
        return await asyncio.to_thread(self.set_core_block, label, content)

    async def acore_blocks(self) -> list[CoreBlock]:
        return await asyncio.to_thread(self.core_blocks)

    async def adelete_core_block(self, label: str) -> bool:
        return await asyncio.to_thread(self.delete_core_block, label)

    async def acore_context(self) -> str:
        return await asyncio.to_thread(self.core_context)

    async def amerge_candidates(self, limit: int = 20) -> list[MergeCandidate]:
        return await asyncio.to_thread(self.merge_candidates, limit)

    async def astart_session(self, session_id: str | None = None) -> str:
        return await asyncio.to_thread(self.start_session, session_id)

    async def aadd_interaction(
        self, role: str, content: str, metadata: Mapping[str, Any] | None = None, *,
        session_id: str | None = None,
    ) -> None:  # fmt: skip
        await asyncio.to_thread(self.add_interaction, role, content, metadata,
                                session_id=session_id)  # fmt: skip

    async def aadd_interactions(
        self, turns: Sequence[Mapping[str, Any]], *, session_id: str | None = None,
        remember: bool = False,
    ) -> list[Interaction]:  # fmt: skip
        return await asyncio.to_thread(self.add_interactions, turns, session_id=session_id,
                                       remember=remember)  # fmt: skip

    async def aconversation(
        self, limit: int | None = None, *, session_id: str | None = None
    ) -> list[Interaction]:
        return await asyncio.to_thread(self.conversation, limit, session_id=session_id)

    async def apop_interaction(self, *, session_id: str | None = None) -> Interaction | None:
        return await asyncio.to_thread(self.pop_interaction, session_id=session_id)

    async def aclear_session(self, session_id: str | None = None) -> int:
        return await asyncio.to_thread(self.clear_session, session_id)
