"""Writing a namespace to a zenbrain archive (:mod:`._archive_format`): every table row of
the namespace, read in one read transaction (one consistent moment of the store), page by
page, written file by file."""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, BinaryIO

import numpy as np
from sqlalchemy import Connection, Row, Select, func, select, text

import zenbrain
from zenbrain._storage.reads import pages_by_key
from zenbrain._storage.schema import (
    SCHEMA_VERSION,
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
    procedures,
    sessions,
    vectors,
)
from zenbrain.exchange._archive_format import (
    ARCHIVE_FORMAT,
    ARCHIVE_VERSION,
    FILES,
    OPTIONAL_COLUMNS,
)
from zenbrain.exchange._container import ArchiveWriter
from zenbrain.exchange._fields import time_text

if TYPE_CHECKING:
    from zenbrain._coordinator import MemoryCoordinator

__all__ = ["ExportReport", "export_archive", "memory_line", "memory_query"]

_PAGE = 1000
Progress = Callable[[int, int], object]


@dataclass(frozen=True, slots=True)
class ExportReport:
    """What an export wrote: the rows of each file, and where."""

    path: str
    counts: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "counts": dict(self.counts)}


def _line(out: IO[str], row: dict[str, Any]) -> None:
    out.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")


def memory_query(namespace: str) -> Select[Any]:
    """A namespace's memories with every layer's details (for :func:`pages_by_key`)."""
    f, p, c = facts.c, procedures.c, core_blocks.c
    fields: tuple[Any, ...] = (
        f.due,
        f.card,
        f.reviews,
        f.access_count,
        f.last_accessed,
        c.label,
        c.pinned,
    )
    fields += (p.trigger, p.steps, p.tools, p.outcome, p.success_rate, p.execution_count)
    return (
        select(memories, *fields)
        .outerjoin(facts, f.memory_pk == memories.c.pk)
        .outerjoin(procedures, p.memory_pk == memories.c.pk)
        .outerjoin(core_blocks, c.memory_pk == memories.c.pk)
        .where(memories.c.namespace == namespace)
    )


def memory_line(row: Row[Any]) -> dict[str, Any]:
    """A memory's row of ``memories.jsonl``."""
    line: dict[str, Any] = {
        "id": row.id,
        "layer": row.layer,
        "content": row.content,
        "context": row.context,
        **{name: getattr(row, name) for name in OPTIONAL_COLUMNS if name in memories.c},
        "emotional_weight": row.emotional_weight,
        "confidence": row.confidence,
        "source": row.source,
        "metadata": row.metadata,
        "created_at": time_text(row.created_at),
        "updated_at": time_text(row.updated_at),
        "valid_from": time_text(row.valid_from),
        "valid_to": time_text(row.valid_to),
        "superseded_by": row.superseded_by,
    }
    if row.due is not None:
        line["fact"] = {
            "due": time_text(row.due),
            "card": row.card,
            "reviews": row.reviews,
            "access_count": row.access_count,
            "last_accessed": time_text(row.last_accessed),
        }
    if row.trigger is not None:
        line["procedure"] = {
            "trigger": row.trigger,
            "steps": row.steps,
            "tools": row.tools,
            "outcome": row.outcome,
            "success_rate": row.success_rate,
            "execution_count": row.execution_count,
        }
    if row.label is not None:
        line["core"] = {"label": row.label, "pinned": bool(row.pinned)}
    return line


def _stored_vectors(conn: Connection, dialect: str, pks: Sequence[int]) -> dict[int, np.ndarray]:
    if dialect == "postgresql":
        if not conn.execute(select(func.to_regclass("zb_pgvectors"))).scalar():
            return {}
        found = conn.execute(
            text("SELECT memory_pk, embedding FROM zb_pgvectors WHERE memory_pk = ANY(:pks)"),
            {"pks": list(pks)},
        ).all()
        return {
            int(pk): np.asarray(v.to_numpy() if hasattr(v, "to_numpy") else v, np.float32)
            for pk, v in found
        }
    query = select(vectors.c.memory_pk, vectors.c.vector).where(vectors.c.memory_pk.in_(list(pks)))
    return {int(pk): np.frombuffer(blob, np.float32) for pk, blob in conn.execute(query).all()}


