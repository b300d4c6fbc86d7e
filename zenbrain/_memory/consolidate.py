"""Consolidation: emotionally weighted episodes become semantic facts, once each.

Episodes are chosen in a read, summarised and embedded outside the lock, then linked in
one write transaction with INSERT .. ON CONFLICT DO NOTHING on the link: when two
processes consolidate at once, each episode is promoted by exactly one of them, and a
fact is written only together with the link that points at it.
"""

from __future__ import annotations

import logging

from zenbrain._memory import store as store_pipeline
from zenbrain._memory import supersede
from zenbrain._memory.scope import MemoryScope
from zenbrain._storage.records import NewMemory
from zenbrain._storage.timestamps import from_db
from zenbrain.layers._episodic import CONSOLIDATION_BATCH, CONSOLIDATION_WEIGHT
from zenbrain.layers._semantic import DEFAULT_FACT_CONFIDENCE
from zenbrain.providers import Summarizer
from zenbrain.types import ConsolidationReport

__all__ = ["consolidate", "summarise"]

log = logging.getLogger("zenbrain")


def consolidate(scope: MemoryScope) -> ConsolidationReport:
    repo = scope.repo
    now = scope.now()
    with scope.lock, repo.read() as conn:
        episodes = repo.unpromoted_episodes(conn, CONSOLIDATION_WEIGHT, CONSOLIDATION_BATCH)
    facts = [
        NewMemory(
            content=summarise(scope.summarizer, episode.content),
            layer="semantic",
            context=episode.context,
            confidence=DEFAULT_FACT_CONFIDENCE,
            source="consolidation",
            conversation=episode.conversation,
            created_at=now,
            valid_from=from_db(episode.created_at),  # true since the episode said it
        )
        for episode in episodes
    ]
    store_pipeline.embed(scope, facts)
    supersede.plan(scope, facts)  # a resolver's model call, outside the lock
    promoted = 0
    with scope.lock:
        with repo.write() as conn:
            alive = repo.existing_ids(conn, [episode.id for episode in episodes])
            made: dict[str, str] = {}  # summary -> fact id written by this pass
            fresh: list[NewMemory] = []
            for episode, fact in zip(episodes, facts, strict=True):
                if episode.id not in alive:
                    continue  # forgotten since the read
                fact_id = made.get(fact.content) or repo.consolidated_fact(conn, fact.content)
                if not repo.link(conn, episode.id, fact_id or fact.id, now):
                    continue  # another pass promoted it first
                promoted += 1
                if fact_id is None:
                    made[fact.content] = fact.id
                    fresh.append(fact)
            if fresh:
                store_pipeline.write(scope, conn, fresh, now)
        decayed = scope.working.decay(now)
        pruned = 0
        if scope.stages:
            stage_scope = scope.stage_scope()
            with repo.write() as conn:
                for stage in scope.stages:
                    pruned += stage.consolidate(conn, stage_scope, now)
    return ConsolidationReport(promoted=promoted, decayed=decayed, pruned=pruned)


def summarise(summarizer: Summarizer | None, content: str) -> str:
    """The summary of one episode; the episode itself without a (working) summariser."""
    if summarizer is None:
        return content
    try:
        summary = summarizer.summarize([content])
    except Exception as exc:  # a failing model must not stop maintenance
        log.warning("summariser failed, keeping the episode verbatim: %s", exc)
        return content
    if not isinstance(summary, str) or not summary.strip():
        log.warning("summariser returned no text, keeping the episode verbatim")
        return content
    return summary.strip()
