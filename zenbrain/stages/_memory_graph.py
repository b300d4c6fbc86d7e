"""A memory graph that learns from recall: memories recalled together wire together.

- After each recall, every pair among the first ``coactivation_size`` scored long-term
  results (episodes, facts, procedures) strengthens its edge with the bounded Hebbian rule
  (:func:`zenbrain._algorithms.hebbian.strengthen`; a new edge starts at 1.0 and becomes
  1.09). Edges live in ``zb_memory_edges``, one row per unordered pair.
- During recall, activation spreads from the matched memories over the graph: personalised
  PageRank (:mod:`zenbrain._algorithms.pagerank`) restarting at the first
  ``seeds`` matches, weighted by their scores, over their neighbourhood up to two hops.
  A neighbour that did not match gets the score
  ``spread_weight * best score * min(1, its PageRank / the best seed's PageRank)`` and
  ``notes["via"] = "graph"``; matched memories keep their scores.
- Each consolidation decays every edge by 2 % per day since its last decay
  (:func:`zenbrain._algorithms.hebbian.decay`) and deletes those that fall below 0.1; the
  count is reported as ``pruned``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Final

from sqlalchemy import delete, or_, select, update

from zenbrain._algorithms.hebbian import NEUTRAL_WEIGHT, decay, strengthen
from zenbrain._algorithms.hebbian import generate_pairs as hebbian_pairs
from zenbrain._algorithms.pagerank import personalized_pagerank, undirected_to_directed
from zenbrain._storage.schema import memory_edges
from zenbrain._storage.timestamps import to_db
from zenbrain._validation import check_int, check_positive_fraction
from zenbrain.stages._base import (
    RecallRequest,
    Stage,
    StageConnection,
    StageScope,
    pks_of,
    upsert,
    with_notes,
)
from zenbrain.types import SEARCHED_LAYERS, RecallResult

__all__ = ["MemoryGraphStage"]

_MAX_NODES: Final = 500
_SECONDS_PER_DAY: Final = 86_400.0


class MemoryGraphStage(Stage):
    """Hebbian co-recall edges, spreading activation on recall, decay on consolidation."""

    name = "graph"
    writes_on_recall = True
    tables = (memory_edges,)

    def __init__(
        self, *, coactivation_size: int = 5, seeds: int = 5, spread_weight: float = 0.5
    ) -> None:
        self.coactivation_size = check_int(coactivation_size, "coactivation_size", 1, 100)
        self.seeds = check_int(seeds, "seeds", 1, 100)
        self.spread_weight = check_positive_fraction(spread_weight, "spread_weight")

    def __repr__(self) -> str:
        return (
            f"MemoryGraphStage(coactivation_size={self.coactivation_size}, seeds={self.seeds}, "
            f"spread_weight={self.spread_weight})"
        )

    # ------------------------------------------------------------------ learning
    def after_recall(
        self,
        conn: StageConnection,
        scope: StageScope,
        request: RecallRequest,
        results: Sequence[RecallResult],
    ) -> None:
        active = [r.id for r in results if r.score > 0 and r.layer in SEARCHED_LAYERS][
            : self.coactivation_size
        ]
        if len(active) < 2:
            return
        pk_of = pks_of(conn, scope.namespace, active)
        pairs = {
            (min(first, second), max(first, second))
            for first, second in hebbian_pairs(pk_of[i] for i in active if i in pk_of)
        }
        current = {
            (int(row.memory_a), int(row.memory_b)): float(row.weight)
            for row in conn.execute(
                select(memory_edges.c.memory_a, memory_edges.c.memory_b, memory_edges.c.weight)
                .where(memory_edges.c.memory_a.in_(sorted({a for a, _ in pairs})))
                .where(memory_edges.c.memory_b.in_(sorted({b for _, b in pairs})))
            )
        }
        now = to_db(scope.now())
        upsert(
            conn,
            memory_edges,
            [
                {
                    "namespace": scope.namespace,
                    "memory_a": a,
                    "memory_b": b,
                    "weight": strengthen(current.get((a, b), NEUTRAL_WEIGHT)),
                    "updated_at": now,
                    "decayed_at": now,
                }
                for a, b in sorted(pairs)
            ],
            update=("weight", "updated_at"),
        )

    # ------------------------------------------------------------------ clean-up
    @classmethod
    def forget(cls, conn: StageConnection, namespace: str, memory_pks: Sequence[int]) -> None:
        pks = list(memory_pks)
        if pks:
            conn.execute(
                delete(memory_edges).where(
                    memory_edges.c.namespace == namespace,
                    memory_edges.c.memory_a.in_(pks) | memory_edges.c.memory_b.in_(pks),
                )
            )

    # ------------------------------------------------------------------ spreading
    def _neighbourhood(
        self, conn: StageConnection, namespace: str, seeds: set[int]
    ) -> list[tuple[int, int, float]]:
        edges: dict[tuple[int, int], float] = {}
        frontier = set(seeds)
        reached = set(seeds)
        for _hop in range(2):
            if not frontier or len(reached) >= _MAX_NODES:
                break
            rows = conn.execute(
                select(memory_edges.c.memory_a, memory_edges.c.memory_b, memory_edges.c.weight)
                .where(
                    memory_edges.c.namespace == namespace,
                    or_(
                        memory_edges.c.memory_a.in_(list(frontier)),
                        memory_edges.c.memory_b.in_(list(frontier)),
                    ),
                )
                .order_by(memory_edges.c.weight.desc())
                .limit(_MAX_NODES)
            ).all()
            new: set[int] = set()
            for a, b, weight in rows:
                edges[(int(a), int(b))] = float(weight)
                new.update((int(a), int(b)))
            frontier = new - reached
            reached |= new
        return [(a, b, w) for (a, b), w in edges.items()]

    def rerank(
        self,
        conn: StageConnection,
        scope: StageScope,
        request: RecallRequest,
        results: list[RecallResult],
    ) -> list[RecallResult]:
        layers = {layer for layer in request.layers if layer in SEARCHED_LAYERS}
        seeds = [r for r in results if r.score > 0 and r.layer in SEARCHED_LAYERS][: self.seeds]
        if not seeds or not layers:
            return results
        pk_of = pks_of(conn, scope.namespace, [r.id for r in seeds])
        seed_scores = {pk_of[r.id]: r.score for r in seeds if r.id in pk_of}
        edges = self._neighbourhood(conn, scope.namespace, set(seed_scores))
        if not edges:
            return results
        nodes = sorted({seed for seed in seed_scores} | {n for a, b, _ in edges for n in (a, b)})
        ranks = personalized_pagerank(nodes, undirected_to_directed(edges), seed_scores).scores
        top_seed = max(ranks[pk] for pk in seed_scores)
        best_score = max(seed_scores.values())
        present = {r.id for r in results}
        spread = {
            pk: self.spread_weight * best_score * min(1.0, rank / top_seed)
            for pk, rank in ranks.items()
            if pk not in seed_scores and rank > 0
        }
        loaded = scope.load_results(conn, spread)
        added = [
            with_notes(result, via="graph")
            for result in loaded.values()
            if result.id not in present
            and result.layer in layers
            and result.score > 0
            and (request.context is None or result.context == request.context)
        ]
        added.sort(key=lambda r: r.score, reverse=True)
        merged = results + added[: request.limit]
        merged.sort(key=lambda r: r.score, reverse=True)
        return merged

    # ------------------------------------------------------------------ forgetting
    def consolidate(self, conn: StageConnection, scope: StageScope, now: datetime) -> int:
        moment = to_db(now)
        rows = conn.execute(
            select(
                memory_edges.c.memory_a,
                memory_edges.c.memory_b,
                memory_edges.c.weight,
                memory_edges.c.decayed_at,
            ).where(memory_edges.c.namespace == scope.namespace)
        ).all()
        pruned = 0
        for row in rows:
            days = (moment - row.decayed_at).total_seconds() / _SECONDS_PER_DAY
            if days <= 0:
                continue
            weight = decay(float(row.weight), days)
            where = (memory_edges.c.memory_a == row.memory_a) & (
                memory_edges.c.memory_b == row.memory_b
            )
            if weight == 0.0:
                conn.execute(delete(memory_edges).where(where))
                pruned += 1
            else:
                conn.execute(
                    update(memory_edges).where(where).values(weight=weight, decayed_at=moment)
                )
        return pruned
