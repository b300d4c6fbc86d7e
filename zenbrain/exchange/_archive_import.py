"""Restoring a zenbrain archive into a namespace: in one write transaction (all or
nothing), after :mod:`._archive_read` has checked every row.

Into a namespace that holds nothing, and a store where none of the archive's ids is taken,
memories keep their ids; otherwise every memory gets a new id and every reference
(replaced-by, consolidation links, entity mentions, the stages' rows, vectors) follows it.
A session whose id the namespace uses already is renamed ``<id>.imported`` (then
``.imported2``, ...). A core block whose label the namespace has already is refused before
anything is written. Claims (what a fact states, for knowledge updates) are not archived:
the next store re-reads them from the imported memories (the claim backlog).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
from sqlalchemy import Connection, select

from zenbrain._memory.embedding import DIMENSION_KEY, MODEL_KEY
from zenbrain._storage import claims
from zenbrain._storage.indexes import IndexedText, IndexedVector
from zenbrain._storage.records import content_hash, indexed_text, new_memory_id
from zenbrain._storage.schema import (
    consolidation_links,
    core_blocks,
    entities,
    entity_links,
    entity_mentions,
    fact_priors,
    fact_relations,
    fact_replays,
    facts,
    interactions,
    memories,
    memory_edges,
    meta,
    procedures,
    sessions,
)
from zenbrain._storage.timestamps import to_db
from zenbrain._storage.writes import insert_many
from zenbrain.errors import InvalidInputError, ProviderError
from zenbrain.exchange._archive_format import OPTIONAL_COLUMNS
from zenbrain.exchange._archive_read import ArchiveContent, read_archive
from zenbrain.text import tokenize

if TYPE_CHECKING:
    from zenbrain._coordinator import MemoryCoordinator

__all__ = ["ImportReport", "import_archive", "restore"]

Progress = Callable[[int, int], object]
_CHUNK = 500
_EMBED_BATCH = 64


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import stored (or, with ``dry_run``, would store): rows per kind, whether
    ids were kept, what happened to the embeddings (``reused``: the archive's, same model;
    ``embedded``: computed by the store's embedder; ``skipped``: the archive's model is not
    the store's and no embedder was given, run ``embed_missing`` later; ``none``), the
    sessions renamed, and the ids of the memories stored in order."""

    format: str
    counts: dict[str, int]
    dry_run: bool
    ids_kept: bool = True
    vectors: str = "none"
    renamed_sessions: dict[str, str] = field(default_factory=dict)
    ids: list[str] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    layers: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "dry_run": self.dry_run,
            "counts": dict(self.counts),
            "ids_kept": self.ids_kept,
            "vectors": self.vectors,
            "renamed_sessions": dict(self.renamed_sessions),
            "skipped": dict(self.skipped),
            "layers": dict(self.layers),
            "imported": self.counts.get("memories", 0),
            "ids": list(self.ids),
        }


def _db(moment: datetime | None) -> datetime | None:
    return None if moment is None else to_db(moment)


def _taken_ids(conn: Connection, ids: Sequence[str]) -> bool:
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start : start + _CHUNK])
        if conn.execute(select(memories.c.id).where(memories.c.id.in_(chunk)).limit(1)).first():
            return True
    return False


def _namespace_used(conn: Connection, namespace: str) -> bool:
    return any(
        conn.execute(
            select(table.c.namespace).where(table.c.namespace == namespace).limit(1)
        ).first()
        for table in (memories, sessions, interactions, entities)
    )


def _session_names(conn: Connection, namespace: str, wanted: list[str]) -> dict[str, str]:
    """New names for the sessions of ``wanted`` whose id the namespace uses already (in a
    session row or a message)."""
    taken: set[str] = set()
    for table in (sessions, interactions):
        query = select(table.c.session_id).where(table.c.namespace == namespace).distinct()
        taken.update(str(s) for s in conn.execute(query).scalars())
    renamed: dict[str, str] = {}
    for session_id in wanted:
        if session_id not in taken:
            continue
        number, name = 1, f"{session_id}.imported"[:200]
        while name in taken:
            number += 1
            name = f"{session_id[:180]}.imported{number}"
        taken.add(name)
        renamed[session_id] = name
    return renamed


