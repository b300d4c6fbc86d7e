"""Bad input gets a clear error and changes nothing."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from zenbrain import (
    DatabaseNotWritableError,
    InvalidInputError,
    MemoryCoordinator,
    UnknownLayerError,
    ZenbrainError,
)


def assert_untouched(memory: MemoryCoordinator) -> None:
    health = memory.health()
    assert (health.semantic["count"], health.episodic["count"], health.working["used"]) == (0, 0, 0)


@pytest.mark.parametrize("content", ["", "   ", None, 42, b"bytes", ["list"]])
def test_empty_or_non_text_content(memory: MemoryCoordinator, content: object) -> None:
    with pytest.raises(InvalidInputError, match="content"):
        memory.store(content)  # type: ignore[arg-type]
    assert_untouched(memory)


@pytest.mark.parametrize("value", [-0.1, 1.5, math.nan, math.inf, True, "0.5"])
@pytest.mark.parametrize("name", ["emotional_weight", "confidence"])
def test_weights_outside_zero_to_one(memory: MemoryCoordinator, name: str, value: object) -> None:
    with pytest.raises(InvalidInputError, match=name):
        memory.store("fine text", **{name: value})  # type: ignore[arg-type]
    assert_untouched(memory)


def test_unknown_layer(memory: MemoryCoordinator) -> None:
    with pytest.raises(UnknownLayerError, match="unknown layer 'nope'"):
        memory.store("x", layer="nope")
    with pytest.raises(UnknownLayerError, match="cannot be used here"):
        memory.store("x", layer="cross_context")
    with pytest.raises(UnknownLayerError):
        memory.recall("x", layers=["episodic", "bogus"])
    with pytest.raises(UnknownLayerError):
        memory.forget("some-id", "bogus")
    assert_untouched(memory)


def test_recall_arguments(memory: MemoryCoordinator) -> None:
    for kwargs in (
        {"limit": 0},
        {"limit": 1.5},
        {"min_score": 2},
        {"min_confidence": -1},
        {"core": "sometimes"},
        {"layers": []},
        {"layers": "episodic"},
    ):
        with pytest.raises(InvalidInputError):
            memory.recall("query", **kwargs)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        memory.recall("")


def test_grade_out_of_range(memory: MemoryCoordinator) -> None:
    fid = memory.store("Water boils at 100 °C")
    for grade in (0, 5, 2.5, "3", True):
        with pytest.raises(InvalidInputError, match="grade"):
            memory.record_review(fid, grade)  # type: ignore[arg-type]


def test_other_arguments(memory: MemoryCoordinator) -> None:
    with pytest.raises(InvalidInputError, match="metadata"):
        memory.store("x", metadata={"when": object()})
    with pytest.raises(InvalidInputError, match="steps"):
        memory.store("x", steps="not a list")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="created_at"):
        memory.store("x", created_at="yesterday")
    with pytest.raises(InvalidInputError, match="success"):
        memory.procedure_feedback("id", "yes")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="namespace"):
        MemoryCoordinator(":memory:", namespace="")
    with pytest.raises(InvalidInputError, match="label"):
        memory.set_core_block("", "content")
    assert_untouched(memory)


def test_errors_form_one_tree() -> None:
    assert issubclass(UnknownLayerError, InvalidInputError)
    assert issubclass(InvalidInputError, ZenbrainError) and issubclass(
        InvalidInputError, ValueError
    )
    assert issubclass(DatabaseNotWritableError, ZenbrainError)


def test_unwritable_path_names_the_path_and_suggests_a_fix(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    target = blocker / "memory.db"  # a path below a regular file cannot be created, even as root
    with pytest.raises(DatabaseNotWritableError) as info:
        MemoryCoordinator(target)
    message = str(info.value)
    assert str(target) in message
    assert "absolute path" in message and "~/" in message


def test_relative_path_and_tilde(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with MemoryCoordinator("~/memories/zb.db") as memory:
        memory.store("x")
    assert (tmp_path / "home" / "memories" / "zb.db").exists()
    monkeypatch.setenv("ZENBRAIN_DB", "from-env.db")
    with MemoryCoordinator() as memory:
        memory.store("y")
    assert (tmp_path / "from-env.db").exists()
    monkeypatch.delenv("ZENBRAIN_DB")
    with MemoryCoordinator() as memory:
        memory.store("z")
    assert (tmp_path / "zenbrain.db").exists()


def test_memory_store_is_discarded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with MemoryCoordinator(":memory:") as memory:
        memory.store("ephemeral")
        assert memory.recall("ephemeral")[0].content == "ephemeral"
    assert list(tmp_path.iterdir()) == []
