"""A real server per test: uvicorn on 127.0.0.1 (a free port) over a fresh store, SQLite or
PostgreSQL, and the API keys of two namespaces."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import httpx
import pytest

from zenbrain.coordinator import MemoryCoordinator
from zenbrain.server import create_app
from zenbrain.storage.api_keys import add_key
from zenbrain.testing.server import running_server


@dataclass
class Served:
    url: str
    memory: MemoryCoordinator  # the server's own coordinator, for checks beside the API


@pytest.fixture
def served(store_location: str) -> Iterator[Served]:
    """A key-less (loopback) server over a fresh store."""
    with MemoryCoordinator(store_location) as memory, running_server(create_app(memory)) as url:
        yield Served(url, memory)


@pytest.fixture
def client(served: Served) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=served.url, timeout=30) as http:
        yield http


@dataclass
class Keyed:
    url: str
    memory: MemoryCoordinator
    alice: str  # opens "alice" only
    bob: str  # opens "bob" only
    team: str  # opens every namespace starting with "team."


@pytest.fixture
def keyed(store_location: str) -> Iterator[Keyed]:
    """A server whose store holds keys of different namespaces."""
    with MemoryCoordinator(store_location) as memory:
        _, alice = add_key(memory.database, "alice")
        _, bob = add_key(memory.database, "bob")
        _, team = add_key(memory.database, "team.", is_prefix=True)
        with running_server(create_app(memory)) as url:
            yield Keyed(url, memory, alice, bob, team)


def _client_with(url: str, token: str | None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=url, headers=headers, timeout=30)


@pytest.fixture
def as_key() -> Callable[[str, str | None], httpx.Client]:
    """``as_key(url, token)``: an HTTP client sending that key (none for None)."""
    return _client_with
