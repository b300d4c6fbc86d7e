"""The storage contract (zenbrain.testing.contract) on the SQLite default: a file per test."""

from __future__ import annotations

from pathlib import Path

import pytest

from zenbrain.testing.contract import StorageContract


class TestSqliteContract(StorageContract):
    @pytest.fixture
    def location(self, tmp_path: Path) -> str:
        return str(tmp_path / "memory.db")
