"""Fixtures of the cost tests: fresh stores on each back end, as ``store_location`` gives
them (tests/conftest.py), but several per test."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import postgres_server
from zenbrain.testing.postgres import fresh_database


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def new_location(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[str], str]]:
    """``new_location(name)``: a new, empty store on this test's back end (a SQLite file,
    or a database of its own on the test PostgreSQL server)."""
    if request.param == "sqlite":
        yield lambda name: str(tmp_path / f"{name}.db")
        return
    server = postgres_server(request)
    with contextlib.ExitStack() as databases:
        yield lambda _name: databases.enter_context(fresh_database(server))