def _check_labels(conn: Connection, namespace: str, content: ArchiveContent) -> None:
    found = content.rows.get("memories", [])
    labels = {row["core"]["label"]: row for row in found if "core" in row}
    if not labels:
        return
    query = select(core_blocks.c.label).where(
        core_blocks.c.namespace == namespace, core_blocks.c.label.in_(list(labels))
    )
    for label in conn.execute(query).scalars():
        raise InvalidInputError(
            f"{labels[label]['_where']}: the core block {label!r} exists in namespace "
            f"{namespace!r} already: delete it (delete_core_block) or import into another "
            "namespace; nothing was imported"
        )


class _Plan:
    """What the write will do, decided in a read before it (and checked again in it)."""

    def __init__(self, memory: MemoryCoordinator, content: ArchiveContent) -> None:
        self.memory, self.content = memory, content
        self.namespace = memory.namespace
        rows = content.rows.get("memories", [])
        with memory.database.read() as conn:
            self.decide(conn)
        self.vectors = self._vector_plan(rows)

    def decide(self, conn: Connection) -> None:
        rows = self.content.rows.get("memories", [])
        _check_labels(conn, self.namespace, self.content)
        ids = [row["id"] for row in rows]
        self.keep_ids = not _namespace_used(conn, self.namespace) and not _taken_ids(conn, ids)
        self.ids = {i: (i if self.keep_ids else new_memory_id()) for i in ids}
        kinds = self.content.rows
        told = [*kinds.get("sessions", []), *kinds.get("interactions", [])]
        wanted = list(dict.fromkeys(row["session_id"] for row in told))
        self.sessions = _session_names(conn, self.namespace, wanted)

    def _vector_plan(self, rows: list[dict[str, Any]]) -> str:
        manifest, memory = self.content.manifest, self.memory
        recorded = memory.embedding_model
        dimension = memory.database.get_meta("embedding_dimension")
        self.adopt_model = False
        if (
            self.content.vectors
            and recorded is not None
            and recorded == manifest["embedding_model"]
            and dimension == str(manifest["embedding_dimension"])
        ):
            return "reused"
        if self.content.vectors and recorded is None and memory.embedder is None:
            self.adopt_model = True  # the store takes the archive's model, as its source had
            return "reused"
        if memory.embedder is not None and rows:
            return "embedded"
        return "skipped" if self.content.vectors else "none"

    def embed(self, progress: Progress | None) -> dict[str, np.ndarray]:
        """The vectors to store, by archive id: the archive's, or the embedder's."""
        if self.vectors == "reused":
            return self.content.vectors
        if self.vectors != "embedded":
            return {}
        from zenbrain._memory.embedding import to_unit_matrix

        provider = self.memory.embedder
        assert provider is not None
        rows = self.content.rows["memories"]
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(rows), _EMBED_BATCH):
            batch = rows[start : start + _EMBED_BATCH]
            texts = [_indexed(row) for row in batch]
            try:
                raw = provider.embed_documents(texts)
            except ProviderError:
                raise
            except Exception as exc:
                raise ProviderError(f"the embedding provider failed: {exc}") from exc
            matrix = to_unit_matrix(raw, len(texts), int(provider.dimension))
            found.update((row["id"], vector) for row, vector in zip(batch, matrix, strict=True))
            if progress is not None:
                progress(start + len(batch), len(rows))
        return found


def _indexed(row: dict[str, Any]) -> str:
    procedure = row.get("procedure") or {}
    return indexed_text(
        row["layer"],
        row["content"],
        steps=procedure.get("steps") or (),
        outcome=procedure.get("outcome") or "",
        label=(row.get("core") or {}).get("label"),
    )


def _write(
    conn: Connection, plan: _Plan, vectors: dict[str, np.ndarray], progress: Progress | None
) -> list[str]:
    database, namespace, content = plan.memory.database, plan.namespace, plan.content
    plan.decide(conn)  # again, in the write: another writer may have come in between
    rows = content.rows.get("memories", [])
    pks = database.allocate_keys(conn, len(rows))
    pk_of = {row["id"]: pk for row, pk in zip(rows, pks, strict=True)}
    for start in range(0, len(rows), _CHUNK):
        _insert_memories(conn, plan, rows[start : start + _CHUNK], pk_of)
        if progress is not None:
            progress(min(start + _CHUNK, len(rows)), len(rows))
    if plan.adopt_model:
        _adopt_model(conn, plan)
    contexts = {row["id"]: (row["layer"], row["context"]) for row in rows}
    database.vectors.add(conn, [
        IndexedVector(pk_of[key], namespace, *contexts[key], vector)
        for key, vector in vectors.items()
    ])  # fmt: skip
    if pks:
        claims.note_backlog(conn, namespace, min(pks))
    _write_related(conn, plan, pk_of)
    return [plan.ids[row["id"]] for row in rows]


