"""The zenbrain archive: export -> import -> export gives the same archive on both back
ends, SQLite to PostgreSQL and encrypted stores included; ids kept into an empty namespace,
remapped with every link into a used one; bad input names its file, line and field and
changes nothing; a dry run writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import postgres_server
from tests.exchange.conftest import DeterministicEmbedder, archive_lines, fill, open_full
from zenbrain import MemoryCoordinator
from zenbrain.errors import EmbeddingMismatchError, InvalidInputError
from zenbrain.exchange import export_archive, import_archive
from zenbrain.testing.postgres import fresh_database


def _round_trip(source: str, target: str, tmp_path: Path, **opened: object) -> None:
    with open_full(source, **opened) as memory:
        ids = fill(memory)
        first = export_archive(memory, tmp_path / "first")
    assert first.counts["memories"] == 8
    assert all(first.counts[kind] > 0 for kind in ("links", "entities", "interactions"))
    with open_full(target, **opened) as memory:
        report = import_archive(memory, tmp_path / "first")
        assert report.ids_kept and report.counts == first.counts
        export_archive(memory, tmp_path / "second")
        old = memory.get(ids["db"])
        assert old is not None and old.superseded_by == ids["db2"] and old.valid_to is not None
        assert {r.id for r in memory.history(ids["db2"])} == {ids["db"], ids["db2"]}
        assert [b.label for b in memory.core_blocks()] == ["persona", "preferences"]
        assert [i.content for i in memory.conversation(session_id="chat-1")] == [
            "Where does Anna live?",
            "In Berlin.",
        ]
    assert archive_lines(tmp_path / "first") == archive_lines(tmp_path / "second")


def test_export_import_export_is_the_same_archive(store_location: str, tmp_path: Path) -> None:
    other = str(tmp_path / "other.db") if "://" not in store_location else store_location
    source = str(tmp_path / "source.db")
    _round_trip(source, other, tmp_path)


def test_sqlite_to_postgres_and_back(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    server = postgres_server(request)
    with fresh_database(server) as url:  # vectors too: float32 into pgvector and back, exact
        _round_trip(str(tmp_path / "source.db"), url, tmp_path, embedder=DeterministicEmbedder())
        assert (tmp_path / "first" / "vectors.jsonl").read_text(encoding="utf-8").count("\n") == 8
        with open_full(url) as memory:
            export_archive(memory, tmp_path / "from-postgres.zip")
        with open_full(str(tmp_path / "back.db")) as memory:
            import_archive(memory, tmp_path / "from-postgres.zip")
            export_archive(memory, tmp_path / "back")
    assert archive_lines(tmp_path / "back") == archive_lines(tmp_path / "first")


def test_encrypted_stores(tmp_path: Path) -> None:
    pytest.importorskip("sqlcipher3")
    _round_trip(str(tmp_path / "a.db"), str(tmp_path / "b.db"), tmp_path, key="s3cret")


def test_a_used_namespace_gets_new_ids_with_every_link(tmp_path: Path) -> None:
    location = str(tmp_path / "memory.db")
    with open_full(location) as memory:
        ids = fill(memory)
        export_archive(memory, tmp_path / "archive")
        memory.delete_core_block("persona")
        memory.delete_core_block("preferences")
        report = import_archive(memory, tmp_path / "archive")
        renamed = {"chat-1": "chat-1.imported", "side": "side.imported"}
        assert not report.ids_kept and report.renamed_sessions == renamed
        assert not set(report.ids) & set(ids.values())
        new = dict(zip(_archived_ids(tmp_path / "archive"), report.ids, strict=True))
        old = memory.get(new[ids["db"]])
        assert old is not None and old.superseded_by == new[ids["db2"]]
        assert len(memory.conversation(session_id="chat-1.imported")) == 2
        export_archive(memory, tmp_path / "again")
    links = [json.loads(line) for line in archive_lines(tmp_path / "again")["links.jsonl"]]
    assert len(links) == 2 and {link["fact_id"] for link in links} - set(ids.values())


def _archived_ids(path: Path) -> list[str]:
    lines = (path / "memories.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["id"] for line in lines]


def test_a_taken_core_label_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    with open_full(str(tmp_path / "memory.db")) as memory:
        fill(memory)
        export_archive(memory, tmp_path / "archive")
        before = memory.health().to_dict()
        with pytest.raises(InvalidInputError, match=r"memories.jsonl line .*'persona' exists"):
            import_archive(memory, tmp_path / "archive")
        assert memory.health().to_dict() == before


def test_a_bad_last_line_leaves_the_store_unchanged(tmp_path: Path) -> None:
    with open_full(str(tmp_path / "a.db")) as memory:
        fill(memory)
        export_archive(memory, tmp_path / "archive")
    path = tmp_path / "archive" / "memories.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    last = json.loads(lines[-1])
    last["created_at"] = "yesterday"
    path.write_text("\n".join([*lines[:-1], json.dumps(last)]) + "\n", encoding="utf-8")
    with MemoryCoordinator(str(tmp_path / "b.db"), namespace="anna") as memory:
        memory.store("Kept before the import.")
        with pytest.raises(InvalidInputError) as raised:
            import_archive(memory, tmp_path / "archive")
        assert f"memories.jsonl line {len(lines)}: field 'created_at'" in str(raised.value)
        assert "'yesterday'" in str(raised.value)
        assert [r.content for r in memory.find()] == ["Kept before the import."]


@pytest.mark.parametrize(
    ("file", "change", "message"),
    [
        ("memories.jsonl", {"layer": "dream"}, "field 'layer': expected one of"),
        ("memories.jsonl", {"confidence": 2}, "field 'confidence'"),
        ("links.jsonl", {"fact_id": "nope"}, "'nope' is no memory of memories.jsonl"),
        ("entities.jsonl", {"mentions": ["nope"]}, "'nope' is no memory of memories.jsonl"),
    ],
)
def test_bad_rows_name_file_line_and_field(
    tmp_path: Path, file: str, change: dict[str, object], message: str
) -> None:
    with open_full(str(tmp_path / "a.db")) as memory:
        fill(memory)
        export_archive(memory, tmp_path / "archive")
    path = tmp_path / "archive" / file
    lines = path.read_text(encoding="utf-8").splitlines()
    changed = json.dumps({**json.loads(lines[0]), **change})
    path.write_text("\n".join([changed, *lines[1:]]) + "\n", encoding="utf-8")
    with MemoryCoordinator(str(tmp_path / "b.db")) as memory:
        with pytest.raises(InvalidInputError, match=message):
            import_archive(memory, tmp_path / "archive")
        assert memory.health().to_dict()["semantic"]["count"] == 0


def test_a_truncated_file_is_refused(tmp_path: Path) -> None:
    with open_full(str(tmp_path / "a.db")) as memory:
        fill(memory)
        export_archive(memory, tmp_path / "archive")
    path = tmp_path / "archive" / "interactions.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    with MemoryCoordinator(str(tmp_path / "b.db")) as memory:
        with pytest.raises(
            InvalidInputError, match=r"interactions\.jsonl holds 2 rows, the manifest says 3"
        ):
            import_archive(memory, tmp_path / "archive")
        assert memory.find() == []


def test_not_an_archive(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with MemoryCoordinator(str(tmp_path / "b.db")) as memory:
        with pytest.raises(InvalidInputError, match=r"no manifest\.json"):
            import_archive(memory, tmp_path / "empty")
        (tmp_path / "empty" / "manifest.json").write_text('{"format": "other"}')
        with pytest.raises(InvalidInputError, match="field 'format'"):
            import_archive(memory, tmp_path / "empty")
        with pytest.raises(InvalidInputError, match="no archive at"):
            import_archive(memory, tmp_path / "missing")


def test_a_dry_run_reports_and_writes_nothing(tmp_path: Path) -> None:
    with open_full(str(tmp_path / "a.db")) as memory:
        fill(memory)
        export_archive(memory, tmp_path / "archive")
    with open_full(str(tmp_path / "b.db")) as memory:
        report = import_archive(memory, tmp_path / "archive", dry_run=True)
        assert report.dry_run and report.counts["memories"] == 8 and report.ids == []
        assert memory.find() == [] and memory.core_blocks() == []


def test_embeddings_reused_for_the_same_model_else_embedded(tmp_path: Path) -> None:
    embedder = DeterministicEmbedder()
    with open_full(str(tmp_path / "a.db"), embedder=embedder) as memory:
        fill(memory)
        first = export_archive(memory, tmp_path / "archive")
    assert first.counts["vectors"] == 8
    manifest = json.loads((tmp_path / "archive" / "manifest.json").read_text())
    assert manifest["embedding_model"] == embedder.model_id
    same = DeterministicEmbedder()
    with open_full(str(tmp_path / "b.db"), embedder=same) as memory:
        calls = len(same.document_calls)
        assert import_archive(memory, tmp_path / "archive").vectors == "reused"
        assert len(same.document_calls) == calls  # nothing embedded again
        export_archive(memory, tmp_path / "again")
        assert memory.recall("staging database", limit=1)[0].content.endswith("17.")
    assert archive_lines(tmp_path / "again") == archive_lines(tmp_path / "archive")
    other = DeterministicEmbedder(dimension=32)
    with open_full(str(tmp_path / "c.db"), embedder=other) as memory:
        assert import_archive(memory, tmp_path / "archive").vectors == "embedded"
        assert memory.health().to_dict()["semantic"]["count"] == 4
    with open_full(str(tmp_path / "d.db")) as memory:  # no model yet: takes the archive's
        assert import_archive(memory, tmp_path / "archive").vectors == "reused"
        export_archive(memory, tmp_path / "from-d")
    assert archive_lines(tmp_path / "from-d") == archive_lines(tmp_path / "archive")
    with pytest.raises(EmbeddingMismatchError):
        open_full(str(tmp_path / "d.db"), embedder=DeterministicEmbedder(dimension=32))
    with open_full(str(tmp_path / "d.db"), embedder=DeterministicEmbedder()) as memory:
        assert memory.recall("staging database", limit=1)[0].content.endswith("17.")
    with open_full(str(tmp_path / "e.db"), embedder=DeterministicEmbedder(dimension=32)):
        pass  # the store records another model
    with open_full(str(tmp_path / "e.db")) as memory:
        assert import_archive(memory, tmp_path / "archive").vectors == "skipped"


def test_knowledge_updates_continue_after_an_import(tmp_path: Path) -> None:
    with open_full(str(tmp_path / "a.db")) as memory:
        fill(memory)
        home = memory.store("I live in Hamburg.")
        export_archive(memory, tmp_path / "archive")
    with open_full(str(tmp_path / "b.db")) as memory:
        import_archive(memory, tmp_path / "archive")
        moved = memory.store("I moved to Berlin.")
        assert memory.get(home).superseded_by == moved  # type: ignore[union-attr]


def test_progress_reaches_the_end_on_one_scale(tmp_path: Path) -> None:
    with open_full(str(tmp_path / "a.db")) as memory:
        fill(memory)
        export_archive(memory, tmp_path / "archive")
    seen: list[tuple[int, int]] = []
    with open_full(str(tmp_path / "b.db"), embedder=DeterministicEmbedder()) as memory:
        report = import_archive(memory, tmp_path / "archive", progress=lambda *a: seen.append(a))
    assert report.vectors == "embedded"  # embedding, then writing: one bar, twice the rows
    assert seen[-1] == (16, 16) and all(total == 16 for _, total in seen)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
