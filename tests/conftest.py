from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from zenbrain import MemoryCoordinator


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def memory(db_path: Path) -> Iterator[MemoryCoordinator]:
    with MemoryCoordinator(db_path) as coordinator:
        yield coordinator
