"""Shared fixtures: a real zenbrain coordinator on a SQLite file in a temporary directory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from zenbrain import MemoryCoordinator


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def coordinator(db_path: Path) -> Iterator[MemoryCoordinator]:
    with MemoryCoordinator(db_path) as memory:
        yield memory
