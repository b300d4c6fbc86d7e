"""Encryption at rest (SQLCipher 4 through sqlcipher3): what is stored with a key is in no
byte of the file, its -wal or a backup; a missing or wrong key is an EncryptionKeyError that
names what to set; ``zenbrain encrypt`` and ``rekey`` survive a kill at every step; the
storage contract, several writing processes and migrations work as on a plain file."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from zenbrain import EncryptionKeyError, InvalidInputError, MemoryCoordinator
from zenbrain._storage import encryption
from zenbrain.config import resolve_key
from zenbrain.testing.contract import StorageContract

pytest.importorskip("sqlcipher3")

KEY = "correct horse battery staple"
SECRET = "Diagnosed with zorblaxik fever; my PIN is 4711-vimbreltox"
WORDS = (b"zorblaxik", b"vimbreltox", b"Diagnosed")


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


def _sidecars(path: Path) -> list[Path]:
    return [path, path.with_name(path.name + "-wal")]


def _assert_no_plain_text(*paths: Path) -> None:
    for path in paths:
        raw = path.read_bytes()
        assert raw, f"{path.name} is empty: nothing was checked"
        for word in WORDS:
            assert word not in raw, f"{word!r} is readable in {path.name}"


def test_what_is_stored_with_a_key_is_in_no_byte_of_the_file_its_wal_or_a_backup(
    store: Path, tmp_path: Path
) -> None:
    with MemoryCoordinator(store, key=KEY) as memory:
        memory.store(SECRET)
        memory.add_interaction("user", SECRET)
        memory.set_core_block("health", SECRET)
        backup = memory.backup(tmp_path / "backup.db")
        wal = store.with_name(store.name + "-wal")
        assert wal.stat().st_size > 0  # the last writes are in the -wal, encrypted too
        _assert_no_plain_text(store, wal, backup)
        assert memory.recall("zorblaxik fever")[0].content == SECRET
    assert store.read_bytes()[:16] != encryption.PLAIN_HEADER
    with MemoryCoordinator(backup, key=KEY) as restored:  # the backup opens with the key
        assert restored.recall("zorblaxik")[0].content == SECRET
    with pytest.raises(EncryptionKeyError):
        MemoryCoordinator(backup)
    # The same text stored without a key is readable: the check above can fail.
    with MemoryCoordinator(tmp_path / "plain.db") as plain:
        plain.store(SECRET)
        assert WORDS[0] in b"".join(p.read_bytes() for p in _sidecars(tmp_path / "plain.db"))


@pytest.mark.parametrize(
    ("opened_with", "names"),
    [({}, "ZENBRAIN_KEY"), ({"key": "not the key"}, "ZENBRAIN_KEY")],
    ids=["missing key", "wrong key"],
)
def test_a_missing_or_wrong_key_is_an_error_that_says_what_to_set(
    store: Path, opened_with: dict[str, str], names: str
) -> None:
    with MemoryCoordinator(store, key=KEY) as memory:
        memory.store(SECRET)
    before = store.read_bytes()
    with pytest.raises(EncryptionKeyError) as raised:
        MemoryCoordinator(store, **opened_with)
    message = str(raised.value)
    assert names in message and "key=" in message
    assert "file is not a database" not in message
    assert store.read_bytes() == before  # a refused open changes nothing


def test_a_key_for_a_plain_store_or_a_server_is_refused(store: Path) -> None:
    with MemoryCoordinator(store) as memory:
        memory.store("plain")
    with pytest.raises(EncryptionKeyError, match="zenbrain encrypt"):
        MemoryCoordinator(store, key=KEY)
    with pytest.raises(InvalidInputError, match="SQLite files only"):
        MemoryCoordinator(":memory:", key=KEY)
    with pytest.raises(InvalidInputError, match="SQLite files only"):
        MemoryCoordinator("postgresql+psycopg://nobody@127.0.0.1:1/none", key=KEY)
    for bad in ("", "a\x00b", 42):
        with pytest.raises(InvalidInputError):
            MemoryCoordinator(store, key=bad)  # type: ignore[arg-type]


def test_the_key_comes_from_zenbrain_key_or_a_key_file(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key_file = tmp_path / "key.txt"
    key_file.write_text(KEY + "\n")  # the newline an editor adds is not part of the key
    monkeypatch.setenv("ZENBRAIN_KEY_FILE", str(key_file))
    with MemoryCoordinator(store) as memory:
        memory.store(SECRET)
    monkeypatch.delenv("ZENBRAIN_KEY_FILE")
    monkeypatch.setenv("ZENBRAIN_KEY", KEY)
    with MemoryCoordinator(store) as memory:
        assert memory.recall("zorblaxik")[0].content == SECRET
    assert resolve_key(environ={"ZENBRAIN_KEY": KEY}) == KEY
    assert resolve_key(environ={}) is None
    with pytest.raises(InvalidInputError, match="both"):
        resolve_key(environ={"ZENBRAIN_KEY": KEY, "ZENBRAIN_KEY_FILE": str(key_file)})
    with pytest.raises(InvalidInputError, match="ZENBRAIN_KEY_FILE"):
        resolve_key(environ={"ZENBRAIN_KEY_FILE": str(tmp_path / "missing")})


def _cli(store: Path, *args: str, env: dict[str, str], check: bool = True) -> str:
    run = subprocess.run(
        [sys.executable, "-m", "zenbrain", "--db", str(store), *args],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, **env},
    )
    if check:
        assert run.returncode == 0, run.stderr
    return run.stdout + run.stderr


def _plain_store(store: Path, count: int = 30) -> None:
    with MemoryCoordinator(store) as memory:
        memory.store_many([f"note {i} about zorblaxik" for i in range(count)])
        memory.store(SECRET)


def _count(store: Path, key: str | None) -> int:
    with MemoryCoordinator(store, key=key) as memory:
        return len(memory.find())


def test_zenbrain_encrypt_then_rekey_from_the_command_line(store: Path) -> None:
    _plain_store(store)
    assert WORDS[0] in store.read_bytes()
    _cli(store, "encrypt", env={"ZENBRAIN_KEY": KEY})
    _assert_no_plain_text(store)
    assert _count(store, KEY) == 31
    refused = _cli(store, "list", env={}, check=False)
    assert "ZENBRAIN_KEY" in refused and "not a database" not in refused
    _cli(store, "rekey", env={"ZENBRAIN_KEY": KEY, "ZENBRAIN_NEW_KEY": "new key"})
    assert _count(store, "new key") == 31
    with pytest.raises(EncryptionKeyError):
        _count(store, KEY)
    assert "note 3 about" in _cli(store, "list", env={"ZENBRAIN_KEY": "new key"})


KILL_STEPS = ("checkpointed", "exported", "synced", "checked", "renamed", "done")


@pytest.mark.parametrize("step", KILL_STEPS)
def test_encrypt_killed_at_any_step_leaves_one_store_whole(store: Path, step: str) -> None:
    _plain_store(store)
    env = {"ZENBRAIN_KEY": KEY, encryption.FAULT_ENV: step}
    run = subprocess.run(
        [sys.executable, "-m", "zenbrain", "--db", str(store), "encrypt"],
        capture_output=True,
        timeout=180,
        env={**os.environ, **env},
    )
    assert run.returncode == -signal.SIGKILL, run.stderr
    renamed = KILL_STEPS.index(step) >= KILL_STEPS.index("renamed")
    assert encryption.is_plain(store) is (not renamed)
    assert _count(store, KEY if renamed else None) == 31  # whole, whichever it is
    if not renamed:  # a second run finishes the job
        _cli(store, "encrypt", env={"ZENBRAIN_KEY": KEY})
    assert _count(store, KEY) == 31
    _assert_no_plain_text(store)
    assert [p.name for p in store.parent.iterdir() if "encrypting" in p.name] == []


@pytest.mark.parametrize("step", ("exported", "checked", "renamed"))
def test_rekey_killed_at_a_step_leaves_one_key_that_opens_the_store(store: Path, step: str) -> None:
    _plain_store(store)
    encryption.convert(store, None, KEY)
    env = {"ZENBRAIN_KEY": KEY, "ZENBRAIN_NEW_KEY": "new key", encryption.FAULT_ENV: step}
    run = subprocess.run(
        [sys.executable, "-m", "zenbrain", "--db", str(store), "rekey"],
        capture_output=True,
        timeout=180,
        env={**os.environ, **env},
    )
    assert run.returncode == -signal.SIGKILL, run.stderr
    assert _count(store, "new key" if step == "renamed" else KEY) == 31


class TestEncryptedSqliteContract(StorageContract):
    """The whole storage contract on an encrypted file (the key from ZENBRAIN_KEY)."""

    @pytest.fixture
    def location(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
        monkeypatch.setenv("ZENBRAIN_KEY", KEY)
        path = tmp_path / "memory.db"
        yield str(path)
        assert encryption.is_plain(path) is not True  # encrypted (or never written)

    def test_the_store_under_test_is_encrypted(self, memory: MemoryCoordinator) -> None:
        memory.store(SECRET)
        assert memory.database.path is not None
        assert encryption.is_plain(memory.database.path) is False


WRITER = textwrap.dedent(
    """
    import sys
    from zenbrain import MemoryCoordinator
    with MemoryCoordinator(sys.argv[1]) as memory:
        for i in range(40):
            memory.store(f"{sys.argv[2]} wrote note {i}")
    """
)


def test_several_processes_write_one_encrypted_store_at_once(store: Path) -> None:
    env = {**os.environ, "ZENBRAIN_KEY": KEY}
    MemoryCoordinator(store, key=KEY).close()
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(store), name], env=env)
        for name in ("ada", "bruno", "cleo")
    ]
    assert [writer.wait(timeout=300) for writer in writers] == [0, 0, 0]
    assert _count(store, KEY) == 120
    check = encryption.connect(store, KEY)
    try:
        assert check.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert check.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        check.close()


@pytest.mark.parametrize("fixture", ["v1.db", "v4.db"])
def test_an_old_release_store_encrypted_then_opened_migrates_and_keeps_everything(
    tmp_path: Path, fixture: str
) -> None:
    """``zenbrain encrypt`` on a store of an old schema, then the first open with the key
    runs the migrations, on the encrypted file, as on a plain one."""
    from zenbrain._storage.migrations import MIGRATIONS, applied_migrations
    from zenbrain._storage.schema import SCHEMA_VERSION
    from zenbrain.providers import HashingEmbedder

    store = tmp_path / fixture
    shutil.copy(Path(__file__).parent / "fixtures" / fixture, store)
    encryption.convert(store, None, KEY)
    with MemoryCoordinator(store, key=KEY, embedder=HashingEmbedder(64)) as memory:
        with memory.database.read() as conn:
            assert applied_migrations(conn) == {step.name: step.version for step in MIGRATIONS}
        assert memory.database.get_meta("schema_version") == str(SCHEMA_VERSION)
        otters = memory.recall("otters", layers=["semantic"], limit=10)
        assert sorted(r.content for r in otters) == [
            f"Fixture fact number {i} about otters" for i in range(5)
        ]
        assert "payments engineer" in memory.core_context()
    assert encryption.is_plain(store) is False
    assert b"otters" not in store.read_bytes()


def test_without_the_extra_a_key_names_the_pip_install_line(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zenbrain import MissingDependencyError

    monkeypatch.setitem(sys.modules, "sqlcipher3", None)  # as if it were not installed
    with pytest.raises(MissingDependencyError, match=r"zenbrain\[encryption\]"):
        MemoryCoordinator(store, key=KEY)
    assert not store.exists() or store.stat().st_size == 0


def test_a_read_only_command_on_an_encrypted_store_says_to_set_the_key(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zenbrain import StoreNotFoundError
    from zenbrain.config import require_existing, resolve_location

    with MemoryCoordinator(store, key=KEY) as memory:
        memory.store(SECRET)
    monkeypatch.delenv("ZENBRAIN_KEY", raising=False)
    monkeypatch.delenv("ZENBRAIN_KEY_FILE", raising=False)
    with pytest.raises(StoreNotFoundError, match="ZENBRAIN_KEY"):
        require_existing(resolve_location(store))
    monkeypatch.setenv("ZENBRAIN_KEY", KEY)
    require_existing(resolve_location(store))  # left to the open, which has the key