class _Export:
    def __init__(self, conn: Connection, namespace: str, dialect: str) -> None:
        self.conn, self.namespace, self.dialect = conn, namespace, dialect
        self.ids: dict[int, str] = {}  # memory pk -> id
        self.entity_names: dict[int, dict[str, str]] = {}  # entity pk -> key, context

    def memories(self, progress: Progress | None, total: int) -> Iterator[dict[str, Any]]:
        done = 0
        for page in pages_by_key(self.conn, memory_query(self.namespace), _PAGE):
            for row in page:
                self.ids[int(row.pk)] = str(row.id)
                yield memory_line(row)
            done += len(page)
            if progress is not None:
                progress(done, max(done, total))

    def vectors(self) -> Iterator[dict[str, Any]]:
        pks = list(self.ids)
        for start in range(0, len(pks), _PAGE):
            chunk = pks[start : start + _PAGE]
            found = _stored_vectors(self.conn, self.dialect, chunk)
            for pk in chunk:
                if pk in found:
                    raw = np.asarray(found[pk], dtype="<f4").tobytes()
                    yield {"id": self.ids[pk], "vector": base64.b64encode(raw).decode("ascii")}

    def _scoped(self, table: Any, *order: Any) -> Iterator[Row[Any]]:
        query = select(table).where(table.c.namespace == self.namespace).order_by(*order)
        yield from self.conn.execute(query)

    def links(self) -> Iterator[dict[str, Any]]:
        c = consolidation_links.c
        for row in self._scoped(consolidation_links, c.created_at, c.episode_id):
            yield {
                "episode_id": row.episode_id,
                "fact_id": row.fact_id,
                "created_at": time_text(row.created_at),
            }

    def sessions(self) -> Iterator[dict[str, Any]]:
        for row in self._scoped(sessions, sessions.c.started_at, sessions.c.session_id):
            yield {"session_id": row.session_id, "started_at": time_text(row.started_at)}

    def interactions(self) -> Iterator[dict[str, Any]]:
        for row in self._scoped(interactions, interactions.c.pk):
            yield {
                "session_id": row.session_id,
                "role": row.role,
                "content": row.content,
                "metadata": row.metadata,
                "created_at": time_text(row.created_at),
            }

    def entities(self) -> Iterator[dict[str, Any]]:
        mentioned: dict[int, list[str]] = {}
        query = (
            select(entity_mentions.c.entity_pk, entity_mentions.c.memory_pk)
            .join(entities, entities.c.pk == entity_mentions.c.entity_pk)
            .where(entities.c.namespace == self.namespace)
        )
        for entity_pk, memory_pk in self.conn.execute(query):
            if int(memory_pk) in self.ids:
                mentioned.setdefault(int(entity_pk), []).append(self.ids[int(memory_pk)])
        for row in self._scoped(entities, entities.c.pk):
            self.entity_names[int(row.pk)] = {"key": row.key, "context": row.context}
            yield {
                "name": row.name,
                "key": row.key,
                "context": row.context,
                "created_at": time_text(row.created_at),
                "mentions": sorted(mentioned.get(int(row.pk), [])),
            }

    def entity_links(self) -> Iterator[dict[str, Any]]:
        c = entity_links.c
        for row in self._scoped(entity_links, c.entity_a, c.entity_b):
            if not {int(row.entity_a), int(row.entity_b)} <= self.entity_names.keys():
                continue  # an entity of another namespace: nothing to name it by here
            yield {
                "a": self.entity_names[int(row.entity_a)],
                "b": self.entity_names[int(row.entity_b)],
                "similarity": row.similarity,
                "created_at": time_text(row.created_at),
            }

    def memory_edges(self) -> Iterator[dict[str, Any]]:
        c = memory_edges.c
        for row in self._scoped(memory_edges, c.memory_a, c.memory_b):
            if not {int(row.memory_a), int(row.memory_b)} <= self.ids.keys():
                continue
            yield {
                "a": self.ids[int(row.memory_a)],
                "b": self.ids[int(row.memory_b)],
                "weight": row.weight,
                "updated_at": time_text(row.updated_at),
                "decayed_at": time_text(row.decayed_at),
            }

    def fact_relations(self) -> Iterator[dict[str, Any]]:
        c = fact_relations.c
        for row in self._scoped(fact_relations, c.source_pk, c.target_pk, c.relation):
            if not {int(row.source_pk), int(row.target_pk)} <= self.ids.keys():
                continue
            yield {
                "source": self.ids[int(row.source_pk)],
                "target": self.ids[int(row.target_pk)],
                "relation": row.relation,
                "weight": row.weight,
                "created_at": time_text(row.created_at),
            }

    def fact_priors(self) -> Iterator[dict[str, Any]]:
        for row in self._scoped(fact_priors, fact_priors.c.memory_pk):
            if int(row.memory_pk) in self.ids:
                yield {"id": self.ids[int(row.memory_pk)], "prior": row.prior}

    def fact_replays(self) -> Iterator[dict[str, Any]]:
        for row in self._scoped(fact_replays, fact_replays.c.memory_pk):
            if int(row.memory_pk) not in self.ids:
                continue
            yield {
                "id": self.ids[int(row.memory_pk)],
                "replayed_at": time_text(row.replayed_at),
                "replays": row.replays,
            }


