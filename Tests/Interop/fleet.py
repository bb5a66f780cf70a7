"""Harness for fleet tests, where several `mockapns serve --state postgresql://… --replica NAME`
processes share their state through one PostgreSQL: a throwaway PostgreSQL cluster that a test
can kill and bring back with its data, and an HAProxy front that hands connections to the
replicas in turn, passing the bytes through untouched (TLS and client certificates end at the
replicas, as behind a TCP load balancer).

Both run as real processes on free ports of 127.0.0.1 and clean up after themselves when used as
context managers, even when the test fails.
"""

from __future__ import annotations

import glob
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import IO, Mapping, Sequence, Union

import pytest

from conftest import free_ports

HOST = "127.0.0.1"
# The cluster's superuser and database, both named in `PostgresCluster.url`.
USER = "mockapns"
DATABASE = "mockapns"
# Lines of a process's output an error quotes.
_TAIL_LINES = 40
# How often a start polls for readiness.
_POLL = 0.05
# Tries with fresh ports when another process takes a free port between its pick and the bind.
_PORT_TRIES = 3


class HarnessError(RuntimeError):
    """A PostgreSQL or HAProxy process did not do what the harness asked; the message ends with
    the end of its output."""

    def __init__(self, message: str, output: str = ""):
        super().__init__(f"{message}\n--- output (last {_TAIL_LINES} lines) ---\n{output}" if output else message)
        self.output = output


class _PortTaken(HarnessError):
    pass


def _tail(text: str) -> str:
    return "\n".join(text.splitlines()[-_TAIL_LINES:])


def _read_from(path: Path, offset: int) -> str:
    """What a process wrote to its log file from `offset` on (this launch's part)."""
    try:
        with open(path, "rb") as file:
            file.seek(offset)
            return file.read().decode(errors="replace")
    except OSError:
        return ""


def _seconds_to_ms(seconds: float) -> str:
    return f"{max(1, round(seconds * 1000))}ms"


# PostgreSQL


def postgres_bin_dir() -> Path | None:
    """The folder of PostgreSQL's server programs (initdb, postgres): the one `postgres`, `initdb`
    or `pg_ctl` on PATH lives in, else `pg_config --bindir`, else the newest version under
    /usr/lib/postgresql/*/bin (Debian keeps them off PATH) or Homebrew's postgresql@* kegs."""
    candidates: list[Path] = []
    for tool in ("postgres", "initdb", "pg_ctl"):
        found = shutil.which(tool)
        if found:
            candidates.append(Path(os.path.realpath(found)).parent)
    pg_config = shutil.which("pg_config")
    if pg_config:
        try:
            bindir = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            bindir = ""
        if bindir:
            candidates.append(Path(bindir))
    versioned = [Path(folder) for pattern in (
        "/usr/lib/postgresql/*/bin", "/opt/homebrew/opt/postgresql@*/bin", "/usr/local/opt/postgresql@*/bin",
    ) for folder in glob.glob(pattern)]
    candidates += sorted(versioned, key=lambda folder: [int(n) for n in re.findall(r"\d+", folder.parent.name)], reverse=True)
    for folder in candidates:
        if all(os.access(folder / tool, os.X_OK) for tool in ("initdb", "postgres")):
            return folder
    return None


def _postgres_tool(name: str, bin_dir: Path | None) -> str | None:
    """A client program from the server's own folder when it has one, else from PATH (Debian's
    /usr/bin/psql is a wrapper that picks a version)."""
    if bin_dir is not None and os.access(bin_dir / name, os.X_OK):
        return str(bin_dir / name)
    return shutil.which(name)


def _postgres_account() -> pwd.struct_passwd | None:
    try:
        return pwd.getpwnam("postgres")
    except KeyError:
        return None


def postgres_unavailable() -> str | None:
    """Why no PostgreSQL cluster can be started here, or None when one can."""
    bin_dir = postgres_bin_dir()
    if bin_dir is None:
        return ("PostgreSQL's initdb and postgres not found (PATH, pg_config --bindir, /usr/lib/postgresql/*/bin); "
                "scripts/install-deps.sh --test installs them")
    for tool in ("psql", "pg_isready"):
        if _postgres_tool(tool, bin_dir) is None:
            return f"PostgreSQL's {tool} not found (in {bin_dir} or on PATH); scripts/install-deps.sh --test installs it"
    if os.geteuid() == 0 and _postgres_account() is None:
        return "running as root, which PostgreSQL refuses, and there is no `postgres` user to run it as"
    return None


