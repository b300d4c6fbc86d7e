"""How the coordinator calls a stage: which hooks, when, with what. Runs on SQLite and
PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from zenbrain import MemoryCoordinator
from zenbrain.stages import (
    CrossContextStage,
    RecallRequest,
    Stage,
    StageConnection,
    StageScope,
    StoredMemory,
)
from zenbrain.types import RecallResult


class Recorder(Stage):
    """Records every call; halves the score of memories mentioning "demote"."""

    name = "recorder"
    writes_on_recall = True

    def __init__(self) -> None:
        self.stored: list[StoredMemory] = []
        self.requests: list[RecallRequest] = []
        self.recalled: list[list[str]] = []
        self.namespaces: set[str] = set()

    def after_store(
        self, conn: StageConnection, scope: StageScope, stored: Sequence[StoredMemory]
    ) -> None:
        self.namespaces.add(scope.namespace)
        self.stored.extend(stored)

    def rerank(
        self,
        conn: StageConnection,
        scope: StageScope,
        request: RecallRequest,
        results: list[RecallResult],
    ) -> list[RecallResult]:
        self.requests.append(request)
        changed = [replace(r, score=r.score / 2) if "demote" in r.content else r for r in results]
        return sorted(changed, key=lambda r: r.score, reverse=True)

    def after_recall(
        self,
        conn: StageConnection,
        scope: StageScope,
        request: RecallRequest,
        results: Sequence[RecallResult],
    ) -> None:
        self.recalled.append([r.id for r in results])

    def consolidate(self, conn: StageConnection, scope: StageScope, now: datetime) -> int:
        return 3


def test_hooks_see_stores_recalls_and_consolidations(store_location: str) -> None:
    recorder = Recorder()
    with MemoryCoordinator(store_location, stages=[recorder]) as brain:
        first, second = brain.store_many(
            ["Harbour walk demote notes", {"content": "Harbour walk at dawn", "context": "work"}]
        )
        assert [(s.id, s.layer, s.context) for s in recorder.stored] == [
            (first, "semantic", None),
            (second, "semantic", "work"),
        ]
        results = brain.recall("harbour walk", limit=5, context="work")
        assert recorder.requests[-1].terms == ("harbour", "walk")
        assert recorder.requests[-1].context == "work"
        assert recorder.recalled == [[r.id for r in results]]
        both = brain.recall("harbour walk", layers=["semantic"])
        assert [r.id for r in both] == [second, first]  # the stage demoted the first
        brain.set_core_block("persona", "Likes harbour walks")
        brain.set_core_block("persona", "Likes mountain hikes")
        assert [s.content for s in recorder.stored[-2:]] == [
            "Likes harbour walks",
            "Likes mountain hikes",
        ]
        brain.store("I am absolutely thrilled, we won the sailing race!", layer="episodic")
        report = brain.consolidate()
        assert report.promoted == 1 and report.pruned == 3
        assert recorder.stored[-1].layer == "semantic"  # the fact consolidation made
        brain.for_namespace("other").store("Elsewhere")
        assert recorder.namespaces == {"default", "other"}


def test_no_write_transaction_for_stages_that_do_not_write(store_location: str) -> None:
    with MemoryCoordinator(store_location, stages=[CrossContextStage()]) as brain:
        brain.store("Harbour walk at dawn")
        assert not any(stage.writes_on_recall for stage in brain.stages)
        assert brain.recall("harbour")[0].content == "Harbour walk at dawn"
        assert brain.for_namespace("x").stages == brain.stages
