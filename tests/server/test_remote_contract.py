"""The storage contract (zenbrain.testing.contract) through RemoteMemory: every call goes over
HTTP to a real server on loopback, over SQLite and over PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from zenbrain._coordinator import MemoryCoordinator
from zenbrain.remote import RemoteMemory
from zenbrain.server import create_app
from zenbrain.testing.contract import StorageContract
from zenbrain.testing.server import running_server


class TestRemoteContract(StorageContract):
    @pytest.fixture
    def location(self, store_location: str) -> str:
        return store_location

    @pytest.fixture
    def memory(self, location: str) -> Iterator[Any]:  # type: ignore[override]
        with (
            MemoryCoordinator(location) as local,
            running_server(create_app(local)) as url,
            RemoteMemory(url) as remote,
        ):
            yield remote