def haproxy_binary() -> str | None:
    """`haproxy` on PATH, or in the sbin folders a package puts it in (often off a user's PATH)."""
    return shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin:/sbin")


def haproxy_unavailable() -> str | None:
    """Why no HAProxy front can be started here, or None when one can."""
    if haproxy_binary() is None:
        return "haproxy not found (PATH, /usr/sbin); scripts/install-deps.sh --test installs it"
    return None


_POSTGRES_MISSING = postgres_unavailable()
_HAPROXY_MISSING = haproxy_unavailable()
# Marks for tests that need the programs: skipped, saying what is missing, where they are not installed.
needs_postgres = pytest.mark.skipif(_POSTGRES_MISSING is not None, reason=_POSTGRES_MISSING or "")
needs_haproxy = pytest.mark.skipif(_HAPROXY_MISSING is not None, reason=_HAPROXY_MISSING or "")

# stop() modes: the signals `pg_ctl stop -m` sends, and "kill", a SIGKILL of the postmaster and its
# backends (PostgreSQL dying with no chance to say so).
_STOP_SIGNALS = {"smart": signal.SIGTERM, "fast": signal.SIGINT, "immediate": signal.SIGQUIT, "kill": signal.SIGKILL}


def _conf_value(value: Union[str, int, float, bool]) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (int, float)):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


