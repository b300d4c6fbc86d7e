"""Recall: check the arguments, embed the query, gather each searched layer's candidates
through the repository, score them all against one collection (:mod:`zenbrain._ranking`),
let stages rerank, fill in for layers without a match. The query is embedded before the
lock is taken."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from zenbrain._memory import validity
from zenbrain._memory.candidates import INDEXED_LAYERS, Search
from zenbrain._memory.scope import MemoryScope
from zenbrain._ranking import Ranked
from zenbrain.operations import RecallQuery
from zenbrain.stages import RecallRequest
from zenbrain.text import tokenize
from zenbrain.types import RecallResult, ScoreParts

__all__ = ["CONVERSATION_SPREAD", "recall"]

# With ``per_conversation`` the search keeps this many times ``limit`` per layer, so that
# the results can come from more conversations than ``limit`` turns would name. Twice, not
# more: deeper lists give the newer-first step more to reorder, and ranking BEAM's sessions
# lost to BM25 over whole sessions at 3 and 5 (docs/benchmarks.md, "Recall on long
# conversations", table "Ranking conversations").
CONVERSATION_SPREAD = 2


def recall(scope: MemoryScope, q: RecallQuery) -> list[RecallResult]:
    """See :meth:`zenbrain.MemoryCoordinator.recall`; ``q`` was checked when it was built.

    With ``subtree`` the indexed layers are searched in this namespace and every namespace
    below it: every memory there (of the layer, the context and ``where``) is scored, with
    IDF and mean length counted over those same memories, so a subtree ranks as one
    collection. Core blocks and working memory stay this namespace's own, and stages do
    not rerank (their rows belong to one namespace). With ``explain`` each result carries
    its score in parts from this same pass (the query is searched and embedded once)."""
    wanted = list(q.layers)
    options = validity.options_of(q, scope.now())
    terms = tokenize(q.query)
    query_vector = _query_vector(scope, q.query, wanted)
    floor_score, floor_conf = q.min_score, q.min_confidence

    def passes_floors(r: RecallResult) -> bool:
        return (
            r.score >= floor_score
            and (floor_score == 0 or r.score > 0)
            and (r.confidence if r.confidence is not None else 1.0) >= floor_conf
        )

    # Validity may move replaced memories down and keep only current ones, and one
    # conversation may hold many of the best: search deeper.
    spread = 1 if q.per_conversation is None else CONVERSATION_SPREAD
    depth = options.search_limit(min(1000, q.limit * spread))
    search = Search(scope, terms, query_vector, q.context, depth, q.where, q.subtree, q.core)
    below = q.subtree
    with scope.lock:
        now = scope.now()
        with scope.repo.read() as conn:
            matches, fill_ins = search.run(conn, wanted, now)
            request = RecallRequest(q.query, tuple(terms), tuple(wanted), q.context, q.limit)
            stage_scope = scope.stage_scope()
            for stage in () if below else scope.stages:
                matches = stage.rerank(conn, stage_scope, request, matches)
            kept = [r for r in matches if passes_floors(r)]
            # Fill-ins score 0 and come after every match: only read when they can show.
            if len(kept) < q.limit and floor_score == 0:
                shown = {r.id for r in matches}
                for extra in fill_ins:
                    for r in extra if isinstance(extra, list) else extra():
                        if r.id not in shown and passes_floors(r):
                            kept.append(r)
                            shown.add(r.id)
            # Validity reorders the same depth whichever layers hold the memories: the
            # best of all layers, not each layer's best (a routed store would otherwise
            # hand it several times as many results as one layer does).
            kept.sort(key=lambda r: r.score, reverse=True)
            kept = validity.arrange(scope, conn, kept[:depth], options)
        if q.per_conversation is not None:
            kept = _per_conversation(kept, q.per_conversation)
        results = kept[: q.limit]
        writers = [stage for stage in scope.stages if stage.writes_on_recall and not below]
        if writers and results:
            with scope.repo.write() as conn:
                for stage in writers:
                    stage.after_recall(conn, stage_scope, request, results)
    if q.explain:
        results = [replace(r, explanation=_explained(r, search.parts.get(r.id))) for r in results]
    return results


def _per_conversation(results: list[RecallResult], most: int) -> list[RecallResult]:
    """``results`` in order with at most ``most`` of each named conversation (the first,
    so the best); a memory naming no conversation is kept."""
    shown: dict[str, int] = {}
    kept = []
    for r in results:
        if r.conversation is not None:
            if shown.get(r.conversation, 0) >= most:
                continue
            shown[r.conversation] = shown.get(r.conversation, 0) + 1
        kept.append(r)
    return kept


def _part(value: float | None) -> float | None:
    return None if value is None else round(float(value), 6)


def _explained(result: RecallResult, found: Ranked | None) -> ScoreParts:
    """``result``'s score in parts: what the search ranked it (``found``) and the rest of
    its final score (conversation neighbours and stages)."""
    if found is None or result.score == 0:
        return ScoreParts(None, None, 0.0, 0.0, 0.0, fill_in=result.score == 0)
    return ScoreParts(
        lexical=_part(found.lexical),
        semantic=_part(found.semantic),
        fused=_part(found.fused),
        layer=_part(found.layered - found.fused),
        neighbours=_part(result.score - found.layered),
        fill_in=False,
    )


def _query_vector(scope: MemoryScope, text: str, wanted: Sequence[str]) -> np.ndarray | None:
    """The query embedded, when there is an embedder and a wanted layer holds vectors."""
    if scope.embedding is None or not any(name in INDEXED_LAYERS for name in wanted):
        return None
    vector: np.ndarray = scope.embedding.queries([text])[0]
    return vector
