"""The OKF v0.2 export: one Markdown concept per memory with YAML front matter every YAML
parser reads, replaced facts deprecated with their replacement linked, consolidated facts
citing their episodes, conversations, index.md and log.md."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.exchange.conftest import fill, open_full
from zenbrain.errors import InvalidInputError
from zenbrain.exchange import export_okf

yaml = pytest.importorskip("yaml")


def _front(path: Path) -> tuple[dict[str, Any], str]:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    head, body = text[4:].split("\n---\n", 1)
    return yaml.safe_load(head), body


def test_every_memory_is_a_concept(store_location: str, tmp_path: Path) -> None:
    with open_full(store_location) as memory:
        ids = fill(memory)
        report = export_okf(memory, tmp_path / "okf")
        stored = {r.id: r for r in memory.find()}
    assert report.counts == {"memories": len(stored), "conversations": 1}
    concepts = {p.stem: p for p in (tmp_path / "okf").glob("*/*.md")}
    assert set(stored) <= set(concepts)
    for memory_id, path in concepts.items():
        front, _ = _front(path)
        assert front["type"]  # OKF's one required field
        if memory_id in stored:
            assert front["zenbrain"]["id"] == memory_id
            assert front["zenbrain"]["layer"] == stored[memory_id].layer
    old, body = _front(tmp_path / "okf" / "semantic" / f"{ids['db']}.md")
    assert old["status"] == "deprecated"
    assert old["replaced_by"] == f"/semantic/{ids['db2']}.md"
    assert f"(/semantic/{ids['db2']}.md)" in body
    new, _ = _front(tmp_path / "okf" / "semantic" / f"{ids['db2']}.md")
    assert new["status"] == "stable" and "stale_after" in new
    procedure, body = _front(tmp_path / "okf" / "procedural" / f"{ids['procedure']}.md")
    assert procedure["type"] == "Procedure" and "1. run the tests" in body
    cited = [_front(p)[0] for p in concepts.values() if "sources" in _front(p)[0]]
    assert cited and cited[0]["sources"][0]["resource"].startswith("/episodic/")
    labels = sorted(_front(p)[0]["title"] for p in (tmp_path / "okf" / "core").glob("*.md"))
    assert labels == ["persona", "preferences"]


def test_index_and_log(tmp_path: Path) -> None:
    with open_full(str(tmp_path / "memory.db")) as memory:
        ids = fill(memory)
        export_okf(memory, tmp_path / "okf")
    index = (tmp_path / "okf" / "index.md").read_text(encoding="utf-8")
    assert index.startswith('---\nokf_version: "0.2"\n---')
    assert f"(semantic/{ids['db']}.md) (deprecated)" in index
    assert "# Conversations" in index
    log = (tmp_path / "okf" / "log.md").read_text(encoding="utf-8")
    assert "**Deprecation**" in log and "replaced by [Anna's staging database is" in log
    conversation = next((tmp_path / "okf" / "conversations").glob("*.md"))
    front, body = _front(conversation)
    assert front["type"] == "Conversation" and "**assistant**" in body and "In Berlin." in body


def test_an_existing_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "okf").mkdir()
    (tmp_path / "okf" / "notes.md").write_text("mine", encoding="utf-8")
    with (
        open_full(str(tmp_path / "memory.db")) as memory,
        pytest.raises(InvalidInputError, match="not an empty folder"),
    ):
        export_okf(memory, tmp_path / "okf")
    assert (tmp_path / "okf" / "notes.md").read_text(encoding="utf-8") == "mine"
