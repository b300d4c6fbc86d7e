"""``MemoryCoordinator``: the one entry point to zenbrain's seven memory layers."""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, ParamSpec, TypeVar

import numpy as np
from sqlalchemy import Connection, Row, and_, delete, func, select, update

from zenbrain import _validation as check
from zenbrain.errors import EmbeddingMismatchError, InvalidInputError, ProviderError
from zenbrain.layers import semantic as fsrs_review
from zenbrain.layers.core import core_score, derive_label, validate_label
from zenbrain.layers.episodic import (
    CONSOLIDATION_BATCH,
    CONSOLIDATION_WEIGHT,
    estimate_emotional_weight,
)
from zenbrain.layers.procedural import render_procedure, success_weighted, update_success_rate
from zenbrain.layers.routing import extract_steps, route
from zenbrain.layers.semantic import DEFAULT_FACT_CONFIDENCE
from zenbrain.layers.short_term import SHORT_TERM_WINDOW
from zenbrain.layers.working import WorkingMemory
from zenbrain.providers.base import EmbeddingProvider, Summarizer
from zenbrain.ranking import candidate_terms, fuse, idf, lexical_score, semantic_score
from zenbrain.stages import MergeCandidate, Stage, default_stages
from zenbrain.stages.base import RecallRequest, StageScope, StoredMemory
from zenbrain.stages.cleanup import forget_stage_rows
from zenbrain.stages.cross_context import merge_candidates as list_merge_candidates
from zenbrain.storage.database import Database, resolve_location
from zenbrain.storage.indexes import IndexedText, IndexedVector
from zenbrain.storage.schema import (
    consolidation_links,
    core_blocks,
    entities,
    entity_links,
    facts,
    interactions,
    keyed_namespace_filter,
    memories,
    procedures,
    sessions,
)
from zenbrain.storage.timestamps import from_db as _from_db
from zenbrain.storage.timestamps import to_db as _to_db
from zenbrain.text import content_tokens, tokenize
from zenbrain.types import (
    DEFAULT_RECALL_LAYERS,
    ConsolidationReport,
    CoreBlock,
    ForgetResult,
    Health,
    Interaction,
    RecallResult,
    ReviewItem,
)
from zenbrain.types import FORGETTABLE_LAYERS as _FORGETTABLE
from zenbrain.types import RECALLABLE_LAYERS as _RECALLABLE
from zenbrain.types import SEARCHED_LAYERS as _SEARCHED
from zenbrain.types import STORABLE_LAYERS as _STORABLE

__all__ = ["DEFAULT_CONTEXTS", "MemoryCoordinator"]

log = logging.getLogger("zenbrain")

DEFAULT_CONTEXTS = ("personal", "work", "learning", "creative")
CANDIDATES_PER_RESULT = 5
MIN_CANDIDATES = 50

# Unrelated sentences: their mean pairwise similarity is the embedder's "no relation" floor.
_CALIBRATION = (
    "The invoice is due at the end of the month.",
    "Penguins live mostly in the southern hemisphere.",
    "She tuned the guitar before the concert.",
    "Der Zug nach Hamburg hat Verspätung.",
    "Add two cups of flour and stir slowly.",
    "The server restarted after the kernel update.",
    "My grandmother grew tomatoes in her garden.",
    "Quarterly revenue rose by eight percent.",
)

P = ParamSpec("P")
T = TypeVar("T")


def _utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(slots=True)
class _Pending:
    """One validated ``store()`` call on its way into the database."""

    content: str
    layer: str
    context: str | None
    emotional_weight: float | None
    confidence: float | None
    source: str | None
    metadata: dict[str, Any]
    created_at: datetime
    steps: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    outcome: str = ""
    label: str | None = None

    @property
    def indexed_text(self) -> str:
        if self.layer == "procedural":
            return render_procedure(self.content, self.steps, self.outcome)
        if self.layer == "core" and self.label:
            return f"{self.label} {self.content}"
        return self.content


def _check_stages(stages: object) -> tuple[Stage, ...]:
    """The configured stages: the defaults for None, else a list of Stage objects."""
    if stages is None:
        return default_stages()
    problem = InvalidInputError(
        f"stages must be a list of zenbrain.stages.Stage objects, got {stages!r}"
    )
    if isinstance(stages, str | Stage) or not isinstance(stages, Iterable):
        raise problem
    chosen = tuple(stages)
    if not all(isinstance(stage, Stage) for stage in chosen):
        raise problem
    return chosen


def _locked(method: Callable[P, T]) -> Callable[P, T]:
    """Serialise public methods: one coordinator may be shared by threads and tasks."""

    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        with args[0]._lock:  # type: ignore[attr-defined]
            return method(*args, **kwargs)

    wrapper.__name__ = method.__name__
    wrapper.__qualname__ = method.__qualname__
    wrapper.__doc__ = method.__doc__
    return wrapper


