"""A store holding every kind of memory the archive carries, and reading archives back."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from zenbrain import MemoryCoordinator
from zenbrain.stages import stage_by_name
from zenbrain.testing import DeterministicEmbedder

STAGES = ("cross_context", "graph", "confidence", "replay")
CONTEXTS = ["work", "personal"]


def open_full(
    location: str,
    *,
    namespace: str = "anna",
    embedder: Any = None,
    key: str | None = None,
    stages: Sequence[str] = STAGES,
) -> MemoryCoordinator:
    return MemoryCoordinator(
        location,
        namespace=namespace,
        embedder=embedder,
        contexts=CONTEXTS,
        stages=[stage_by_name(name) for name in stages],
        key=key,
    )


def fill(memory: MemoryCoordinator) -> dict[str, str]:
    """Every kind of row: facts (one replaced), episodes consolidated into facts, a
    procedure with feedback, core blocks, reviews, a session's messages, entities."""
    ids: dict[str, str] = {}
    ids["db"] = memory.store("Anna's staging database is PostgreSQL 16.", context="work")
    ids["db2"] = memory.update(ids["db"], "Anna's staging database is PostgreSQL 17.")
    ids["berlin"] = memory.store("Anna lives in Berlin with her cat Mila.", context="personal")
    ids["episode"] = memory.store(
        "I am absolutely thrilled, my talk about Berlin got accepted!", context="work"
    )
    ids["procedure"] = memory.store(
        "How to deploy the payments service",
        steps=["run the tests", "build the image", "tag the release"],
        tools=["make", "docker"],
        outcome="the release is live",
        context="work",
    )
    memory.procedure_feedback(ids["procedure"], success=False)
    memory.set_core_block("persona", "Anna, payments engineer in Kiel")
    memory.set_core_block("preferences", "Prefers short answers.")
    memory.record_review(ids["berlin"], 3)
    memory.start_session("chat-1")
    memory.add_interaction("user", "Where does Anna live?")
    memory.add_interaction("assistant", "In Berlin.", metadata={"turn": 2})
    memory.add_interaction("user", "A side thread about Kiel.", session_id="side")  # no row
    memory.consolidate()
    memory.recall("Anna Berlin database")
    return ids


def archive_lines(path: Path) -> dict[str, Any]:
    """An archive as comparable data: the manifest, and each file's lines sorted."""
    found: dict[str, Any] = {}
    for member in sorted(path.iterdir()):
        text = member.read_text(encoding="utf-8")
        if member.name == "manifest.json":
            found[member.name] = json.loads(text)
        else:
            found[member.name] = sorted(text.splitlines())
    return found


__all__ = ["CONTEXTS", "STAGES", "DeterministicEmbedder", "archive_lines", "fill", "open_full"]
