"""Forgetting: a memory goes for good, with what consolidation linked to it and its
working-memory copies; stand-alone duplicates are reported, not deleted. One plan
(:func:`plan`) says what a forget takes: :func:`preview` reports it, :func:`forget` carries
it out in the same transaction that read it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Row

from zenbrain import _validation as check
from zenbrain._memory import supersede
from zenbrain._memory.scope import MemoryScope
from zenbrain._storage.validity import mend_after_forget
from zenbrain.stages import forget_stage_rows
from zenbrain.types import FORGETTABLE_LAYERS, ForgetResult

__all__ = ["forget", "preview"]


@dataclass(frozen=True, slots=True)
class ForgetPlan:
    """What forgetting one memory takes: the memory, what consolidation linked to it, and
    the stand-alone memories of the same content, which stay."""

    target: Row[Any]
    linked: list[Row[Any]]
    duplicates: list[Row[Any]]

    @property
    def doomed(self) -> list[Row[Any]]:
        return [self.target, *self.linked]

    @property
    def contents(self) -> set[str]:
        return {str(row.content) for row in self.doomed}

    def result(self, copies: Sequence[Any]) -> ForgetResult:
        """The plan as ``forget`` reports it, with the working-memory ``copies`` it takes."""
        also = [{"id": str(row.id), "layer": str(row.layer)} for row in self.linked]
        also += [{"id": slot.id, "layer": "working"} for slot in copies]
        return ForgetResult(
            forgotten=True,
            also_forgotten=also,
            duplicates=[{"id": str(r.id), "layer": str(r.layer)} for r in self.duplicates],
        )


def _checked(id: object, layer: object) -> tuple[str | None, str]:
    """The layer, checked; the id, or None when no memory can have it."""
    layer = check.check_layer(layer, FORGETTABLE_LAYERS, aliases=True)
    if not isinstance(id, str) or not id:
        return None, layer
    return check.check_storable(id, "id"), layer


def plan(scope: MemoryScope, conn: Connection, id: str, layer: str) -> ForgetPlan | None:
    """What forgetting memory ``id`` of a long-term ``layer`` takes (None: no such memory)."""
    repo = scope.repo
    target = repo.row(conn, id, layer)
    if target is None:
        return None
    linked: list[Row[Any]] = []
    if layer in ("episodic", "semantic"):
        other = "semantic" if layer == "episodic" else "episodic"
        linked_ids = repo.linked_ids(conn, id, of_episode=layer == "episodic")
        linked = [row for i in linked_ids if (row := repo.row(conn, i, other))]
    doomed = [target, *linked]
    contents = {str(row.content) for row in doomed}
    duplicates = repo.same_content(conn, contents, [str(row.id) for row in doomed])
    return ForgetPlan(target, linked, list(duplicates))


def preview(scope: MemoryScope, id: object, layer: object) -> ForgetResult:
    """What :func:`forget` would do, doing nothing: the same plan, not carried out."""
    memory_id, layer = _checked(id, layer)
    if memory_id is None:
        return ForgetResult(forgotten=False)
    with scope.lock:
        if layer == "working":
            return ForgetResult(forgotten=any(s.id == memory_id for s in scope.working.slots()))
        with scope.repo.read() as conn:
            found = plan(scope, conn, memory_id, layer)
        if found is None:
            return ForgetResult(forgotten=False)
        ids, contents = {str(row.id) for row in found.doomed}, found.contents
        copies = [s for s in scope.working.slots() if s.source_id in ids or s.content in contents]
    return found.result(copies)


def forget(scope: MemoryScope, id: object, layer: object) -> ForgetResult:
    memory_id, layer = _checked(id, layer)
    if memory_id is None:
        return ForgetResult(forgotten=False)
    with scope.lock:
        if layer == "working":
            return ForgetResult(forgotten=scope.working.remove(memory_id))
        repo = scope.repo
        with repo.write() as conn:
            found = plan(scope, conn, memory_id, layer)
            if found is None:
                return ForgetResult(forgotten=False)
            doomed = found.doomed
            doomed_ids = [str(row.id) for row in doomed]
            doomed_pks = [int(row.pk) for row in doomed]
            repo.unlink(conn, doomed_ids)
            reopened = mend_after_forget(conn, scope.namespace, doomed)  # the chain skips them
            supersede.reopen(conn, scope.namespace, reopened)
            forget_stage_rows(conn, scope.namespace, doomed_pks)
            repo.delete(conn, doomed_pks)
        copies = scope.working.remove_copies_of(set(doomed_ids), found.contents)
        repo.database.purge(scope.namespace)
    return found.result(copies)