class MemoryCoordinator:
    """Routes what is stored, ranks what is recalled, consolidates, schedules review and
    forgets, over one store (a SQLite file by default, or PostgreSQL).

    Every method has an async twin prefixed ``a`` that runs it in a worker thread, so the
    event loop is never blocked. One coordinator serves one namespace; open another with
    :meth:`for_namespace` to share the connection pool.
    """

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
        _database: Database | None = None,
    ) -> None:
        self.namespace = check.check_namespace(namespace)
        self.stages = _check_stages(stages)
        if embedder is not None and not isinstance(embedder, EmbeddingProvider):
            raise InvalidInputError(
                "embedder must provide model_id, dimension, embed_documents and embed_queries "
                f"(the EmbeddingProvider protocol); got {type(embedder).__name__}"
            )
        if summarizer is not None and not isinstance(summarizer, Summarizer):
            raise InvalidInputError(
                f"summarizer must have a summarize(texts) method; got {type(summarizer).__name__}"
            )
        self.contexts = tuple(contexts) if contexts else DEFAULT_CONTEXTS
        if not all(isinstance(c, str) and c.strip() for c in self.contexts):
            raise InvalidInputError(f"contexts must be non-empty strings, got {contexts!r}")
        self.embedder = embedder
        self.summarizer = summarizer
        self._lock = threading.RLock()
        self._owns_database = _database is None
        self._db = _database if _database is not None else Database(*resolve_location(db))
        self.working = WorkingMemory(capacity=working_capacity)
        self._session_id: str | None = None
        self._similarity_floor = 0.0
        if embedder is not None:
            self._check_embedder(embedder)

    # ------------------------------------------------------------------ lifecycle
    @property
    def database(self) -> Database:
        return self._db

    def for_namespace(self, namespace: str) -> MemoryCoordinator:
        """Another coordinator on the same store and connection pool, for ``namespace``."""
        return MemoryCoordinator(
            namespace=namespace,
            embedder=self.embedder,
            summarizer=self.summarizer,
            contexts=self.contexts,
            working_capacity=self.working.capacity,
            stages=self.stages,
            _database=self._db,
        )

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

    # ------------------------------------------------------------------ embeddings
    def _check_embedder(self, embedder: EmbeddingProvider) -> None:
        model, dimension = str(embedder.model_id), int(embedder.dimension)
        recorded_model = self._db.get_meta("embedding_model")
        recorded_dim = self._db.get_meta("embedding_dimension")
        if recorded_model is not None and (recorded_model, recorded_dim) != (model, str(dimension)):
            raise EmbeddingMismatchError(
                f"this store was embedded with model {recorded_model!r} "
                f"(dimension {recorded_dim}), "
                f"but the embedder given is {model!r} (dimension {dimension}). Open it with the "
                "same model, or use a new store for the new model."
            )
        if recorded_model is None:
            with self._db.write() as conn:
                self._db.set_meta(conn, "embedding_model", model)
                self._db.set_meta(conn, "embedding_dimension", str(dimension))
                self._db.vectors.install(conn, dimension)
        calibration = self._embed(_CALIBRATION, query=False)
        sims = calibration @ calibration.T
        off_diagonal = sims[~np.eye(len(_CALIBRATION), dtype=bool)]
        self._similarity_floor = float(np.clip(off_diagonal.mean(), -1.0, 0.95))

    def _embed(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        assert self.embedder is not None
        try:
            raw = (
                self.embedder.embed_queries(list(texts))
                if query
                else self.embedder.embed_documents(list(texts))
            )
        except ProviderError:
            raise
        except Exception as exc:
            raise ProviderError(f"the embedding provider failed: {exc}") from exc
        matrix = np.asarray(raw, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape != (len(texts), int(self.embedder.dimension)):
            raise ProviderError(
                f"the embedding provider returned shape {matrix.shape}, expected "
                f"({len(texts)}, {self.embedder.dimension})"
            )
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.where(norms == 0, 1.0, norms)

    @_locked
    def embed_missing(self, batch_size: int = 64) -> int:
        """Embed the memories stored before an embedder was configured; returns how many."""
        if self.embedder is None:
            raise InvalidInputError(
                "embed_missing() needs an embedder: pass embedder= when opening"
            )
        check.check_int(batch_size, "batch_size", 1, 10_000)
        done = 0
        while True:
            with self._db.read() as conn:
                pks = self._db.vectors.missing(conn, self.namespace, batch_size)
                if not pks:
                    return done
                rows = conn.execute(
                    self._memory_query(keyed=True).where(memories.c.pk.in_(pks))
                ).all()
            texts = [self._indexed_text(row) for row in rows]
            matrix = self._embed(texts, query=False)
            with self._db.write() as conn:
                self._db.vectors.add(
                    conn,
                    [
                        IndexedVector(row.pk, self.namespace, row.layer, row.context, matrix[i])
                        for i, row in enumerate(rows)
                    ],
                )
            done += len(rows)

    # ------------------------------------------------------------------ store
    def _prepare(
        self,
        content: object,
        *,
        layer: object = "auto",
        context: object = None,
        emotional_weight: object = None,
        confidence: object = None,
        source: object = None,
        steps: object = None,
        tools: object = None,
        outcome: object = None,
        metadata: object = None,
        created_at: object = None,
        now: datetime,
    ) -> _Pending:
        text = check.check_content(content)
        chosen = layer
        if chosen != "auto":
            chosen = check.check_layer(layer, _STORABLE, aliases=True)
        ctx = check.check_optional_text(context, "context")
        weight = check.check_fraction(emotional_weight, "emotional_weight")
        conf = check.check_fraction(confidence, "confidence")
        src = check.check_optional_text(source, "source")
        step_list = check.check_strings(steps, "steps")
        tool_list = check.check_strings(tools, "tools") or []
        if outcome is not None and not isinstance(outcome, str):
            raise InvalidInputError(f"outcome must be a string, got {outcome!r}")
        meta = check.check_metadata(metadata)
        when = check.check_created_at(created_at) or now
        if weight is None:
            weight = estimate_emotional_weight(text)
        if chosen == "auto":
            chosen = route(text, emotional_weight=weight, confidence=conf, steps=step_list)
        pending = _Pending(
            content=text,
            layer=str(chosen),
            context=ctx,
            emotional_weight=weight,
            confidence=conf,
            source=src,
            metadata=meta,
            created_at=when,
        )
        if pending.layer == "procedural":
            pending.steps = step_list or extract_steps(text)
            pending.tools = tool_list
            pending.outcome = outcome or ""
            pending.confidence = None
        elif pending.layer == "semantic":
            pending.confidence = conf if conf is not None else DEFAULT_FACT_CONFIDENCE
            pending.source = src or "user"
        elif pending.layer == "core":
            pending.label = derive_label(text)
            pending.confidence = 1.0
        return pending

    def _store_pending(self, batch: list[_Pending], now: datetime) -> list[str]:
        durable = [p for p in batch if p.layer != "working"]
        vectors_by_pending: dict[int, np.ndarray] = {}
        if self.embedder is not None and durable:
            matrix = self._embed([p.indexed_text for p in durable], query=False)
            vectors_by_pending = {id(p): matrix[i] for i, p in enumerate(durable)}
        ids: list[str] = [""] * len(batch)
        fresh: list[tuple[str, _Pending, np.ndarray | None]] = []
        with self._db.write() as conn:
            for position, pending in enumerate(batch):
                if pending.layer == "working":
                    slot, _ = self.working.add(pending.content, now, kind="fact")
                    ids[position] = slot.id
                    continue
                vector = vectors_by_pending.get(id(pending))
                if pending.layer == "core":
                    # Upserts go one by one: a batch may hold the same core content twice.
                    existing = self._core_row(conn, pending.label or "")
                    if existing is not None:
                        self._update_core(conn, existing, pending.content, now, vector)
                        ids[position] = existing.id
                    else:
                        ids[position] = uuid.uuid4().hex
                        self._insert_many(conn, [(ids[position], pending, vector)], now)
                    continue
                ids[position] = uuid.uuid4().hex
                fresh.append((ids[position], pending, vector))
            self._insert_many(conn, fresh, now)
        # Only the newest copies can survive in working memory's few slots.
        copies = [(p, i) for p, i in zip(batch, ids, strict=True) if p.layer != "working"]
        for pending, memory_id in copies[-self.working.capacity :]:
            self._copy_to_working(pending.content, memory_id, pending.layer, now)
        return ids

    def _copy_to_working(self, content: str, memory_id: str, layer: str, now: datetime) -> None:
        """Put a copy in working memory, refreshing the existing copy of the same memory."""
        for slot in self.working.slots():
            if slot.source_id == memory_id:
                self.working.remove(slot.id)
        self.working.add(content, now, source_id=memory_id, source_layer=layer)

    def _insert_many(
        self,
        conn: Connection,
        items: Sequence[tuple[str, _Pending, np.ndarray | None]],
        now: datetime,
    ) -> list[int]:
        """Insert new memories with their layer rows and index entries, in bulk."""
        if not items:
            return []
        updated = _to_db(now)
        pks = self._db.allocate_keys(conn, len(items))
        conn.execute(
            memories.insert(),
            [
                {
                    "pk": pk,
                    "id": memory_id,
                    "namespace": self.namespace,
                    "layer": p.layer,
                    "content": p.content,
                    "context": p.context,
                    "emotional_weight": p.emotional_weight,
                    "confidence": p.confidence,
                    "source": p.source,
                    "metadata": p.metadata,
                    "created_at": _to_db(p.created_at),
                    "updated_at": updated,
                }
                for pk, (memory_id, p, _) in zip(pks, items, strict=True)
            ],
        )
        fact_rows, procedure_rows, core_rows = [], [], []
        schedules: dict[datetime, dict[str, Any]] = {}
        for pk, (_, p, _) in zip(pks, items, strict=True):
            if p.layer == "semantic":
                if p.created_at not in schedules:
                    schedules[p.created_at] = fsrs_review.first_schedule(p.created_at)
                card = schedules[p.created_at]
                due = _to_db(datetime.fromisoformat(card["due"]))
                fact_rows.append(
                    {"memory_pk": pk, "namespace": self.namespace, "due": due, "card": card}
                )
            elif p.layer == "procedural":
                procedure_rows.append(
                    {
                        "memory_pk": pk,
                        "namespace": self.namespace,
                        "trigger": p.content[:200],
                        "steps": p.steps,
                        "tools": p.tools,
                        "outcome": p.outcome,
                        "success_rate": 1.0,
                        "execution_count": 1,
                    }
                )
            elif p.layer == "core":
                core_rows.append(
                    {"memory_pk": pk, "namespace": self.namespace, "label": p.label, "pinned": True}
                )
        if fact_rows:
            conn.execute(facts.insert(), fact_rows)
        if procedure_rows:
            conn.execute(procedures.insert(), procedure_rows)
        if core_rows:
            conn.execute(core_blocks.insert(), core_rows)
        self._db.lexical.add(
            conn,
            [
                IndexedText(pk, self.namespace, p.layer, p.context, tokenize(p.indexed_text))
                for pk, (_, p, _) in zip(pks, items, strict=True)
            ],
        )
        self._db.vectors.add(
            conn,
            [
                IndexedVector(pk, self.namespace, p.layer, p.context, vector)
                for pk, (_, p, vector) in zip(pks, items, strict=True)
                if vector is not None
            ],
        )
        self._after_store(
            conn,
            [
                StoredMemory(
                    pk, memory_id, p.layer, p.content, p.context, p.created_at, p.confidence
                )
                for pk, (memory_id, p, _) in zip(pks, items, strict=True)
            ],
        )
        return pks

    # ------------------------------------------------------------------ stages
    def _stage_scope(self) -> StageScope:
        return StageScope(self.namespace, self.contexts, self._db, self._load_results)

    def _load_results(
        self, conn: Connection, scores: Mapping[int, float]
    ) -> dict[int, RecallResult]:
        """Recall results (with the given scores) for memory pks of this namespace."""
        if not scores:
            return {}
        rows = conn.execute(
            self._memory_query(keyed=True).where(memories.c.pk.in_(list(scores)))
        ).all()
        return {int(row.pk): self._result(row, scores[row.pk]) for row in rows}

    def _after_store(self, conn: Connection, stored: list[StoredMemory]) -> None:
        if self.stages and stored:
            scope = self._stage_scope()
            for stage in self.stages:
                stage.after_store(conn, scope, stored)

    @_locked
    def store(
        self,
        content: str,
        *,
        layer: str = "auto",
        context: str | None = None,
        emotional_weight: float | None = None,
        confidence: float | None = None,
        source: str | None = None,
        steps: Sequence[str] | None = None,
        tools: Sequence[str] | None = None,
        outcome: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        created_at: datetime | str | None = None,
    ) -> str:
        """Store one memory and return its id.

        With ``layer="auto"`` the first matching rule picks the layer: ``steps`` or step-like
        content → procedural; emotional weight above 0.5 → episodic; confidence above 0.9 →
        core; otherwise a semantic fact. Without ``emotional_weight`` it is estimated from the
        text. Storing the same core content again updates that block and returns its id.
        """
        now = _utcnow()
        pending = self._prepare(
            content,
            layer=layer,
            context=context,
            emotional_weight=emotional_weight,
            confidence=confidence,
            source=source,
            steps=steps,
            tools=tools,
            outcome=outcome,
            metadata=metadata,
            created_at=created_at,
            now=now,
        )
        return self._store_pending([pending], now)[0]

    @_locked
    def store_many(self, items: Iterable[str | Mapping[str, Any]]) -> list[str]:
        """Store many memories in one transaction: all are stored, or (on any bad item)
        none. Each item is a string or a dict of :meth:`store`'s arguments."""
        now = _utcnow()
        batch: list[_Pending] = []
        for position, item in enumerate(items):
            try:
                if isinstance(item, str):
                    batch.append(self._prepare(item, now=now))
                elif isinstance(item, Mapping):
                    args = dict(item)
                    if "content" not in args:
                        raise InvalidInputError("a dict item needs a 'content' key")
                    batch.append(self._prepare(args.pop("content"), now=now, **args))
                else:
                    raise InvalidInputError(
                        f"items must be strings or dicts, got {type(item).__name__}"
                    )
            except TypeError as exc:
                raise InvalidInputError(f"item {position}: {exc}") from exc
            except InvalidInputError as exc:
                raise type(exc)(f"item {position}: {exc}") from exc
        return self._store_pending(batch, now) if batch else []

    # ------------------------------------------------------------------ rows
    def _memory_query(self, *, keyed: bool = False) -> Any:
        """Memories of this namespace with their layer fields; ``keyed=True`` for lookups by
        pk or id (see :func:`~zenbrain.storage.schema.keyed_namespace_filter`)."""
        in_namespace = (
            keyed_namespace_filter(self.namespace)
            if keyed
            else memories.c.namespace == self.namespace
        )
        return (
            select(
                memories,
                procedures.c.steps,
                procedures.c.tools,
                procedures.c.outcome,
                procedures.c.success_rate,
                procedures.c.execution_count,
                core_blocks.c.label,
                core_blocks.c.pinned,
            )
            .outerjoin(procedures, procedures.c.memory_pk == memories.c.pk)
            .outerjoin(core_blocks, core_blocks.c.memory_pk == memories.c.pk)
            .where(in_namespace)
        )

    @staticmethod
    def _indexed_text(row: Row[Any]) -> str:
        if row.layer == "procedural":
            return render_procedure(row.content, list(row.steps or []), row.outcome or "")
        if row.layer == "core":
            return f"{row.label} {row.content}"
        return str(row.content)

    def _result(self, row: Row[Any], score: float) -> RecallResult:
        meta: dict[str, Any] = dict(row.metadata or {})
        if row.context is not None:
            meta.setdefault("context", row.context)
        confidence = row.confidence
        content = row.content
        if row.layer == "semantic":
            meta.setdefault("source", row.source)
        elif row.layer == "procedural":
            meta.update(
                steps=list(row.steps or []),
                tools=list(row.tools or []),
                outcome=row.outcome,
                success_rate=row.success_rate,
                execution_count=row.execution_count,
            )
            confidence = row.success_rate
            content = self._indexed_text(row)
        elif row.layer == "core":
            meta.update(label=row.label, pinned=bool(row.pinned))
        return RecallResult(
            id=row.id,
            layer=row.layer,
            content=content,
            score=round(float(score), 6),
            confidence=confidence,
            emotional_weight=row.emotional_weight,
            metadata=meta,
            created_at=_from_db(row.created_at),
        )

    # ------------------------------------------------------------------ recall
    @_locked
    def recall(
        self,
        query: str,
        *,
        layers: Sequence[str] | None = None,
        limit: int = 10,
        min_score: float = 0.0,
        min_confidence: float = 0.0,
        core: Literal["always", "matching"] = "always",
        context: str | None = None,
    ) -> list[RecallResult]:
        """Memories relevant to ``query``, best first, scored 0..1.

        Searches episodic, semantic, procedural and core memory by default (working memory
        only when named). A layer with nothing matching contributes its most recent (or, for
        procedures, most successful) memories with score 0 after every match; ``min_score``
        above 0 drops those. ``core="matching"`` keeps only core blocks that share a word
        with the query. ``context`` limits episodes and facts to that context.
        """
        text = check.check_content(query, "query")
        if layers is None:
            wanted: list[str] = list(DEFAULT_RECALL_LAYERS)
        else:
            if isinstance(layers, str) or not isinstance(layers, Sequence) or not layers:
                raise InvalidInputError(
                    f"layers must be a non-empty list of layer names, got {layers!r}"
                )
            wanted = list(dict.fromkeys(check.check_layer(name, _RECALLABLE) for name in layers))
        limit = check.check_int(limit, "limit", 1, 1000)
        floor_score = check.check_fraction(min_score, "min_score", optional=False) or 0.0
        floor_conf = check.check_fraction(min_confidence, "min_confidence", optional=False) or 0.0
        if core not in ("always", "matching"):
            raise InvalidInputError(f"core must be 'always' or 'matching', got {core!r}")
        ctx = check.check_optional_text(context, "context")
        terms = tokenize(text)
        query_vector = (
            self._embed([text], query=True)[0]
            if self.embedder is not None and any(name in _SEARCHED for name in wanted)
            else None
        )
        matches: list[RecallResult] = []
        fill_ins: list[RecallResult] = []
        with self._db.read() as conn:
            for name in wanted:
                if name in _SEARCHED:
                    found, extra = self._search_layer(conn, name, terms, query_vector, ctx, limit)
                elif name == "core":
                    found, extra = self._core_results(conn, terms, core), []
                else:
                    found, extra = self._working_results(terms, limit)
                matches.extend(found)
                fill_ins.extend(extra)
            matches.sort(key=lambda r: r.score, reverse=True)
            request = RecallRequest(text, tuple(terms), tuple(wanted), ctx, limit)
            matches = self._rerank(conn, request, matches)
        shown = {r.id for r in matches}
        ordered = [*matches, *(r for r in fill_ins if r.id not in shown)]
        kept = [
            r
            for r in ordered
            if r.score >= floor_score
            and (floor_score == 0 or r.score > 0)
            and (r.confidence if r.confidence is not None else 1.0) >= floor_conf
        ]
        results = kept[:limit]
        self._after_recall(request, results)
        return results

    def _rerank(
        self, conn: Connection, request: RecallRequest, matches: list[RecallResult]
    ) -> list[RecallResult]:
        scope = self._stage_scope()
        for stage in self.stages:
            matches = stage.rerank(conn, scope, request, matches)
        return matches

    def _after_recall(self, request: RecallRequest, results: list[RecallResult]) -> None:
        writers = [stage for stage in self.stages if stage.writes_on_recall]
        if writers and results:
            scope = self._stage_scope()
            with self._db.write() as conn:
                for stage in writers:
                    stage.after_recall(conn, scope, request, results)

    def _search_layer(
        self,
        conn: Connection,
        layer: str,
        terms: list[str],
        query_vector: np.ndarray | None,
        context: str | None,
        limit: int,
    ) -> tuple[list[RecallResult], list[RecallResult]]:
        pool = max(MIN_CANDIDATES, CANDIDATES_PER_RESULT * limit)
        frequencies = (
            self._db.lexical.document_frequencies(conn, self.namespace, layer, terms, context)
            if terms
            else {}
        )
        lexical_pks = self._db.lexical.candidates(
            conn, self.namespace, layer, candidate_terms(frequencies), context, pool
        )
        cosines: dict[int, float] = {}
        if query_vector is not None:
            cosines = dict(
                self._db.vectors.nearest(conn, self.namespace, layer, query_vector, context, pool)
            )
        candidate_pks = list(dict.fromkeys([*lexical_pks, *cosines]))
        scored: list[tuple[float, int, Row[Any]]] = []
        if candidate_pks:
            rows = {
                row.pk: row
                for row in conn.execute(
                    self._memory_query(keyed=True).where(memories.c.pk.in_(candidate_pks))
                )
            }
            weights = self._term_weights(conn, layer, frequencies, context) if lexical_pks else {}
            for order, pk in enumerate(candidate_pks):
                row = rows.get(pk)
                if row is None:
                    continue
                lexical = (
                    lexical_score(terms, content_tokens(self._indexed_text(row)), weights)
                    if weights
                    else 0.0
                )
                if query_vector is not None:
                    semantic = semantic_score(cosines.get(pk, -1.0), self._similarity_floor)
                    score = fuse(lexical, semantic)
                else:
                    score = lexical
                if layer == "procedural":
                    score = success_weighted(score, float(row.success_rate))
                if score > 0:
                    scored.append((score, order, row))
        scored.sort(key=lambda item: (-item[0], item[1]))
        found = [self._result(row, score) for score, _, row in scored[:limit]]
        if found:
            return found, []
        return [], [
            self._result(row, 0.0) for row in self._fallback_rows(conn, layer, context, limit)
        ]

    def _term_weights(
        self, conn: Connection, layer: str, frequencies: Mapping[str, int], context: str | None
    ) -> dict[str, float]:
        total = self._db.lexical.document_count(conn, self.namespace, layer, context)
        return {term: idf(total, df) for term, df in frequencies.items()}

    def _fallback_rows(
        self, conn: Connection, layer: str, context: str | None, limit: int
    ) -> list[Row[Any]]:
        query = self._memory_query().where(memories.c.layer == layer)
        if context is not None:
            query = query.where(memories.c.context == context)
        if layer == "procedural":
            query = query.order_by(
                procedures.c.success_rate.desc(),
                procedures.c.execution_count.desc(),
                memories.c.pk.desc(),
            )
        else:
            query = query.order_by(memories.c.created_at.desc(), memories.c.pk.desc())
        return list(conn.execute(query.limit(limit)).all())

    def _core_results(self, conn: Connection, terms: list[str], mode: str) -> list[RecallResult]:
        query_terms = set(terms)
        rows = conn.execute(
            self._memory_query().where(memories.c.layer == "core").order_by(core_blocks.c.label)
        ).all()
        results = []
        for row in rows:
            shares = bool(query_terms & set(content_tokens(f"{row.label} {row.content}")))
            if mode == "matching" and not shares:
                continue
            results.append(self._result(row, core_score(shares)))
        return results

    def _working_results(
        self, terms: list[str], limit: int
    ) -> tuple[list[RecallResult], list[RecallResult]]:
        now = _utcnow()
        slots = self.working.slots()
        documents = [content_tokens(slot.content) for slot in slots]
        weights = {
            term: idf(len(slots), sum(term in set(doc) for doc in documents)) for term in set(terms)
        }
        scored = []
        for slot, doc in zip(slots, documents, strict=True):
            score = lexical_score(terms, doc, weights)
            result = RecallResult(
                id=slot.id,
                layer="working",
                content=slot.content,
                score=round(score, 6),
                metadata={
                    "relevance": round(slot.relevance(now, self.working.decay_per_minute), 6),
                    "source_id": slot.source_id,
                    "source_layer": slot.source_layer,
                    "kind": slot.kind,
                },
                created_at=slot.added_at,
            )
            scored.append(result)
        found = sorted((r for r in scored if r.score > 0), key=lambda r: r.score, reverse=True)
        if found:
            return found[:limit], []
        by_relevance = sorted(scored, key=lambda r: r.metadata["relevance"], reverse=True)
        return [], by_relevance[:limit]

    # ------------------------------------------------------------------ forget
    def _find(self, conn: Connection, memory_id: str, layer: str | None = None) -> Row[Any] | None:
        query = self._memory_query(keyed=True).where(memories.c.id == memory_id)
        if layer is not None:
            query = query.where(memories.c.layer == layer)
        return conn.execute(query).one_or_none()

    @_locked
    def forget(self, id: str, layer: str) -> ForgetResult:
        """Delete a memory for good, with what consolidation linked to it.

        Forgetting an episode deletes the facts made from it; forgetting such a fact deletes
        the episodes consolidated into it; either way working-memory copies of that content
        go too (all listed in ``also_forgotten``). Stand-alone memories with the same content
        are kept and listed in ``duplicates``. An unknown id gives ``forgotten=False``.
        """
        layer = check.check_layer(layer, _FORGETTABLE, aliases=True)
        if not isinstance(id, str) or not id:
            return ForgetResult(forgotten=False)
        if layer == "working":
            return ForgetResult(forgotten=self.working.remove(id))
        with self._db.write() as conn:
            target = self._find(conn, id, layer)
            if target is None:
                return ForgetResult(forgotten=False)
            linked: list[Row[Any]] = []
            if layer == "episodic":
                fact_ids = (
                    conn.execute(
                        select(consolidation_links.c.fact_id).where(
                            consolidation_links.c.namespace == self.namespace,
                            consolidation_links.c.episode_id == id,
                        )
                    )
                    .scalars()
                    .all()
                )
                linked = [row for fid in fact_ids if (row := self._find(conn, fid, "semantic"))]
            elif layer == "semantic":
                episode_ids = (
                    conn.execute(
                        select(consolidation_links.c.episode_id).where(
                            consolidation_links.c.namespace == self.namespace,
                            consolidation_links.c.fact_id == id,
                        )
                    )
                    .scalars()
                    .all()
                )
                linked = [row for eid in episode_ids if (row := self._find(conn, eid, "episodic"))]
            doomed = [target, *linked]
            doomed_ids = [row.id for row in doomed]
            doomed_pks = [row.pk for row in doomed]
            contents = {row.content for row in doomed}
            duplicates = conn.execute(
                select(memories.c.id, memories.c.layer).where(
                    memories.c.namespace == self.namespace,
                    memories.c.content.in_(contents),
                    memories.c.id.not_in(doomed_ids),
                )
            ).all()
            conn.execute(
                delete(consolidation_links).where(
                    consolidation_links.c.namespace == self.namespace,
                    (consolidation_links.c.episode_id.in_(doomed_ids))
                    | (consolidation_links.c.fact_id.in_(doomed_ids)),
                )
            )
            self._delete_rows(conn, doomed_pks)
        copies = self.working.remove_copies_of(set(doomed_ids), contents)
        also = [{"id": row.id, "layer": row.layer} for row in linked]
        also += [{"id": slot.id, "layer": "working"} for slot in copies]
        return ForgetResult(
            forgotten=True,
            also_forgotten=also,
            duplicates=[{"id": r.id, "layer": r.layer} for r in duplicates],
        )

    def _delete_rows(self, conn: Connection, pks: list[int]) -> None:
        forget_stage_rows(conn, self.namespace, pks)
        self._db.lexical.remove(conn, pks)
        self._db.vectors.remove(conn, pks)
        for table in (facts, procedures, core_blocks):
            conn.execute(delete(table).where(table.c.memory_pk.in_(pks)))
        conn.execute(delete(memories).where(memories.c.pk.in_(pks)))

    # ------------------------------------------------------------------ consolidate
    @_locked
    def consolidate(self) -> ConsolidationReport:
        """One maintenance pass: each of the 100 most recent emotionally weighted episodes
        (weight above 0.5) not yet promoted becomes a semantic fact, once (summarised by the
        summariser, verbatim without one) and keeps a link to it; working memory decays.
        Nothing is deleted from long-term memory."""
        now = _utcnow()
        with self._db.read() as conn:
            promoted_ids = select(consolidation_links.c.episode_id).where(
                consolidation_links.c.namespace == self.namespace
            )
            episodes = conn.execute(
                select(memories.c.id, memories.c.content, memories.c.context)
                .where(
                    memories.c.namespace == self.namespace,
                    memories.c.layer == "episodic",
                    memories.c.emotional_weight > CONSOLIDATION_WEIGHT,
                    memories.c.id.not_in(promoted_ids),
                )
                .order_by(memories.c.created_at.desc(), memories.c.pk.desc())
                .limit(CONSOLIDATION_BATCH)
            ).all()
        summaries = [(episode, self._summarise(episode.content)) for episode in episodes]
        promoted = 0
        new_facts: list[tuple[str, str]] = []
        for episode, summary in summaries:
            pending = _Pending(
                content=summary,
                layer="semantic",
                context=episode.context,
                emotional_weight=None,
                confidence=DEFAULT_FACT_CONFIDENCE,
                source="consolidation",
                metadata={"consolidated_from": episode.id},
                created_at=now,
            )
            vector = self._embed([summary], query=False)[0] if self.embedder is not None else None
            with self._db.write() as conn:
                existing = conn.execute(
                    select(memories.c.id).where(
                        memories.c.namespace == self.namespace,
                        memories.c.layer == "semantic",
                        memories.c.source == "consolidation",
                        memories.c.content == summary,
                    )
                ).scalar()
                if existing is None:
                    existing = uuid.uuid4().hex
                    self._insert_many(conn, [(existing, pending, vector)], now)
                    new_facts.append((existing, summary))
                conn.execute(
                    consolidation_links.insert().values(
                        namespace=self.namespace,
                        episode_id=episode.id,
                        fact_id=existing,
                        created_at=_to_db(now),
                    )
                )
                conn.execute(
                    update(memories)
                    .where(memories.c.namespace == self.namespace, memories.c.id == episode.id)
                    .values(updated_at=_to_db(now))
                )
            promoted += 1
        decayed = self.working.decay(now)
        pruned = 0
        if self.stages:
            scope = self._stage_scope()
            with self._db.write() as conn:
                for stage in self.stages:
                    pruned += stage.consolidate(conn, scope, now)
        return ConsolidationReport(promoted=promoted, decayed=decayed, pruned=pruned)

    def _summarise(self, content: str) -> str:
        if self.summarizer is None:
            return content
        try:
            summary = self.summarizer.summarize([content])
        except Exception as exc:  # a failing model must not stop maintenance
            log.warning("summariser failed, keeping the episode verbatim: %s", exc)
            return content
        if not isinstance(summary, str) or not summary.strip():
            log.warning("summariser returned no text, keeping the episode verbatim")
            return content
        return summary.strip()

    # ------------------------------------------------------------------ health
    @_locked
    def health(self) -> Health:
        """Per-layer counts."""
        now = _utcnow()
        with self._db.read() as conn:
            counts: dict[str, int] = dict(
                conn.execute(
                    select(memories.c.layer, func.count())
                    .where(memories.c.namespace == self.namespace)
                    .group_by(memories.c.layer)
                ).all()
            )
            due = conn.execute(
                select(func.count())
                .select_from(facts)
                .where(facts.c.namespace == self.namespace, facts.c.due <= _to_db(now))
            ).scalar_one()
            session = self._current_session(conn)
            in_session = 0
            if session is not None:
                in_session = conn.execute(
                    select(func.count())
                    .select_from(interactions)
                    .where(
                        interactions.c.namespace == self.namespace,
                        interactions.c.session_id == session,
                    )
                ).scalar_one()
            entity_count = conn.execute(
                select(func.count())
                .select_from(entities)
                .where(entities.c.namespace == self.namespace)
            ).scalar_one()
            link_count = conn.execute(
                select(func.count())
                .select_from(entity_links)
                .where(entity_links.c.namespace == self.namespace)
            ).scalar_one()
        return Health(
            working={"used": len(self.working), "capacity": self.working.capacity},
            short_term={
                "interactions": min(int(in_session), SHORT_TERM_WINDOW),
                "window": SHORT_TERM_WINDOW,
            },
            episodic={"count": int(counts.get("episodic", 0))},
            semantic={"count": int(counts.get("semantic", 0)), "due_for_review": int(due)},
            procedural={"count": int(counts.get("procedural", 0))},
            core={"blocks": int(counts.get("core", 0))},
            cross_context={"entities": int(entity_count), "links": int(link_count)},
        )

    # ------------------------------------------------------------------ review
    @_locked
    def review_queue(self, limit: int = 10) -> list[ReviewItem]:
        """Facts due for review now, most overdue first."""
        limit = check.check_int(limit, "limit", 1, 10_000)
        with self._db.read() as conn:
            rows = conn.execute(
                select(
                    memories.c.id,
                    memories.c.content,
                    memories.c.confidence,
                    facts.c.due,
                    facts.c.card,
                )
                .join(facts, facts.c.memory_pk == memories.c.pk)
                .where(facts.c.namespace == self.namespace, facts.c.due <= _to_db(_utcnow()))
                .order_by(facts.c.due, memories.c.pk)
                .limit(limit)
            ).all()
        return [
            ReviewItem(
                id=row.id,
                content=row.content,
                confidence=float(row.confidence),
                due=_from_db(row.due),
                stability=row.card.get("stability"),
                difficulty=row.card.get("difficulty"),
            )
            for row in rows
        ]

    @_locked
    def record_review(self, fact_id: str, grade: int) -> ReviewItem:
        """Record a review of a fact (grade 1 again, 2 hard, 3 good, 4 easy) and schedule the
        next one; returns the fact with its new due date."""
        grade = check.check_int(grade, "grade", 1, 4)
        now = _utcnow()
        with self._db.write() as conn:
            row = conn.execute(
                select(
                    memories.c.pk,
                    memories.c.id,
                    memories.c.content,
                    memories.c.confidence,
                    facts.c.card,
                )
                .join(facts, facts.c.memory_pk == memories.c.pk)
                .where(memories.c.namespace == self.namespace, memories.c.id == fact_id)
            ).one_or_none()
            if row is None:
                raise InvalidInputError(f"no semantic fact with id {fact_id!r} in this namespace")
            card = fsrs_review.review(row.card, grade, now)
            due = datetime.fromisoformat(card["due"])
            conn.execute(
                update(facts)
                .where(facts.c.memory_pk == row.pk)
                .values(
                    card=card,
                    due=_to_db(due),
                    reviews=facts.c.reviews + 1,
                    access_count=facts.c.access_count + 1,
                    last_accessed=_to_db(now),
                )
            )
        return ReviewItem(
            id=row.id,
            content=row.content,
            confidence=float(row.confidence),
            due=due,
            stability=card.get("stability"),
            difficulty=card.get("difficulty"),
        )

    # ------------------------------------------------------------------ procedures
    @_locked
    def procedure_feedback(self, id: str, success: bool) -> float:
        """Record whether following a procedure worked; returns the new success rate."""
        if not isinstance(success, bool):
            raise InvalidInputError(f"success must be True or False, got {success!r}")
        with self._db.write() as conn:
            row = self._find(conn, id, "procedural") if isinstance(id, str) else None
            if row is None:
                raise InvalidInputError(f"no procedure with id {id!r} in this namespace")
            rate, count = update_success_rate(
                float(row.success_rate), int(row.execution_count), success
            )
            conn.execute(
                update(procedures)
                .where(procedures.c.memory_pk == row.pk)
                .values(success_rate=rate, execution_count=count)
            )
        return rate

    # ------------------------------------------------------------------ core blocks
    def _core_row(self, conn: Connection, label: str) -> Row[Any] | None:
        return conn.execute(
            self._memory_query().where(memories.c.layer == "core", core_blocks.c.label == label)
        ).one_or_none()

    def _update_core(
        self,
        conn: Connection,
        row: Row[Any],
        content: str,
        now: datetime,
        vector: np.ndarray | None,
    ) -> None:
        conn.execute(
            update(memories)
            .where(memories.c.pk == row.pk)
            .values(content=content, updated_at=_to_db(now))
        )
        self._db.lexical.remove(conn, [row.pk])
        self._db.lexical.add(
            conn,
            [
                IndexedText(
                    row.pk, self.namespace, "core", row.context, tokenize(f"{row.label} {content}")
                )
            ],
        )
        if vector is not None:
            self._db.vectors.remove(conn, [row.pk])
            self._db.vectors.add(
                conn, [IndexedVector(row.pk, self.namespace, "core", row.context, vector)]
            )
        self._after_store(
            conn,
            [StoredMemory(row.pk, row.id, "core", content, row.context, now, row.confidence)],
        )

    @_locked
    def set_core_block(self, label: str, content: str) -> CoreBlock:
        """Create or replace the core block ``label``."""
        label = validate_label(label)
        text = check.check_content(content)
        now = _utcnow()
        pending = _Pending(
            content=text,
            layer="core",
            context=None,
            emotional_weight=None,
            confidence=1.0,
            source=None,
            metadata={},
            created_at=now,
            label=label,
        )
        vector = self._embed([pending.indexed_text], query=False)[0] if self.embedder else None
        with self._db.write() as conn:
            existing = self._core_row(conn, label)
            if existing is not None:
                self._update_core(conn, existing, text, now, vector)
                block_id = existing.id
            else:
                block_id = uuid.uuid4().hex
                self._insert_many(conn, [(block_id, pending, vector)], now)
        return CoreBlock(id=block_id, label=label, content=text, pinned=True, updated_at=now)

    @_locked
    def core_blocks(self) -> list[CoreBlock]:
        """Every core block, by label."""
        with self._db.read() as conn:
            rows = conn.execute(
                self._memory_query().where(memories.c.layer == "core").order_by(core_blocks.c.label)
            ).all()
        return [
            CoreBlock(
                id=row.id,
                label=row.label,
                content=row.content,
                pinned=bool(row.pinned),
                updated_at=_from_db(row.updated_at),
            )
            for row in rows
        ]

    @_locked
    def delete_core_block(self, label: str) -> bool:
        """Delete the block ``label``; False when there is none."""
        label = validate_label(label)
        with self._db.write() as conn:
            row = self._core_row(conn, label)
            if row is None:
                return False
            self._delete_rows(conn, [row.pk])
        self.working.remove_copies_of({row.id}, set())
        return True

    @_locked
    def merge_candidates(self, limit: int = 20) -> list[MergeCandidate]:
        """Entities of different contexts linked as probably the same (cross-context layer),
        most similar first."""
        limit = check.check_int(limit, "limit", 1, 10_000)
        with self._db.read() as conn:
            return list_merge_candidates(conn, self.namespace, limit)

    def core_context(self) -> str:
        """The core blocks as ``[label]: content`` lines, ready for a system prompt."""
        return "\n".join(f"[{block.label}]: {block.content}" for block in self.core_blocks())

    # ------------------------------------------------------------------ short-term
    def _current_session(self, conn: Connection) -> str | None:
        if self._session_id is None:
            self._session_id = conn.execute(
                select(sessions.c.session_id)
                .where(sessions.c.namespace == self.namespace)
                .order_by(sessions.c.started_at.desc())
                .limit(1)
            ).scalar()
        return self._session_id

    @_locked
    def start_session(self, session_id: str | None = None) -> str:
        """Make ``session_id`` (a new one when omitted) the current session. A new session
        starts with an empty window; naming an existing one resumes it."""
        sid = check.check_optional_text(session_id, "session_id") or uuid.uuid4().hex
        now = _to_db(_utcnow())
        with self._db.write() as conn:
            found = conn.execute(
                update(sessions)
                .where(sessions.c.namespace == self.namespace, sessions.c.session_id == sid)
                .values(started_at=now)
            ).rowcount
            if not found:
                conn.execute(
                    sessions.insert().values(
                        namespace=self.namespace, session_id=sid, started_at=now
                    )
                )
        self._session_id = sid
        return sid

    @property
    def session_id(self) -> str | None:
        """The current session's id, or None before the first session."""
        with self._lock, self._db.read() as conn:
            return self._current_session(conn)

    @_locked
    def add_interaction(
        self, role: str, content: str, metadata: Mapping[str, Any] | None = None
    ) -> None:
        """Append one message to the current session (starting one if there is none)."""
        role = check.check_optional_text(role, "role", 50) or ""
        if not role:
            raise InvalidInputError("role must be a non-empty string such as 'user' or 'assistant'")
        if not isinstance(content, str):
            raise InvalidInputError(f"content must be text (str), got {type(content).__name__}")
        meta = check.check_metadata(metadata)
        with self._db.read() as conn:
            session = self._current_session(conn)
        if session is None:
            session = self.start_session()
        with self._db.write() as conn:
            conn.execute(
                interactions.insert().values(
                    namespace=self.namespace,
                    session_id=session,
                    role=role,
                    content=content,
                    metadata=meta,
                    created_at=_to_db(_utcnow()),
                )
            )

    @_locked
    def conversation(self, limit: int | None = None) -> list[Interaction]:
        """The current session's latest interactions, oldest first: the window of 50 by
        default, or the last ``limit`` (the whole transcript is kept until cleared)."""
        count = SHORT_TERM_WINDOW if limit is None else check.check_int(limit, "limit", 1, 10**9)
        with self._db.read() as conn:
            session = self._current_session(conn)
            if session is None:
                return []
            rows = conn.execute(
                select(interactions)
                .where(
                    interactions.c.namespace == self.namespace, interactions.c.session_id == session
                )
                .order_by(interactions.c.pk.desc())
                .limit(count)
            ).all()
        return [
            Interaction(
                role=row.role,
                content=row.content,
                timestamp=_from_db(row.created_at),
                metadata=dict(row.metadata or {}),
            )
            for row in reversed(rows)
        ]

    @_locked
    def pop_interaction(self) -> Interaction | None:
        """Remove and return the current session's latest interaction."""
        with self._db.write() as conn:
            session = self._current_session(conn)
            if session is None:
                return None
            row = conn.execute(
                select(interactions)
                .where(
                    interactions.c.namespace == self.namespace, interactions.c.session_id == session
                )
                .order_by(interactions.c.pk.desc())
                .limit(1)
            ).one_or_none()
            if row is None:
                return None
            conn.execute(delete(interactions).where(interactions.c.pk == row.pk))
        return Interaction(
            row.role, row.content, _from_db(row.created_at), dict(row.metadata or {})
        )

    @_locked
    def clear_session(self, session_id: str | None = None) -> int:
        """Delete every interaction of a session (the current one by default)."""
        with self._db.write() as conn:
            sid = check.check_optional_text(session_id, "session_id") or self._current_session(conn)
            if sid is None:
                return 0
            return int(
                conn.execute(
                    delete(interactions).where(
                        and_(
                            interactions.c.namespace == self.namespace,
                            interactions.c.session_id == sid,
                        )
                    )
                ).rowcount
            )

    # ------------------------------------------------------------------ lookups
    @_locked
    def get(self, id: str) -> RecallResult | None:
        """One long-term memory by id (score 1.0), or None if this namespace has none."""
        if not isinstance(id, str):
            return None
        with self._db.read() as conn:
            row = self._find(conn, id)
        return None if row is None else self._result(row, 1.0)

    # ------------------------------------------------------------------ async twins
    async def astore(self, content: str, **kwargs: Any) -> str:
        return await asyncio.to_thread(self.store, content, **kwargs)

    async def astore_many(self, items: Iterable[str | Mapping[str, Any]]) -> list[str]:
        return await asyncio.to_thread(self.store_many, list(items))

    async def arecall(self, query: str, **kwargs: Any) -> list[RecallResult]:
        return await asyncio.to_thread(self.recall, query, **kwargs)

    async def aforget(self, id: str, layer: str) -> ForgetResult:
        return await asyncio.to_thread(self.forget, id, layer)

    async def aconsolidate(self) -> ConsolidationReport:
        return await asyncio.to_thread(self.consolidate)

    async def ahealth(self) -> Health:
        return await asyncio.to_thread(self.health)

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

    async def astart_session(self, session_id: str | None = None) -> str:
        return await asyncio.to_thread(self.start_session, session_id)

    async def aadd_interaction(
        self, role: str, content: str, metadata: Mapping[str, Any] | None = None
    ) -> None:
        await asyncio.to_thread(self.add_interaction, role, content, metadata)

    async def aconversation(self, limit: int | None = None) -> list[Interaction]:
        return await asyncio.to_thread(self.conversation, limit)

    async def apop_interaction(self) -> Interaction | None:
        return await asyncio.to_thread(self.pop_interaction)

    async def aclear_session(self, session_id: str | None = None) -> int:
        return await asyncio.to_thread(self.clear_session, session_id)

    async def amerge_candidates(self, limit: int = 20) -> list[MergeCandidate]:
        return await asyncio.to_thread(self.merge_candidates, limit)

    async def aget(self, id: str) -> RecallResult | None:
        return await asyncio.to_thread(self.get, id)

    async def aembed_missing(self, batch_size: int = 64) -> int:
        return await asyncio.to_thread(self.embed_missing, batch_size)
