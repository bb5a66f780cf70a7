"""Fixtures for the interop suite: a `mockapns serve` process on ephemeral ports, the paths of
the development credentials, and small runners for the command-line peers.

Every test talks to the server only through real sockets on 127.0.0.1, with the same client
a provider would use, and then checks what the server itself recorded.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from journal import Journal

REPO = Path(__file__).resolve().parents[2]
CERTS = REPO / "certs-dev"
CA = CERTS / "ca.pem"
TOPIC = "com.example.app"
TEAM = "TEAM00000A"
KEY_ID = "SANDBOX001"
KEY_FILE = CERTS / f"AuthKey_{KEY_ID}.p8"
GOOD_TOKEN = "a1b2c3d4" * 8


def mockapns_bin() -> str:
    path = os.environ.get("MOCKAPNS_BIN")
    if not path:
        bin_dir = subprocess.run(
            ["swift", "build", "--show-bin-path"], cwd=REPO, check=True, capture_output=True, text=True
        ).stdout.strip()
        path = str(Path(bin_dir) / "mockapns")
    if not os.access(path, os.X_OK):
        pytest.exit(f"mockapns binary not found at {path}; run `swift build --product mockapns`", 2)
    return path


def serve_flags() -> set[str]:
    """The long flags `mockapns serve --help` lists, so the suite follows what the build has."""
    out = subprocess.run([mockapns_bin(), "serve", "--help"], capture_output=True, text=True).stdout
    return {word for word in out.split() if word.startswith("--")}


class Server:
    """One `mockapns serve` process with every listener on an ephemeral port."""

    def __init__(self, tmp: Path, *extra: str):
        self.tmp = tmp
        self.extra = list(extra)
        self.ports: dict[str, int] = {}
        self.process: subprocess.Popen | None = None
        self.log = tmp / "server.log"

    def start(self) -> "Server":
        ports_file = self.tmp / "ports.json"
        flags = serve_flags()
        args = [mockapns_bin(), "serve", "--http2-port", "0", "--ports-file", str(ports_file)]
        for listener in ("gateway", "feedback", "control", "broadcast-manage"):
            if f"--{listener}-port" in flags:
                args += [f"--{listener}-port", "0"]
        args += ["--log-level", "info", *self.extra]
        self.process = subprocess.Popen(
            args, cwd=REPO, stdout=open(self.log, "ab"), stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"mockapns exited {self.process.returncode}:\n{self.log.read_text()}")
            if ports_file.exists() and ports_file.read_text().strip():
                self.ports = json.loads(ports_file.read_text())
                return self
            time.sleep(0.02)
        raise RuntimeError("mockapns never wrote its ports file")

    @property
    def http2(self) -> int:
        return self.ports["http2"]

    @property
    def manage(self) -> int:
        """The broadcast channel management port."""
        if "channelManagement" not in self.ports:
            pytest.fail("this build has no channel management listener (no \"channelManagement\" in the ports file)")
        return self.ports["channelManagement"]

    @property
    def journal(self) -> Journal:
        if "control" not in self.ports:
            pytest.fail("this build has no control API (no \"control\" in the ports file)")
        return Journal(self.ports["control"])

    def url(self, token: str = GOOD_TOKEN) -> str:
        return f"https://127.0.0.1:{self.http2}/3/device/{token}"

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15) -> int:
        if self.process is None or self.process.poll() is not None:
            return self.process.returncode if self.process else 0
        self.process.send_signal(sig)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The shared server: sandbox environment, authentication on, real clock."""
    instance = Server(tmp_path_factory.mktemp("server")).start()
    yield instance
    instance.stop()


@pytest.fixture
def fresh_server(tmp_path):
    """A server of its own, for tests that shut it down."""
    instance = Server(tmp_path).start()
    yield instance
    instance.stop(signal.SIGKILL)


def provider_token(key_id: str = KEY_ID, issued_at: int | None = None) -> str:
    """A JWT signed by `mockapns token`, the same signer the README shows."""
    args = [mockapns_bin(), "token", "--key-id", key_id, "--key-dir", str(CERTS)]
    if issued_at is not None:
        args += ["--issued-at", str(issued_at)]
    return subprocess.run(args, cwd=REPO, check=True, capture_output=True, text=True).stdout.strip()


def run(args: list[str], *, input: bytes | None = None, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=REPO, input=input, capture_output=True, timeout=timeout)


def unique_token() -> str:
    """A fresh 64-hex device token, so journal queries find only this test's notifications."""
    return os.urandom(32).hex()
