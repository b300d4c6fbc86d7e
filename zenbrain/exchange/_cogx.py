"""Cognee's COGX archives in (COGX 0.1: a folder, or a ``.cogx.tar.gz`` of it, with
``manifest.json`` and one JSON-lines file per record kind).

- ``facts.jsonl``: a semantic fact (``fact_text``, else "subject predicate object"),
  ``valid_at``/``invalid_at`` its validity, mentioning its subject and object entities.
- ``memories.jsonl`` and ``documents.jsonl``: semantic facts; ``memory_blocks.jsonl``: core
  blocks under their labels; ``entities.jsonl``: cross-context entities (a description
  becomes a fact about the entity).
- ``episodes.jsonl``: a short-term session per episode (its turns), and what was said in
  it as episodes.
- ``nodes.jsonl`` (Cognee's own graph nodes, stored verbatim) has no zenbrain meaning: counted
  as skipped. Every record's ``external_id``, system and scope go into the metadata.
"""

from __future__ import annotations

import io
import json
import os
import tarfile
from pathlib import Path
from typing import Any

from zenbrain.errors import InvalidInputError
from zenbrain.exchange._build import Builder, foreign_time
from zenbrain.exchange._container import check_expanded
from zenbrain.exchange._fields import json_objects

__all__ = ["COGX_FILES", "is_cogx", "read_cogx"]

COGX_FILES = (
    "memory_blocks.jsonl",
    "entities.jsonl",
    "facts.jsonl",
    "memories.jsonl",
    "documents.jsonl",
    "episodes.jsonl",
    "nodes.jsonl",
)
_EPISODE_ROLES = ("user", "assistant", "human", "ai")


def _members(path: Path | bytes) -> dict[str, str]:
    """The archive's files by name (a folder, or a tarball with them at its root or one
    folder down)."""
    if isinstance(path, bytes):
        source: dict[str, Any] = {"fileobj": io.BytesIO(path), "mode": "r:*"}
    elif path.is_dir():
        return {
            name: (path / name).read_text(encoding="utf-8")
            for name in ("manifest.json", *COGX_FILES)
            if (path / name).is_file()
        }
    else:
        source = {"name": path, "mode": "r:*"}
    where = "the upload" if isinstance(path, bytes) else str(path)
    try:
        with tarfile.open(**source) as tar:
            found: dict[str, str] = {}
            unpacked = 0
            for member in tar:
                if isinstance(path, bytes):
                    unpacked += member.size
                    check_expanded(unpacked)
                base = os.path.basename(member.name)
                if member.isfile() and base in ("manifest.json", *COGX_FILES):
                    handle = tar.extractfile(member)
                    if handle is not None:
                        found[base] = io.TextIOWrapper(handle, "utf-8").read()
            return found
    except (tarfile.TarError, OSError) as exc:
        raise InvalidInputError(f"{where} is not a COGX folder or .cogx.tar.gz ({exc})") from exc


def is_cogx(path: Path) -> bool:
    if path.is_dir():
        manifest = path / "manifest.json"
        if not manifest.is_file():
            return False
        try:
            return "cogx_version" in json.loads(manifest.read_text(encoding="utf-8"))
        except (ValueError, OSError):
            return False
    return path.name.endswith((".cogx.tar.gz", ".cogx.tgz"))


def _metadata(record: dict[str, Any], where: str, **extra: Any) -> dict[str, Any]:
    metadata = record.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise InvalidInputError(f"{where}: field 'metadata': expected an object")
    scope = record.get("scope") or {}
    if not isinstance(scope, dict):
        raise InvalidInputError(f"{where}: field 'scope': expected an object")
    found = {**metadata, **{f"cogx_{k}": v for k, v in scope.items() if v}}
    if record.get("external_id"):
        found["cogx_external_id"] = record["external_id"]
    if record.get("external_system"):
        found["cogx_system"] = record["external_system"]
    found.update({k: v for k, v in extra.items() if v})
    return found


def _times(record: dict[str, Any], where: str) -> dict[str, Any]:
    return {
        "created_at": foreign_time(record.get("created_at"), where, "created_at"),
        "updated_at": foreign_time(record.get("updated_at"), where, "updated_at"),
    }


def _text(record: dict[str, Any], where: str, field: str) -> str:
    value = record.get(field)
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{where}: field {field!r}: expected text, got {value!r}")
    return value


