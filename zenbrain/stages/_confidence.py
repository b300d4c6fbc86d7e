"""Bayesian confidence: facts that support or contradict each other update each other.

When a semantic fact is stored, the stored facts sharing its words (found through the
lexical index, at most ``candidates``) are compared with it by the semantic layer's rule
(:func:`zenbrain.layers._semantic.relate_facts`: supports at a similarity of 0.8 or more,
contradicts when exactly one of the two is negated and the similarity is 0.5 or more).

Both directions are stored in ``zb_fact_relations`` with the similarity as weight; nothing
is overwritten or deleted. The confidence each fact had when it was first related is kept
as its prior (``zb_fact_priors``); then the beliefs of the connected facts (up to 200) are
recomputed from those priors by :func:`zenbrain._algorithms.bayesian.propagate_confidence`
and written to the facts' ``confidence``. On recall each related fact carries the ids of
its counterparts in ``notes["contradicts"]`` and ``notes["supported_by"]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from sqlalchemy import delete, or_, select, update

from zenbrain._algorithms.bayesian import Relation, propagate_confidence
from zenbrain._algorithms.similarity import strip_negation
from zenbrain._storage.schema import fact_priors, fact_relations, memories
from zenbrain._storage.timestamps import to_db
from zenbrain._validation import check_int, check_positive_fraction
from zenbrain.layers._semantic import (
    CONTRADICTION_THRESHOLD,
    DEFAULT_FACT_CONFIDENCE,
    SUPPORT_THRESHOLD,
    relate_facts,
)
from zenbrain.stages._base import (
    RecallRequest,
    Stage,
    StageConnection,
    StageScope,
    StoredMemory,
    pks_of,
    upsert,
    with_notes,
)
from zenbrain.text import tokenize
from zenbrain.types import RecallResult

__all__ = ["ConfidenceStage"]

_MAX_COMPONENT: Final = 200


class ConfidenceStage(Stage):
    """Detects supporting and contradicting facts and propagates confidence between them."""

    name = "confidence"
    tables = (fact_relations, fact_priors)
    core_updates = (memories,)  # the propagated confidence

    def __init__(
        self,
        *,
        support_threshold: float = SUPPORT_THRESHOLD,
        contradiction_threshold: float = CONTRADICTION_THRESHOLD,
        candidates: int = 20,
    ) -> None:
        self.support_threshold = check_positive_fraction(support_threshold, "support_threshold")
        self.contradiction_threshold = check_positive_fraction(
            contradiction_threshold, "contradiction_threshold"
        )
        self.candidates = check_int(candidates, "candidates", 1, 10_000)

    def __repr__(self) -> str:
        return (
            f"ConfidenceStage(support_threshold={self.support_threshold}, "
            f"contradiction_threshold={self.contradiction_threshold}, "
            f"candidates={self.candidates})"
        )

    # ------------------------------------------------------------------ store
    def after_store(
        self, conn: StageConnection, scope: StageScope, stored: Sequence[StoredMemory]
    ) -> None:
        touched: set[int] = set()
        now = to_db(scope.now())
        for memory in stored:
            if memory.layer != "semantic":
                continue
            terms = tokenize(strip_negation(memory.content))
            if not terms:
                continue
            candidate_pks = [
                pk
                for pk in scope.candidates(conn, "semantic", terms, self.candidates + 1)
                if pk != memory.pk
            ][: self.candidates]
            if not candidate_pks:
                continue
            rows = conn.execute(
                select(memories.c.pk, memories.c.content).where(
                    memories.c.namespace == scope.namespace, memories.c.pk.in_(candidate_pks)
                )
            ).all()
            for row in rows:
                relation, similarity = relate_facts(
                    memory.content,
                    row.content,
                    support_threshold=self.support_threshold,
                    contradiction_threshold=self.contradiction_threshold,
                )
                if relation is None:
                    continue
                upsert(
                    conn,
                    fact_relations,
                    [
                        {
                            "namespace": scope.namespace,
                            "source_pk": source,
                            "target_pk": target,
                            "relation": relation,
                            "weight": similarity,
                            "created_at": now,
                        }
                        for source, target in ((memory.pk, int(row.pk)), (int(row.pk), memory.pk))
                    ],
                )
                touched.update((memory.pk, int(row.pk)))
        if touched:
            self._propagate(conn, scope.namespace, touched)

    def _propagate(self, conn: StageConnection, namespace: str, start: set[int]) -> None:
        component = set(start)
        frontier = set(start)
        edges: dict[tuple[int, int, str], float] = {}
        while frontier and len(component) < _MAX_COMPONENT:
            rows = conn.execute(
                select(fact_relations).where(
                    fact_relations.c.namespace == namespace,
                    or_(
                        fact_relations.c.source_pk.in_(list(frontier)),
                        fact_relations.c.target_pk.in_(list(frontier)),
                    ),
                )
            ).all()
            reached: set[int] = set()
            for row in rows:
                edges[(int(row.source_pk), int(row.target_pk), str(row.relation))] = float(
                    row.weight
                )
                reached.update((int(row.source_pk), int(row.target_pk)))
            frontier = reached - component
            component |= reached
        members = list(component)[:_MAX_COMPONENT]
        current = {
            int(row.pk): float(
                row.confidence if row.confidence is not None else DEFAULT_FACT_CONFIDENCE
            )
            for row in conn.execute(
                select(memories.c.pk, memories.c.confidence).where(
                    memories.c.namespace == namespace, memories.c.pk.in_(members)
                )
            )
        }
        priors = {
            int(row.memory_pk): float(row.prior)
            for row in conn.execute(
                select(fact_priors.c.memory_pk, fact_priors.c.prior).where(
                    fact_priors.c.memory_pk.in_(list(current))
                )
            )
        }
        first_seen = {pk: confidence for pk, confidence in current.items() if pk not in priors}
        upsert(
            conn,
            fact_priors,
            [
                {"memory_pk": pk, "namespace": namespace, "prior": confidence}
                for pk, confidence in first_seen.items()
            ],
        )
        priors.update(first_seen)
        relations = [
            Relation(source, target, relation, min(1.0, weight))
            for (source, target, relation), weight in edges.items()
            if source in priors and target in priors
        ]
        beliefs = propagate_confidence(priors, relations).beliefs
        for pk, belief in beliefs.items():
            if abs(belief - current[pk]) > 1e-9:
                conn.execute(
                    update(memories)
                    .where(memories.c.pk == pk, memories.c.namespace == namespace)
                    .values(confidence=round(belief, 6))
                )

    # ------------------------------------------------------------------ clean-up
    @classmethod
    def forget(cls, conn: StageConnection, namespace: str, memory_pks: Sequence[int]) -> None:
        pks = list(memory_pks)
        if not pks:
            return
        conn.execute(
            delete(fact_relations).where(
                fact_relations.c.namespace == namespace,
                fact_relations.c.source_pk.in_(pks) | fact_relations.c.target_pk.in_(pks),
            )
        )
        conn.execute(
            delete(fact_priors).where(
                fact_priors.c.namespace == namespace, fact_priors.c.memory_pk.in_(pks)
            )
        )

    # ------------------------------------------------------------------ recall
    def rerank(
        self,
        conn: StageConnection,
        scope: StageScope,
        request: RecallRequest,
        results: list[RecallResult],
    ) -> list[RecallResult]:
        facts_found = [r for r in results if r.layer == "semantic"]
        if not facts_found:
            return results
        pk_of = pks_of(conn, scope.namespace, [r.id for r in facts_found])
        if not pk_of:
            return results
        related = conn.execute(
            select(fact_relations.c.source_pk, fact_relations.c.relation, memories.c.id)
            .join(memories, memories.c.pk == fact_relations.c.target_pk)
            .where(
                fact_relations.c.namespace == scope.namespace,
                fact_relations.c.source_pk.in_(list(pk_of.values())),
            )
            .order_by(memories.c.pk)
        ).all()
        if not related:
            return results
        by_source: dict[int, dict[str, list[str]]] = {}
        for row in related:
            key = "contradicts" if row.relation == "contradicts" else "supported_by"
            by_source.setdefault(int(row.source_pk), {}).setdefault(key, []).append(str(row.id))
        annotated = []
        for result in results:
            extra = by_source.get(pk_of.get(result.id, -1))
            annotated.append(with_notes(result, **extra) if extra else result)
        return annotated
