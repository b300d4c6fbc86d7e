"""Recall: check the arguments, embed the query, gather each searched layer's candidates
through the repository, score them all against one collection (:mod:`zenbrain.ranking`),
let stages rerank, fill in for layers without a match. The query is embedded before the
lock is taken."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

import numpy as np

from zenbrain import _validation as check
from zenbrain.errors import InvalidInputError
from zenbrain.memory import validity
from zenbrain.memory.candidates import INDEXED_LAYERS, Search
from zenbrain.memory.find import check_match, check_subtree
from zenbrain.memory.scope import MemoryScope
from zenbrain.ranking import (
    Ranked,
)
from zenbrain.stages.base import RecallRequest
from zenbrain.text import tokenize
from zenbrain.types import DEFAULT_RECALL_LAYERS, RECALLABLE_LAYERS, RecallResult

__all__ = ["recall", "score_parts"]


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
    current_only: bool = False,
    as_of: datetime | None = None,
    time_range: tuple[datetime, datetime] | None = None,
) -> list[RecallResult]:
    """See :meth:`zenbrain.MemoryCoordinator.recall`.

    With ``subtree`` the indexed layers are searched in this namespace and every namespace
    below it: every memory there (of the layer, the context and ``where``) is scored, with
    IDF and mean length counted over those same memories, so a subtree ranks as one
    collection. Core blocks and working memory stay this namespace's own, and stages do
    not rerank (their rows belong to one namespace)."""
    text = check.check_content(query, "query")
    below = check_subtree(subtree)
    wanted = _wanted_layers(layers)
    limit = check.check_int(limit, "limit", 1, 1000)
    floor_score = check.check_fraction(min_score, "min_score", optional=False) or 0.0
    floor_conf = check.check_fraction(min_confidence, "min_confidence", optional=False) or 0.0
    if core not in ("always", "matching"):
        raise InvalidInputError(f"core must be 'always' or 'matching', got {core!r}")
    ctx = check.check_optional_text(context, "context")
    match = check_match(where, "where") if where is not None else None
    options = validity.check_options(
        text, scope.now(), current_only=current_only, as_of=as_of, time_range=time_range
    )
    terms = tokenize(text)
    query_vector = _query_vector(scope, text, wanted)

    def passes_floors(r: RecallResult) -> bool:
        return (
            r.score >= floor_score
            and (floor_score == 0 or r.score > 0)
            and (r.confidence if r.confidence is not None else 1.0) >= floor_conf
        )

    # Validity may move replaced memories down and keep only current ones: search deeper.
    search = Search(
        scope, terms, query_vector, ctx, options.search_limit(limit), match, below, core
    )
    with scope.lock:
        now = scope.now()
        with scope.repo.read() as conn:
            matches, fill_ins = search.run(conn, wanted, now)
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
                            shown.add(r.id)
            # Validity reorders the same depth whichever layers hold the memories: the
            # best of all layers, not each layer's best (a routed store would otherwise
            # hand it several times as many results as one layer does).
            kept.sort(key=lambda r: r.score, reverse=True)
            kept = validity.arrange(scope, conn, kept[: options.search_limit(limit)], options)
        results = kept[:limit]
        writers = [stage for stage in scope.stages if stage.writes_on_recall and not below]
        if writers and results:
            with scope.repo.write() as conn:
                for stage in writers:
                    stage.after_recall(conn, stage_scope, request, results)
    return results


def score_parts(
    scope: MemoryScope,
    query: str,
    *,
    layers: Sequence[str] | None = None,
    context: str | None = None,
    limit: int = 1000,
) -> dict[str, Ranked]:
    """Why each memory a recall of ``query`` ranks scored what it did, by result id: the
    same search as :func:`recall` (one collection, the same candidates and scale), read
    only, without stages (their reranking, if any, is the rest of a result's score)."""
    text = check.check_content(query, "query")
    wanted = _wanted_layers(layers)
    ctx = check.check_optional_text(context, "context")
    terms = tokenize(text)
    query_vector = _query_vector(scope, text, wanted)
    search = Search(scope, terms, query_vector, ctx, limit, None, False, "always")
    with scope.lock:
        now = scope.now()
        with scope.repo.read() as conn:
            search.run(conn, wanted, now)
    return search.parts


def _wanted_layers(layers: Sequence[str] | None) -> list[str]:
    """The layers a recall searches: the defaults for None, else the named ones, once each."""
    if layers is None:
        return list(DEFAULT_RECALL_LAYERS)
    if isinstance(layers, str) or not isinstance(layers, Sequence) or not layers:
        raise InvalidInputError(f"layers must be a non-empty list of layer names, got {layers!r}")
    return list(dict.fromkeys(check.check_layer(name, RECALLABLE_LAYERS) for name in layers))


def _query_vector(scope: MemoryScope, text: str, wanted: Sequence[str]) -> np.ndarray | None:
    """The query embedded, when there is an embedder and a wanted layer holds vectors."""
    if scope.embedding is None or not any(name in INDEXED_LAYERS for name in wanted):
        return None
    vector: np.ndarray = scope.embedding.queries([text])[0]
    return vector
