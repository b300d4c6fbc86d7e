"""Recall: candidates per layer from the lexical and vector indexes, scored by hybrid
ranking, plus core blocks and working memory; stages may rerank. The query is embedded
before the lock is taken."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime  # validity hook
from typing import Any, Literal

import numpy as np
from sqlalchemy import Connection, Row

from zenbrain import _validation as check
from zenbrain.errors import InvalidInputError
from zenbrain.layers.core import core_score
from zenbrain.layers.procedural import success_weighted
from zenbrain.memory import validity  # validity hook
from zenbrain.memory.find import check_match, check_subtree
from zenbrain.memory.results import to_result
from zenbrain.memory.scope import MemoryScope
from zenbrain.ranking import (
    LexicalQuery,
    candidate_terms,
    fuse,
    lexical_score,
    query_weights,
    semantic_score,
    with_neighbours,
)
from zenbrain.stages.base import RecallRequest
from zenbrain.storage.dialect import JsonScalar
from zenbrain.storage.indexes import ScopeStatistics
from zenbrain.storage.records import row_indexed_text
from zenbrain.text import content_tokens, tokenize
from zenbrain.types import (
    DEFAULT_RECALL_LAYERS,
    RECALLABLE_LAYERS,
    SEARCHED_LAYERS,
    RecallResult,
)

__all__ = ["CANDIDATES_PER_RESULT", "MIN_CANDIDATES", "recall"]

CANDIDATES_PER_RESULT = 5
MIN_CANDIDATES = 50
# A metadata filter this small is scored exhaustively; a larger one widens the index pools
# (by 4x, up to MAX_FILTERED_POOL) until they hold ``limit`` matching candidates.
EXHAUSTIVE_MATCHES = 2_000
# Keeps the candidate keys of one query well under SQLite's bound-parameter limit.
MAX_FILTERED_POOL = 10_000


def recall(
    scope: MemoryScope,
    query: str,
    *,
    layers: Sequence[str] | None = None,
    limit: int = 10,
    min_score: float = 0.0,
    min_confidence: float = 0.0,
    core: Literal["always", "matching"] = "always",
    context: str | None = None,
    where: Mapping[str, Any] | None = None,
    subtree: bool = False,
    current_only: bool = False,  # validity hook
    as_of: datetime | None = None,  # validity hook
    time_range: tuple[datetime, datetime] | None = None,  # validity hook
) -> list[RecallResult]:
    """See :meth:`zenbrain.MemoryCoordinator.recall`.

    With ``subtree`` the indexed layers are searched in this namespace and every namespace
    below it: every memory there (of the layer, the context and ``where``) is scored, with
    IDF and mean length counted over those same memories, so a subtree ranks as one
    collection. Core blocks and working memory stay this namespace's own, and stages do
    not rerank (their rows belong to one namespace)."""
    text = check.check_content(query, "query")
    below = check_subtree(subtree)
    if layers is None:
        wanted: list[str] = list(DEFAULT_RECALL_LAYERS)
    else:
        if isinstance(layers, str) or not isinstance(layers, Sequence) or not layers:
            raise InvalidInputError(
                f"layers must be a non-empty list of layer names, got {layers!r}"
            )
        wanted = list(dict.fromkeys(check.check_layer(name, RECALLABLE_LAYERS) for name in layers))
    limit = check.check_int(limit, "limit", 1, 1000)
    floor_score = check.check_fraction(min_score, "min_score", optional=False) or 0.0
    floor_conf = check.check_fraction(min_confidence, "min_confidence", optional=False) or 0.0
    if core not in ("always", "matching"):
        raise InvalidInputError(f"core must be 'always' or 'matching', got {core!r}")
    ctx = check.check_optional_text(context, "context")
    match = check_match(where, "where") if where is not None else None
    options = validity.check_options(text, scope.now(), current_only=current_only, as_of=as_of, time_range=time_range)  # validity hook  # noqa: E501  # fmt: skip
    terms = tokenize(text)
    query_vector = (
        scope.embedding.queries([text])[0]
        if scope.embedding is not None and any(name in SEARCHED_LAYERS for name in wanted)
        else None
    )
    search = _LayerSearch(scope, terms, query_vector, ctx, options.search_limit(limit), match, below)  # validity hook  # noqa: E501  # fmt: skip
    matches: list[RecallResult] = []
    # Per layer without a match, what stands in for it (its newest memories), read only if
    # the matches leave room for it.
    fill_ins: list[list[RecallResult] | Callable[[], list[RecallResult]]] = []

    def passes_floors(r: RecallResult) -> bool:
        return (
            r.score >= floor_score
            and (floor_score == 0 or r.score > 0)
            and (r.confidence if r.confidence is not None else 1.0) >= floor_conf
        )

    with scope.lock:
        now = scope.now()
        with scope.repo.read() as conn:
            searched = [name for name in wanted if name in SEARCHED_LAYERS]
            search.read_statistics(conn, searched)
            search.read_candidates(conn, searched)
            for name in wanted:
                extra: list[RecallResult] | Callable[[], list[RecallResult]]
                if name in SEARCHED_LAYERS:
                    found, extra = search.layer(conn, name)
                elif name == "core":
                    found, extra = _core_results(scope, conn, terms, core, match), []
                elif match is None:
                    found, extra = _working_results(scope, terms, limit, now)
                else:  # working memory has no metadata: a filter matches none of it
                    found, extra = [], []
                matches.extend(found)
                fill_ins.append(extra)
            matches.sort(key=lambda r: r.score, reverse=True)
            request = RecallRequest(text, tuple(terms), tuple(wanted), ctx, limit)
            stage_scope = scope.stage_scope()
            for stage in () if below else scope.stages:
                matches = stage.rerank(conn, stage_scope, request, matches)
            kept = [r for r in matches if passes_floors(r)]
            # Fill-ins score 0 and come after every match: only read when they can show.
            if len(kept) < limit and floor_score == 0:
                shown = {r.id for r in matches}
                for extra in fill_ins:
                    for r in extra if isinstance(extra, list) else extra():
                        if r.id not in shown and passes_floors(r):
                            kept.append(r)
            kept = validity.arrange(scope, conn, kept, options)  # validity hook
        results = kept[:limit]
        writers = [stage for stage in scope.stages if stage.writes_on_recall and not below]
        if writers and results:
            with scope.repo.write() as conn:
                for stage in writers:
                    stage.after_recall(conn, stage_scope, request, results)
    return results


class _LayerSearch:
    """One recall's search of the indexed layers."""

    def __init__(
        self,
        scope: MemoryScope,
        terms: list[str],
        query_vector: np.ndarray | None,
        context: str | None,
        limit: int,
        match: Mapping[str, JsonScalar] | None,
        subtree: bool = False,
    ) -> None:
        self.scope = scope
        self.subtree = subtree
        self.repo = scope.repo
        self.index = scope.repo.database
        self.terms = terms
        self.query_vector = query_vector
        self.context = context
        self.limit = limit
        self.match = match
        self.floor = scope.embedding.similarity_floor if scope.embedding else 0.0
        self.statistics: dict[str, ScopeStatistics] = {}
        # Read ahead for every searched layer at once (no metadata filter, no subtree):
        # each layer's best (score, pk), and their rows.
        self.ranked: dict[str, list[tuple[float, int]]] = {}
        self.rows: dict[int, Row[Any]] = {}

    def read_statistics(self, conn: Connection, layers: Sequence[str]) -> None:
        """Document counts, mean lengths and term frequencies of every searched layer, in
        one read of the counts kept beside the index (not per layer, not from postings)."""
        if layers and not self.subtree:
            self.statistics = self.index.lexical.statistics(
                conn, self.scope.namespace, layers, self.terms, self.context
            )

    def read_candidates(self, conn: Connection, layers: Sequence[str]) -> None:
        """Without a metadata filter, every searched layer's candidates come from one
        lexical statement (and the vector index); they are scored on the terms the index
        keeps for them, and only the rows of the best are read (in one statement)."""
        if not layers or self.subtree or self.match is not None:
            return
        pool = max(MIN_CANDIDATES, CANDIDATES_PER_RESULT * self.limit)
        namespace, context = self.scope.namespace, self.context
        terms_by_layer = {
            layer: candidate_terms(stats.frequencies if stats is not None else {})
            for layer in layers
            for stats in [self.statistics.get(layer)]
        }
        lexical = self.index.lexical.candidates_by_layer(
            conn, namespace, terms_by_layer, context, pool
        )
        # Per layer: lexical candidates, cosines, and every candidate once (lexical first).
        found: dict[str, tuple[list[int], dict[int, float], list[int]]] = {}
        for layer in layers:
            cosines: dict[int, float] = {}
            if self.query_vector is not None:
                nearest = self.index.vectors.nearest(
                    conn, namespace, layer, self.query_vector, context, pool
                )
                cosines = dict(nearest)
            pks = lexical[layer]
            found[layer] = (pks, cosines, list(dict.fromkeys([*pks, *cosines])))
        indexed = (
            self.index.lexical.indexed_documents(
                conn, namespace, {layer: candidates for layer, (_, _, candidates) in found.items()}
            )
            or {}
        )
        queries = {layer: self._lexical_query(layer, pks) for layer, (pks, _, _) in found.items()}
        # The memories the index holds are scored together, from their term numbers; the
        # rest are read. Procedures are read too: their success rate weighs their score, and
        # only their rows hold it.
        held: dict[str, dict[int, float]] = {}
        for layer, entry in indexed.items():
            if layer == "procedural":
                continue
            query, average_length = queries[layer]
            scores = (
                query.score_documents(entry.documents, average_length).tolist()
                if query is not None
                else [0.0] * len(entry.pks)
            )
            held[layer] = dict(zip(entry.pks, scores, strict=True))
        unstored = [
            pk
            for layer, (_, _, candidates) in found.items()
            for pk in candidates
            if pk not in held.get(layer, {})
        ]
        rows = self.repo.rows_by_pk(conn, unstored)
        best: dict[int, None] = {}
        by_layer: dict[str, list[tuple[float, int]]] = {}
        for layer, (_, cosines, candidates) in found.items():
            query, average_length = queries[layer]
            lexical_of = held.get(layer, {})
            scored: list[tuple[float, int]] = []
            for pk in candidates:
                row = rows.get(pk)
                if row is not None:
                    score = self._score(row, query, average_length, cosines.get(pk, -1.0))
                elif pk in lexical_of:
                    score = self._fused(lexical_of[pk], cosines.get(pk, -1.0))
                else:
                    continue
                if score > 0:
                    scored.append((score, pk))
            by_layer[layer] = scored
        # Conversation neighbours lend each other relevance: that needs every scored
        # memory's time, which the index gives with its terms (or its row holds).
        times = {
            pk: created
            for entry in indexed.values()
            for pk, created in zip(entry.pks, entry.created_at, strict=True)
        }
        times.update((pk, row.created_at) for pk, row in rows.items())
        for layer, scored in by_layer.items():
            known = [(score, pk, times[pk]) for score, pk in scored if pk in times]
            ranked = list(zip(with_neighbours(known), [pk for _, pk, _ in known], strict=True))
            # Equal scores: the newest memory first, as in :meth:`_rank`.
            ranked.sort(key=lambda item: (-item[0], -item[1]))
            self.ranked[layer] = ranked[: self.limit]
            best.update((pk, None) for _, pk in self.ranked[layer] if pk not in rows)
        rows.update(self.repo.rows_by_pk(conn, list(best)))
        self.rows = rows

    def layer(
        self, conn: Connection, layer: str
    ) -> tuple[list[RecallResult], Callable[[], list[RecallResult]] | list[RecallResult]]:
        """The layer's matches, best first, and what stands in for them when there are none
        (the layer's newest memories, as a read to run only if they are shown)."""
        if self.subtree:
            return self._subtree_layer(conn, layer)
        if layer in self.ranked:
            found = [
                to_result(self.rows[pk], score)
                for score, pk in self.ranked[layer]
                if pk in self.rows  # gone from the table, though in an index: not shown
            ]
            if found:
                return found, []
            return [], lambda: self._fill_ins(conn, layer)
        context = self.context
        pool = max(MIN_CANDIDATES, CANDIDATES_PER_RESULT * self.limit)
        allowed: set[int] | None = None
        if self.match is not None:
            allowed = set(self.repo.matching_pks(conn, self.match, layer, context))
            if not allowed:
                return [], []
        stats = self.statistics.get(layer)
        frequencies = stats.frequencies if stats is not None else {}
        cosines: dict[int, float] = {}
        if allowed is not None and len(allowed) <= EXHAUSTIVE_MATCHES:
            lexical_pks = sorted(allowed)
            if self.query_vector is not None:
                cosines = self.repo.cosines(conn, lexical_pks, self.query_vector)
        else:
            total = stats.documents if stats is not None else 0
            while True:
                lexical_pks, cosines = self._candidates(conn, layer, frequencies, pool)
                if allowed is None or pool >= min(total, MAX_FILTERED_POOL):
                    break
                if len(allowed.intersection([*lexical_pks, *cosines])) >= self.limit:
                    break
                pool = min(pool * 4, MAX_FILTERED_POOL)  # matches rank low: widen the pools
        return self._rank(conn, layer, lexical_pks, cosines, allowed)

    def _rank(
        self,
        conn: Connection,
        layer: str,
        lexical_pks: list[int],
        cosines: dict[int, float],
        allowed: set[int] | None,
    ) -> tuple[list[RecallResult], Callable[[], list[RecallResult]] | list[RecallResult]]:
        """Read the candidates' rows, score them and keep the best."""
        candidate_pks = list(dict.fromkeys([*lexical_pks, *cosines]))
        if allowed is not None:
            candidate_pks = [pk for pk in candidate_pks if pk in allowed]
        rows = self.repo.rows_by_pk(conn, candidate_pks)
        query, average_length = self._lexical_query(layer, lexical_pks)
        scored: list[tuple[float, int, Row[Any]]] = []
        for order, pk in enumerate(candidate_pks):
            row = rows.get(pk)
            if row is None:
                continue
            score = self._score(row, query, average_length, cosines.get(pk, -1.0))
            if score > 0:
                scored.append((score, order, row))
        lifted = with_neighbours([(score, int(row.pk), row.created_at) for score, _, row in scored])
        scored = [(new, order, row) for new, (_, order, row) in zip(lifted, scored, strict=True)]
        # Equal scores (a capped lexical score ties often): the newest memory first, the same
        # on every back end whatever order its index returned the candidates in.
        scored.sort(key=lambda item: (-item[0], -item[2].pk))
        found = [to_result(row, score) for score, _, row in scored[: self.limit]]
        if found:
            return found, []
        return [], lambda: self._fill_ins(conn, layer)

    def _fill_ins(self, conn: Connection, layer: str) -> list[RecallResult]:
        """A layer without a match: its newest memories (of the filter, if any), score 0."""
        context = self.context
        if self.match is not None:
            fallback = self.repo.find_rows(conn, self.match, [layer], None, 0)
            fallback = [r for r in fallback if context is None or r.context == context]
            fallback.sort(key=lambda r: (r.created_at, r.pk), reverse=True)
            return [to_result(row, 0.0) for row in fallback[: self.limit]]
        latest = self.repo.latest_rows(conn, layer, context, self.limit)
        return [to_result(row, 0.0) for row in latest]

    def _subtree_layer(
        self, conn: Connection, layer: str
    ) -> tuple[list[RecallResult], list[RecallResult]]:
        """Every memory of the layer in the subtree, scored against statistics of its own."""
        rows = self.repo.find_rows(conn, self.match or {}, [layer], None, 0, True)
        rows = [row for row in rows if self.context is None or row.context == self.context]
        if len(rows) > MAX_FILTERED_POOL:
            raise InvalidInputError(
                f"a subtree recall scores every memory it reads, and the {layer} layer holds "
                f"{len(rows)} (at most {MAX_FILTERED_POOL}): narrow it with where or context"
            )
        tokens = [content_tokens(row_indexed_text(row)) for row in rows]
        documents = [set(words) for words in tokens]
        weights = query_weights(
            len(rows), {term: sum(term in doc for doc in documents) for term in set(self.terms)}
        )
        average_length = sum(map(len, tokens)) / len(tokens) if tokens else None
        cosines: dict[int, float] = {}
        if self.query_vector is not None and rows:
            cosines = self.repo.cosines(conn, [int(row.pk) for row in rows], self.query_vector)
        query = LexicalQuery(self.terms, weights) if weights else None
        scored = [
            (score, row)
            for row in rows
            if (score := self._score(row, query, average_length, cosines.get(row.pk, -1.0))) > 0
        ]
        scored.sort(key=lambda item: (-item[0], -item[1].pk))
        found = [to_result(row, score, subtree=True) for score, row in scored[: self.limit]]
        if found:
            return found, []
        rows.sort(key=lambda r: (r.created_at, r.pk), reverse=True)
        return [], [to_result(row, 0.0, subtree=True) for row in rows[: self.limit]]

    def _candidates(
        self, conn: Connection, layer: str, frequencies: Mapping[str, int], pool: int
    ) -> tuple[list[int], dict[int, float]]:
        """The best ``pool`` keys by words and by vector, from the indexes."""
        namespace, context = self.scope.namespace, self.context
        lexical_pks = self.index.lexical.candidates(
            conn, namespace, layer, candidate_terms(frequencies), context, pool
        )
        cosines: dict[int, float] = {}
        if self.query_vector is not None:
            nearest = self.index.vectors.nearest(
                conn, namespace, layer, self.query_vector, context, pool
            )
            cosines = dict(nearest)
        return lexical_pks, cosines

    def _lexical_query(
        self, layer: str, lexical_pks: Sequence[int]
    ) -> tuple[LexicalQuery | None, float | None]:
        """The query prepared with the layer's IDF weights, and its mean length (None,
        None: no lexical candidates, so no lexical score)."""
        stats = self.statistics.get(layer)
        if not lexical_pks or stats is None:
            return None, None
        weights = query_weights(stats.documents, stats.frequencies)
        if not weights:
            return None, stats.average_length
        return LexicalQuery(self.terms, weights), stats.average_length

    def _score(
        self,
        row: Row[Any],
        query: LexicalQuery | None,
        average_length: float | None,
        cosine: float,
    ) -> float:
        lexical = 0.0
        if query is not None:
            lexical = query.score(content_tokens(row_indexed_text(row)), average_length)
        score = self._fused(lexical, cosine)
        if row.layer == "procedural":
            score = success_weighted(score, float(row.success_rate))
        return score

    def _fused(self, lexical: float, cosine: float) -> float:
        """A memory's score from its lexical score and cosine, before any weighting by its
        layer."""
        if self.query_vector is not None:
            return fuse(lexical, semantic_score(cosine, self.floor))
        return lexical


