"""The /v1 API over real HTTP (httpx against uvicorn on 127.0.0.1), on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any as Served

import httpx
import pytest


def test_store_get_recall_with_explain_and_forget(served: Served, client: httpx.Client) -> None:
    stored = client.post(
        "/v1/memories",
        json={"content": "Anna's staging database is PostgreSQL 17.", "layer": "semantic",
              "context": "work", "metadata": {"team": "payments"}},
    )  # fmt: skip
    assert stored.status_code == 201
    memory_id = stored.json()["id"]
    got = client.get(f"/v1/memories/{memory_id}").json()
    assert got["content"] == "Anna's staging database is PostgreSQL 17."
    assert got["metadata"]["team"] == "payments" and got["context"] == "work"
    assert served.memory.get(memory_id) is not None  # the server's store, not a copy

    client.post(
        "/v1/memories", json={"content": "Bob prefers tea over coffee.", "layer": "semantic"}
    )
    recalled = client.post("/v1/recall", json={"query": "staging database", "explain": True})
    first = recalled.json()[0]
    assert first["id"] == memory_id
    parts = first["explanation"]
    assert parts["lexical"] > 0 and parts["semantic"] is None  # no embedder on this store
    total = parts["fused"] + parts["layer"] + parts["neighbours"]
    assert total == pytest.approx(first["score"], abs=1e-5)
    plain = client.post("/v1/recall", json={"query": "staging database"}).json()
    assert plain[0]["explanation"] is None

    gone = client.delete(f"/v1/memories/{memory_id}")
    assert gone.status_code == 200 and gone.json()["forgotten"] is True
    assert client.get(f"/v1/memories/{memory_id}").status_code == 404
    assert client.delete(f"/v1/memories/{memory_id}").status_code == 404


def test_forget_dry_run_lists_the_cascade_and_deletes_nothing(
    served: Served, client: httpx.Client
) -> None:
    episode = client.post(
        "/v1/memories",
        json={"content": "I was thrilled when my talk got accepted at PyCon!", "layer": "episodic",
              "emotional_weight": 0.9},
    ).json()["id"]  # fmt: skip
    report = client.post("/v1/consolidate").json()
    assert report["promoted"] == 1
    assert report["promotions"][0]["episode_id"] == episode
    fact = report["promotions"][0]["fact_ids"][0]
    provenance = client.get(f"/v1/memories/{fact}/provenance").json()
    assert provenance["consolidated_from"] == [episode]
    assert provenance["review"]["due"]  # a fact has its FSRS card
    before = served.memory.health().to_dict()
    preview = client.delete(f"/v1/memories/{episode}", params={"dry_run": "true"}).json()
    assert preview["dry_run"] is True and preview["forgotten"] is True
    assert {"id": fact, "layer": "semantic"} in preview["also_forgotten"]
    assert served.memory.health().to_dict() == before
    done = client.delete(f"/v1/memories/{episode}").json()
    assert done["also_forgotten"] == preview["also_forgotten"]
    assert client.get(f"/v1/memories/{fact}").status_code == 404


def test_store_many_is_all_or_nothing(served: Served, client: httpx.Client) -> None:
    ok = client.post("/v1/memories/batch", json={"items": ["first", {"content": "second"}]})
    assert ok.status_code == 201 and len(ok.json()["ids"]) == 2
    pages = [client.get("/v1/memories", params={"limit": 1, "offset": n}).json() for n in (0, 1, 2)]
    assert [[m["content"] for m in page] for page in pages] == [["first"], ["second"], []]
    assert client.get("/v1/memories", params={"layer": "episodic"}).json() == []
    bad = client.post("/v1/memories/batch", json={"items": ["third", "   "]})
    assert bad.status_code == 422 and bad.json()["error"] == "InvalidInputError"
    assert served.memory.health().semantic["count"] == 2


def test_edit_replaces_the_text_and_replace_by_match(client: httpx.Client) -> None:
    old = client.post("/v1/memories", json={"content": "The boiler was serviced in May."}).json()
    new = client.put(
        f"/v1/memories/{old['id']}", json={"content": "The boiler was serviced in March."}
    )
    assert new.status_code == 200
    # A new version (update()): the old one stays readable, closed, in the history.
    assert client.get(f"/v1/memories/{old['id']}").json()["superseded_by"] == new.json()["id"]
    assert client.get(f"/v1/memories/{new.json()['id']}").json()["content"].endswith("March.")
    history = client.get(f"/v1/memories/{new.json()['id']}/history").json()
    assert [m["id"] for m in history] == [old["id"], new.json()["id"]]
    client.post("/v1/replace", json={"match": {"slot": "lunch"}, "content": "Lunch at noon."})
    client.post("/v1/replace", json={"match": {"slot": "lunch"}, "content": "Lunch at one."})
    found = client.post("/v1/find", json={"metadata": {"slot": "lunch"}}).json()
    assert [m["content"] for m in found] == ["Lunch at one."]


def test_core_blocks_sessions_review_and_health(client: httpx.Client) -> None:
    assert client.put("/v1/core-blocks/persona", json={"content": "Anna."}).status_code == 200
    assert client.get("/v1/core-context").json()["text"] == "[persona]: Anna."
    assert client.delete("/v1/core-blocks/persona").status_code == 200
    assert client.delete("/v1/core-blocks/persona").status_code == 404
    assert client.post("/v1/sessions", json={"session_id": "chat-1"}).json() == {
        "session_id": "chat-1"
    }
    turns = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]
    assert len(client.post("/v1/interactions", json={"turns": turns}).json()) == 2
    assert [t["content"] for t in client.get("/v1/interactions").json()] == ["Hi", "Hello"]
    assert client.post("/v1/interactions/pop", json={}).json()["content"] == "Hello"
    assert client.delete("/v1/interactions").json() == {"cleared": 1}
    fact = client.post(
        "/v1/memories", json={"content": "Canberra is the capital.", "layer": "semantic"}
    )
    graded = client.post("/v1/reviews", json={"fact_id": fact.json()["id"], "grade": 4})
    assert graded.status_code == 200 and graded.json()["id"] == fact.json()["id"]
    bad = client.post("/v1/reviews", json={"fact_id": fact.json()["id"], "grade": 5})
    assert bad.status_code == 422 and "grade" in bad.json()["detail"]
    health = client.get("/v1/health").json()
    assert health["semantic"]["count"] == 1
    assert client.get("/v1/namespaces").json() == {"namespaces": ["default"]}


def test_export_streams_jsonl_that_import_reads_back(client: httpx.Client) -> None:
    client.post("/v1/memories/batch", json={"items": [f"memory number {i}" for i in range(600)]})
    client.put("/v1/core-blocks/style", json={"content": "Short answers."})
    with client.stream("GET", "/v1/export") as response:
        assert response.headers["content-type"].startswith("application/x-ndjson")
        lines = [line for line in response.iter_lines() if line]
    assert len(lines) == 601  # more than one page of 500
    rows = [json.loads(line) for line in lines]
    assert {row["layer"] for row in rows} == {"semantic", "core"}
    imported = client.post(
        "/v1/import", params={"namespace": "copy"}, content="\n".join(lines).encode()
    )
    assert imported.status_code == 201 and imported.json()["imported"] == 601
    copied = client.get("/v1/core-blocks", params={"namespace": "copy"}).json()
    assert [b["label"] for b in copied] == ["style"]
    broken = client.post("/v1/import", content=b'{"content": "ok"}\nnot json\n')
    assert broken.status_code == 422 and "line 2" in broken.json()["detail"]


def test_the_tools_answer_with_their_published_schemas(client: httpx.Client) -> None:
    listed = client.get("/v1/tools").json()
    assert [t["name"] for t in listed] == [
        "zenbrain_store", "zenbrain_recall", "zenbrain_forget", "zenbrain_consolidate",
        "zenbrain_health",
    ]  # fmt: skip
    spec = client.get("/v1/openapi.json").json()
    for tool in listed:
        body = spec["paths"][f"/v1/tools/{tool['name']}"]["post"]["requestBody"]
        assert body["content"]["application/json"]["schema"] == tool["parameters"]
    stored = client.post("/v1/tools/zenbrain_store", json={"content": "Kieler Förde sailing."})
    assert stored.status_code == 200 and stored.json()["id"]
    recalled = client.post("/v1/tools/zenbrain_recall", json={"query": "Kieler Förde"}).json()
    assert recalled["results"][0]["id"] == stored.json()["id"]
    wrong = client.post("/v1/tools/zenbrain_recall", json={"quer": "x"})
    assert wrong.status_code == 422 and wrong.json()["error"] == "InvalidInputError"


def test_backup_downloads_a_store_that_opens(
    served: Served, client: httpx.Client, tmp_path: Path
) -> None:
    client.post("/v1/memories", json={"content": "Backed up."})
    response = client.get("/v1/backup")
    if served.memory.database.dialect == "sqlite":
        assert response.status_code == 200
        copy = tmp_path / "copy.db"
        copy.write_bytes(response.content)
        from zenbrain import MemoryCoordinator

        with MemoryCoordinator(str(copy)) as restored:
            assert [r.content for r in restored.find()] == ["Backed up."]
    elif response.status_code == 503:  # pg_dump is not on this machine's PATH: it says so
        assert response.json()["error"] == "StorageError"
        assert "pg_dump" in response.json()["detail"]
    else:
        assert response.status_code == 200
        assert b"zb_memories" in response.content  # pg_dump's SQL


def test_every_route_is_in_the_openapi_document(client: httpx.Client) -> None:
    spec = client.get("/v1/openapi.json").json()
    assert spec["openapi"].startswith("3.1")
    from zenbrain.server import _routes_memories as routes_memories
    from zenbrain.server import _routes_state as routes_state
    from zenbrain.server import _routes_transfer as routes_transfer

    routers = [routes_memories.router, routes_state.router, routes_transfer.router,
               routes_transfer.tools_router]  # fmt: skip
    routes = {("/v1/tools", "GET")}
    for router in routers:
        for route in router.routes:
            routes.update(("/v1" + route.path, m) for m in route.methods)  # type: ignore[attr-defined]
    documented = {(path, m.upper()) for path, ops in spec["paths"].items() for m in ops}
    assert routes == documented
    for path, method in documented:  # and each is served: a route's own answer, never 405
        answer = client.request(method, path.replace("{memory_id}", "x").replace("{label}", "x"))
        assert answer.status_code != 405, (method, path)
        if path == "/v1/backup" and answer.status_code == 503:  # pg_dump missing or too old
            assert answer.json()["error"] == "StorageError"
            continue
        assert answer.status_code < 500, (method, path, answer.text)


def test_serve_refuses_a_public_address_without_a_key(tmp_path: Path) -> None:
    store = tmp_path / "memory.db"
    result = subprocess.run(
        [sys.executable, "-m", "zenbrain", "serve", "--db", str(store), "--host", "0.0.0.0",
         "--port", "0"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 1
    assert "without an API key" in result.stderr


def test_zenbrain_serve_opens_the_inspector_on_an_existing_store(tmp_path: Path) -> None:
    store = tmp_path / "memory.db"
    from zenbrain import MemoryCoordinator

    with MemoryCoordinator(str(store)) as memory:
        kept = memory.store("Stored before the server started.", layer="semantic")
    from zenbrain.server._running import listening_socket

    with listening_socket("127.0.0.1", 0) as probe:
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "zenbrain", "serve", "--db", str(store), "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                page = httpx.get(f"{url}/", timeout=1)
                break
            except httpx.TransportError:
                assert server.poll() is None, server.stderr.read() if server.stderr else ""
                time.sleep(0.1)
        assert page.status_code == 200 and "zenbrain inspector" in page.text
        assert httpx.get(f"{url}/app.js").headers["content-type"].startswith("text/javascript")
        assert httpx.get(f"{url}/v1/memories/{kept}").json()["content"].startswith("Stored")
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_an_in_memory_store_answers_concurrent_requests() -> None:
    """A server over ":memory:" shares one connection between its threads: the key check
    (no coordinator lock) and the routes take it one transaction at a time, not 500."""
    import concurrent.futures

    from zenbrain.server import create_app
    from zenbrain.testing.server import running_server

    with running_server(create_app(":memory:")) as url, httpx.Client(base_url=url) as http:

        def call(i: int) -> int:
            return http.get("/v1/namespaces" if i % 2 else "/v1/whoami").status_code

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            codes = list(pool.map(call, range(120)))
    assert set(codes) == {200}
