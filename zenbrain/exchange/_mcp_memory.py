"""The MCP reference memory server's knowledge graph in (``memory.jsonl``: one object a
line, ``{"type": "entity", "name", "entityType", "observations"}`` or ``{"type":
"relation", "from", "to", "relationType"}``; older servers saved one JSON object with
``entities`` and ``relations``).

Each entity becomes a cross-context entity; each of its observations a semantic fact
("<name>: <observation>") that mentions it; each relation a fact ("<from> <relation>
<to>") that mentions both. The file has no times: everything is stored as of the import.
"""

from __future__ import annotations

import json
from typing import Any

from zenbrain.errors import InvalidInputError
from zenbrain.exchange._build import Builder
from zenbrain.exchange._fields import json_objects

__all__ = ["looks_like_mcp_memory", "parse_mcp_memory", "read_mcp_memory"]


def parse_mcp_memory(text: str, name: str) -> list[tuple[str, dict[str, Any]]]:
    """The file's records, each with where it stands (``name line N``)."""
    stripped = text.strip()
    if stripped.startswith("{") and "\n" not in stripped:
        pass  # one line: read as JSON lines below
    elif stripped.startswith("{"):
        try:
            whole = json.loads(stripped)
        except ValueError:
            whole = None
        if isinstance(whole, dict) and ("entities" in whole or "relations" in whole):
            return [
                (f"{name} {kind}[{i}]", {"type": kind[:-1], **item})
                for kind in ("entities", "relations")
                for i, item in enumerate(whole.get(kind) or [])
                if isinstance(item, dict)
            ]
    return list(json_objects(text.splitlines(), name))


def looks_like_mcp_memory(text: str) -> bool:
    try:
        records = parse_mcp_memory(text[:200_000], "file")
    except InvalidInputError:
        return False
    return bool(records) and all(r.get("type") in ("entity", "relation") for _, r in records[:5])


def _text(record: dict[str, Any], where: str, field: str) -> str:
    value = record.get(field)
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{where}: field {field!r}: expected text, got {value!r}")
    return value


def read_mcp_memory(text: str, builder: Builder, name: str) -> None:
    for where, record in parse_mcp_memory(text, name):
        kind = record.get("type")
        if kind == "entity":
            entity = _text(record, where, "name")
            entity_type = record.get("entityType")
            builder.entity(entity)
            observations = record.get("observations") or []
            if not isinstance(observations, list):
                raise InvalidInputError(f"{where}: field 'observations': expected a list")
            for position, observation in enumerate(observations):
                if not isinstance(observation, str):
                    raise InvalidInputError(
                        f"{where}: field 'observations' [{position}]: expected text, "
                        f"got {observation!r}"
                    )
                metadata = {"mcp_entity": entity}
                if isinstance(entity_type, str) and entity_type:
                    metadata["mcp_entity_type"] = entity_type
                memory_id = builder.memory(
                    f"{where} observation {position}", "semantic",
                    f"{entity}: {observation}", metadata=metadata,
                )  # fmt: skip
                builder.mention(entity, memory_id)
        elif kind == "relation":
            source, target = _text(record, where, "from"), _text(record, where, "to")
            relation = _text(record, where, "relationType")
            memory_id = builder.memory(
                where, "semantic", f"{source} {relation.replace('_', ' ')} {target}",
                metadata={"mcp_from": source, "mcp_relation": relation, "mcp_to": target},
            )  # fmt: skip
            builder.mention(source, memory_id)
            builder.mention(target, memory_id)
        else:
            raise InvalidInputError(
                f"{where}: field 'type': expected 'entity' or 'relation', got {kind!r}"
            )
