"""What every pipeline works on: one namespace's repository and in-process state."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection

from zenbrain._memory.embedding import Embedding
from zenbrain._memory.results import to_result
from zenbrain._memory.views import NamespaceViews
from zenbrain._storage.repository import Repository
from zenbrain.config import DEFAULT_CONTEXTS
from zenbrain.errors import InvalidInputError
from zenbrain.layers._working import WorkingMemory
from zenbrain.providers import EmbeddingProvider, Summarizer
from zenbrain.stages import default_stages
from zenbrain.stages._base import (
    Stage,
    StageConnection,
    StageScope,
    StoredMemory,
    raw_connection,
)
from zenbrain.types import RecallResult

__all__ = [
    "DEFAULT_CONTEXTS",
    "Clock",
    "MemoryScope",
    "check_clock",
    "check_contexts",
    "check_providers",
    "check_stages",
    "system_clock",
]

Clock = Callable[[], datetime]


def check_stages(stages: object) -> tuple[Stage, ...]:
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


def check_contexts(contexts: object) -> tuple[str, ...]:
    if contexts is None:
        return DEFAULT_CONTEXTS
    if isinstance(contexts, str) or not isinstance(contexts, Iterable):
        raise InvalidInputError(f"contexts must be a list of strings, got {contexts!r}")
    chosen = tuple(contexts)
    if not chosen:
        return DEFAULT_CONTEXTS
    if not all(isinstance(c, str) and c.strip() for c in chosen):
        raise InvalidInputError(f"contexts must be non-empty strings, got {contexts!r}")
    return chosen


def check_providers(embedder: object, summarizer: object) -> None:
    if embedder is not None and not isinstance(embedder, EmbeddingProvider):
        raise InvalidInputError(
            "embedder must provide model_id, dimension, embed_documents and embed_queries "
            f"(the EmbeddingProvider protocol); got {type(embedder).__name__}"
        )
    if summarizer is not None and not isinstance(summarizer, Summarizer):
        raise InvalidInputError(
            f"summarizer must have a summarize(texts) method; got {type(summarizer).__name__}"
        )


def system_clock() -> datetime:
    """The current time, aware and in UTC."""
    return datetime.now(UTC)


def check_clock(clock: Clock | None) -> Clock:
    if clock is None:
        return system_clock
    if not callable(clock):
        raise InvalidInputError(
            f"clock must be a callable returning an aware datetime, got {clock!r}"
        )
    return clock


@dataclass(slots=True)
class MemoryScope:
    """One namespace of one store, as a coordinator (or a view of it) sees it.

    ``lock`` serialises the database and working-memory parts of every call; embedding and
    summarising run outside it, so a slow provider never blocks the other threads.
    """

    repo: Repository
    contexts: tuple[str, ...]
    stages: tuple[Stage, ...]
    working: WorkingMemory
    clock: Clock
    lock: threading.RLock
    embedding: Embedding | None = None
    summarizer: Summarizer | None = None
    #: The coordinator's own current session (None until known).
    session_id: str | None = None
    #: The store's namespace views (coordinators), shared by the opener and every view.
    views: NamespaceViews[Any] = field(default_factory=NamespaceViews)
    #: Knowledge updates on store: True (the rules), False (off) or a Resolver.
    supersession: object = True

    @property
    def namespace(self) -> str:
        return self.repo.namespace

    def now(self) -> datetime:
        """The clock's time, checked: every "now" of the pipelines comes from here."""
        moment = self.clock()
        if not isinstance(moment, datetime) or moment.tzinfo is None:
            raise InvalidInputError(
                f"the clock must return an aware datetime (e.g. datetime.now(UTC)), got {moment!r}"
            )
        return moment.astimezone(UTC)

    # ------------------------------------------------------------------ stages
    def stage_scope(self) -> StageScope:
        return StageScope(
            self.namespace, self.contexts, self.lexical_candidates, self.load_results, self.now
        )

    def lexical_candidates(
        self, conn: StageConnection, layer: str, terms: Sequence[str], limit: int
    ) -> list[int]:
        """Keys of this namespace's memories in ``layer`` holding any of ``terms``, by BM25."""
        lexical = self.repo.database.lexical
        return lexical.candidates(raw_connection(conn), self.namespace, layer, terms, None, limit)

    def load_results(
        self, conn: StageConnection, scores: Mapping[int, float]
    ) -> dict[int, RecallResult]:
        """Recall results (with the given scores) for memory pks of this namespace."""
        rows = self.repo.rows_by_pk(raw_connection(conn), list(scores))
        return {pk: to_result(row, scores[pk]) for pk, row in rows.items()}

    def after_store(self, conn: Connection, stored: Sequence[StoredMemory]) -> None:
        if self.stages and stored:
            scope = self.stage_scope()
            for stage in self.stages:
                stage.after_store(conn, scope, list(stored))
