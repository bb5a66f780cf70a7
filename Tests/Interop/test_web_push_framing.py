"""Slow clients and broken framing against the web push listener over HTTP/1.1, as an attacker
(or a broken HTTP library) would send them, byte by byte over Python's own TLS: a header
dripped a byte at a time (slowloris), a request line that stalls, a body shorter than its
Content-Length, a Content-Length or a chunk size far over the body limit, each kind of
low-level 400, two Host lines, an absolute-form target naming another host.

Two servers: one with one-second web push deadlines (`--web-push-*-timeout 1`), for the slow
clients; one whose deadlines are a minute, so what closes a connection there is the refusal
itself and not a deadline. Every test waits for the server's answer and close (EOF), never
for a fixed time, and checks what the journal says.
"""

from __future__ import annotations

import socket
import ssl
import time

import pytest

from conftest import Server
from wire import TLSStream

DEADLINE = 1.0


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory):
    seconds = str(DEADLINE)
    instance = Server(tmp_path_factory.mktemp("framing-slow"), "--web-push-idle-timeout", seconds,
                      "--web-push-header-timeout", seconds, "--web-push-body-timeout", seconds).start()
    yield instance
    instance.stop()


@pytest.fixture(scope="module")
def strict_server(tmp_path_factory):
    instance = Server(tmp_path_factory.mktemp("framing-strict"), "--web-push-idle-timeout", "60",
                      "--web-push-header-timeout", "60", "--web-push-body-timeout", "60").start()
    yield instance
    instance.stop()


class Exchange:
    """One HTTP/1.1 connection to the web push listener (ALPN http/1.1)."""

    def __init__(self, port: int):
        self.stream = TLSStream(port, ["http/1.1"], None)
        self.started = time.monotonic()
        self.received = b""
        #: Seconds from the connection's start to the server's close; None while open.
        self.closed_after: float | None = None

    def send(self, data: bytes):
        try:
            self.stream.send(data)
        except OSError:
            self._closed()

    def read(self, seconds: float):
        """Reads until the server closes or `seconds` pass."""
        deadline = time.monotonic() + seconds
        while self.closed_after is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            try:
                chunk = self.stream.receive(remaining)
            except socket.timeout:
                return
            except (ConnectionError, ssl.SSLError):
                chunk = b""
            if not chunk:
                self._closed()
                return
            self.received += chunk

    def _closed(self):
        if self.closed_after is None:
            self.closed_after = time.monotonic() - self.started

    @property
    def statuses(self) -> list[int]:
        return [int(part[:3]) for part in self.received.split(b"HTTP/1.1 ")[1:]]

    def header(self, name: str) -> str | None:
        for line in self.received.split(b"\r\n"):
            key, _, value = line.partition(b":")
            if key.strip().lower() == name.lower().encode():
                return value.strip().decode()
        return None

    def close(self):
        self.stream.close()


def exchange(port: int, data: bytes, *, read_for: float = 10) -> Exchange:
    connection = Exchange(port)
    connection.send(data)
    connection.read(read_for)
    connection.close()
    return connection


def expect_diagnosis(server, code: str, after: int) -> dict:
    """The first diagnosis with `code` recorded after sequence number `after` (waited for)."""
    return server.wait_for_event("diagnosis", after=after, timeout=10, predicate=lambda event: event.get("code") == code)


def last_sequence(server) -> int:
    return server.health()["journal"]["lastSequence"]


HEAD = b"POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\n"


# ---- Slow clients -----------------------------------------------------------------------------

def test_slowloris_header_drip_is_answered_408_within_the_deadline(slow_server):
    after = last_sequence(slow_server)
    connection = Exchange(slow_server.web_push_port)
    connection.send(HEAD)
    # One header byte every 0.2 s would take 40 s; the deadline runs from the request's first byte.
    for byte in b"X-Slow: " + b"a" * 192 + b"\r\n":
        connection.send(bytes([byte]))
        connection.read(0.2)
        if connection.closed_after is not None:
            break
    connection.read(10)
    connection.close()
    assert connection.closed_after is not None and connection.closed_after < DEADLINE + 5, connection.received
    assert connection.statuses == [408], connection.received
    assert connection.header("connection") == "close"
    event = expect_diagnosis(slow_server, "timeout.http1RequestHeader", after)
    assert "no complete request line and header block" in event["message"]


