"""The cross-context layer in the database: one entity seen in several domains, linked.

The rules (which names a text mentions, when two names are the same thing) are
:mod:`zenbrain.layers._cross_context`. On store, entity names are extracted from the content
and recorded once per (namespace, context, key)
in ``zb_entities``, with a row in ``zb_entity_mentions`` per memory. A memory without a
context files its entities under the empty context ``""``.

When an entity first appears in one of the configured contexts (``coordinator.contexts``),
it is compared with the entities of the *other* configured contexts, and pairs whose
names have a word-Jaccard similarity of at least 0.7 are linked in ``zb_entity_links``.
(The original compared every entity with itself, because its entity table had no
context; here a link always joins two different contexts.) The links are the merge
candidates: probably the same thing, seen in two domains.

On recall (no ``context`` filter), the memories that mention an entity linked to an
entity of a matched memory are added to the results, scored
``follow_weight * link similarity * the matched memory's score`` and marked with
``notes["linked_via"]``. With a ``context`` filter recall stays inside that context.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, and_, bindparam, delete, func, or_, select

from zenbrain._storage.schema import entities, entity_links, entity_mentions, memories
from zenbrain._storage.timestamps import to_db
from zenbrain._validation import check_positive_fraction
from zenbrain.layers._cross_context import (
    FOLLOW_WEIGHT,
    LINK_THRESHOLD,
    UNSCOPED,
    extract_entities,
    key_similarity,
    key_words,
)
from zenbrain.stages._base import (
    RecallRequest,
    Stage,
    StageConnection,
    StageScope,
    StoredMemory,
    insert_rows,
    upsert,
    with_notes,
)
from zenbrain.types import SEARCHED_LAYERS, RecallResult

__all__ = ["CrossContextStage", "MergeCandidate", "merge_candidates"]


# Built once: constructing the statement cost more than running it on a single store.
_ENTITY_PKS = select(entities.c.pk, entities.c.key, entities.c.context).where(
    entities.c.namespace == bindparam("namespace"),
    entities.c.key.in_(bindparam("keys", expanding=True)),
)
_KEYS_PER_QUERY = 10_000  # well below SQLite's limit of bound parameters per statement


@dataclass(frozen=True, slots=True)
class MergeCandidate:
    """Two entities of different contexts that are probably the same thing."""

    name: str
    context: str
    other_name: str
    other_context: str
    similarity: float
    mentions: int
    other_mentions: int


class CrossContextStage(Stage):
    """Entity extraction on store, cross-context links, link following on recall."""

    name = "cross_context"
    tables = (entities, entity_mentions, entity_links)

    def __init__(
        self,
        *,
        link_threshold: float = LINK_THRESHOLD,
        follow_links: bool = True,
        follow_weight: float = FOLLOW_WEIGHT,
    ) -> None:
        self.link_threshold = check_positive_fraction(link_threshold, "link_threshold")
        self.follow_links = bool(follow_links)
        self.follow_weight = check_positive_fraction(follow_weight, "follow_weight")

    def __repr__(self) -> str:
        return (
            f"CrossContextStage(link_threshold={self.link_threshold}, "
            f"follow_links={self.follow_links}, follow_weight={self.follow_weight})"
        )

    # ------------------------------------------------------------------ store
    def after_store(
        self, conn: StageConnection, scope: StageScope, stored: Sequence[StoredMemory]
    ) -> None:
        # Only a core block is written again (new content for its label): every other
        # stored memory has a fresh pk (keys are never reused), hence no mentions yet.
        rewritten = [memory.pk for memory in stored if memory.layer == "core"]
        previous: list[int] = []
        if rewritten:
            previous = list(
                conn.execute(
                    select(entity_mentions.c.entity_pk).where(
                        entity_mentions.c.memory_pk.in_(rewritten)
                    )
                ).scalars()
            )
        if previous:  # a core block's new content replaces its old mentions
            conn.execute(delete(entity_mentions).where(entity_mentions.c.memory_pk.in_(rewritten)))
        found = [
            (memory, memory.context or UNSCOPED, entity)
            for memory in stored
            for entity in extract_entities(memory.content)
        ]
        if found:
            keys = {entity.key for _, _, entity in found}
            known = self._entity_pks(conn, scope, keys)
            fresh: dict[tuple[str, str], str] = {}
            for _, context, entity in found:
                if (entity.key, context) not in known:
                    fresh.setdefault((entity.key, context), entity.name)
            if fresh:
                now = to_db(scope.now())
                insert_rows(
                    conn,
                    entities,
                    [
                        {
                            "namespace": scope.namespace,
                            "name": name,
                            "key": key,
                            "context": context,
                            "created_at": now,
                        }
                        for (key, context), name in fresh.items()
                    ],
                    ignore_conflicts_on=("namespace", "key", "context"),
                )
                known = self._entity_pks(conn, scope, keys)
                for key, context in fresh:
                    if context in scope.contexts:
                        self._link(conn, scope, known[key, context], key, context)
            insert_rows(
                conn,
                entity_mentions,
                [
                    {"entity_pk": known[entity.key, context], "memory_pk": memory.pk}
                    for memory, context, entity in found
                ],
                ignore_conflicts_on=("entity_pk", "memory_pk"),
            )
        if previous:
            _delete_orphan_entities(conn, scope.namespace, list(set(previous)))

    @staticmethod
    def _entity_pks(
        conn: StageConnection, scope: StageScope, keys: set[str]
    ) -> dict[tuple[str, str], int]:
        wanted = sorted(keys)
        found: dict[tuple[str, str], int] = {}
        for start in range(0, len(wanted), _KEYS_PER_QUERY):
            chunk = wanted[start : start + _KEYS_PER_QUERY]
            for pk, key, context in conn.execute(
                _ENTITY_PKS, {"namespace": scope.namespace, "keys": chunk}
            ):
                found[str(key), str(context)] = int(pk)
        return found

    def _link(
        self,
        conn: StageConnection,
        scope: StageScope,
        entity_pk: int,
        key: str,
        context: str,
    ) -> None:
        words = key_words(key)
        others = [c for c in scope.contexts if c != context]
        if not words or not others:
            return
        # Word Jaccard >= threshold needs a shared word, so only those rows are compared.
        rows = conn.execute(
            select(entities.c.pk, entities.c.key).where(
                entities.c.namespace == scope.namespace,
                entities.c.context.in_(others),
                or_(*(entities.c.key.contains(word, autoescape=True) for word in words)),
            )
        ).all()
        now = to_db(scope.now())
        links = []
        for row in rows:
            similarity = key_similarity(words, key_words(row.key))
            if similarity >= self.link_threshold:
                a, b = sorted((entity_pk, int(row.pk)))
                links.append(
                    {
                        "namespace": scope.namespace,
                        "entity_a": a,
                        "entity_b": b,
                        "similarity": similarity,
                        "created_at": now,
                    }
                )
        upsert(conn, entity_links, links)

    # ------------------------------------------------------------------ clean-up
    @classmethod
    def forget(cls, conn: StageConnection, namespace: str, memory_pks: Sequence[int]) -> None:
        """Remove the mentions of the memories; entities no memory mentions any more go,
        so a forgotten name does not linger."""
        if not memory_pks:
            return
        mentioned = list(
            conn.execute(
                select(entity_mentions.c.entity_pk)
                .join(entities, entities.c.pk == entity_mentions.c.entity_pk)
                .where(
                    entities.c.namespace == namespace,
                    entity_mentions.c.memory_pk.in_(list(memory_pks)),
                )
            ).scalars()
        )
        if mentioned:
            conn.execute(
                delete(entity_mentions).where(
                    entity_mentions.c.memory_pk.in_(list(memory_pks)),
                    entity_mentions.c.entity_pk.in_(mentioned),
                )
            )
            _delete_orphan_entities(conn, namespace, list(set(mentioned)))

    @classmethod
    def counts(cls, conn: StageConnection, namespace: str) -> dict[str, int]:
        """The layer's size in ``namespace``, as ``health()`` reports it."""
        entity_count = conn.execute(
            select(func.count()).select_from(entities).where(entities.c.namespace == namespace)
        ).scalar_one()
        link_count = conn.execute(
            select(func.count())
            .select_from(entity_links)
            .where(entity_links.c.namespace == namespace)
        ).scalar_one()
        return {"entities": int(entity_count), "links": int(link_count)}

    @classmethod
    def drop_namespace(cls, conn: StageConnection, namespace: str) -> None:
        in_namespace = select(entities.c.pk).where(entities.c.namespace == namespace)
        conn.execute(delete(entity_mentions).where(entity_mentions.c.entity_pk.in_(in_namespace)))
        conn.execute(delete(entity_links).where(entity_links.c.namespace == namespace))
        conn.execute(delete(entities).where(entities.c.namespace == namespace))

    # ------------------------------------------------------------------ recall
    def rerank(
        self,
        conn: StageConnection,
        scope: StageScope,
        request: RecallRequest,
        results: list[RecallResult],
    ) -> list[RecallResult]:
        if not self.follow_links or request.context is not None or not results:
            return results
        layers = [layer for layer in request.layers if layer in SEARCHED_LAYERS]
        if not layers:
            return results
        # Links join entities of configured contexts only, and an entity has the context
        # of the memory that mentions it: memories of other contexts lead nowhere.
        seeds = [
            r
            for r in results[: request.limit]
            if r.layer in SEARCHED_LAYERS and r.context in scope.contexts
        ]
        if not seeds:
            return results
        # Looked up by id alone so SQLite uses the unique index; the namespace is checked after.
        seed_pks = {
            str(row.id): int(row.pk)
            for row in conn.execute(
                select(memories.c.id, memories.c.pk, memories.c.namespace).where(
                    memories.c.id.in_([r.id for r in seeds])
                )
            )
            if row.namespace == scope.namespace
        }
        if not seed_pks:
            return results
        score_of_pk = {seed_pks[r.id]: r.score for r in seeds if r.id in seed_pks}
        seed_entity = entities.alias()
        linked_entity = entities.alias()
        hops = conn.execute(
            select(
                entity_mentions.c.memory_pk.label("seed_pk"),
                entity_links.c.similarity,
                linked_entity.c.pk.label("linked_pk"),
                linked_entity.c.name,
                linked_entity.c.context,
            )
            .join(seed_entity, seed_entity.c.pk == entity_mentions.c.entity_pk)
            .join(
                entity_links,
                or_(
                    entity_links.c.entity_a == seed_entity.c.pk,
                    entity_links.c.entity_b == seed_entity.c.pk,
                ),
            )
            .join(
                linked_entity,
                and_(
                    or_(
                        linked_entity.c.pk == entity_links.c.entity_a,
                        linked_entity.c.pk == entity_links.c.entity_b,
                    ),
                    linked_entity.c.pk != seed_entity.c.pk,
                ),
            )
            .where(
                seed_entity.c.namespace == scope.namespace,
                entity_links.c.namespace == scope.namespace,
                entity_mentions.c.memory_pk.in_(list(score_of_pk)),
            )
        ).all()
        if not hops:
            return results
        reach: dict[int, tuple[float, str, str]] = {}
        for hop in hops:
            reach_score = self.follow_weight * float(hop.similarity) * score_of_pk[hop.seed_pk]
            best = reach.get(int(hop.linked_pk))
            if best is None or reach_score > best[0]:
                reach[int(hop.linked_pk)] = (reach_score, str(hop.name), str(hop.context))
        mentions = conn.execute(
            select(entity_mentions.c.memory_pk, entity_mentions.c.entity_pk)
            .join(memories, memories.c.pk == entity_mentions.c.memory_pk)
            .where(
                entity_mentions.c.entity_pk.in_(list(reach)),
                memories.c.namespace == scope.namespace,
                memories.c.layer.in_(layers),
            )
        ).all()
        present = {r.id for r in results}
        scores: dict[int, float] = {}
        via: dict[int, dict[str, str]] = {}
        for mention in mentions:
            score, name, context = reach[int(mention.entity_pk)]
            pk = int(mention.memory_pk)
            if score > scores.get(pk, 0.0):
                scores[pk] = score
                via[pk] = {"entity": name, "context": context}
        loaded = scope.load_results(conn, scores)
        added = [
            with_notes(result, linked_via=via[pk])
            for pk, result in loaded.items()
            if result.id not in present and result.score > 0
        ]
        added.sort(key=lambda r: r.score, reverse=True)
        merged = results + added[: request.limit]
        merged.sort(key=lambda r: r.score, reverse=True)
        return merged


