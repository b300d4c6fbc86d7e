"""Reading a zenbrain archive back: every file parsed and every row checked (types, ranges,
times, and that every reference names a memory or entity of the archive) before anything
is written. A bad row raises :class:`~zenbrain.errors.InvalidInputError` naming the file,
the line and the field."""

from __future__ import annotations

import base64
import binascii
import json
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from zenbrain.errors import InvalidInputError
from zenbrain.exchange._archive_format import FILES, LAYERS, OPTIONAL_COLUMNS, check_manifest
from zenbrain.exchange._container import ArchiveFiles
from zenbrain.exchange._fields import Fields, json_lines
from zenbrain.layers import validate_label

__all__ = ["ArchiveContent", "read_archive"]

_ID_CHARS = 36
_NAME_CHARS = 200


@dataclass(slots=True)
class ArchiveContent:
    """An archive's rows, checked; times as aware datetimes, vectors as float32 arrays."""

    manifest: dict[str, Any]
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    vectors: dict[str, np.ndarray] = field(default_factory=dict)

    def count(self, kind: str) -> int:
        return len(self.vectors) if kind == "vectors" else len(self.rows.get(kind, []))


def _short(fields: Fields, name: str, value: str | None, limit: int) -> Any:
    if value is not None and len(value) > limit:
        raise fields.fail(name, f"at most {limit} characters", value)
    return value


def _memory(f: Fields) -> dict[str, Any]:
    layer = f.choice("layer", LAYERS)
    row: dict[str, Any] = {
        "id": _short(f, "id", f.text("id"), _ID_CHARS),
        "layer": layer,
        "content": f.text("content"),
        "context": _short(f, "context", f.text("context", optional=True), _NAME_CHARS),
        "emotional_weight": f.number("emotional_weight", optional=True, low=0.0, high=1.0),
        "confidence": f.number("confidence", optional=True, low=0.0, high=1.0),
        "source": _short(f, "source", f.text("source", optional=True, empty=True), _NAME_CHARS),
        "metadata": f.mapping("metadata", optional=True) or {},
        "created_at": f.time("created_at"),
        "updated_at": f.time("updated_at"),
        "valid_from": f.time("valid_from", optional=True),
        "valid_to": f.time("valid_to", optional=True),
        "superseded_by": _short(
            f, "superseded_by", f.text("superseded_by", optional=True), _ID_CHARS
        ),
    }
    for name in OPTIONAL_COLUMNS:
        row[name] = _short(f, name, f.text(name, optional=True), _NAME_CHARS)
    fact = f.nested("fact", optional=True)
    if fact is not None:
        row["fact"] = {
            "due": fact.time("due"),
            "card": fact.mapping("card"),
            "reviews": fact.integer("reviews"),
            "access_count": fact.integer("access_count"),
            "last_accessed": fact.time("last_accessed", optional=True),
        }
    procedure = f.nested("procedure", optional=True)
    if procedure is not None:
        row["procedure"] = {
            "trigger": procedure.text("trigger", empty=True),
            "steps": procedure.strings("steps"),
            "tools": procedure.strings("tools"),
            "outcome": procedure.text("outcome", empty=True),
            "success_rate": procedure.number("success_rate", low=0.0, high=1.0),
            "execution_count": procedure.integer("execution_count"),
        }
    core = f.nested("core", optional=layer != "core")
    if core is not None:
        try:
            label = validate_label(core.raw.get("label"))
        except InvalidInputError as exc:
            raise core.fail("label", f"a core block label ({exc})", core.raw.get("label")) from exc
        row["core"] = {"label": label, "pinned": core.boolean("pinned")}
    return row


def _entity_ref(f: Fields, name: str) -> tuple[str, str]:
    ref = f.nested(name)
    assert ref is not None
    return str(ref.text("key")), str(ref.text("context", empty=True))


_READERS: dict[str, Any] = {
    "memories": _memory,
    "links": lambda f: {
        "episode_id": f.text("episode_id"),
        "fact_id": f.text("fact_id"),
        "created_at": f.time("created_at"),
    },
    "sessions": lambda f: {
        "session_id": _short(f, "session_id", f.text("session_id"), _NAME_CHARS),
        "started_at": f.time("started_at"),
    },
    "interactions": lambda f: {
        "session_id": _short(f, "session_id", f.text("session_id"), _NAME_CHARS),
        "role": _short(f, "role", f.text("role"), 50),
        "content": f.text("content", empty=True),
        "metadata": f.mapping("metadata", optional=True) or {},
        "created_at": f.time("created_at"),
    },
    "entities": lambda f: {
        "name": _short(f, "name", f.text("name"), _NAME_CHARS),
        "key": _short(f, "key", f.text("key"), _NAME_CHARS),
        "context": _short(f, "context", f.text("context", empty=True), _NAME_CHARS),
        "created_at": f.time("created_at"),
        "mentions": f.strings("mentions", optional=True) or [],
    },
    "entity_links": lambda f: {
        "a": _entity_ref(f, "a"),
        "b": _entity_ref(f, "b"),
        "similarity": f.number("similarity"),
        "created_at": f.time("created_at"),
    },
    "memory_edges": lambda f: {
        "a": f.text("a"),
        "b": f.text("b"),
        "weight": f.number("weight"),
        "updated_at": f.time("updated_at"),
        "decayed_at": f.time("decayed_at"),
    },
    "fact_relations": lambda f: {
        "source": f.text("source"),
        "target": f.text("target"),
        "relation": _short(f, "relation", f.text("relation"), 20),
        "weight": f.number("weight"),
        "created_at": f.time("created_at"),
    },
    "fact_priors": lambda f: {"id": f.text("id"), "prior": f.number("prior")},
    "fact_replays": lambda f: {
        "id": f.text("id"),
        "replayed_at": f.time("replayed_at"),
        "replays": f.integer("replays"),
    },
}

