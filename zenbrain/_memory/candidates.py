"""One recall's candidates: every wanted layer's memories from the indexes (through the
repository), core blocks and working memory, scored against one collection
(:mod:`zenbrain._ranking`), and what fills in for a layer without a match."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from sqlalchemy import Connection, Row

from zenbrain._memory.results import to_result
from zenbrain._memory.scope import MemoryScope
from zenbrain._ranking import (
    Candidate,
    Collection,
    LexicalQuery,
    Ranked,
    candidate_terms,
    rank_candidates,
)
from zenbrain._storage.dialect import JsonScalar
from zenbrain._storage.indexes import ScopeStatistics
from zenbrain._storage.records import row_indexed_text
from zenbrain.errors import InvalidInputError
from zenbrain.text import content_tokens
from zenbrain.types import SEARCHED_LAYERS, RecallResult

__all__ = [
    "CANDIDATES_PER_RESULT",
    "EXHAUSTIVE_MATCHES",
    "INDEXED_LAYERS",
    "MAX_FILTERED_POOL",
    "MIN_CANDIDATES",
    "FillIn",
    "Search",
]

CANDIDATES_PER_RESULT = 5
MIN_CANDIDATES = 50
# A metadata filter this small is scored exhaustively; a larger one widens the index pools
# (by 4x, up to MAX_FILTERED_POOL) until they hold ``limit`` matching candidates.
EXHAUSTIVE_MATCHES = 2_000
# Keeps the candidate keys of one query well under SQLite's bound-parameter limit.
MAX_FILTERED_POOL = 10_000
# The layers whose memories the lexical index holds (core blocks included).
INDEXED_LAYERS = (*SEARCHED_LAYERS, "core")

FillIn = list[RecallResult] | Callable[[], list[RecallResult]]


class Search:
    """One recall's search: every wanted layer's candidates, scored as one collection."""

    # Read every layer's lexical candidates in one statement (off: one per layer, as a
    # metadata filter reads them; the two give the same results).
    read_ahead = True

    def __init__(
        self,
        scope: MemoryScope,
        terms: list[str],
        query_vector: np.ndarray | None,
        context: str | None,
        limit: int,
        match: Mapping[str, JsonScalar] | None,
        subtree: bool,
        core_mode: str,
    ) -> None:
        self.scope = scope
        self.repo = scope.repo
        self.terms = terms
        self.query_vector = query_vector
        self.context = context
        self.limit = limit
        self.match = match
        self.subtree = subtree
        self.core_mode = core_mode
        self.floor = scope.embedding.similarity_floor if scope.embedding else 0.0
        self.pool = max(MIN_CANDIDATES, CANDIDATES_PER_RESULT * limit)
        self.collection = Collection(terms)
        self.layer_statistics: dict[str, ScopeStatistics] = {}
        self.query: LexicalQuery | None = None
        self.rows: dict[int | str, Row[Any]] = {}
        self.results: dict[int | str, RecallResult] = {}
        self.parts: dict[str, Ranked] = {}  # the matches' scores in parts, by result id

    # ------------------------------------------------------------------ the pipeline
    def run(
        self, conn: Connection, wanted: Sequence[str], now: Any
    ) -> tuple[list[RecallResult], list[FillIn]]:
        """The matches of every wanted layer, best first, and per layer without a match
        what stands in for it."""
        searched: list[str] = [name for name in wanted if name in SEARCHED_LAYERS]
        with_core = "core" in wanted
        with_working = "working" in wanted and self.match is None
        subtree_rows = self._subtree_rows(conn, searched) if self.subtree else {}
        core_rows = self._core_rows(conn) if with_core else []
        slots = self.scope.working.slots() if with_working else []
        # One collection: the counts of every searched memory, so IDF is worked out once.
        if self.subtree:
            for rows in subtree_rows.values():
                self.collection.add_documents(content_tokens(row_indexed_text(row)) for row in rows)
            self.collection.add_documents(
                content_tokens(row_indexed_text(row)) for row in core_rows
            )
        else:
            indexed = [*searched, *(["core"] if with_core else [])]
            if indexed:
                self.layer_statistics = self.repo.statistics(
                    conn, indexed, self.terms, self.context
                )
            for stats in self.layer_statistics.values():
                self.collection.add_counts(stats.documents, stats.average_length, stats.frequencies)
        self.collection.add_documents(content_tokens(slot.content) for slot in slots)
        self.query = self.collection.query()

        candidates: list[Candidate] = []
        if self.subtree:
            for layer in searched:
                candidates += self._row_candidates(conn, subtree_rows.get(layer, []))
        else:
            keys = {layer: self._candidate_keys(conn, layer) for layer in searched}
            if self.match is None and self.read_ahead and searched:
                # Every layer's lexical candidates in one statement.
                lexical = self.repo.lexical_candidates(
                    conn, self._terms_by_layer(searched), self.context, self.pool
                )
                keys = {
                    layer: (
                        list(dict.fromkeys([*lexical.get(layer, []), *cosines])),
                        cosines,
                    )
                    for layer, (_, cosines) in keys.items()
                }
            candidates += self._indexed_candidates(conn, keys)
        candidates += self._row_candidates(conn, core_rows)
        candidates += self._slot_candidates(conn, slots, now)
        ranked = rank_candidates(
            candidates,
            semantic=self.query_vector is not None,
            similarity_floor=self.floor,
            lexical_share=self.query.held_share if self.query is not None else 1.0,
        )
        # Each layer's best ``limit``: what stages may rerank, as one list.
        per_layer: dict[str, int] = {}
        chosen = []
        for item in ranked:
            of = item.candidate.layer
            if per_layer.get(of, 0) < self.limit:
                per_layer[of] = per_layer.get(of, 0) + 1
                chosen.append(item)
        self._read_rows(conn, [item.candidate.key for item in chosen])
        matches: list[RecallResult] = []
        for item in chosen:
            key = item.candidate.key
            if key in self.rows or key in self.results:  # else gone from the table
                matches.append(self._result(key, item.score))
                self.parts[matches[-1].id] = item
        # Core blocks are always candidates (unless only matching ones are wanted): a
        # block that shares no word comes first of what fills the rest, like a profile.
        fill_ins: list[FillIn] = []
        if with_core and self.core_mode == "always":
            fill_ins.append([to_result(row, 0.0) for row in core_rows])
        for name in wanted:
            if per_layer.get(name) or name == "core":
                continue
            fill_ins.append(self._fill_ins(conn, name, subtree_rows, slots))
        return matches, fill_ins

    # ------------------------------------------------------------------ candidates
    def _terms_by_layer(self, layers: Sequence[str]) -> dict[str, list[str]]:
        """The query terms worth reading postings for, per layer (rarest first)."""
        out = {}
        for layer in layers:
            stats = self.layer_statistics.get(layer)
            out[layer] = candidate_terms(stats.frequencies if stats is not None else {})
        return out

    def _candidate_keys(self, conn: Connection, layer: str) -> tuple[list[int], dict[int, float]]:
        """A searched layer's candidate keys (lexical first) and cosines, from the indexes,
        within the metadata filter if any. Without a filter and with read-ahead, only the
        vector index is asked here: :meth:`run` reads every layer's lexical candidates in
        one statement."""
        context = self.context
        stats = self.layer_statistics.get(layer)
        frequencies = stats.frequencies if stats is not None else {}
        allowed: set[int] | None = None
        if self.match is not None:
            allowed = set(self.repo.matching_pks(conn, self.match, layer, context))
            if not allowed:
                return [], {}
        cosines: dict[int, float] = {}
        if allowed is not None and len(allowed) <= EXHAUSTIVE_MATCHES:
            keys = sorted(allowed)
            if self.query_vector is not None:
                cosines = self.repo.cosines(conn, keys, self.query_vector)
            return keys, cosines
        pool, total = self.pool, (stats.documents if stats is not None else 0)
        while True:
            lexical_pks: list[int] = []
            if allowed is not None or not self.read_ahead:
                terms = {layer: candidate_terms(frequencies)}
                lexical_pks = self.repo.lexical_candidates(conn, terms, context, pool)[layer]
            cosines = {}
            if self.query_vector is not None:
                cosines = self.repo.nearest(conn, layer, self.query_vector, context, pool)
            if allowed is None or pool >= min(total, MAX_FILTERED_POOL):
                break
            if len(allowed.intersection([*lexical_pks, *cosines])) >= self.limit:
                break
            pool = min(pool * 4, MAX_FILTERED_POOL)  # matches rank low: widen the pools
        keys = list(dict.fromkeys([*lexical_pks, *cosines]))
        if allowed is not None:
            keys = [pk for pk in keys if pk in allowed]
        return keys, cosines

    def _indexed_candidates(
        self, conn: Connection, keys: Mapping[str, tuple[list[int], dict[int, float]]]
    ) -> list[Candidate]:
        """The searched layers' candidates, scored. Memories the index holds in order are
        scored from their term numbers, a layer at a time over all of them; procedures are
        read (their success rate weighs their score), as is whatever the index cannot give
        back, all in one statement."""
        lexical: dict[int, tuple[float, float]] = {}
        times: dict[int, Any] = {}
        conversations: dict[int, str | None] = {}
        wanted = {layer: pks for layer, (pks, _) in keys.items() if layer != "procedural" and pks}
        if self.query is not None and wanted:
            held = self.repo.indexed_documents(conn, wanted)
            for entry in held.values():
                scores, ties = self.query.scores_and_ties(
                    entry.documents, self.collection.average_length
                )
                pairs = zip(scores.tolist(), ties.tolist(), strict=True)
                lexical.update(zip(entry.pks, pairs, strict=True))
                times.update(zip(entry.pks, entry.created_at, strict=True))
                conversations.update(zip(entry.pks, entry.conversations, strict=True))
        unread = [pk for pks, _ in keys.values() for pk in pks if pk not in lexical]
        rows = self.repo.rows_by_pk(conn, unread)
        self.rows.update(rows.items())
        found: list[Candidate] = []
        for layer, (pks, cosines) in keys.items():
            for pk in pks:
                row = rows.get(pk)
                if row is not None:
                    found.append(self._row_candidate(row, cosines.get(pk)))
                elif pk in lexical:
                    score, tie = lexical[pk]
                    found.append(
                        Candidate(
                            pk,
                            layer,
                            times[pk],
                            score,
                            cosines.get(pk),
                            tie=tie,
                            conversation=conversations[pk],
                        )
                    )
        return found

    def _row_candidates(self, conn: Connection, rows: Sequence[Row[Any]]) -> list[Candidate]:
        """Candidates read as rows (a subtree's, core blocks): scored from their text."""
        cosines: dict[int, float] = {}
        if self.query_vector is not None and rows:
            cosines = self.repo.cosines(conn, [int(row.pk) for row in rows], self.query_vector)
        self.rows.update((int(row.pk), row) for row in rows)
        return [self._row_candidate(row, cosines.get(int(row.pk))) for row in rows]

    def _row_candidate(self, row: Row[Any], cosine: float | None) -> Candidate:
        lexical = tie = 0.0
        if self.query is not None:
            tokens = content_tokens(row_indexed_text(row))
            lexical, tie = self.query.score_and_tie(tokens, self.collection.average_length)
        rate = float(row.success_rate) if row.layer == "procedural" else None
        return Candidate(
            int(row.pk),
            str(row.layer),
            row.created_at,
            lexical,
            cosine,
            rate,
            tie,
            row.conversation,
        )

    def _slot_candidates(self, conn: Connection, slots: Sequence[Any], now: Any) -> list[Candidate]:
        """Working-memory slots, scored like every memory; a slot copied from a stored
        memory takes that memory's cosine."""
        if not slots:
            return []
        working = self.scope.working
        cosines: dict[str, float] = {}
        if self.query_vector is not None:
            sources = [s.source_id for s in slots if s.source_id]
            pks = self.repo.pks_of_ids(conn, sources) if sources else {}
            by_pk = self.repo.cosines(conn, list(pks.values()), self.query_vector) if pks else {}
            cosines = {sid: by_pk[pk] for sid, pk in pks.items() if pk in by_pk}
        found = []
        for slot in slots:
            lexical = tie = 0.0
            if self.query is not None:
                lexical, tie = self.query.score_and_tie(
                    content_tokens(slot.content), self.collection.average_length
                )
            self.results[slot.id] = RecallResult(
                id=slot.id,
                layer="working",
                content=slot.content,
                score=0.0,
                notes={
                    "relevance": round(slot.relevance(now, working.decay_per_minute), 6),
                    "source_id": slot.source_id,
                    "source_layer": slot.source_layer,
                    "kind": slot.kind,
                },
                created_at=slot.added_at,
            )
            cosine = cosines.get(slot.source_id) if slot.source_id else None
            found.append(Candidate(slot.id, "working", None, lexical, cosine, tie=tie))
        return found

    # ------------------------------------------------------------------ rows and results
    def _subtree_rows(self, conn: Connection, layers: Sequence[str]) -> dict[str, list[Row[Any]]]:
        """Every memory of each layer in the subtree (within the context and filter)."""
        out: dict[str, list[Row[Any]]] = {}
        for layer in layers:
            rows = self.repo.find_rows(conn, self.match or {}, [layer], None, 0, True)
            rows = [r for r in rows if self.context is None or r.context == self.context]
            if len(rows) > MAX_FILTERED_POOL:
                raise InvalidInputError(
                    f"a subtree recall scores every memory it reads, and the {layer} layer "
                    f"holds {len(rows)} (at most {MAX_FILTERED_POOL}): narrow it with where "
                    "or context"
                )
            out[layer] = rows
        return out

    def _core_rows(self, conn: Connection) -> list[Row[Any]]:
        rows = self.repo.core_rows(conn)
        if self.match is not None:
            allowed = set(self.repo.matching_pks(conn, self.match, "core"))
            rows = [row for row in rows if row.pk in allowed]
        return rows

    def _read_rows(self, conn: Connection, keys: Sequence[int | str]) -> None:
        missing = [k for k in keys if isinstance(k, int) and k not in self.rows]
        self.rows.update(self.repo.rows_by_pk(conn, missing).items())

    def _result(self, key: int | str, score: float) -> RecallResult:
        if key in self.results:  # a working-memory slot
            return replace(self.results[key], score=round(score, 6))
        return to_result(self.rows[key], score)

    def _fill_ins(
        self,
        conn: Connection,
        layer: str,
        subtree_rows: Mapping[str, list[Row[Any]]],
        slots: Sequence[Any],
    ) -> FillIn:
        """What stands in for a layer without a match, score 0: its newest memories (of
        the filter, if any; procedures: the most successful), or working memory's most
        relevant slots."""
        if layer == "working":
            by_relevance = sorted(
                (self.results[slot.id] for slot in slots),
                key=lambda r: r.notes["relevance"],
                reverse=True,
            )
            return by_relevance[: self.limit]
        if self.subtree:
            rows = sorted(
                subtree_rows.get(layer, []), key=lambda r: (r.created_at, r.pk), reverse=True
            )
            return [to_result(row, 0.0) for row in rows[: self.limit]]
        return lambda: self._newest(conn, layer)

    def _newest(self, conn: Connection, layer: str) -> list[RecallResult]:
        context = self.context
        if self.match is not None:
            fallback = self.repo.find_rows(conn, self.match, [layer], None, 0)
            fallback = [r for r in fallback if context is None or r.context == context]
            fallback.sort(key=lambda r: (r.created_at, r.pk), reverse=True)
            return [to_result(row, 0.0) for row in fallback[: self.limit]]
        latest = self.repo.latest_rows(conn, layer, context, self.limit)
        return [to_result(row, 0.0) for row in latest]