def _delete_orphan_entities(
    conn: StageConnection, namespace: str, entity_pks: Sequence[int]
) -> int:
    """Delete those of ``entity_pks`` (in ``namespace``) that no memory mentions any more,
    with their links; returns how many went."""
    if not entity_pks:
        return 0
    still_mentioned = select(entity_mentions.c.entity_pk).where(
        entity_mentions.c.entity_pk.in_(list(entity_pks))
    )
    orphans = list(
        conn.execute(
            select(entities.c.pk).where(
                entities.c.namespace == namespace,
                entities.c.pk.in_(list(entity_pks)),
                entities.c.pk.not_in(still_mentioned),
            )
        ).scalars()
    )
    if not orphans:
        return 0
    conn.execute(
        delete(entity_links).where(
            entity_links.c.namespace == namespace,
            entity_links.c.entity_a.in_(orphans) | entity_links.c.entity_b.in_(orphans),
        )
    )
    conn.execute(delete(entities).where(entities.c.pk.in_(orphans)))
    return len(orphans)


def merge_candidates(conn: Connection, namespace: str, limit: int = 20) -> list[MergeCandidate]:
    """Linked entity pairs of ``namespace``, most similar first."""
    left = entities.alias()
    right = entities.alias()
    rows = conn.execute(
        select(
            left.c.pk.label("left_pk"),
            left.c.name.label("left_name"),
            left.c.context.label("left_context"),
            right.c.pk.label("right_pk"),
            right.c.name.label("right_name"),
            right.c.context.label("right_context"),
            entity_links.c.similarity,
        )
        .join(left, left.c.pk == entity_links.c.entity_a)
        .join(right, right.c.pk == entity_links.c.entity_b)
        .where(entity_links.c.namespace == namespace, left.c.namespace == namespace)
        .order_by(entity_links.c.similarity.desc(), left.c.name, right.c.name)
        .limit(limit)
    ).all()
    pks = {int(row.left_pk) for row in rows} | {int(row.right_pk) for row in rows}
    counts: dict[int, int] = {}
    if pks:
        counts = {
            int(pk): int(n)
            for pk, n in conn.execute(
                select(entity_mentions.c.entity_pk, func.count())
                .where(entity_mentions.c.entity_pk.in_(list(pks)))
                .group_by(entity_mentions.c.entity_pk)
            ).all()
        }
    return [
        MergeCandidate(
            name=row.left_name,
            context=row.left_context,
            other_name=row.right_name,
            other_context=row.right_context,
            similarity=round(float(row.similarity), 6),
            mentions=counts.get(int(row.left_pk), 0),
            other_mentions=counts.get(int(row.right_pk), 0),
        )
        for row in rows
    ]
