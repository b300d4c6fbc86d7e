"""A store opened before ``fork()`` (gunicorn's ``--preload``, a multiprocessing pool):
every forked child opens connections of its own, so children and parent all keep working,
on both back ends. Run in a fresh interpreter: forking pytest's own process, with the
threads other tests leave behind, could deadlock on a lock copied held."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from zenbrain import MemoryCoordinator

STORES, BATCH = 40, 150
CHILDREN = ("Ada", "Bruno", "Cleo")  # each child's own word, so a recall can tell them apart

FORKER = textwrap.dedent(
    f"""
    import json, os, sys
    from zenbrain import MemoryCoordinator
    location = sys.argv[1]
    memory = MemoryCoordinator(location)
    memory.store("Stored by the parent before the fork: the harbour ferry leaves at nine.")
    memory.recall("harbour ferry", limit=3)  # connections now sit in the pool
    children = []
    for child in {list(CHILDREN)!r}:
        pid = os.fork()
        if pid == 0:
            failed = 0
            try:
                for i in range({STORES}):
                    memory.store(f"{{child}} wrote note {{i}} about the harbour ferry.")
                batch = [f"{{child}} wrote batch line {{i}} on the ferry." for i in range({BATCH})]
                memory.store_many(batch)
                found = memory.recall(f"{{child}} ferry", limit=5)
                failed = 0 if any(r.content.startswith(child) for r in found) else 2
            except BaseException as exc:
                print(f"child {{child}}: {{type(exc).__name__}}: {{exc}}", file=sys.stderr)
                failed = 1
            os._exit(failed)
        children.append(pid)
    parent_failures = []
    for i in range({STORES}):
        try:
            memory.store(f"Parent note {{i}} written while the children write.")
        except Exception as exc:
            parent_failures.append(f"{{type(exc).__name__}}: {{exc}}")
    codes = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children]
    after = memory.store("Stored by the parent after the children exited.")
    print(json.dumps({{
        "codes": codes,
        "parent_failures": parent_failures,
        "after": memory.get(after) is not None,
        "recalled_children": [
            child for child in {list(CHILDREN)!r}
            if any(r.content.startswith(child) for r in memory.recall(child + " ferry", limit=5))
        ],
    }}))
    """
)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the platform has no fork")
def test_children_forked_after_opening_keep_the_parent_and_themselves_working(
    store_location: str,
) -> None:
    run = subprocess.run(
        [sys.executable, "-c", FORKER, store_location],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    outcome = json.loads(run.stdout.strip().splitlines()[-1])
    assert outcome["codes"] == [0] * len(CHILDREN), run.stderr
    assert outcome["parent_failures"] == []
    assert outcome["after"] is True
    # The parent's open coordinator sees what the children wrote.
    assert outcome["recalled_children"] == list(CHILDREN)
    with MemoryCoordinator(store_location) as memory:
        expected = 1 + len(CHILDREN) * (STORES + BATCH) + STORES + 1
        stored = sum(
            memory.health().to_dict()[layer]["count"] for layer in ("episodic", "semantic")
        )
        assert stored == expected
    if "://" not in store_location:
        with sqlite3.connect(store_location) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the platform has no fork")
def test_an_encrypted_store_forks_alike(tmp_path: Path) -> None:
    """The same run on a SQLCipher file (the key from ZENBRAIN_KEY): each child's
    connections are its own, and the key derived before the fork serves them all."""
    pytest.importorskip("sqlcipher3")
    from zenbrain._storage.encryption import connect

    store, key = tmp_path / "encrypted.db", "fork passphrase"
    run = subprocess.run(
        [sys.executable, "-c", FORKER, str(store)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "ZENBRAIN_KEY": key},
    )
    assert run.returncode == 0, run.stderr
    outcome = json.loads(run.stdout.strip().splitlines()[-1])
    assert outcome["codes"] == [0] * len(CHILDREN), run.stderr
    assert outcome["parent_failures"] == [] and outcome["after"] is True
    assert outcome["recalled_children"] == list(CHILDREN)
    check = connect(store, key)
    try:
        assert check.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        expected = 1 + len(CHILDREN) * (STORES + BATCH) + STORES + 1
        assert check.execute("SELECT count(*) FROM zb_memories").fetchone()[0] == expected
    finally:
        check.close()
    assert b"harbour ferry" not in store.read_bytes()


IN_MEMORY_FORKER = textwrap.dedent(
    """
    import os
    from zenbrain import MemoryCoordinator
    memory = MemoryCoordinator(":memory:")
    memory.store("Stored before the fork: the lighthouse is red.")
    pid = os.fork()
    if pid == 0:
        seen = [r.content for r in memory.recall("lighthouse", limit=3)]
        memory.store("Stored by the child only.")
        os._exit(0 if seen == ["Stored before the fork: the lighthouse is red."] else 3)
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    mine = [r.content for r in memory.recall("stored child lighthouse", limit=5)]
    print(code, "Stored by the child only." in mine)
    """
)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the platform has no fork")
def test_a_forked_child_keeps_its_own_copy_of_an_in_memory_store() -> None:
    run = subprocess.run(
        [sys.executable, "-c", IN_MEMORY_FORKER], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["0", "False"]  # the child read the data; the parent's stays
