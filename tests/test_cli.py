"""The zenbrain command, run as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any


def zb(db: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zenbrain", *args, "--db", str(db)],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=120,
    )


def zb_json(db: Path, *args: str) -> Any:
    done = zb(db, *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_store_recall_forget_round_trip(db_path: Path) -> None:
    stored = zb_json(db_path, "store", "The backup runs at 02:00 every night")
    assert stored["layer"] == "semantic"
    found = zb_json(db_path, "recall", "backup night", "--min-score", "0.1")
    assert found["count"] == 1 and found["results"][0]["id"] == stored["id"]
    table = zb(db_path, "recall", "backup night")
    assert table.returncode == 0
    assert "score" in table.stdout and "The backup runs at 02:00" in table.stdout
    forgotten = zb_json(db_path, "forget", stored["id"], "semantic")
    assert forgotten["forgotten"] is True
    again = zb(db_path, "forget", stored["id"], "semantic")
    assert again.returncode == 1 and "no semantic memory" in again.stdout


def test_store_from_stdin_and_procedure_steps(db_path: Path) -> None:
    stored = zb_json(
        db_path, "store", "Release", "--layer", "procedural", "--step", "a", "--step", "b"
    )
    assert stored["layer"] == "procedural"
    assert zb_json(db_path, "recall", "release")["results"][0]["metadata"]["steps"] == ["a", "b"]
    done = zb(db_path, "store", "-", "--json", stdin="How to test: run pytest")
    assert json.loads(done.stdout)["layer"] == "procedural"


def test_health_consolidate_review(db_path: Path) -> None:
    zb_json(db_path, "store", "I am absolutely thrilled — the launch went perfectly!")
    assert zb_json(db_path, "consolidate")["promoted"] == 1
    health = zb_json(db_path, "health")
    assert health["episodic"]["count"] == 1 and health["semantic"]["count"] == 1
    assert "episodic" in zb(db_path, "health").stdout
    assert zb_json(db_path, "review")["count"] == 0


def test_namespaces_are_separate(db_path: Path) -> None:
    zb_json(db_path, "store", "secret plan", "--namespace", "alice")
    assert zb_json(db_path, "recall", "secret plan", "--namespace", "bob")["count"] == 0


def test_bad_input_exits_two_with_a_message(db_path: Path) -> None:
    done = zb(db_path, "store", "x", "--confidence", "3")
    assert done.returncode == 2
    assert "confidence must be a number from 0 to 1" in done.stderr
    as_json = zb(db_path, "store", "   ", "--json")
    assert as_json.returncode == 2
    assert json.loads(as_json.stdout)["error"]["type"] == "InvalidInputError"
