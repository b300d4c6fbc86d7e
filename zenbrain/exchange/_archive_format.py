"""The zenbrain archive, version 1: what each file holds, as one table per kind of row.

An archive is a folder (or a zip file of it) with ``manifest.json`` and one JSON-lines file
per kind (:data:`FILES`). Memories are named by their ids, entities by ``key`` and
``context``: no database key appears, so an archive moves between stores and back ends.
``docs/guide/exchange.md`` documents every field.
"""

from __future__ import annotations

from typing import Any

from zenbrain.errors import InvalidInputError
from zenbrain.exchange._fields import Fields

__all__ = [
    "ARCHIVE_FORMAT",
    "ARCHIVE_VERSION",
    "FILES",
    "LAYERS",
    "OPTIONAL_COLUMNS",
    "check_manifest",
]

ARCHIVE_FORMAT = "zenbrain-archive"
ARCHIVE_VERSION = 1
LAYERS = ("episodic", "semantic", "procedural", "core")
#: Text columns of a memory that newer schemas add: archived when the store has them.
OPTIONAL_COLUMNS = ("conversation",)

#: Each file of an archive, in the order they are written and read, with what a row holds.
FILES: dict[str, str] = {
    "memories.jsonl": "every long-term memory: its row, validity, and its layer's details",
    "links.jsonl": "consolidation links: the episode a fact was made from",
    "sessions.jsonl": "short-term sessions",
    "interactions.jsonl": "each session's messages, in order",
    "entities.jsonl": "cross-context entities with the memories that mention them",
    "entity_links.jsonl": "entities of two contexts found to be the same thing",
    "memory_edges.jsonl": "the memory graph stage's weighted edges",
    "fact_relations.jsonl": "the confidence stage's relations between facts",
    "fact_priors.jsonl": "the confidence stage's prior of each fact",
    "fact_replays.jsonl": "the sleep replay stage's record of each fact",
    "vectors.jsonl": "embeddings (float32, base64) of the manifest's embedding_model",
}


def check_manifest(raw: object, where: str) -> dict[str, Any]:
    """The manifest's fields, checked: format, version, counts."""
    fields = Fields(raw, f"{where} manifest.json")
    if fields.raw.get("format") != ARCHIVE_FORMAT:
        raise fields.fail("format", repr(ARCHIVE_FORMAT), fields.raw.get("format"))
    version = fields.integer("format_version")
    if version > ARCHIVE_VERSION:
        raise InvalidInputError(
            f"{fields.where}: format_version {version} was written by a newer zenbrain "
            f"(this one reads up to {ARCHIVE_VERSION}): upgrade zenbrain to import it"
        )
    if version < 1:
        raise fields.fail("format_version", "1", version)
    model = fields.text("embedding_model", optional=True)
    dimension = fields.integer("embedding_dimension", optional=True)
    counts = fields.mapping("counts", optional=True) or {}
    return {
        "namespace": fields.text("namespace", optional=True, empty=True),
        "embedding_model": model,
        "embedding_dimension": dimension,
        "counts": counts,
        "schema_version": fields.integer("schema_version", optional=True),
    }
