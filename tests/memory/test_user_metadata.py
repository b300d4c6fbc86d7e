"""The caller's metadata is the caller's (issue 40): keys that zenbrain also knows as fields
(context, namespace, steps, label, source, ...) come back exactly as stored, on every
surface, on SQLite and PostgreSQL; zenbrain's own values are fields of the result beside
them. Stores written before keep working: their consolidated facts lose only the key
zenbrain itself had put in their metadata."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from zenbrain import MemoryCoordinator, StoreItem
from zenbrain.cli import main
from zenbrain.exchange import export_archive, import_archive
from zenbrain.remote import RemoteMemory
from zenbrain.server import create_app
from zenbrain.testing.server import running_server
from zenbrain.tools import dispatch

# Every key names something zenbrain keeps about a memory: none may be replaced or hidden.
MINE = {
    "context": "personal",
    "namespace": "elsewhere",
    "conversation": "not-this-one",
    "steps": "mine",
    "tools": ["a hammer"],
    "outcome": None,
    "label": 7,
    "pinned": "no",
    "source": {"kind": "notebook", "page": 3},
    "via": "me",
    "relevance": 0.5,
    "consolidated_from": "my own note",
}


@pytest.fixture
def memory(store_location: str) -> Iterator[MemoryCoordinator]:
    with MemoryCoordinator(store_location) as opened:
        yield opened


def _stored(memory: MemoryCoordinator) -> dict[str, str]:
    """One memory of each layer that metadata can ride on, stored with ``MINE``."""
    return {
        "semantic": memory.store(
            "The staging database listens on port 5433.", layer="semantic", context="work",
            source="ops wiki", metadata=MINE, conversation="standup-7",
        ),
        "episodic": memory.store(
            "I was thrilled when the launch finally worked!", layer="episodic",
            emotional_weight=0.9, metadata=MINE,
        ),
        "procedural": memory.store(
            "How to deploy the harbour app", steps=["build", "ship"], tools=["make"],
            metadata=MINE,
        ),
    }  # fmt: skip


def test_the_library_returns_the_callers_metadata_as_stored(memory: MemoryCoordinator) -> None:
    ids = _stored(memory)
    fact = memory.get(ids["semantic"])
    assert fact is not None and fact.metadata == MINE
    assert (fact.context, fact.source, fact.conversation) == ("work", "ops wiki", "standup-7")
    assert fact.namespace == "default"
    procedure = memory.get(ids["procedural"])
    assert procedure is not None and procedure.metadata == MINE
    assert procedure.procedure is not None and procedure.procedure.steps == ["build", "ship"]
    for found in (
        memory.recall("staging database port", layers=["semantic"]),
        memory.recall("launch worked", layers=["episodic"]),
        memory.recall("deploy harbour", layers=["procedural"]),
        memory.find({"via": "me"}),
        memory.find(subtree=True),
        memory.history(ids["semantic"]),
    ):
        assert found and all(r.metadata == MINE for r in found)
    # The metadata is matched as the caller wrote it, not as zenbrain's fields.
    assert {r.id for r in memory.find({"context": "personal"})} == set(ids.values())
    assert memory.recall("staging database", context="personal", min_score=0.01) == []
    newer = memory.update(ids["semantic"], "The staging database listens on port 6543.")
    assert memory.get(newer).metadata == MINE  # type: ignore[union-attr]
    memory.consolidate()
    made = [r for r in memory.find(layers=["semantic"]) if r.source == "consolidation"]
    assert made and all(r.metadata == {} for r in made)


def test_a_store_item_is_the_same_call_as_its_keywords(memory: MemoryCoordinator) -> None:
    item = StoreItem("Anna prefers tea.", layer="semantic", metadata=MINE, context="home")
    by_value = memory.get(memory.store(item))
    by_keywords = memory.get(
        memory.store("Anna prefers tea.", layer="semantic", metadata=MINE, context="home")
    )
    assert by_value is not None and by_keywords is not None
    assert (by_value.metadata, by_value.context) == (by_keywords.metadata, by_keywords.context)


def test_the_tools_archive_and_jsonl_keep_the_callers_metadata(
    memory: MemoryCoordinator, store_location: str, tmp_path: Path
) -> None:
    ids = _stored(memory)
    answer = dispatch(memory, "zenbrain_recall", {"query": "staging database port"})
    shown = {r["id"]: r for r in answer["results"]}
    assert shown[ids["semantic"]]["metadata"] == MINE
    assert shown[ids["semantic"]]["context"] == "work"

    export_archive(memory, tmp_path / "archive")
    other = memory.for_namespace("copy")
    import_archive(other, tmp_path / "archive")
    assert [r.metadata for r in other.find()] == [MINE] * 3  # ids remapped: in use here

    if store_location.startswith("postgresql"):
        return  # the command line is tested on SQLite files (tests/cli)
    dumped = tmp_path / "memories.jsonl"
    assert main(["export", str(dumped), "--db", store_location]) == 0
    rows = [json.loads(line) for line in dumped.read_text(encoding="utf-8").splitlines()]
    assert {row["id"]: row["metadata"] for row in rows} == {i: MINE for i in ids.values()}
    assert {row["context"] for row in rows} == {"work", None}
    assert main(["import", str(dumped), "--db", store_location, "--namespace", "jsonl"]) == 0
    again = memory.for_namespace("jsonl").find()
    assert len(again) == 3 and all(r.metadata == MINE for r in again)


def test_http_keeps_the_callers_metadata(store_location: str) -> None:
    with (
        MemoryCoordinator(store_location) as served,
        running_server(create_app(served)) as url,
        RemoteMemory(url) as remote,
    ):
        ids = _stored(remote)  # type: ignore[arg-type]
        for found in (
            [remote.get(ids["semantic"])],
            remote.recall("staging database port", layers=["semantic"], explain=True),
            remote.find({"via": "me"}),
        ):
            assert found and all(r is not None and r.metadata == MINE for r in found)
        fact = remote.get(ids["semantic"])
        assert fact is not None and fact == served.get(ids["semantic"])
        assert [r.metadata for r in served.find()] == [MINE] * 3
