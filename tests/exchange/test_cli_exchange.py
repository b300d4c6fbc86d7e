"""`zenbrain export --format archive|okf` and `zenbrain import` of every format, run as a
real subprocess: the format detected from the content, --dry-run, a bad file's error."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import zb, zb_json
from tests.exchange.conftest import archive_lines

FIXTURES = Path(__file__).parent / "fixtures"
LETTA = FIXTURES / "customer_service.af"


def test_archive_round_trip_on_the_command_line(tmp_path: Path) -> None:
    db, other = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    for text in ("Anna lives in Kiel.", "I am absolutely thrilled about the launch!"):
        zb_json("--db", db, "store", text)
    zb_json("--db", db, "core", "set", "persona", "Anna, payments engineer")
    done = zb_json("--db", db, "export", "--format", "archive", str(tmp_path / "archive"))
    assert done["format"] == "archive" and done["exported"] == 3
    dry = zb_json("--db", other, "import", "--dry-run", str(tmp_path / "archive"))
    assert dry["dry_run"] and dry["counts"]["memories"] == 3
    imported = zb_json("--db", other, "import", str(tmp_path / "archive"))
    assert imported["format"] == "archive" and imported["ids_kept"]
    zb_json("--db", other, "export", str(tmp_path / "again.zip"))
    zb_json("--db", db, "export", "--format", "okf", str(tmp_path / "okf"))
    assert (tmp_path / "okf" / "index.md").is_file()
    (tmp_path / "unzipped").mkdir()
    import zipfile

    zipfile.ZipFile(tmp_path / "again.zip").extractall(tmp_path / "unzipped")
    assert archive_lines(tmp_path / "unzipped") == archive_lines(tmp_path / "archive")


def test_foreign_formats_are_detected(tmp_path: Path) -> None:
    db = str(tmp_path / "a.db")
    letta = zb_json(
        "--db", db, "--namespace", "cs", "import", str(FIXTURES / "customer_service.af")
    )
    assert letta["format"] == "letta" and letta["layers"] == {"core": 2, "episodic": 5}
    mem0 = zb_json("--db", db, "--namespace", "m", "import", str(FIXTURES / "mem0_get_all.json"))
    assert mem0["format"] == "mem0" and mem0["imported"] == 3
    graph = zb("--db", db, "--namespace", "g", "import", str(FIXTURES / "mcp_memory.jsonl"))
    assert graph.returncode == 0 and "imported 5 memories (5 semantic)" in graph.stdout
    cogx = zb_json(
        "--db", db, "--namespace", "c", "import", "--format", "cogx", str(FIXTURES / "cogx")
    )
    assert cogx["skipped"] == {"raw nodes": 1}


def test_a_bad_file_is_refused_with_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "graph.jsonl"
    lines = (FIXTURES / "mcp_memory.jsonl").read_text(encoding="utf-8").splitlines()
    bad.write_text("\n".join([*lines, '{"type": "relation", "from": "A"}']) + "\n")
    done = zb("--db", str(tmp_path / "a.db"), "import", "--format", "mcp-memory", str(bad))
    assert done.returncode != 0
    assert f"line {len(lines) + 1}: field 'to'" in done.stderr
    listed = zb("--db", str(tmp_path / "a.db"), "find", "--json")
    assert listed.returncode != 0 or json.loads(listed.stdout) == []