def test_stalled_request_line_is_answered_408_and_closed(slow_server):
    after = last_sequence(slow_server)
    connection = exchange(slow_server.web_push_port, b"POST /x HT")
    assert connection.closed_after is not None and connection.closed_after < DEADLINE + 5
    assert connection.statuses == [408], connection.received
    expect_diagnosis(slow_server, "timeout.http1RequestHeader", after)


def test_body_shorter_than_its_content_length_is_answered_408_and_closed(slow_server):
    after = last_sequence(slow_server)
    connection = exchange(slow_server.web_push_port, HEAD + b"Content-Length: 100\r\n\r\n0123456789")
    assert connection.closed_after is not None and connection.closed_after < DEADLINE + 5
    assert connection.statuses == [408], connection.received
    expect_diagnosis(slow_server, "timeout.http1RequestBody", after)


def test_silent_connection_is_closed_at_the_idle_limit(slow_server):
    after = last_sequence(slow_server)
    connection = exchange(slow_server.web_push_port, b"")
    assert connection.closed_after is not None and connection.closed_after < DEADLINE + 5
    assert connection.received == b""
    expect_diagnosis(slow_server, "timeout.http1Idle", after)


# ---- Declared sizes ---------------------------------------------------------------------------

def subscription_path(server) -> str:
    # Any P-256 point will do: the 413 comes before VAPID matters.
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    import base64

    point = ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    subscription = server.subscribe_web_push(base64.urlsafe_b64encode(point).rstrip(b"=").decode())
    return "/" + subscription["id"]


def test_huge_content_length_is_answered_413_at_once_and_recorded(strict_server):
    path = subscription_path(strict_server)
    connection = exchange(strict_server.web_push_port,
                          f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nTTL: 60\r\nContent-Length: 10000000\r\n\r\n".encode())
    assert connection.statuses == [413], connection.received
    assert connection.received.endswith(b'{"reason":"PayloadTooLarge"}')
    assert connection.header("connection") == "close"
    assert connection.closed_after is not None and connection.closed_after < 5
    record = strict_server.journal.expect(path[1:], status=413, reason="PayloadTooLarge")
    assert record["transport"] == "webPush"


def test_huge_chunk_size_is_answered_413_at_once(strict_server):
    path = subscription_path(strict_server)
    connection = exchange(strict_server.web_push_port,
                          f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nTTL: 60\r\nTransfer-Encoding: chunked\r\n\r\n"
                          "8000000000000000\r\n".encode())
    assert connection.statuses == [413], connection.received
    assert connection.closed_after is not None and connection.closed_after < 5
    strict_server.journal.expect(path[1:], status=413, reason="PayloadTooLarge")


# ---- Low-level 400s close the socket ----------------------------------------------------------

LOW_LEVEL = {
    "transfer-encoding-with-content-length": HEAD + b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
    "two-content-lengths": HEAD + b"Content-Length: 1\r\nContent-Length: 2\r\n\r\nab",
    "bad-chunk-size": HEAD + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n",
    "folded-header-line": HEAD + b"X-Folded: one\r\n  two\r\nContent-Length: 0\r\n\r\n",
    "nul-in-header": HEAD + b"X-Nul: a\x00b\r\nContent-Length: 0\r\n\r\n",
    "duplicate-host": b"POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nContent-Length: 0\r\n\r\n",
}


@pytest.mark.parametrize("case", sorted(LOW_LEVEL))
def test_low_level_400_says_connection_close_and_closes_the_socket(strict_server, case):
    after = last_sequence(strict_server)
    connection = exchange(strict_server.web_push_port, LOW_LEVEL[case])
    assert connection.statuses == [400], connection.received
    assert connection.header("connection") == "close"
    assert connection.closed_after is not None, f"{case}: the socket stayed open after Connection: close"
    expect_diagnosis(strict_server, "webPush.malformedHTTP1", after)


# ---- The request target -----------------------------------------------------------------------

def test_absolute_form_target_naming_another_host_is_misdirected(strict_server):
    after = last_sequence(strict_server)
    port = strict_server.web_push_port
    connection = exchange(port, f"POST https://evil.example/x HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                                "Content-Length: 0\r\nConnection: close\r\n\r\n".encode())
    assert connection.statuses == [421], connection.received
    assert connection.closed_after is not None
    event = expect_diagnosis(strict_server, "webPush.misdirected", after)
    assert "evil.example" in event["message"]
