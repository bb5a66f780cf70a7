"""Fixtures for the interop suite: a `mockapns serve` process on ephemeral ports (started with
the Python helper, python/mockapns), the paths of the development credentials, and small
runners for the command-line peers.

Every test talks to the server only through real sockets on 127.0.0.1, with the same client
a provider would use, and then checks what the server itself recorded.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from pathlib import Path

import pytest
from mockapns import MockAPNs

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


class Server(MockAPNs):
    """One `mockapns serve` process with every listener on an ephemeral port, started and
    stopped by the Python helper (python/mockapns), serving certs-dev unless `extra` names
    another --cert-dir; its output is in `tmp/mockapns.log`."""

    def __init__(self, tmp: Path, *extra: str):
        flags = list(extra)
        cert_dir: Path | str = CERTS
        if "--cert-dir" in flags:
            at = flags.index("--cert-dir")
            cert_dir = flags[at + 1]
            del flags[at:at + 2]
        super().__init__(*flags, binary=mockapns_bin(), cert_dir=cert_dir, workdir=tmp, cwd=REPO)
        self.tmp = tmp

    @property
    def http2(self) -> int:
        return self.http2_port

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
        return Journal(self)

    @property
    def log(self) -> Path:
        return self.log_path

    def url(self, token: str = GOOD_TOKEN) -> str:
        return self.device_url(token)


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


def free_ports(count: int = 1) -> list[int]:
    """Ports on 127.0.0.1 that nothing listens on, for a peer whose port must be named before it
    starts (PostgreSQL, HAProxy). The probes stay open until all are picked, so none repeats."""
    probes = [socket.socket() for _ in range(count)]
    try:
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [probe.getsockname()[1] for probe in probes]
    finally:
        for probe in probes:
            probe.close()


def free_port() -> int:
    return free_ports(1)[0]
