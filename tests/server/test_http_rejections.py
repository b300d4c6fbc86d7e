"""A hostile HTTP client, independent of the strictness tests: schemathesis generates calls of
every operation of /v1/openapi.json, valid and schema-breaking, against a real server on
loopback over a real SQLite file, and hand-written calls aim at the half-writes a surface
can make (a batch, an import or a replace with one bad part). For every call: nothing
answers 5xx, and a rejected call (4xx) changes nothing: the store file, read row by row in
every table by a connection of its own, and the server's working memory are the same
before and after it."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.generation import GenerationMode

from tests.server.test_openapi_fuzz import _json_lines  # noqa: F401  (the NDJSON serializer)
from zenbrain._coordinator import MemoryCoordinator
from zenbrain.server import create_app
from zenbrain.testing.server import running_server

#: Generated calls per operation and mode: ~45 operations, two modes, in about 20 s.
EXAMPLES_PER_OPERATION = 3


@dataclass
class Target:
    url: str
    file: Path
    memory: MemoryCoordinator  # the server's coordinator (its working memory is the server's)
    schema: Any


def _seed(memory: MemoryCoordinator) -> None:
    memory.store("Anna's staging database is PostgreSQL 17.", layer="semantic")
    memory.store("I was thrilled when the talk got accepted!", layer="episodic")
    memory.store("How to deploy: 1. build 2. push", layer="procedural")
    memory.set_core_block("persona", "Anna, engineer in Kiel.")
    memory.add_interaction("user", "Hello there.")


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    file = tmp_path_factory.mktemp("rejections") / "memory.db"
    with MemoryCoordinator(str(file)) as memory, running_server(create_app(memory)) as url:
        _seed(memory)
        schema = schemathesis.openapi.from_url(f"{url}/v1/openapi.json")
        yield Target(url, file, memory, schema)


def _state(target: Target) -> str:
    """Every row of every table of the store file, and the working memory's slots."""
    digest = hashlib.sha256()
    with closing(sqlite3.connect(f"file:{target.file}?mode=ro", uri=True)) as conn:
        tables = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        for (table,) in tables.fetchall():
            digest.update(f"\n{table}:".encode())
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                digest.update(repr(row).encode())
    digest.update(repr(target.memory.working.slots()).encode())
    return digest.hexdigest()


def _check(target: Target, call: Any, label: str) -> int:
    """Make ``call``; fail on a 5xx, and on a 4xx that changed the store. Its status."""
    before = _state(target)
    response = call()
    status = response.status_code
    assert status < 500, f"{label} answered {status}: {response.text[:500]}"
    if status >= 400:
        assert _state(target) == before, f"{label} answered {status} and changed the store"
    return status


def test_generated_calls_answer_no_5xx_and_a_rejected_one_changes_nothing(
    target: Target,
) -> None:
    failures: list[str] = []
    statuses: list[int] = []
    for found in target.schema.get_all_operations():
        operation = found.ok()
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @settings(
                max_examples=EXAMPLES_PER_OPERATION,
                deadline=None,
                suppress_health_check=list(HealthCheck),
                derandomize=True,
                database=None,
            )
            @given(case=operation.as_strategy(generation_mode=mode))
            def call(case: schemathesis.Case) -> None:
                # called at once, in this iteration: mode is this loop's
                label = f"{case.method} {case.formatted_path} ({mode.value})"  # noqa: B023
                statuses.append(_check(target, lambda: case.call(timeout=30), label))

            try:
                call()
            except Unsatisfiable:  # nothing to break: the operation takes no input
                assert mode is GenerationMode.NEGATIVE, operation.label
            except (Exception, BaseExceptionGroup) as exc:  # one operation's; the rest still run
                failures.append(f"{operation.label} ({mode.value}): {str(exc)[:1500]}")
    assert not failures, "\n\n".join(failures)
    # The check saw both kinds: calls that were refused and calls that went through.
    assert sum(400 <= s < 500 for s in statuses) >= 50, statuses
    assert sum(s < 300 for s in statuses) >= 20, statuses


def _lines(*rows: object) -> bytes:
    return "\n".join(json.dumps(row) for row in rows).encode()


#: (method, path, keyword arguments of httpx.request): calls with one bad part among good ones.
HALF_WRITES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "batch with a bad item last": (
        "POST",
        "/v1/memories/batch",
        {"json": {"items": ["A good memory.", {"content": "x", "layer": "nowhere"}]}},
    ),
    "batch with a boolean confidence": (
        "POST",
        "/v1/memories/batch",
        {"json": {"items": ["A good memory.", {"content": "x", "confidence": True}]}},
    ),
    "import with a bad core row after a good row": (
        "POST",
        "/v1/import",
        {
            "content": _lines(
                {"content": "A good row."}, {"layer": "core", "label": 5, "content": "x"}
            ),
            "headers": {"Content-Type": "application/x-ndjson"},
        },
    ),
    "import with a row that is not JSON last": (
        "POST",
        "/v1/import",
        {
            "content": _lines({"content": "A good row."}) + b"\n{not json",
            "headers": {"Content-Type": "application/x-ndjson"},
        },
    ),
    "replace with a bad layer": (
        "POST",
        "/v1/replace",
        {"json": {"match": {"user": "anna"}, "content": "x", "layer": "nowhere"}},
    ),
    "store superseding an unknown id": (
        "POST",
        "/v1/memories",
        {"json": {"content": "Anna lives in Bonn.", "supersedes": ["no-such-id"]}},
    ),
    "interactions with one bad role": (
        "POST",
        "/v1/interactions",
        {"json": {"turns": [{"role": "user", "content": "Hi."}, {"role": "", "content": "Beep."}]}},
    ),
    "a review of an unknown fact": (
        "POST",
        "/v1/reviews",
        {"json": {"fact_id": "no-such-id", "grade": 3}},
    ),
}


@pytest.mark.parametrize("name", list(HALF_WRITES))
def test_a_call_with_one_bad_part_is_refused_whole(target: Target, name: str) -> None:
    method, path, arguments = HALF_WRITES[name]
    status = _check(
        target, lambda: httpx.request(method, target.url + path, timeout=30, **arguments), name
    )
    assert 400 <= status < 500, f"{name} was accepted ({status})"
