"""Removing what the stages stored about memories that are being deleted.

Called by the coordinator for every deletion (forget, core-block deletion) whether or not a
stage is configured now: a stage that was on yesterday may have left rows. Entities left
with no mention are deleted too, so a forgotten name does not linger in the
cross-context layer.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, delete, select

from zenbrain.storage.schema import (
    entities,
    entity_links,
    entity_mentions,
    fact_priors,
    fact_relations,
    fact_replays,
    memory_edges,
)

__all__ = ["delete_orphan_entities", "forget_stage_rows"]


def delete_orphan_entities(conn: Connection, namespace: str, entity_pks: Sequence[int]) -> int:
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


def forget_stage_rows(conn: Connection, namespace: str, memory_pks: Sequence[int]) -> None:
    """Delete every stage row about ``memory_pks`` (memories of ``namespace``)."""
    pks = list(memory_pks)
    if not pks:
        return
    conn.execute(
        delete(memory_edges).where(
            memory_edges.c.namespace == namespace,
            memory_edges.c.memory_a.in_(pks) | memory_edges.c.memory_b.in_(pks),
        )
    )
    conn.execute(
        delete(fact_relations).where(
            fact_relations.c.namespace == namespace,
            fact_relations.c.source_pk.in_(pks) | fact_relations.c.target_pk.in_(pks),
        )
    )
    for table in (fact_priors, fact_replays):
        conn.execute(
            delete(table).where(table.c.namespace == namespace, table.c.memory_pk.in_(pks))
        )
    mentioned = list(
        conn.execute(
            select(entity_mentions.c.entity_pk)
            .join(entities, entities.c.pk == entity_mentions.c.entity_pk)
            .where(entities.c.namespace == namespace, entity_mentions.c.memory_pk.in_(pks))
        ).scalars()
    )
    if mentioned:
        conn.execute(
            delete(entity_mentions).where(
                entity_mentions.c.memory_pk.in_(pks),
                entity_mentions.c.entity_pk.in_(mentioned),
            )
        )
        delete_orphan_entities(conn, namespace, list(set(mentioned)))
