"""Forgetting: a memory goes for good, with what consolidation linked to it and its
working-memory copies; stand-alone duplicates are reported, not deleted."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Row

from zenbrain import _validation as check
from zenbrain.memory import supersede
from zenbrain.memory.scope import MemoryScope
from zenbrain.stages import forget_stage_rows
from zenbrain.storage.validity import mend_after_forget
from zenbrain.types import FORGETTABLE_LAYERS, ForgetResult

__all__ = ["forget"]


def forget(scope: MemoryScope, id: str, layer: str) -> ForgetResult:
    layer = check.check_layer(layer, FORGETTABLE_LAYERS, aliases=True)
    if not isinstance(id, str) or not id:
        return ForgetResult(forgotten=False)
    check.check_storable(id, "id")
    with scope.lock:
        if layer == "working":
            return ForgetResult(forgotten=scope.working.remove(id))
        repo = scope.repo
        with repo.write() as conn:
            target = repo.row(conn, id, layer)
            if target is None:
                return ForgetResult(forgotten=False)
            linked: list[Row[Any]] = []
            if layer in ("episodic", "semantic"):
                other = "semantic" if layer == "episodic" else "episodic"
                linked_ids = repo.linked_ids(conn, id, of_episode=layer == "episodic")
                linked = [row for i in linked_ids if (row := repo.row(conn, i, other))]
            doomed = [target, *linked]
            doomed_ids = [str(row.id) for row in doomed]
            doomed_pks = [int(row.pk) for row in doomed]
            contents = {str(row.content) for row in doomed}
            duplicates = repo.same_content(conn, contents, doomed_ids)
            repo.unlink(conn, doomed_ids)
            reopened = mend_after_forget(conn, scope.namespace, doomed)  # the chain skips them
            supersede.reopen(conn, scope.namespace, reopened)
            forget_stage_rows(conn, scope.namespace, doomed_pks)
            repo.delete(conn, doomed_pks)
        copies = scope.working.remove_copies_of(set(doomed_ids), contents)
        repo.database.purge(scope.namespace)
    also = [{"id": str(row.id), "layer": str(row.layer)} for row in linked]
    also += [{"id": slot.id, "layer": "working"} for slot in copies]
    return ForgetResult(
        forgotten=True,
        also_forgotten=also,
        duplicates=[{"id": str(r.id), "layer": str(r.layer)} for r in duplicates],
    )
