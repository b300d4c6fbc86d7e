"""Importers of other systems' files: real public Letta agent files, and mem0, MCP memory
server and COGX files in their published shapes come in with the counts and labels their
sources show; the format is detected from the content; a bad file names its place and
changes nothing; a dry run writes nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.exchange.conftest import archive_lines
from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError
from zenbrain.exchange import detect_format, export_archive, import_archive, import_file

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def memory(tmp_path: Path) -> MemoryCoordinator:
    with MemoryCoordinator(str(tmp_path / "memory.db"), namespace="anna") as opened:
        yield opened


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("mem0_get_all.json", "mem0"),
        ("customer_service.af", "letta"),
        ("deep_research_agent.af", "letta"),
        ("mcp_memory.jsonl", "mcp-memory"),
        ("cogx", "cogx"),
    ],
)
def test_the_format_is_detected_from_the_content(name: str, expected: str, tmp_path: Path) -> None:
    assert detect_format(FIXTURES / name) == expected
    if name != "cogx":  # renamed, the content still tells
        copy = tmp_path / "upload.dat"
        shutil.copy(FIXTURES / name, copy)
        assert detect_format(copy) == expected
        assert detect_format(copy.read_bytes()) == expected


def test_plain_jsonl_rows_are_no_foreign_format(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"content": "a"}\n', encoding="utf-8")
    assert detect_format(rows) is None


def test_mem0(memory: MemoryCoordinator) -> None:
    report = import_file(memory, FIXTURES / "mem0_get_all.json")
    source = json.loads((FIXTURES / "mem0_get_all.json").read_text())["results"]
    assert report.format == "mem0" and report.layers == {"semantic": len(source)}
    facts = memory.find(layers=["semantic"])
    assert [f.content for f in facts] == [m["memory"] for m in source]
    first, second = facts[0], facts[1]
    assert first.created_at.isoformat() == "2025-10-01T17:00:00.123456+00:00"
    assert first.metadata["conversation_id"] == "conv_456"
    assert first.metadata["mem0_user_id"] == "alice"
    assert second.metadata["mem0_categories"] == ["health"]
    assert second.metadata["mem0_agent_id"] == "travel-agent"
    assert memory.find({"mem0_run_id": "trip-2025-lisbon"})[0].content.startswith("Prefers")
    assert len(memory.review_queue(limit=10)) == 3  # each fact has its FSRS card


def test_letta_older_agent_file_with_a_conversation(memory: MemoryCoordinator) -> None:
    report = import_file(memory, FIXTURES / "customer_service.af")
    source = json.loads((FIXTURES / "customer_service.af").read_text())
    assert [b.label for b in memory.core_blocks()] == [b["label"] for b in source["core_memory"]]
    assert memory.core_blocks()[0].content == source["core_memory"][0]["value"]
    turns = memory.conversation(session_id="letta:customer_service", limit=100)
    assert len(turns) == len(source["messages"]) == report.counts["interactions"]
    episodes = [r.content for r in memory.find(layers=["episodic"])]
    assert "I want to cancel my order" in episodes  # what the user said, unwrapped
    assert any("Could you please" in e for e in episodes)  # what the agent sent
    assert not any('"type": "login"' in e for e in episodes)
    assert report.layers == {"core": 2, "episodic": len(episodes)} and len(episodes) == 5


def test_letta_agent_file_schema(memory: MemoryCoordinator) -> None:
    report = import_file(memory, FIXTURES / "deep_research_agent.af", dry_run=True)
    assert report.dry_run and report.skipped == {"empty blocks": 2}
    assert memory.core_blocks() == []
    report = import_file(memory, FIXTURES / "deep_research_agent.af")
    source = json.loads((FIXTURES / "deep_research_agent.af").read_text())
    filled = [b["label"] for b in source["blocks"] if b["value"].strip()]
    assert sorted(b.label for b in memory.core_blocks()) == sorted(filled) == ["human", "persona"]
    assert report.counts["sessions"] == 1 and report.counts["interactions"] == 1


def test_mcp_memory(memory: MemoryCoordinator, tmp_path: Path) -> None:
    report = import_file(memory, FIXTURES / "mcp_memory.jsonl")
    assert report.layers == {"semantic": 5}  # three observations, two relations
    contents = {r.content for r in memory.find()}
    assert "John_Smith: Speaks fluent Spanish" in contents
    assert "John_Smith works at Anthropic" in contents
    export_archive(memory, tmp_path / "archive")
    entities = [json.loads(line) for line in archive_lines(tmp_path / "archive")["entities.jsonl"]]
    by_name = {e["name"]: e for e in entities}
    assert {"John_Smith", "Anthropic", "Lisbon"} <= set(by_name)
    assert len(by_name["John_Smith"]["mentions"]) == 4  # two observations, two relations


def test_cogx(memory: MemoryCoordinator) -> None:
    report = import_file(memory, FIXTURES / "cogx")
    assert report.skipped == {"raw nodes": 1}
    assert [b.label for b in memory.core_blocks()] == ["persona"]
    kiel = memory.find({"cogx_external_id": "e-1"})[0]
    assert kiel.content == "Anna lives in Kiel" and kiel.confidence == 0.9
    assert kiel.valid_from is not None and kiel.valid_from.isoformat().startswith("2024-03-01")
    assert kiel.valid_to is not None and kiel.valid_to.isoformat().startswith("2026-02-01")
    works = memory.find({"cogx_external_id": "e-2"})[0]
    assert works.content == "Anna works on payments" and works.valid_to is None
    assert memory.find({"cogx_external_id": "m-1"})[0].metadata["cogx_agent_id"] == "helper"
    assert len(memory.conversation(session_id="cogx:first chat")) == 2
    assert report.layers == {"core": 1, "semantic": 4, "episodic": 2}


def test_cogx_tarball(memory: MemoryCoordinator, tmp_path: Path) -> None:
    packed = shutil.make_archive(str(tmp_path / "export"), "gztar", FIXTURES / "cogx")
    target = tmp_path / "export.cogx.tar.gz"
    Path(packed).rename(target)
    assert detect_format(target) == "cogx"
    assert import_file(memory, target).layers == {"core": 1, "semantic": 4, "episodic": 2}


OK = '{"memory": "ok"}'
ENTITY = '{"type":"entity","name":"A","observations":[]}'


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("mem0.json", f'{{"results": [{OK}, {{"memory": 3}}]}}', r"results\[1\]: field 'memory'"),
        ("mem0.json", '{"results": [{"memory": "a", "created_at": "soon"}]}', "'created_at'"),
        ("graph.jsonl", f'{ENTITY}\n{{"type":"edge"}}\n', "line 2: field 'type'"),
        ("graph.jsonl", f"{ENTITY}\nnot json\n", "line 2: not JSON"),
    ],
)
def test_a_bad_file_names_its_place_and_changes_nothing(
    memory: MemoryCoordinator, tmp_path: Path, name: str, content: str, message: str
) -> None:
    memory.store("Kept before the import.")
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    chosen = "mem0" if name.startswith("mem0") else "mcp-memory"
    with pytest.raises(InvalidInputError, match=message):
        import_file(memory, path, chosen)
    assert [r.content for r in memory.find()] == ["Kept before the import."]


def test_a_taken_label_refuses_the_whole_letta_file(memory: MemoryCoordinator) -> None:
    memory.set_core_block("persona", "Already here.")
    with pytest.raises(InvalidInputError, match="'persona' exists"):
        import_file(memory, FIXTURES / "customer_service.af")
    assert [b.label for b in memory.core_blocks()] == ["persona"]
    assert memory.find(layers=["episodic"]) == []


def test_unknown_content_asks_for_the_format(memory: MemoryCoordinator, tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("just words\n", encoding="utf-8")
    with pytest.raises(InvalidInputError, match="could not tell the format"):
        import_file(memory, path)
    with pytest.raises(InvalidInputError, match="format must be one of"):
        import_file(memory, path, "zep")


def test_an_imported_foreign_file_round_trips_as_an_archive(
    memory: MemoryCoordinator, tmp_path: Path
) -> None:
    import_file(memory, FIXTURES / "cogx")
    export_archive(memory, tmp_path / "first")
    with MemoryCoordinator(str(tmp_path / "other.db"), namespace="anna") as other:
        import_archive(other, tmp_path / "first")
        export_archive(other, tmp_path / "second")
    assert archive_lines(tmp_path / "first") == archive_lines(tmp_path / "second")


def test_an_upload_that_unpacks_too_far_is_refused(
    memory: MemoryCoordinator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zenbrain.exchange import _container

    monkeypatch.setattr(_container, "UPLOAD_EXPANDED_LIMIT", 300)
    packed = shutil.make_archive(str(tmp_path / "cogx"), "gztar", FIXTURES / "cogx")
    with pytest.raises(InvalidInputError, match="unpacks to"):
        import_file(memory, Path(packed).read_bytes())
    export_archive(memory, tmp_path / "archive.zip")
    with pytest.raises(InvalidInputError, match="unpacks to"):
        import_file(memory, (tmp_path / "archive.zip").read_bytes())
    assert import_file(memory, FIXTURES / "cogx").layers["core"] == 1  # files are not uploads