def _adopt_model(conn: Connection, plan: _Plan) -> None:
    """Record the archive's embedding model in a store that records none, and make its
    vector index: the next open with that model calibrates it, another model is refused."""
    database, manifest = plan.memory.database, plan.content.manifest
    found = conn.execute(select(meta.c.value).where(meta.c.key == MODEL_KEY)).scalar()
    if found is not None and found != manifest["embedding_model"]:
        raise InvalidInputError(
            f"the store was bound to the embedding model {found!r} while the import ran; "
            f"the archive's vectors are of {manifest['embedding_model']!r}: import again"
        )
    database.set_meta(conn, MODEL_KEY, str(manifest["embedding_model"]))
    database.set_meta(conn, DIMENSION_KEY, str(manifest["embedding_dimension"]))
    database.vectors.install(conn, int(manifest["embedding_dimension"]))


def _column(plan: _Plan, name: str, value: Any) -> Any:
    """An optional column's value as stored: a conversation follows its session's rename."""
    return plan.sessions.get(value, value) if name == "conversation" else value


def _insert_memories(
    conn: Connection, plan: _Plan, rows: list[dict[str, Any]], pk_of: dict[str, int]
) -> None:
    """Memories with their layer rows and lexical index entries."""
    database, namespace, ids = plan.memory.database, plan.namespace, plan.ids
    insert_many(conn, memories, [
        {
            "pk": pk_of[row["id"]], "id": ids[row["id"]], "namespace": namespace,
            "layer": row["layer"], "content": row["content"],
            "content_hash": content_hash(row["content"]), "context": row["context"],
            "emotional_weight": row["emotional_weight"], "confidence": row["confidence"],
            "source": row["source"], "metadata": row["metadata"],
            "created_at": _db(row["created_at"]), "updated_at": _db(row["updated_at"]),
            "valid_from": _db(row["valid_from"]), "valid_to": _db(row["valid_to"]),
            "superseded_by": ids.get(row["superseded_by"], row["superseded_by"]),
            **{name: _column(plan, name, row[name]) for name in OPTIONAL_COLUMNS
               if name in memories.c},
        }
        for row in rows
    ])  # fmt: skip
    side = {"fact": facts, "procedure": procedures, "core": core_blocks}
    for key, table in side.items():
        insert_many(conn, table, [
            {
                "memory_pk": pk_of[row["id"]], "namespace": namespace,
                **{
                    name: _db(value) if isinstance(value, datetime) else value
                    for name, value in row[key].items()
                },
            }
            for row in rows if key in row
        ])  # fmt: skip
    database.lexical.add(conn, [
        IndexedText(pk_of[row["id"]], namespace, row["layer"], row["context"],
                    tokenize(_indexed(row)))
        for row in rows
    ])  # fmt: skip


