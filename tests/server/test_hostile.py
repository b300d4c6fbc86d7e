"""Hostile requests: each gets a problem+json answer below 500 naming a ZenbrainError class,
and changes nothing in the store."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import httpx
import pytest

from tests.conftest import postgres_server
from tests.server.conftest import Served
from zenbrain._coordinator import MemoryCoordinator
from zenbrain.server import DEFAULT_MAX_BODY_BYTES, create_app
from zenbrain.testing.postgres import fresh_database
from zenbrain.testing.server import running_server

JSON = {"Content-Type": "application/json"}
DEEP = b'{"a":' * 2000 + b"1" + b"}" * 2000
HOSTILE_BODIES: list[tuple[str, str, bytes]] = [
    ("POST", "/v1/memories", b'{"content": "\\ud800 lone surrogate"}'),
    ("POST", "/v1/memories", b'{"content": "x", "emotional_weight": NaN}'),
    ("POST", "/v1/memories", b'{"content": "x", "confidence": Infinity}'),
    ("POST", "/v1/memories", b'{"content": "nul \\u0000 byte"}'),
    ("POST", "/v1/memories", b'{"content": "x", "created_at": "99999-01-01"}'),
    (
        "POST",
        "/v1/memories",
        b'{"content": "x", "metadata": ' + b'{"a":' * 2000 + b"1" + b"}" * 2000 + b"}",
    ),
    ("POST", "/v1/memories", b'{"content": "x", "layer": "short_term"}'),
    # JSON booleans are no numbers, and numbers no strings, as in the library.
    ("POST", "/v1/memories", b'{"content": "x", "confidence": true}'),
    ("POST", "/v1/memories", b'{"content": "x", "emotional_weight": false}'),
    ("POST", "/v1/memories", b'{"content": "x", "context": 5}'),
    ("POST", "/v1/recall", b'{"query": "x", "limit": true}'),
    ("POST", "/v1/memories", b'{"content": "x", "unknown": 1}'),
    ("POST", "/v1/memories", b"[1, 2, 3]"),
    ("POST", "/v1/memories", b"\xff\xfe not utf-8"),
    ("POST", "/v1/memories", b""),
    ("POST", "/v1/memories/batch", b'{"items": [{"content": "ok"}, {"content": 5}]}'),
    ("POST", "/v1/recall", b'{"query": "x", "limit": 1' + b"0" * 400 + b"}"),
    ("POST", "/v1/recall", b'{"query": "x", "layers": "semantic"}'),
    ("POST", "/v1/recall", b'{"query": "x", "where": {"a": [1, 2]}}'),
    ("POST", "/v1/recall", b'{"query": "   "}'),
    ("POST", "/v1/find", b'{"limit": -1}'),
    ("POST", "/v1/find", b'{"offset": 1e308}'),
    ("POST", "/v1/reviews", b'{"fact_id": "x", "grade": 99}'),
    ("POST", "/v1/replace", b'{"match": {}, "content": "x"}'),
    ("PUT", "/v1/core-blocks/%00", b'{"content": "x"}'),
    ("POST", "/v1/interactions", b'{"turns": [{"role": "", "content": "x"}]}'),
    ("POST", "/v1/import", b'{"content": "ok"}\n{"content": ""}\n'),
    ("POST", "/v1/import", b'{"content": "ok", "label": 5, "layer": "core"}\n'),
    # A bad core row after a good memory: the memory must not be stored either.
    ("POST", "/v1/import", b'{"content": "ok"}\n{"content": "x", "label": 5, "layer": "core"}\n'),
    ("POST", "/v1/import", b'{"content": "ok"}\n{"content": " ", "label": "p", "layer": "core"}\n'),
    ("POST", "/v1/tools/zenbrain_store", b'{"content": "x", "type": "nope"}'),
    ("POST", "/v1/tools/zenbrain_recall", b"not json"),
    ("POST", "/v1/embed-missing", b'{"batch_size": 0}'),
]


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def one_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """One server per back end for the requests that must change nothing (a server over a
    new store costs more than such a test): each test checks the store is as it found it."""
    where: AbstractContextManager[str]
    if request.param == "postgres":
        where = fresh_database(postgres_server(request))
    else:
        where = nullcontext(str(tmp_path_factory.mktemp("hostile") / "memory.db"))
    with (
        where as location,
        MemoryCoordinator(location) as memory,
        running_server(create_app(memory)) as url,
    ):
        memory.store("a memory already there, which a refused request leaves alone")
        yield Served(url, memory)


@pytest.mark.parametrize(("method", "path", "body"), HOSTILE_BODIES, ids=range(len(HOSTILE_BODIES)))
def test_a_hostile_body_is_refused_and_changes_nothing(
    one_server: Served, method: str, path: str, body: bytes
) -> None:
    before = one_server.memory.health().to_dict()
    with httpx.Client(base_url=one_server.url, timeout=30) as client:
        answer = client.request(method, path, content=body, headers=JSON)
    assert 400 <= answer.status_code < 500, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    problem = answer.json()
    assert problem["status"] == answer.status_code and problem["error"].endswith("Error")
    assert "Traceback" not in answer.text
    assert one_server.memory.health().to_dict() == before


@pytest.mark.parametrize(
    "path",
    [
        "/v1/memories/..%2F..%2Fetc%2Fpasswd",
        "/v1/memories/" + "x" * 5000,
        "/v1/memories/%F0%9F%98%80",
        "/v1/memories/'; DROP TABLE zb_memories; --",
        "/v1/health?namespace=" + "n" * 500,
        "/v1/health?namespace=%00",
        "/v1/health?namespace=%ED%B3%BF",  # bytes that are no UTF-8: no namespace's name
        "/v1/review-queue?limit=0",
        "/v1/review-queue?limit=99999999999999999999999",
        "/v1/interactions?limit=-5",
        "/v1/export?layer=working",
        "/v1/no-such-route",
    ],
)
def test_hostile_paths_and_queries_answer_below_500(one_server: Served, path: str) -> None:
    with httpx.Client(base_url=one_server.url, timeout=30) as client:
        answer = client.get(path)
    assert 400 <= answer.status_code < 500, answer.text
    assert answer.headers["content-type"] == "application/problem+json"


def test_two_names_that_are_not_utf8_do_not_share_a_namespace(
    served: Served, client: httpx.Client
) -> None:
    for name in ("%ED%B3%BF", "%ED%B3%BE"):
        answer = client.post(f"/v1/memories?namespace={name}", json={"content": "x"})
        assert answer.status_code == 422, answer.text
    assert served.memory.namespaces() == []


def test_a_body_over_the_limit_is_refused_before_it_is_read(
    served: Served, client: httpx.Client
) -> None:
    huge = b'{"content": "' + b"x" * (DEFAULT_MAX_BODY_BYTES + 10) + b'"}'
    answer = client.post("/v1/memories", content=huge, headers=JSON)
    assert answer.status_code == 413 and answer.json()["error"] == "RequestTooLargeError"

    def chunks() -> Any:  # no Content-Length: counted as it arrives
        yield b'{"content": "'
        for _ in range(17):
            yield b"x" * (1024 * 1024)
        yield b'"}'

    streamed = client.post("/v1/memories", content=chunks(), headers=JSON)
    assert streamed.status_code == 413
    assert served.memory.health().semantic["count"] == 0


@pytest.mark.parametrize("path", ["/v1/memories", "/v1/import", "/v1/tools/zenbrain_store"])
def test_a_streamed_body_over_the_limit_is_refused_on_every_route(
    served: Served, client: httpx.Client, path: str
) -> None:
    # No Content-Length: the body is counted as it arrives, whichever way a route reads it
    # (a route reading the raw body saw the cut as a disconnect and answered 500).
    def chunks() -> Any:
        yield b'{"content": "'
        for _ in range(17):
            yield b"x" * (1024 * 1024)
        yield b'"}'

    before = served.memory.health().to_dict()
    answer = client.post(path, content=chunks(), headers=JSON)
    assert answer.status_code == 413, answer.text
    assert answer.json()["error"] == "RequestTooLargeError"
    assert served.memory.health().to_dict() == before


def test_cors_is_off_unless_configured(client: httpx.Client) -> None:
    answer = client.options(
        "/v1/health",
        headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"},
    )
    assert "access-control-allow-origin" not in answer.headers
    plain = client.get("/v1/health", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in plain.headers
