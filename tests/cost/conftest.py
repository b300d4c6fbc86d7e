"""Fixtures of the cost tests: fresh stores on each back end, as ``store_location`` gives
them (tests/conftest.py), but several per test."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from zenbrain.testing.postgres import fresh_database

REQUIRE_POSTGRES = os.environ.get("ZENBRAIN_REQUIRE_POSTGRES") == "1"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def new_location(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[str], str]]:
    """``new_location(name)``: a new, empty store on this test's back end (a SQLite file,
    or a database of its own on the test PostgreSQL server)."""
    if request.param == "sqlite":
        yield lambda name: str(tmp_path / f"{name}.db")
        return
    try:
        server = request.getfixturevalue("postgres_url")
    except pytest.skip.Exception:
        if REQUIRE_POSTGRES:
            pytest.fail("PostgreSQL is required here (ZENBRAIN_REQUIRE_POSTGRES=1) but unavailable")
        raise
    with contextlib.ExitStack() as databases:
        yield lambda _name: databases.enter_context(fresh_database(server))
