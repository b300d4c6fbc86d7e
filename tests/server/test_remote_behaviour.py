"""The core's behaviour suites through RemoteMemory: the tests of find, recall, forget and
consolidate, routing and validity that take a coordinator (``memory`` or ``timed``) run here
again with a RemoteMemory in its place. Every call goes over HTTP to a real server on
loopback, on SQLite and on PostgreSQL, and must give what the coordinator gives in process.

One server (``create_app`` under uvicorn) serves the module; each test's own coordinator is
made the store its routes use (the app's ServerState), so a test costs its calls, not a
server's start and stop. A test that reads what only the process holding the store has
stays in-process (``IN_PROCESS_ONLY``, with the reason). Where RemoteMemory still answers
otherwise than the coordinator, the test is expected to fail (``DIVERGES``, strict: it fails
here once the two agree, so the entry must go).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest
from fastapi import FastAPI

from tests.conftest import postgres_server
from tests.layers import test_routing
from tests.memory import test_find, test_forget_consolidate, test_recall, test_validity
from zenbrain._coordinator import MemoryCoordinator
from zenbrain.remote import RemoteMemory
from zenbrain.server import create_app
from zenbrain.server._access import ServerState
from zenbrain.testing.postgres import fresh_database
from zenbrain.testing.server import running_server

SUITES: tuple[ModuleType, ...] = (
    test_find,
    test_recall,
    test_forget_consolidate,
    test_routing,
    test_validity,
)
#: The fixtures a suite's test takes its coordinator from; each is a RemoteMemory here.
COORDINATOR_FIXTURES = frozenset({"memory", "timed"})

_WORKING = "reads memory.working, the process's WorkingMemory object (RemoteMemory has none)"
#: Tests of the suites that stay in-process, and why.
IN_PROCESS_ONLY: dict[str, str] = {
    "test_consolidation_decays_working_memory": _WORKING,
    "test_forgetting_an_episode_deletes_its_fact_and_working_copies": _WORKING,
    "test_everything_stored_lands_in_working_memory": _WORKING,
    "test_bad_supersedes_is_refused_and_changes_nothing": _WORKING,
    # zenbrain.inspection reads a coordinator's own store; over HTTP the same preview is
    # DELETE /v1/memories/{id}?dry_run=true (tests/server/test_api.py).
    "test_the_preview_is_the_plan_forget_carries_out": "zenbrain.inspection takes a coordinator",
}

#: (test, a part of its parameter id or "") -> how RemoteMemory answers otherwise than the
#: coordinator. Each is a failing test here until the client (or the server) is mended.
DIVERGES: dict[tuple[str, str], str] = {}


@pytest.fixture(autouse=True)
def _diverges(request: pytest.FixtureRequest) -> None:
    name = request.node.originalname
    callspec = getattr(request.node, "callspec", None)
    parts = callspec.id.split("-") if callspec is not None else []
    for (test, part), why in DIVERGES.items():
        if test == name and (not part or part in parts):
            request.applymarker(pytest.mark.xfail(reason=why, strict=True))


@dataclass
class Loopback:
    """One server for the module (the real app, on loopback) and a client of it whose
    connections every synchronous test shares."""

    app: FastAPI
    url: str
    client: RemoteMemory


@pytest.fixture(scope="module")
def loopback() -> Iterator[Loopback]:
    app = create_app(":memory:")
    with running_server(app) as url, RemoteMemory(url) as client:
        yield Loopback(app, url, client)


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def shared_store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """One store per back end for the module (a new PostgreSQL database costs more than a
    test here); each test empties it again (``_served``)."""
    if request.param == "sqlite":
        yield str(tmp_path_factory.mktemp("remote") / "memory.db")
        return
    with fresh_database(postgres_server(request)) as url:
        yield url


@contextmanager
def _served(
    request: pytest.FixtureRequest, loopback: Loopback, coordinator: MemoryCoordinator
) -> Iterator[Any]:
    """``coordinator`` as the store the server's routes use, and a client of it; afterwards
    every namespace the test wrote is dropped, so the next test starts on an empty store."""
    opened = loopback.app.state.zenbrain
    loopback.app.state.zenbrain = ServerState(coordinator, require_keys=False, owns_base=False)
    try:
        if inspect.iscoroutinefunction(request.node.function):
            # An async test runs on its own event loop: its client's connections are its own.
            with RemoteMemory(loopback.url) as remote:
                yield remote
        else:
            yield loopback.client.for_namespace("default")
    finally:
        loopback.app.state.zenbrain = opened
        for namespace in coordinator.namespaces():
            coordinator.for_namespace(namespace).drop_namespace()
        assert coordinator.namespaces() == []


@pytest.fixture
def memory(request: pytest.FixtureRequest, shared_store: str, loopback: Loopback) -> Iterator[Any]:
    with MemoryCoordinator(shared_store) as local, _served(request, loopback, local) as remote:
        yield remote


@pytest.fixture
def timed(
    request: pytest.FixtureRequest, shared_store: str, clock: Any, loopback: Loopback
) -> Iterator[Any]:
    """test_validity's coordinator on its test's clock, as the server's store."""
    with (
        MemoryCoordinator(shared_store, clock=clock) as local,
        _served(request, loopback, local) as remote,
    ):
        yield remote


clock = test_validity.clock  # the fixture timed's clock comes from


def _through_remote(suite: ModuleType) -> dict[str, Callable[..., Any]]:
    short = suite.__name__.rsplit(".", 1)[-1].removeprefix("test_")
    found: dict[str, Callable[..., Any]] = {}
    for name, test in vars(suite).items():
        if not name.startswith("test_") or not callable(test):
            continue
        if name in IN_PROCESS_ONLY:
            continue
        if not COORDINATOR_FIXTURES & set(inspect.signature(test).parameters):
            continue  # builds its own coordinators (or none): nothing to run remotely
        found[f"test_{short}__{name.removeprefix('test_')}"] = test
    return found


for _suite in SUITES:
    globals().update(_through_remote(_suite))


def test_each_suite_runs_through_the_remote_client() -> None:
    """The list above is not left empty by a renamed fixture: most of each suite runs."""
    for suite in SUITES:
        assert len(_through_remote(suite)) >= 4, suite.__name__
    known = {name for suite in SUITES for name in vars(suite)}
    assert set(IN_PROCESS_ONLY) <= known, set(IN_PROCESS_ONLY) - known
    here = {name for name in globals() if name.startswith("test_")}
    assert {test for test, _ in DIVERGES} <= here, {test for test, _ in DIVERGES} - here


@pytest.mark.parametrize(
    ("layer", "text"),
    [
        ("procedural", "How to deploy: 1. build the image 2. push it"),
        ("episodic", "We shipped the release today and I was so relieved!"),
    ],
)
def test_update_keeps_the_layer_it_updates(memory: Any, layer: str, text: str) -> None:
    """As the coordinator's update() does; the route read its body's default layer ("auto")
    as given and filed the new version wherever routing put its text."""
    old = memory.store(text, layer=layer)
    new = memory.update(old, "Deploys run through the release script.")
    assert (memory.get(new) or pytest.fail()).layer == layer
    assert [r.id for r in memory.history(new)] == [old, new]
