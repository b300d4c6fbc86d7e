"""``zenbrain export`` reads the store by key a page at a time (zenbrain._memory.find.find_pages):
the memories of find(), in find()'s order (oldest first, then by key), whatever the pages
cut through (a batch sharing one time, layers interleaved, memories imported with older
times, a metadata filter), and a work per exported memory that does not grow with the store
(pages of find(offset=) read every earlier memory again: issue 39)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from zenbrain import MemoryCoordinator
from zenbrain._memory.find import find_pages
from zenbrain.cli import _transfer
from zenbrain.errors import InvalidInputError
from zenbrain.exchange import export_rows


def _fill(memory: MemoryCoordinator) -> None:
    """Memories whose order by time is not their order by key, in every layer."""
    memory.store_many(  # one batch: one time for all, so pages cut through equal times
        [{"content": f"batch note {i}", "metadata": {"k": i % 3}} for i in range(11)]
    )
    memory.store_many(
        [
            {"content": f"old diary {i}", "layer": "episodic", "created_at": f"2001-01-0{i + 1}"}
            for i in range(4)
        ]
    )
    memory.store("make tea", steps=["boil", "pour"], metadata={"k": 1})
    memory.set_core_block("persona", "Terse.")
    memory.store_many(
        [
            {"content": f"late fact {i}", "layer": "semantic", "created_at": "2001-01-02"}
            for i in range(5)
        ]
    )
    memory.store("a later episode", layer="episodic", metadata={"k": 0})


@pytest.mark.parametrize("page", [1, 2, 3, 500])
@pytest.mark.parametrize(
    ("layers", "where"),
    [(None, {}), (["semantic", "episodic"], {}), (None, {"k": 1}), (["core"], {})],
)
def test_export_lists_what_find_lists_in_its_order(
    memory: MemoryCoordinator,
    monkeypatch: pytest.MonkeyPatch,
    page: int,
    layers: list[str] | None,
    where: dict[str, Any],
) -> None:
    _fill(memory)
    monkeypatch.setattr(_transfer, "_PAGE", page)
    exported = [row["id"] for row in export_rows(memory, layers, where)]
    assert exported == [result.id for result in memory.find(where or None, layers=layers)]
    assert len(exported) == len(set(exported)) > 0


def test_find_pages_gives_pages_of_the_size_asked_and_checks_its_arguments(
    memory: MemoryCoordinator,
) -> None:
    _fill(memory)
    pages = list(find_pages(memory._scope, None, layers=None, size=4))
    assert [len(page) for page in pages] == [4] * 5 + [3]  # 23 memories
    assert [r.id for page in pages for r in page] == [r.id for r in memory.find()]
    assert list(find_pages(memory._scope, {"k": "none"}, layers=None, size=4)) == []
    for wrong in ({"size": 0}, {"layers": ["working"]}, {"metadata": {"k": [1]}}):
        arguments: dict[str, Any] = {"metadata": None, "layers": None, "size": 4, **wrong}
        with pytest.raises(InvalidInputError):  # at once, not at the first page
            find_pages(memory._scope, arguments.pop("metadata"), **arguments)


@contextmanager
def _vm_steps(memory: MemoryCoordinator) -> Iterator[list[int]]:
    """SQLite virtual machine instructions run by the store's connections in the block,
    as the cost tests count them (tests/cost/counting.py)."""
    counted = [0]

    def tick() -> int:
        counted[0] += 1
        return 0  # go on

    def on_checkout(dbapi_connection: Any, *_: Any) -> None:
        dbapi_connection.set_progress_handler(tick, 1)

    def on_checkin(dbapi_connection: Any, *_: Any) -> None:
        if dbapi_connection is not None:
            dbapi_connection.set_progress_handler(None, 1)

    engine = memory.database.engine
    event.listen(engine, "checkout", on_checkout)
    event.listen(engine, "checkin", on_checkin)
    try:
        yield counted
    finally:
        event.remove(engine, "checkout", on_checkout)
        event.remove(engine, "checkin", on_checkin)


def _steps_per_exported_memory(
    path: Path, size: int, export: Callable[[MemoryCoordinator], list[Any]]
) -> float:
    with MemoryCoordinator(path) as memory:
        tag = {"kind": "log"}
        for start in range(0, size, 100):  # batches: 100 memories share each time
            memory.store_many(
                [{"content": f"note {i}", "metadata": tag} for i in range(start, start + 100)]
            )
        memory.store_many(
            [
                {"content": f"diary {i}", "layer": "episodic", "metadata": tag}
                for i in range(size // 10)
            ]
        )
        with _vm_steps(memory) as steps:
            exported = export(memory)
        assert len(exported) == size + size // 10
        return steps[0] / len(exported)


@pytest.mark.parametrize(
    "export",
    [
        pytest.param(lambda memory: list(export_rows(memory, None, {})), id="all"),
        pytest.param(lambda memory: list(export_rows(memory, None, {"kind": "log"})), id="where"),
    ],
)
def test_the_work_per_exported_memory_does_not_grow_with_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, export: Callable[[MemoryCoordinator], Any]
) -> None:
    # Small pages make reading from the start again show at a small size: with pages of
    # find(offset=), 5 times the memories cost 4 to 5 times the work per memory.
    monkeypatch.setattr(_transfer, "_PAGE", 50)
    small = _steps_per_exported_memory(tmp_path / "small.db", 400, export)
    large = _steps_per_exported_memory(tmp_path / "large.db", 2_000, export)
    assert large <= 1.3 * small, f"{small:,.0f} -> {large:,.0f} instructions per memory"
