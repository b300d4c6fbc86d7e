"""What the tool tests share: a coordinator on a real SQLite file, and readers of schemas
and stores."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from zenbrain import MemoryCoordinator

Draft = jsonschema.Draft202012Validator


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[MemoryCoordinator]:
    with MemoryCoordinator(tmp_path / "tools.db") as coordinator:
        yield coordinator


def layer_counts(memory: MemoryCoordinator) -> dict[str, Any]:
    health = memory.health().to_dict()
    return {layer: health[layer] for layer in ("episodic", "semantic", "procedural", "core")}


def object_nodes(schema: Any) -> Iterator[dict[str, Any]]:
    """Every object-typed node in a schema."""
    if isinstance(schema, dict):
        kind = schema.get("type")
        if kind == "object" or (isinstance(kind, list) and "object" in kind):
            yield schema
        for value in schema.values():
            yield from object_nodes(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from object_nodes(value)