def _core_results(
    scope: MemoryScope,
    conn: Connection,
    terms: list[str],
    mode: str,
    match: Mapping[str, JsonScalar] | None,
) -> list[RecallResult]:
    query_terms = set(terms)
    rows = scope.repo.core_rows(conn)
    if match is not None:
        allowed = set(scope.repo.matching_pks(conn, match, "core"))
        rows = [row for row in rows if row.pk in allowed]
    results = []
    for row in rows:
        shares = bool(query_terms & set(content_tokens(row_indexed_text(row))))
        if mode == "matching" and not shares:
            continue
        results.append(to_result(row, core_score(shares)))
    return results


def _working_results(
    scope: MemoryScope, terms: list[str], limit: int, now: Any
) -> tuple[list[RecallResult], list[RecallResult]]:
    working = scope.working
    slots = working.slots()
    documents = [content_tokens(slot.content) for slot in slots]
    weights = query_weights(
        len(slots), {term: sum(term in set(doc) for doc in documents) for term in set(terms)}
    )
    average_length = sum(len(doc) for doc in documents) / len(documents) if documents else None
    scored = []
    for slot, doc in zip(slots, documents, strict=True):
        score = lexical_score(terms, doc, weights, average_length)
        result = RecallResult(
            id=slot.id,
            layer="working",
            content=slot.content,
            score=round(score, 6),
            metadata={
                "relevance": round(slot.relevance(now, working.decay_per_minute), 6),
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