class PostgresCluster:
    """A PostgreSQL cluster of its own in a temporary folder, listening only on a free port of
    127.0.0.1, with trust authentication for the superuser `mockapns` and a database `mockapns`
    (see `url`). The postmaster runs in the foreground as this process's child, in a process group
    of its own, so `stop()` can take it down the way a crash would and `restart()` brings it back
    on the same port with the same data. As root it runs as the `postgres` user (PostgreSQL
    refuses root), and the folder is that user's.

    `settings` are extra postgresql.conf lines (name -> value). `parent` is where the temporary
    folder goes (default: the system's temporary folder); as root, `postgres` must be able to
    reach it, which pytest's tmp_path (mode 0700, root's) does not allow.
    """

    def __init__(self, *, settings: Mapping[str, Union[str, int, float, bool]] | None = None,
                 parent: Union[str, os.PathLike, None] = None, start_timeout: float = 60.0, stop_timeout: float = 30.0):
        missing = postgres_unavailable()
        if missing:
            raise HarnessError(missing)
        self.bin_dir: Path = postgres_bin_dir()  # type: ignore[assignment]
        self.settings = dict(settings or {})
        self.parent = parent
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.root: Path | None = None
        self.port: int | None = None
        self.process: subprocess.Popen | None = None
        self._log: IO[bytes] | None = None
        # As root, the server programs run as `postgres` (setuid in the child, so the process started
        # is the postmaster itself and its id can be signalled, unlike through runuser or su).
        self._run_as: dict = {}
        if os.geteuid() == 0:
            account = _postgres_account()
            assert account is not None
            self._run_as = {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}
            self._owner = (account.pw_uid, account.pw_gid)

    # Where things are.

    @property
    def data_dir(self) -> Path:
        return self._folder() / "data"

    @property
    def log_path(self) -> Path:
        """PostgreSQL's own output (initdb's, then the postmaster's across restarts)."""
        return self._folder() / "postgres.log"

    @property
    def url(self) -> str:
        """What `mockapns serve --state` takes: postgresql://mockapns@127.0.0.1:PORT/mockapns."""
        if self.port is None:
            raise HarnessError("the cluster has no port until start()")
        return f"postgresql://{USER}@{HOST}:{self.port}/{DATABASE}"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except (OSError, HarnessError):
            return ""

    # Life cycle.

    def start(self) -> "PostgresCluster":
        """Creates the cluster on the first call (initdb, a free port, the `mockapns` database),
        then starts the postmaster and returns once it accepts connections. Later calls start the
        same cluster on the same port; a running cluster is left as it is."""
        if self.running:
            return self
        first = self.root is None
        if first:
            self._create()
        for attempt in range(_PORT_TRIES if first else 1):
            if first:
                self.port = free_ports(1)[0]
            try:
                self._launch()
                break
            except _PortTaken:
                if attempt + 1 == _PORT_TRIES:
                    raise
        if first:
            self.psql(f"create database {DATABASE}", database="postgres")
        return self

    def stop(self, mode: str = "immediate") -> None:
        """Stops the postmaster and waits for it. `mode` is pg_ctl's: "smart", "fast", "immediate"
        (the default: no checkpoint, crash recovery on the next start), or "kill": SIGKILL to the
        postmaster and every backend at once, PostgreSQL dying with no chance to say so. The data
        folder stays, for `start()`/`restart()`. A postmaster that outlives `stop_timeout` is killed."""
        if mode not in _STOP_SIGNALS:
            raise ValueError(f"stop mode {mode!r}: use one of {', '.join(_STOP_SIGNALS)}")
        process = self.process
        if process is None or process.poll() is not None:
            self._close_log()
            return
        try:
            if mode == "kill":
                os.killpg(process.pid, signal.SIGKILL)
            else:
                process.send_signal(_STOP_SIGNALS[mode])
            process.wait(self.stop_timeout)
        except subprocess.TimeoutExpired:
            self._kill_group(process)
        except ProcessLookupError:
            process.wait()
        finally:
            self._close_log()

    def restart(self, mode: str = "fast") -> "PostgresCluster":
        """Stops the cluster if it runs (`mode` as for `stop()`) and starts it again: same port, same data."""
        self.stop(mode)
        return self.start()

    def close(self) -> None:
        """Stops the cluster however it can and removes its folder. Safe to call more than once."""
        try:
            if self.running:
                try:
                    self.stop("immediate")
                finally:
                    if self.process is not None and self.process.poll() is None:
                        self._kill_group(self.process)
        finally:
            self._close_log()
            if self.root is not None:
                shutil.rmtree(self.root, ignore_errors=True)
            # A later start() makes a new cluster.
            self.root = self.port = None

    def __enter__(self) -> "PostgresCluster":
        try:
            return self.start()
        except BaseException:
            self.close()
            raise

    def __exit__(self, *exc) -> None:
        self.close()

    # Talking to it.

    def ready(self) -> bool:
        """Whether the server accepts connections now (pg_isready)."""
        if self.port is None:
            return False
        command = [_postgres_tool("pg_isready", self.bin_dir), "-q", "-h", HOST, "-p", str(self.port),
                   "-U", USER, "-d", "postgres", "-t", "2"]
        try:
            return subprocess.run(command, env=self._client_env(), capture_output=True, timeout=10).returncode == 0
        except subprocess.TimeoutExpired:
            return False

    def psql(self, sql: str, *, database: str = DATABASE, timeout: float = 30) -> str:
        """Runs `sql` (one or more statements; the first error stops it) through the psql client
        and returns what it printed, unaligned and tuples only (`-At`: `a|b` a row, one row a line),
        without command tags or the final newline. Raises HarnessError with psql's errors."""
        if self.port is None:
            raise HarnessError("the cluster has no port until start()")
        command = [_postgres_tool("psql", self.bin_dir), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
                   "-h", HOST, "-p", str(self.port), "-U", USER, "-d", database, "-f", "-"]
        result = subprocess.run(command, input=sql, env=self._client_env(), capture_output=True, text=True, timeout=timeout)
        if result.returncode != 0:
            raise HarnessError(f"psql exited with status {result.returncode} running: {sql}", _tail(result.stderr))
        return result.stdout.removesuffix("\n")

    # Inside.

    def _folder(self) -> Path:
        if self.root is None:
            raise HarnessError("the cluster has no folder until start() (or after close())")
        return self.root

    def _create(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="mockapns-postgres-", dir=self.parent))
        if self._run_as:
            os.chown(self.root, *self._owner)
        initdb = [str(self.bin_dir / "initdb"), "-D", str(self.data_dir), "-A", "trust", "-U", USER,
                  "-E", "UTF8", "--locale=C", "--no-sync"]
        with open(self.log_path, "ab") as log:
            code = subprocess.run(initdb, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                  cwd=self.root, env=self._server_env(), timeout=self.start_timeout, **self._run_as).returncode
        if code != 0:
            reachable = "" if not self._run_as else (
                f" (as root: can the postgres user reach {self.root}? pass parent= a folder it can)")
            raise HarnessError(f"initdb exited with status {code}{reachable}", _tail(self.log()))
        conf = [
            "",
            "# The test harness's throwaway cluster (Tests/Interop/fleet.py).",
            "listen_addresses = '127.0.0.1'",
            # TCP only: no socket file in a folder the test user may not write (/var/run/postgresql).
            "unix_socket_directories = ''",
            # Nothing here outlives the test: skip the disk flushes. A crash of PostgreSQL alone (stop
            # "immediate" or "kill") still loses no commit, as commits are written to the OS.
            "fsync = off",
            "full_page_writes = off",
            *(f"{name} = {_conf_value(value)}" for name, value in self.settings.items()),
        ]
        with open(self.data_dir / "postgresql.conf", "a") as file:
            file.write("\n".join(conf) + "\n")

    def _launch(self) -> None:
        assert self.port is not None
        start = self.log_path.stat().st_size if self.log_path.exists() else 0
        self._log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [str(self.bin_dir / "postgres"), "-D", str(self.data_dir), "-p", str(self.port)],
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT, cwd=self.root,
            env=self._server_env(), start_new_session=True, **self._run_as)
        deadline = time.monotonic() + self.start_timeout
        while True:
            # Ready and still running: a server answering on a port this postmaster failed to bind is not it.
            ready = self.ready()
            code = self.process.poll()
            if code is None and ready:
                return
            if code is not None:
                self._close_log()
                output = _read_from(self.log_path, start)
                if "could not bind" in output and "already in use" in output:
                    raise _PortTaken(f"port {self.port} was taken before postgres bound it", _tail(output))
                raise HarnessError(f"postgres exited with status {code} while starting", _tail(output))
            if time.monotonic() > deadline:
                self._kill_group(self.process)
                self._close_log()
                raise HarnessError(f"postgres did not accept connections within {self.start_timeout:g} s; killed",
                                   _tail(_read_from(self.log_path, start)))
            time.sleep(_POLL)

    def _kill_group(self, process: subprocess.Popen) -> None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def _server_env(self) -> dict:
        env = {name: value for name, value in os.environ.items() if not name.startswith("PG")}
        env["LC_ALL"] = "C"
        if self._run_as:
            env["HOME"] = str(self.root)
            env["USER"] = env["LOGNAME"] = "postgres"
        return env

    def _client_env(self) -> dict:
        """The caller's environment without PG* variables (a PGHOST or PGSERVICE of the machine
        must not steer psql elsewhere)."""
        env = {name: value for name, value in os.environ.items() if not name.startswith("PG")}
        env["PGCONNECT_TIMEOUT"] = "5"
        return env