def export_archive(
    memory: MemoryCoordinator,
    target: str | os.PathLike[str] | BinaryIO,
    *,
    embeddings: bool = True,
    progress: Progress | None = None,
) -> ExportReport:
    """Write ``memory``'s namespace to a zenbrain archive at ``target``: a new or empty
    folder, a path ending in ``.zip``, or a binary file object (a zip is written to it).
    ``embeddings=False`` leaves the vectors out (an import then embeds anew, if it can)."""
    database = memory.database
    writer = ArchiveWriter(target)
    counts: dict[str, int] = {}
    try:
        with database.read() as conn:
            total = int(
                conn.execute(
                    select(func.count()).where(memories.c.namespace == memory.namespace)
                ).scalar_one()
            )
            export = _Export(conn, memory.namespace, database.dialect)
            sources: dict[str, Callable[[], Iterator[dict[str, Any]]]] = {
                "memories.jsonl": lambda: export.memories(progress, total),
                "links.jsonl": export.links,
                "sessions.jsonl": export.sessions,
                "interactions.jsonl": export.interactions,
                "entities.jsonl": export.entities,
                "entity_links.jsonl": export.entity_links,
                "memory_edges.jsonl": export.memory_edges,
                "fact_relations.jsonl": export.fact_relations,
                "fact_priors.jsonl": export.fact_priors,
                "fact_replays.jsonl": export.fact_replays,
                "vectors.jsonl": export.vectors,
            }
            assert list(sources) == list(FILES)
            model = memory.embedding_model
            for name, rows in sources.items():
                if name == "vectors.jsonl" and (not embeddings or model is None):
                    continue
                counts[name.removesuffix(".jsonl")] = 0
                with writer.member(name) as out:
                    for row in rows():
                        _line(out, row)
                        counts[name.removesuffix(".jsonl")] += 1
        manifest = {
            "format": ARCHIVE_FORMAT,
            "format_version": ARCHIVE_VERSION,
            "schema_version": SCHEMA_VERSION,
            "zenbrain_version": zenbrain.__version__,
            "namespace": memory.namespace,
            "embedding_model": model if "vectors" in counts else None,
            "embedding_dimension": _dimension(memory) if "vectors" in counts else None,
            "counts": counts,
        }
        with writer.member("manifest.json") as out:
            out.write(json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
    finally:
        writer.close()
    where = "the response" if not isinstance(target, str | os.PathLike) else os.fspath(target)
    return ExportReport(where, counts)


def _dimension(memory: MemoryCoordinator) -> int | None:
    raw = memory.database.get_meta("embedding_dimension")
    return int(raw) if raw is not None and raw.isdigit() else None
