"""The zenbrain command, run as a real subprocess (as a user's shell runs it)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import click
import pytest

from tests.cli.conftest import clean_env, zb, zb_json
from zenbrain import MemoryCoordinator


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
    assert shown["procedure"]["steps"] == ["a", "b"]
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
    env = clean_env(ZENBRAIN_DB="stores/memory.db")
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
    done = zb("store", "x", "--db", db, env=clean_env(ZENBRAIN_CONTEXTS=" , "))
    assert done.returncode == 1 and "ZENBRAIN_CONTEXTS must name at least one" in done.stderr
    ok = zb("store", "x", "--db", db, env=clean_env(ZENBRAIN_CONTEXTS="home,work"))
    assert ok.returncode == 0, ok.stderr


def test_tilde_paths_are_the_home_folder(tmp_path: Path) -> None:
    (tmp_path / ".zenbrain").mkdir()
    env = clean_env(HOME=str(tmp_path))
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
    for missing in (zb("show", "1234", "--db", db), zb("forget", "1234", "--db", db)):
        assert missing.returncode == 1
        assert missing.stderr.startswith("zenbrain: error: no memory with id 1234")
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
            env=clean_env(),
        )
        assert done.returncode == 0
        assert len(done.stdout.splitlines()) == 1
        assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr


def test_the_command_starts_without_the_heavy_imports() -> None:
    """`zenbrain --help` and `import zenbrain.cli` leave SQLAlchemy and numpy unloaded."""
    probe = (
        "import sys, zenbrain.cli\n"
        "from zenbrain.cli._main import cli\n"
        "heavy = sorted(m for m in ('sqlalchemy', 'numpy', 'zenbrain._coordinator') "
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