# HAProxy

# The front's own listener, which accepts and at once closes connections: the readiness probe,
# which so never reaches a backend (a replica would count a probe as a client that went away).
_READY = "_harness_ready"
_NAME = re.compile(r"[A-Za-z0-9_.:-]+")


def _backend_address(backend: Union[int, str, tuple]) -> str:
    if isinstance(backend, int):
        return f"{HOST}:{backend}"
    if isinstance(backend, tuple):
        host, port = backend
        return f"{host}:{port}"
    return backend


class HAProxyFront:
    """HAProxy in TCP mode in front of a fleet: one listener per kind of port (`{"http2": [p1, p2,
    p3], "control": [c1, c2, c3]}`), each on a free port of 127.0.0.1 (`port(kind)`) and handing
    each new connection to the next of its backends (roundrobin). Bytes pass through untouched: TLS,
    client certificates and HTTP/2 are the backends' own. Backends are ports of 127.0.0.1,
    "host:port" or (host, port).

    There are no health checks, so a backend that is down keeps its turn and that connection is
    closed at once; with `redispatch` HAProxy instead tries the next backend, as a load balancer
    that routes around a dead replica would. Runs in the foreground (`haproxy -db`) as a child.
    """

    def __init__(self, backends: Mapping[str, Sequence[Union[int, str, tuple]]], *, redispatch: bool = False,
                 connect_timeout: float = 2.0, client_timeout: float = 600.0, server_timeout: float = 600.0,
                 start_timeout: float = 15.0):
        binary = haproxy_binary()
        if binary is None:
            raise HarnessError(haproxy_unavailable() or "haproxy not found")
        if not backends:
            raise ValueError("HAProxyFront needs at least one kind of port")
        for kind, servers in backends.items():
            if not _NAME.fullmatch(kind) or kind == _READY:
                raise ValueError(f"port kind {kind!r}: letters, digits and _ . : - only, and not {_READY}")
            if not servers:
                raise ValueError(f"port kind {kind!r} has no backends")
        self.binary = binary
        self.backends = {kind: [_backend_address(server) for server in servers] for kind, servers in backends.items()}
        self.redispatch = redispatch
        self.connect_timeout = connect_timeout
        self.client_timeout = client_timeout
        self.server_timeout = server_timeout
        self.start_timeout = start_timeout
        self.ports: dict[str, int] = {}
        self.root: Path | None = None
        self.process: subprocess.Popen | None = None
        self._ready_port: int | None = None
        self._log: IO[bytes] | None = None

    @property
    def config_path(self) -> Path:
        return self._folder() / "haproxy.cfg"

    @property
    def log_path(self) -> Path:
        return self._folder() / "haproxy.log"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def port(self, kind: str) -> int:
        """The front's port for `kind`, which hands connections to that kind's backends."""
        if kind not in self.ports:
            raise KeyError(f"no port of kind {kind!r} (the front has {', '.join(self.backends)}; started?)")
        return self.ports[kind]

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except (OSError, HarnessError):
            return ""

    def config(self) -> str:
        """The configuration for the current ports."""
        lines = [
            "# The test harness's TCP front (Tests/Interop/fleet.py).",
            "global",
            "    maxconn 4096",
            "",
            "defaults",
            "    mode tcp",
            f"    timeout connect {_seconds_to_ms(self.connect_timeout)}",
            f"    timeout client {_seconds_to_ms(self.client_timeout)}",
            f"    timeout server {_seconds_to_ms(self.server_timeout)}",
        ]
        if self.redispatch:
            lines += ["    retries 2", "    option redispatch 1"]
        for kind, servers in self.backends.items():
            lines += ["", f"listen {kind}", f"    bind {HOST}:{self.ports[kind]}", "    balance roundrobin"]
            lines += [f"    server {kind}-{index} {address}" for index, address in enumerate(servers)]
        lines += ["", f"frontend {_READY}", f"    bind {HOST}:{self._ready_port}", "    tcp-request connection reject"]
        return "\n".join(lines) + "\n"

    def start(self) -> "HAProxyFront":
        """Picks free ports, writes the configuration and starts HAProxy; returns once it accepts
        connections (probed on its own listener, bound after the others)."""
        if self.running:
            return self
        if self.root is None:
            self.root = Path(tempfile.mkdtemp(prefix="mockapns-haproxy-"))
        for attempt in range(_PORT_TRIES):
            picked = free_ports(len(self.backends) + 1)
            self.ports = dict(zip(self.backends, picked))
            self._ready_port = picked[-1]
            try:
                self._launch()
                return self
            except _PortTaken:
                if attempt + 1 == _PORT_TRIES:
                    raise
        return self

    def stop(self) -> None:
        """Ends HAProxy (SIGTERM, then SIGKILL after 5 s) and removes its folder; every connection
        through it is cut. Safe to call more than once."""
        try:
            process = self.process
            if process is not None and process.poll() is None:
                process.terminate()
                try:
                    process.wait(5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        finally:
            if self._log is not None:
                self._log.close()
                self._log = None
            if self.root is not None:
                shutil.rmtree(self.root, ignore_errors=True)
                self.root = None

    def __enter__(self) -> "HAProxyFront":
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()

    def _folder(self) -> Path:
        if self.root is None:
            raise HarnessError("the front has no folder until start() (or after stop())")
        return self.root

    def _launch(self) -> None:
        self.config_path.write_text(self.config())
        start = self.log_path.stat().st_size if self.log_path.exists() else 0
        self._log = open(self.log_path, "ab")
        self.process = subprocess.Popen([self.binary, "-f", str(self.config_path), "-db"], stdin=subprocess.DEVNULL,
                                        stdout=self._log, stderr=subprocess.STDOUT, cwd=self.root, start_new_session=True)
        deadline = time.monotonic() + self.start_timeout
        while True:
            code = self.process.poll()
            if code is not None:
                self._log.close()
                self._log = None
                output = _read_from(self.log_path, start)
                if "cannot bind socket" in output or "Address already in use" in output:
                    raise _PortTaken("a port was taken before haproxy bound it", _tail(output))
                raise HarnessError(f"haproxy exited with status {code} while starting", _tail(output))
            if self._probe() and self.process.poll() is None:
                return
            if time.monotonic() > deadline:
                self.process.kill()
                self.process.wait()
                raise HarnessError(f"haproxy did not accept connections within {self.start_timeout:g} s; killed",
                                   _tail(_read_from(self.log_path, start)))
            time.sleep(_POLL)

    def _probe(self) -> bool:
        """Whether the front's own listener accepts a connection and at once closes it, as only it does."""
        try:
            with socket.create_connection((HOST, self._ready_port), timeout=1) as probe:
                return probe.recv(1) == b""
        except ConnectionResetError:
            return True
        except OSError:
            return False
