"""API keys: stored hashed, each a hard wall around its namespace on every route, by-id
routes included (another namespace's memory is 404, never its content)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from zenbrain import _remote_wire as wire
from zenbrain._coordinator import MemoryCoordinator
from zenbrain._storage.api_keys import add_key, list_keys, revoke_key, verify_token
from zenbrain._storage.migrations import applied_migrations
from zenbrain._storage.schema import SCHEMA_VERSION, api_keys
from zenbrain.errors import AccessDeniedError, InvalidInputError, NotFoundError
from zenbrain.remote import RemoteMemory

Keyed = Any
ClientFor = Callable[[str, str | None], httpx.Client]


def test_a_key_is_stored_only_as_its_hash(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        key, token = add_key(memory.database, "alice", name="laptop")
        with memory.database.read() as conn:
            rows = conn.execute(select(api_keys)).all()
        assert len(rows) == 1 and token not in json.dumps([list(map(str, r)) for r in rows])
        assert verify_token(memory.database, token) == key
        assert verify_token(memory.database, token[:-1] + "x") is None
        assert verify_token(memory.database, "zb_" + key.key_id + "_") is None
        assert [k.name for k in list_keys(memory.database)] == ["laptop"]
        assert revoke_key(memory.database, key.key_id)
        assert verify_token(memory.database, token) is None
        assert not revoke_key(memory.database, key.key_id)
        with memory.database.read() as conn:
            assert applied_migrations(conn)["api_keys"] == 7


def test_a_store_from_before_the_keys_gets_the_keys_table(tmp_path: Path) -> None:
    path = tmp_path / "v5.db"
    MemoryCoordinator(str(path)).close()
    import sqlite3

    with sqlite3.connect(path) as raw:  # make it a store of version 6, before the keys
        raw.execute("DROP TABLE zb_api_keys")
        raw.execute("DELETE FROM zb_migrations WHERE version >= 7")  # the later steps too
        raw.execute("UPDATE zb_meta SET value = '6' WHERE key = 'schema_version'")
    with MemoryCoordinator(str(path)) as memory:
        add_key(memory.database, "alice")
        assert memory.database.get_meta("schema_version") == str(SCHEMA_VERSION)
        assert len(list_keys(memory.database)) == 1


def test_without_a_key_or_with_a_wrong_one_nothing_is_shown(
    keyed: Keyed, as_key: ClientFor
) -> None:
    keyed.memory.for_namespace("alice").store("Alice's locker code is 4711.")
    for token in (None, "zb_000000000000_wrong", "not-a-key", "x" * 5000):
        with as_key(keyed.url, token) as http:
            for path in ("/v1/health", "/v1/namespaces", "/v1/export", "/v1/core-blocks"):
                answer = http.get(path)
                assert answer.status_code == 401, (token, path)
                assert "4711" not in answer.text
                assert answer.headers["content-type"] == "application/problem+json"


def test_two_keys_see_only_their_own_namespace(keyed: Keyed, as_key: ClientFor) -> None:
    with as_key(keyed.url, keyed.alice) as alice, as_key(keyed.url, keyed.bob) as bob:
        mine = alice.post("/v1/memories", json={"content": "Alice's locker code is 4711."})
        assert mine.status_code == 201
        secret = mine.json()["id"]
        assert alice.get(f"/v1/memories/{secret}").status_code == 200
        # Every by-id route of bob's answers as if the memory did not exist.
        for method, path in [
            ("GET", f"/v1/memories/{secret}"),
            ("GET", f"/v1/memories/{secret}/provenance"),
            ("DELETE", f"/v1/memories/{secret}"),
            ("PUT", f"/v1/memories/{secret}"),
        ]:
            body = {"content": "hijacked"} if method == "PUT" else None
            answer = bob.request(method, path, json=body)
            assert answer.status_code == 404, (method, path)
            assert "4711" not in answer.text
        answer = bob.delete(f"/v1/memories/{secret}", params={"dry_run": "true"})
        assert answer.status_code == 404
        assert bob.post("/v1/recall", json={"query": "locker code"}).json() == []
        assert bob.post("/v1/find", json={}).json() == []
        assert "4711" not in bob.get("/v1/export").text
        assert bob.post("/v1/reviews", json={"fact_id": secret, "grade": 3}).status_code == 422
        recall_tool = bob.post("/v1/tools/zenbrain_recall", json={"query": "locker code"})
        assert "4711" not in recall_tool.text
        forget_tool = bob.post("/v1/tools/zenbrain_forget", json={"id": secret, "type": "fact"})
        assert "4711" not in forget_tool.text
        # Asking for alice's namespace outright is refused, with nothing of hers.
        for path in ("/v1/health", f"/v1/memories/{secret}", "/v1/export"):
            answer = bob.get(path, params={"namespace": "alice"})
            assert answer.status_code == 403 and "4711" not in answer.text
        assert bob.post("/v1/recall", json={"query": "locker", "subtree": True}).status_code == 403
        assert bob.get("/v1/namespaces").json() == {"namespaces": []}
        assert alice.get("/v1/namespaces").json() == {"namespaces": ["alice"]}
        assert bob.get("/v1/backup").status_code == 403  # a backup holds every namespace
        assert alice.get(f"/v1/memories/{secret}").json()["content"].endswith("4711.")
    assert keyed.memory.for_namespace("alice").get(secret) is not None


def test_a_prefix_key_opens_the_namespaces_below_it(keyed: Keyed, as_key: ClientFor) -> None:
    with as_key(keyed.url, keyed.team) as team, as_key(keyed.url, keyed.alice) as alice:
        for ns in ("team.red", "team.blue"):
            stored = team.post("/v1/memories", params={"namespace": ns}, json={"content": ns})
            assert stored.status_code == 201
        assert (
            team.post(
                "/v1/memories", params={"namespace": "alice"}, json={"content": "x"}
            ).status_code
            == 403
        )
        assert team.get("/v1/namespaces").json() == {"namespaces": ["team.blue", "team.red"]}
        found = team.post(
            "/v1/find", params={"namespace": "team.red"}, json={"subtree": True}
        ).json()
        assert [m["content"] for m in found] == ["team.red"]
        assert alice.get("/v1/namespaces").json() == {"namespaces": []}


def test_a_revoked_key_is_refused_at_once(keyed: Keyed, as_key: ClientFor) -> None:
    key = next(k for k in list_keys(keyed.memory.database) if k.namespace == "bob")
    with as_key(keyed.url, keyed.bob) as bob:
        assert bob.get("/v1/health").status_code == 200
        revoke_key(keyed.memory.database, key.key_id)
        assert bob.get("/v1/health").status_code == 401


def test_remote_memory_raises_the_servers_error_classes(keyed: Keyed, as_key: ClientFor) -> None:
    with RemoteMemory(keyed.url, api_key=keyed.bob) as bob:
        assert bob.namespace == "bob"
        stored = bob.store("Bob's bike is blue.")
        assert bob.get(stored) is not None
        with pytest.raises(AccessDeniedError):
            bob.for_namespace("alice").health()
    with RemoteMemory(keyed.url, api_key="zb_000000000000_wrong") as stranger:
        with pytest.raises(AccessDeniedError) as refused:
            stranger.health()
        assert refused.value.status == 401
    with RemoteMemory(keyed.url, api_key=keyed.alice) as alice:
        assert alice.get(stored) is None
        with pytest.raises(InvalidInputError, match="no procedure"):  # as a local coordinator
            alice.procedure_feedback(stored, True)
        with pytest.raises(NotFoundError):
            alice.delete_core_block("x") or alice._run(wire.Call("GET", "/v1/no-such-route", dict))


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/v1/memories", b"{not json"),
        ("POST", "/v1/recall", b'{"query": 5}'),
        ("POST", "/v1/import", b"\xff\xfe"),
        ("PUT", "/v1/core-blocks/persona", b"[]"),
    ],
)
def test_the_key_is_checked_before_the_body(
    keyed: Keyed, as_key: ClientFor, method: str, path: str, body: bytes
) -> None:
    for token in (None, "zb_000000000000_wrong"):
        with as_key(keyed.url, token) as stranger:
            answer = stranger.request(
                method, path, content=body, headers={"Content-Type": "application/json"}
            )
            assert answer.status_code == 401, answer.text
            assert answer.json()["error"] == "AccessDeniedError"


def test_feedback_on_another_namespaces_id_is_not_found(keyed: Keyed, as_key: ClientFor) -> None:
    with as_key(keyed.url, keyed.bob) as bob:
        stored = bob.post(
            "/v1/memories", json={"content": "Deploy the site", "layer": "procedural"}
        ).json()["id"]
        assert bob.post(f"/v1/memories/{stored}/feedback", json={"success": True}).is_success
    with as_key(keyed.url, keyed.alice) as alice:
        answer = alice.post(f"/v1/memories/{stored}/feedback", json={"success": True})
        assert answer.status_code == 404, answer.text  # as every by-id route answers
        assert answer.json()["error"] == "NotFoundError"


def test_keys_on_the_command_line(tmp_path: Path) -> None:
    store = str(tmp_path / "memory.db")

    def run(*args: str) -> Any:
        done = subprocess.run(
            [sys.executable, "-m", "zenbrain", "--db", store, "--json", *args],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        return done.returncode, json.loads(done.stdout)

    status, made = run("keys", "add", "alice", "--name", "laptop")
    assert status == 0 and made["token"].startswith("zb_") and made["namespace"] == "alice"
    status, listed = run("keys", "list")
    assert [k["name"] for k in listed["keys"]] == ["laptop"]
    assert made["token"] not in json.dumps(listed)
    status, revoked = run("keys", "revoke", made["key_id"])
    assert status == 0 and revoked["revoked"] is True
    status, again = run("keys", "revoke", made["key_id"])
    assert status == 1 and again["revoked"] is False
    assert run("keys", "list")[1]["count"] == 0