# Fields naming a memory of the archive, per file: a row naming another is refused.
_MEMORY_REFERENCES = {
    "links": ("episode_id", "fact_id"),
    "memory_edges": ("a", "b"),
    "fact_relations": ("source", "target"),
    "fact_priors": ("id",),
    "fact_replays": ("id",),
}


def _vector(f: Fields, dimension: int | None) -> tuple[str, np.ndarray]:
    raw = f.text("vector")
    try:
        vector = np.frombuffer(base64.b64decode(raw, validate=True), dtype="<f4")
    except (binascii.Error, ValueError) as exc:
        raise f.fail("vector", "base64 of little-endian float32 values", raw) from exc
    if dimension is not None and vector.shape != (dimension,):
        raise f.fail("vector", f"{dimension} float32 values", f"{vector.size} values")
    if not np.isfinite(vector).all():
        raise f.fail("vector", "finite numbers", "NaN or infinity")
    return str(f.text("id")), vector.astype(np.float32)


def read_archive(source: str | os.PathLike[str] | bytes) -> ArchiveContent:
    """Every row of the archive at ``source`` (a folder, a zip file, or a zip's bytes),
    checked; raises on the first bad one."""
    files = ArchiveFiles(source)
    try:
        if not files.has("manifest.json"):
            raise InvalidInputError(
                f"{files.where} has no manifest.json: not a zenbrain archive (or an "
                "export that did not finish)"
            )
        with files.open("manifest.json") as stream:
            try:
                manifest = check_manifest(json.load(stream), files.where)
            except ValueError as exc:
                raise InvalidInputError(f"manifest.json: not JSON ({exc})") from exc
        content = ArchiveContent(manifest)
        counted = manifest["counts"]
        for name in FILES:
            if not files.has(name):
                continue
            kind = name.removesuffix(".jsonl")
            with files.open(name) as stream:
                if kind == "vectors":
                    for line in json_lines(stream, name):
                        key, vector = _vector(line, manifest["embedding_dimension"])
                        content.vectors[key] = vector
                    continue
                read = _READERS[kind]
                rows = content.rows.setdefault(kind, [])
                for line in json_lines(stream, name):
                    row = read(line)
                    row["_where"] = line.where
                    rows.append(row)
            kind = name.removesuffix(".jsonl")
            if isinstance(counted.get(kind), int) and counted[kind] != content.count(kind):
                raise InvalidInputError(
                    f"{name} holds {content.count(kind)} rows, the manifest says "
                    f"{counted[kind]}: the archive is incomplete or was changed"
                )
    finally:
        files.close()
    _check_references(content)
    return content


def _check_references(content: ArchiveContent) -> None:
    ids: set[str] = set()
    for row in content.rows.get("memories", []):
        if row["id"] in ids:
            raise InvalidInputError(f"{row['_where']}: field 'id': {row['id']!r} appears twice")
        ids.add(row["id"])
    labels: set[str] = set()
    for row in content.rows.get("memories", []):
        if "core" in row:
            if row["core"]["label"] in labels:
                raise InvalidInputError(
                    f"{row['_where']}: field 'core': the label {row['core']['label']!r} "
                    "appears twice"
                )
            labels.add(row["core"]["label"])
    for kind, names in _MEMORY_REFERENCES.items():
        for row in content.rows.get(kind, []):
            for name in names:
                if row[name] not in ids:
                    raise InvalidInputError(
                        f"{row['_where']}: field {name!r}: {row[name]!r} is no memory of "
                        "memories.jsonl"
                    )
    for row in content.rows.get("entities", []):
        for mentioned in row["mentions"]:
            if mentioned not in ids:
                raise InvalidInputError(
                    f"{row['_where']}: field 'mentions': {mentioned!r} is no memory of "
                    "memories.jsonl"
                )
    entities = {(row["key"], row["context"]) for row in content.rows.get("entities", [])}
    for row in content.rows.get("entity_links", []):
        for name in ("a", "b"):
            if row[name] not in entities:
                raise InvalidInputError(
                    f"{row['_where']}: field {name!r}: {row[name]} is no entity of entities.jsonl"
                )
    for key in content.vectors:
        if key not in ids:
            raise InvalidInputError(f"vectors.jsonl: {key!r} is no memory of memories.jsonl")