def read_cogx(path: Path | bytes, builder: Builder) -> None:
    files = _members(path)
    if "manifest.json" not in files:
        where = "the upload" if isinstance(path, bytes) else str(path)
        raise InvalidInputError(f"{where} has no manifest.json: not a COGX archive")
    try:
        manifest = json.loads(files["manifest.json"])
    except ValueError as exc:
        raise InvalidInputError(f"manifest.json: not JSON ({exc})") from exc
    version = str(manifest.get("cogx_version", "")) if isinstance(manifest, dict) else ""
    if not version.split(".")[0].isdigit() or int(version.split(".")[0]) > 0:
        raise InvalidInputError(
            f"manifest.json: field 'cogx_version': expected 0.x (COGX 0.1), got {version!r}"
        )
    names: dict[str, str] = {}  # entity external_id -> name
    for where, record in json_objects(
        files.get("memory_blocks.jsonl", "").splitlines(), "memory_blocks.jsonl"
    ):
        value = record.get("value")
        if isinstance(value, str) and not value.strip():
            builder.skip("empty memory blocks")
            continue
        metadata = _metadata(record, where, cogx_limit=record.get("limit"))
        builder.memory(where, "core", value, label=record.get("label"), metadata=metadata,
                       entities=False, **_times(record, where))  # fmt: skip
    for where, record in json_objects(
        files.get("entities.jsonl", "").splitlines(), "entities.jsonl"
    ):
        name = _text(record, where, "name")
        names[str(record.get("external_id") or name)] = name
        builder.entity(name)
        if isinstance(record.get("description"), str) and record["description"].strip():
            extra = {"cogx_entity_type": record.get("entity_type"),
                     "cogx_aliases": record.get("aliases"),
                     "cogx_attributes": record.get("attributes")}  # fmt: skip
            memory_id = builder.memory(
                where, "semantic", f"{name}: {record['description']}",
                metadata=_metadata(record, where, **extra), **_times(record, where),
            )  # fmt: skip
            builder.mention(name, memory_id)
    for where, record in json_objects(files.get("facts.jsonl", "").splitlines(), "facts.jsonl"):
        subject = names.get(_text(record, where, "subject_ref"), record["subject_ref"])
        target = names.get(_text(record, where, "object_ref"), record["object_ref"])
        predicate = _text(record, where, "predicate")
        text = record.get("fact_text") or f"{subject} {predicate.replace('_', ' ')} {target}"
        confidence = record.get("confidence")
        if confidence is not None and (
            isinstance(confidence, bool)
            or not isinstance(confidence, int | float)
            or not 0 <= confidence <= 1
        ):
            raise InvalidInputError(
                f"{where}: field 'confidence': expected a number from 0 to 1, got {confidence!r}"
            )
        extra = {"cogx_subject": subject, "cogx_predicate": predicate, "cogx_object": target,
                 "cogx_provenance": record.get("provenance")}  # fmt: skip
        memory_id = builder.memory(
            where, "semantic", text, metadata=_metadata(record, where, **extra),
            confidence=None if confidence is None else float(confidence),
            valid_from=foreign_time(record.get("valid_at"), where, "valid_at"),
            valid_to=foreign_time(record.get("invalid_at"), where, "invalid_at"),
            **_times(record, where),
        )  # fmt: skip
        builder.mention(subject, memory_id)
        builder.mention(target, memory_id)
    for file in ("memories.jsonl", "documents.jsonl"):
        for where, record in json_objects(files.get(file, "").splitlines(), file):
            extra = {"cogx_categories": record.get("categories"), "cogx_title": record.get("title")}
            metadata = _metadata(record, where, **extra)
            content = record.get("content")
            builder.memory(where, "semantic", content, metadata=metadata, **_times(record, where))
    for where, record in json_objects(
        files.get("episodes.jsonl", "").splitlines(), "episodes.jsonl"
    ):
        _episode(record, where, builder)
    for _ in json_objects(files.get("nodes.jsonl", "").splitlines(), "nodes.jsonl"):
        builder.skip("raw nodes")


def _episode(record: dict[str, Any], where: str, builder: Builder) -> None:
    times = _times(record, where)
    title = record.get("title") or record.get("external_id") or "cogx-episode"
    session = builder.session(f"cogx:{title}", times["created_at"])
    turns = record.get("turns") or []
    if not isinstance(turns, list):
        raise InvalidInputError(f"{where}: field 'turns': expected a list")
    for position, turn in enumerate(turns):
        at = f"{where} turn {position}"
        if not isinstance(turn, dict):
            raise InvalidInputError(f"{at}: expected an object")
        role, content = _text(turn, at, "role"), turn.get("content")
        if not isinstance(content, str):
            raise InvalidInputError(f"{at}: field 'content': expected text, got {content!r}")
        moment = foreign_time(turn.get("occurred_at"), at, "occurred_at") or times["created_at"]
        builder.interaction(at, session, role, content, moment)
        if role.lower() in _EPISODE_ROLES and content.strip():
            metadata = _metadata(record, where, cogx_role=role)
            builder.memory(
                at, "episodic", content, created_at=moment, metadata=metadata,
                conversation=session,
            )  # fmt: skip
