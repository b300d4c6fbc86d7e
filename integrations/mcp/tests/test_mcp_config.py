"""ZENBRAIN_DB / ZENBRAIN_CONTEXTS resolution and the writability check."""

from __future__ import annotations

from pathlib import Path

import pytest
from zenbrain_mcp import DEFAULT_CONTEXTS, check_writable, resolve_contexts, resolve_db

from zenbrain.errors import DatabaseNotWritableError, InvalidInputError


def test_default_database_is_zenbrain_db_in_the_start_directory(tmp_path: Path) -> None:
    assert resolve_db(environ={}, cwd=tmp_path) == str(tmp_path / "zenbrain.db")


def test_relative_paths_are_relative_to_the_start_directory(tmp_path: Path) -> None:
    resolved = resolve_db(environ={"ZENBRAIN_DB": "data/memory.db"}, cwd=tmp_path)
    assert resolved == str(tmp_path / "data" / "memory.db")


def test_a_leading_tilde_is_the_home_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    resolved = resolve_db(environ={"ZENBRAIN_DB": "~/.zenbrain/memory.db"}, cwd="/")
    assert resolved == str(tmp_path / "home" / ".zenbrain" / "memory.db")


@pytest.mark.parametrize("value", [":memory:", "postgresql+psycopg://u@localhost/zb"])
def test_memory_and_urls_pass_through(value: str) -> None:
    assert resolve_db(environ={"ZENBRAIN_DB": value}, cwd="/") == value
    check_writable(value)  # nothing to check, nothing raised


def test_an_explicit_value_wins_over_the_environment(tmp_path: Path) -> None:
    resolved = resolve_db("explicit.db", environ={"ZENBRAIN_DB": "env.db"}, cwd=tmp_path)
    assert resolved == str(tmp_path / "explicit.db")


def test_contexts_default_and_parse() -> None:
    assert resolve_contexts(environ={}) == DEFAULT_CONTEXTS
    assert resolve_contexts(environ={"ZENBRAIN_CONTEXTS": " home, work ,,home"}) == (
        "home",
        "work",
    )
    assert resolve_contexts(["a", "b"]) == ("a", "b")
    with pytest.raises(InvalidInputError, match="at least one context"):
        resolve_contexts(" , ,")


def test_a_writable_location_is_created(tmp_path: Path) -> None:
    target = tmp_path / "nested" / "dir" / "memory.db"
    check_writable(str(target))
    assert target.parent.is_dir()


def test_an_unwritable_location_names_the_path_and_the_fix(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    target = str(blocker / "zenbrain.db")
    with pytest.raises(DatabaseNotWritableError) as caught:
        check_writable(target)
    message = str(caught.value)
    assert target in message
    assert "ZENBRAIN_DB" in message and "~/" in message and "absolute" in message
    assert not Path(target).exists()