def _write_related(conn: Connection, plan: _Plan, pk_of: dict[str, int]) -> None:
    namespace, rows, ids = plan.namespace, plan.content.rows, plan.ids
    insert_many(conn, consolidation_links, [
        {"namespace": namespace, "episode_id": ids[r["episode_id"]],
         "fact_id": ids[r["fact_id"]], "created_at": _db(r["created_at"])}
        for r in rows.get("links", [])
    ])  # fmt: skip
    name = plan.sessions
    insert_many(conn, sessions, [
        {"namespace": namespace, "session_id": name.get(r["session_id"], r["session_id"]),
         "started_at": _db(r["started_at"])}
        for r in rows.get("sessions", [])
    ])  # fmt: skip
    turns = rows.get("interactions", [])
    for start in range(0, len(turns), _CHUNK):  # in order: a session's messages keep theirs
        insert_many(conn, interactions, [
            {"namespace": namespace, "session_id": name.get(r["session_id"], r["session_id"]),
             "role": r["role"], "content": r["content"], "metadata": r["metadata"],
             "created_at": _db(r["created_at"])}
            for r in turns[start : start + _CHUNK]
        ])  # fmt: skip
    found = rows.get("entities", [])
    insert_many(
        conn,
        entities,
        [
            {"namespace": namespace, "name": r["name"], "key": r["key"],
             "context": r["context"], "created_at": _db(r["created_at"])}
            for r in found
        ],
        ignore_conflicts_on=("namespace", "key", "context"),
    )  # fmt: skip
    query = select(entities.c.pk, entities.c.key, entities.c.context).where(
        entities.c.namespace == namespace
    )
    entity_pk = {(str(k), str(c)): int(pk) for pk, k, c in conn.execute(query)}
    insert_many(
        conn,
        entity_mentions,
        [
            {"entity_pk": entity_pk[(r["key"], r["context"])], "memory_pk": pk_of[m]}
            for r in found
            for m in r["mentions"]
        ],
        ignore_conflicts_on=("entity_pk", "memory_pk"),
    )
    insert_many(
        conn,
        entity_links,
        [
            {"namespace": namespace, "entity_a": entity_pk[r["a"]], "entity_b": entity_pk[r["b"]],
             "similarity": r["similarity"], "created_at": _db(r["created_at"])}
            for r in rows.get("entity_links", [])
        ],
        ignore_conflicts_on=("entity_a", "entity_b"),
    )  # fmt: skip
    insert_many(conn, memory_edges, [
        {"namespace": namespace, "memory_a": pk_of[r["a"]], "memory_b": pk_of[r["b"]],
         "weight": r["weight"], "updated_at": _db(r["updated_at"]),
         "decayed_at": _db(r["decayed_at"])}
        for r in rows.get("memory_edges", [])
    ])  # fmt: skip
    insert_many(conn, fact_relations, [
        {"namespace": namespace, "source_pk": pk_of[r["source"]],
         "target_pk": pk_of[r["target"]], "relation": r["relation"], "weight": r["weight"],
         "created_at": _db(r["created_at"])}
        for r in rows.get("fact_relations", [])
    ])  # fmt: skip
    insert_many(conn, fact_priors, [
        {"memory_pk": pk_of[r["id"]], "namespace": namespace, "prior": r["prior"]}
        for r in rows.get("fact_priors", [])
    ])  # fmt: skip
    insert_many(conn, fact_replays, [
        {"memory_pk": pk_of[r["id"]], "namespace": namespace,
         "replayed_at": _db(r["replayed_at"]), "replays": r["replays"]}
        for r in rows.get("fact_replays", [])
    ])  # fmt: skip


def _by_layer(content: ArchiveContent) -> dict[str, int]:
    found: dict[str, int] = {}
    for row in content.rows.get("memories", []):
        found[row["layer"]] = found.get(row["layer"], 0) + 1
    return found


def restore(
    memory: MemoryCoordinator,
    content: ArchiveContent,
    *,
    dry_run: bool = False,
    progress: Progress | None = None,
    format: str = "archive",
    skipped: dict[str, int] | None = None,
) -> ImportReport:
    """Write checked archive content into ``memory``'s namespace (see the module);
    ``skipped``: what the source held that was not imported, reported as given."""
    plan = _Plan(memory, content)
    kinds = ["memories", *(k for k in content.rows if k != "memories")]
    counts = {kind: content.count(kind) for kind in kinds}
    if content.vectors:
        counts["vectors"] = len(content.vectors)
    report: dict[str, Any] = {
        "format": format, "counts": counts, "ids_kept": plan.keep_ids,
        "vectors": plan.vectors, "renamed_sessions": plan.sessions,
        "skipped": dict(skipped or {}),
        "layers": _by_layer(content),
    }  # fmt: skip
    if dry_run:
        return ImportReport(dry_run=True, **report)
    embedding, total = plan.vectors == "embedded", counts["memories"]
    steps = 2 * total if embedding else total  # embedding, then writing, on one bar

    def embedded(done: int, _: int) -> None:
        if progress is not None:
            progress(done, steps)

    def written(done: int, _: int) -> None:
        if progress is not None:
            progress(done + (total if embedding else 0), steps)

    vectors = plan.embed(embedded)
    with memory.database.write() as conn:
        stored = _write(conn, plan, vectors, written)
    report.update(ids_kept=plan.keep_ids, renamed_sessions=plan.sessions)
    return ImportReport(dry_run=False, ids=stored, **report)


def import_archive(
    memory: MemoryCoordinator,
    source: str | os.PathLike[str] | bytes,
    *,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> ImportReport:
    """Restore the zenbrain archive at ``source`` (a folder, a ``.zip``, or a zip's bytes)
    into ``memory``'s namespace, all or nothing; ``dry_run``: check everything and report
    what would be stored, writing nothing."""
    return restore(memory, read_archive(source), dry_run=dry_run, progress=progress)
