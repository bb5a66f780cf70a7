"""`MockAPNs`: one `mockapns serve` process for a test, on free ports, with its own development
credentials, stopped with SIGTERM as a provider's production APNs connection would see it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Dict, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union

from .control import ControlClient, MockAPNsError, _bracketed

PathLike = Union[str, "os.PathLike[str]"]

# The scenario a server without `--scenario` runs (what `GET /v1/scenario` calls "none").
_NO_SCENARIO: Dict[str, Any] = {"name": "none", "rules": []}
_Value = TypeVar("_Value")
# Lines of the server's output an error quotes.
_TAIL_LINES = 40


class ServerExited(MockAPNsError):
    """The server process ended when it should not have (or with an unexpected status).
    `output` holds the end of what it printed (standard error and output)."""

    def __init__(self, message: str, returncode: Optional[int], output: str):
        super().__init__(f"{message}\n--- mockapns output (last {_TAIL_LINES} lines) ---\n{output}")
        self.returncode = returncode
        self.output = output


def bundled_binary() -> Optional[str]:
    """The `mockapns` a platform wheel carries (`mockapns/bin/mockapns`, the release
    archive's binary), or None when the package was installed without one (`pip install
    ./python`, the pure source package)."""
    path = Path(__file__).resolve().parent / "bin" / "mockapns"
    return str(path) if path.is_file() and os.access(path, os.X_OK) else None


def find_binary(explicit: Optional[PathLike] = None) -> str:
    """The `mockapns` executable: `explicit` if given, else `$MOCKAPNS_BIN`, else the one the
    installed wheel carries (`bundled_binary()`), else `mockapns` on `PATH`. A binary named
    (the argument, the variable) always wins; the wheel's own comes before `PATH`, so an older
    `mockapns` installed elsewhere does not answer for the version installed with the helper.
    Raises `MockAPNsError` saying which was tried."""
    if explicit is not None:
        source, path = "the binary given", os.fspath(explicit)
    elif os.environ.get("MOCKAPNS_BIN"):
        source, path = "MOCKAPNS_BIN", os.environ["MOCKAPNS_BIN"]
    else:
        found = bundled_binary() or shutil.which("mockapns")
        if found is None:
            raise MockAPNsError(
                "no mockapns binary: this mockapns package carries none (the platform wheel does: "
                "pip install mockapns-<version>-py3-none-manylinux_<glibc>_<arch>.whl); pass binary= "
                "(pytest: --mockapns-bin), set MOCKAPNS_BIN, or put mockapns on PATH (scripts/install.sh, "
                "or a release archive's bin/mockapns)"
            )
        return found
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise MockAPNsError(f"{source} names {path}, which is not an executable file")
    return path


@dataclass(frozen=True)
class Credentials:
    """A development credentials folder as `mockapns certs generate` writes it (see its
    README.md): the CA the server's certificate chains to, client certificates and `.p8`
    provider keys listed in `keys.json`. Development only: none of these keys is secret."""

    directory: Path

    @property
    def ca_file(self) -> Path:
        """`ca.pem`: what a client must trust to accept the server's certificate."""
        return self.directory / "ca.pem"

    def client_certificate(self, kind: str = "sandbox") -> Tuple[Path, Path]:
        """The certificate and key files of a client certificate: `sandbox`, `production`,
        `universal` (both environments, several topics), `expired` or `untrusted`."""
        certificate = self.directory / f"client-{kind}.pem"
        if not certificate.exists():
            raise MockAPNsError(f"no client certificate {certificate.name} in {self.directory}")
        return certificate, self.directory / f"client-{kind}-key.pem"

    def client_bundle(self, kind: str = "sandbox") -> Path:
        """The certificate followed by its key in one file, for clients that take one."""
        self.client_certificate(kind)
        return self.directory / f"client-{kind}.bundle.pem"

    @property
    def keys(self) -> List[Dict[str, Any]]:
        """The provider keys of `keys.json`: `keyId`, `teamId`, `environment`, `scope`, `topics`."""
        return json.loads((self.directory / "keys.json").read_text())["keys"]

    def key(self, key_id: str = "SANDBOX001") -> Dict[str, Any]:
        """One provider key's entry in `keys.json`."""
        for entry in self.keys:
            if entry["keyId"] == key_id:
                return entry
        known = ", ".join(entry["keyId"] for entry in self.keys)
        raise MockAPNsError(f"no provider key {key_id} in {self.directory / 'keys.json'}; it has {known}")

    def key_file(self, key_id: str = "SANDBOX001") -> Path:
        """`AuthKey_<key_id>.p8`, the ES256 key a provider signs its JWTs with."""
        self.key(key_id)
        return self.directory / f"AuthKey_{key_id}.p8"

    def team_id(self, key_id: str = "SANDBOX001") -> str:
        """The team id (`iss` of the JWT) that goes with a provider key."""
        return self.key(key_id)["teamId"]


class MockAPNs(ControlClient):
    """A `mockapns serve` process with every listener on a free port of 127.0.0.1.

        with MockAPNs() as apns:
            push_with_your_provider(apns.device_url(token), ca=apns.ca_file,
                                    key=apns.credentials.key_file(), token=apns.provider_token())
            [record] = apns.wait_for(token=token)
            assert record["status"] == 200

    `serve_args` are further `mockapns serve` flags (`"--clock", "2026-01-01T00:00:00Z"`); port
    flags are not needed (`--ephemeral-ports` is always given). Without `cert_dir`, development
    credentials are generated into the working folder for `topics` (first: the base bundle id,
    default `com.example.app`) and `team` (default `TEAM00000A`). `scenario` is a dict or a
    scenario file's path. The working folder (`workdir`, else a temporary one removed by
    `stop()`) holds the credentials, the ports file and `mockapns.log`, the server's output.
    The binary is `binary`, else `$MOCKAPNS_BIN`, else the wheel's own, else `mockapns` on `PATH`.
    """

    def __init__(
        self,
        *serve_args: str,
        binary: Optional[PathLike] = None,
        cert_dir: Optional[PathLike] = None,
        topics: Sequence[str] = (),
        team: Optional[str] = None,
        scenario: Union[Mapping[str, Any], PathLike, None] = None,
        workdir: Optional[PathLike] = None,
        cwd: Optional[PathLike] = None,
        env: Optional[Mapping[str, str]] = None,
        start_timeout: float = 30.0,
    ):
        super().__init__()
        self._control_port = None
        self.serve_args: List[str] = list(serve_args)
        self.binary = find_binary(binary)
        self._cert_dir = Path(cert_dir) if cert_dir is not None else None
        self._topics = list(topics)
        self._team = team
        self._scenario = scenario
        self._given_workdir = Path(workdir) if workdir is not None else None
        self._cwd = cwd
        self._env = dict(env) if env is not None else None
        self.start_timeout = start_timeout
        self.process: Optional[subprocess.Popen[bytes]] = None
        self.ports: Dict[str, Any] = {}
        self._workdir: Optional[Path] = None
        self._credentials: Optional[Credentials] = None
        self._output_reader: Optional[threading.Thread] = None
        self._scenario_replaced = False
        self._stopped = False

    # Starting and stopping

    def start(self) -> "MockAPNs":
        """Starts the server and returns once every listener is bound (the listening line is
        printed, the ports file written). Raises `ServerExited` with its output if it fails."""
        if self.process is not None:
            raise MockAPNsError("this MockAPNs is already started")
        self._workdir = self._given_workdir or Path(tempfile.mkdtemp(prefix="mockapns-"))
        self._workdir.mkdir(parents=True, exist_ok=True)
        cert_dir = self._cert_dir or self._generate_credentials(self._workdir / "credentials")
        self._credentials = Credentials(cert_dir)
        ports_file = self._workdir / "ports.json"
        ports_file.unlink(missing_ok=True)
        args = [self.binary, "serve", "--ephemeral-ports", "--cert-dir", str(cert_dir), "--ports-file", str(ports_file)]
        if self._scenario is not None:
            args += ["--scenario", str(self._scenario_file(self._scenario))]
        args += self.serve_args
        log = open(self.log_path, "ab")
        try:
            self.process = subprocess.Popen(
                args, cwd=self._cwd, env=self._env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log,
            )
        finally:
            log.close()
        listening, settled = threading.Event(), threading.Event()
        assert self.process.stdout is not None
        self._output_reader = threading.Thread(
            target=_copy_output, args=(self.process.stdout, self.log_path, listening, settled),
            name="mockapns output", daemon=True,
        )
        self._output_reader.start()
        # The line comes once every listener is bound, after the ports file is written; at a
        # failed start the output ends instead.
        output_ended = settled.wait(self.start_timeout)
        if not listening.is_set():
            try:
                code = self.process.wait(5 if output_ended else 0)
            except subprocess.TimeoutExpired:
                self.process.kill()
                code = self.process.wait()
            self._output_reader.join(5)
            self._stopped = True
            why = f"exit status {code}" if output_ended else f"no listening line within {self.start_timeout:g} s; killed"
            raise ServerExited(f"mockapns serve did not start ({why}): {' '.join(args)}", code, self._tail())
        self.ports = json.loads(ports_file.read_text())
        self._control_host = _flag_value(self.serve_args, "--control-host") or "127.0.0.1"
        self._control_port = self.ports.get("control")
        return self

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15.0, *, keep_workdir: bool = False) -> int:
        """Sends `sig` (SIGTERM: the graceful shutdown, GOAWAY and status-10 packets to open
        connections) and waits for the exit; returns the exit status. Raises `ServerExited`
        if the server had already stopped by itself with a failure, exits with another status
        than the signal calls for (0 after SIGTERM or SIGINT), or does not stop in `timeout`
        seconds (it is then killed). The temporary working folder is removed unless the server
        failed or `keep_workdir` is set."""
        if self.process is None:
            return 0
        process = self.process
        if self._stopped:
            return process.returncode
        problem: Optional[str] = None
        if process.poll() is not None:
            if process.returncode != 0:
                problem = f"mockapns stopped by itself with exit status {process.returncode}"
        else:
            process.send_signal(sig)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                problem = f"mockapns did not stop within {timeout:g} s of signal {sig} and was killed"
            else:
                expected = 0 if sig in (signal.SIGTERM, signal.SIGINT) else -sig
                if process.returncode != expected:
                    problem = f"mockapns exited with status {process.returncode} after signal {sig} (expected {expected})"
        if self._output_reader is not None:
            self._output_reader.join(5)
        code = process.returncode
        self._control_port = None
        self._stopped = True
        if problem is not None:
            raise ServerExited(f"{problem}; its output is in {self.log_path}", code, self._tail())
        if self._given_workdir is None and not keep_workdir and self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
        return code

    def __enter__(self) -> "MockAPNs":
        return self.start()

    def __exit__(self, *exception: Any) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        """Whether the server process is alive."""
        return self.process is not None and self.process.poll() is None

    # Where things are

    @property
    def workdir(self) -> Path:
        """The working folder: credentials (when generated), ports file, `mockapns.log`."""
        return self._started(self._workdir)

    @property
    def log_path(self) -> Path:
        """The server's standard error and output, in order of arrival per stream."""
        return self.workdir / "mockapns.log"

    def log_text(self) -> str:
        """What the server has printed so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    @property
    def credentials(self) -> Credentials:
        """The development credentials the server uses."""
        return self._started(self._credentials)

    @property
    def ca_file(self) -> Path:
        """The CA file a client must trust (the server's certificate chains to it)."""
        return self.credentials.ca_file

    @property
    def host(self) -> str:
        """The address the APNs listeners are bound to: `--host` if given, else 127.0.0.1."""
        return _flag_value(self.serve_args, "--host") or "127.0.0.1"

    @property
    def http2_port(self) -> int:
        """The HTTP/2 provider API (sandbox, or the only environment)."""
        return self._port("http2")

    @property
    def gateway_port(self) -> int:
        """The legacy binary gateway."""
        return self._port("gateway")

    @property
    def feedback_port(self) -> int:
        """The legacy feedback service."""
        return self._port("feedback")

    @property
    def channel_management_port(self) -> int:
        """The broadcast channel management API."""
        return self._port("channelManagement")

    @property
    def web_push_port(self) -> int:
        """Safari's web push endpoint (HTTP/2 and HTTP/1.1 over TLS), where Apple's is
        `https://web.push.apple.com`; subscriptions' endpoints point here."""
        return self._port("webPush")

    @property
    def control_port(self) -> int:
        """The control API (and the dashboard at `/`)."""
        return self._port("control")

    def environment_ports(self, environment: str) -> Dict[str, int]:
        """The listeners of one environment (`sandbox`, `production`) of a server started with
        `--environment both` (or one environment): `http2`, `gateway`, `feedback`, `channelManagement`."""
        environments = self._started(self.ports.get("environments") if self.ports else None)
        if environment not in environments:
            raise MockAPNsError(f"this server plays {', '.join(environments)}, not {environment}")
        return environments[environment]

    @property
    def http2_url(self) -> str:
        """`https://127.0.0.1:<port>`, where Apple's is `https://api.sandbox.push.apple.com`."""
        return f"https://{_bracketed(self.host)}:{self.http2_port}"

    @property
    def web_push_url(self) -> str:
        """`https://127.0.0.1:<port>`, the origin of every web push endpoint (a VAPID JWT's `aud`)."""
        return f"https://{_bracketed(self.host)}:{self.web_push_port}"

    def device_url(self, token: str) -> str:
        """The URL a notification to `token` is POSTed to."""
        return f"{self.http2_url}/3/device/{token}"

    # Provider tokens

    def provider_token(self, key_id: str = "SANDBOX001", *, team: Optional[str] = None, issued_at: Optional[int] = None) -> str:
        """A provider token (JWT) signed by `mockapns token` with a development key. It is
        issued at `issued_at` (epoch seconds), by default at the server clock's reading, so it
        is valid after `set_clock()` too. Providers that sign their own: `credentials.key_file()`
        and `credentials.team_id()`."""
        if issued_at is None:
            issued_at = self.clock()["millisecondsSince1970"] // 1000
        args = [self.binary, "token", "--key-dir", str(self.credentials.directory), "--key-id", key_id,
                "--issued-at", str(issued_at)]
        if team is not None:
            args += ["--team", team]
        result = subprocess.run(args, capture_output=True, text=True, timeout=30)
        if result.returncode != 0:
            raise MockAPNsError(f"mockapns token failed ({result.returncode}): {result.stderr.strip()}")
        return result.stdout.strip()

    # Scenarios: a replaced one is put back by reset()

    def load_scenario(self, scenario: Union[Mapping[str, Any], PathLike]) -> Dict[str, Any]:
        """Replaces the running scenario with a dict or a scenario file (see
        `ControlClient.load_scenario`) until the next `reset()`, which puts back the one the
        server started with."""
        summary = super().load_scenario(scenario)
        self._scenario_replaced = True
        return summary

    def reset(self) -> Dict[str, Any]:
        """`POST /v1/reset` (see `ControlClient.reset`), after putting back the scenario the
        server started with if `load_scenario()` replaced it, so one test's scenario does not
        reach the next."""
        if self._scenario_replaced:
            started_with = self._scenario
            if started_with is None:
                started_with = _flag_value(self.serve_args, "--scenario")
            super().load_scenario(_NO_SCENARIO if started_with is None else started_with)
            self._scenario_replaced = False
        return super().reset()

    # Internals

    def _generate_credentials(self, folder: Path) -> Path:
        args = [self.binary, "certs", "generate", "--out", str(folder)]
        for topic in self._topics:
            args += ["--topic", topic]
        if self._team is not None:
            args += ["--team", self._team]
        result = subprocess.run(args, capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise MockAPNsError(f"mockapns certs generate failed ({result.returncode}): {result.stderr.strip()}")
        return folder

    def _scenario_file(self, scenario: Union[Mapping[str, Any], PathLike]) -> Path:
        if isinstance(scenario, Mapping):
            path = self.workdir / "scenario.json"
            path.write_text(json.dumps(scenario, indent=2))
            return path
        return Path(scenario)

    def _port(self, listener: str) -> int:
        ports = self._started(self.ports or None)
        if listener not in ports:
            raise MockAPNsError(f"this server has no {listener} listener (its ports: {json.dumps(ports)})")
        return ports[listener]

    def _started(self, value: Optional[_Value]) -> _Value:
        if value is None:
            raise MockAPNsError("the server is not started: call start() or use `with MockAPNs() as apns:`")
        return value

    def _address(self) -> Tuple[str, int]:
        if self._control_port is None:
            if self._stopped:
                raise MockAPNsError("the server is stopped")
            if self.process is not None and "control" not in self.ports:
                raise MockAPNsError("this server runs without the control API (--no-control)")
            self._started(None)
        return self._control_host, self._control_port  # type: ignore[return-value]

    def _unreachable(self, error: OSError) -> None:
        if self.process is not None and self.process.poll() is not None:
            if self._output_reader is not None:
                self._output_reader.join(5)
            raise ServerExited(f"mockapns has exited (status {self.process.returncode})", self.process.returncode, self._tail())

    def _tail(self) -> str:
        return "\n".join(self.log_text().splitlines()[-_TAIL_LINES:])


def _flag_value(args: Sequence[str], flag: str) -> Optional[str]:
    """The value given to `flag` in `args` (`--flag value` or `--flag=value`), the last one winning."""
    value: Optional[str] = None
    for index, arg in enumerate(args):
        if arg == flag and index + 1 < len(args):
            value = args[index + 1]
        elif arg.startswith(flag + "="):
            value = arg[len(flag) + 1:]
    return value


def _copy_output(stream: IO[bytes], log_path: Path, listening: threading.Event, settled: threading.Event) -> None:
    """Appends the server's standard output to its log, line by line; sets `listening` at the
    listening line, and `settled` then or at the end of the output (a failed start)."""
    with stream, open(log_path, "ab") as log:
        for line in stream:
            log.write(line)
            log.flush()
            if line.startswith(b"mockapns listening "):
                listening.set()
                settled.set()
    settled.set()
