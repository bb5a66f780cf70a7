"""What a client sees on the wire, frame by frame: an HTTP/2 exchange read with the `h2`
library over Python's own TLS, and a legacy gateway exchange read byte by byte. The record
truth tests compare these observations with what the journal recorded."""

from __future__ import annotations

import socket
import ssl
import struct
import time
from dataclasses import dataclass, field

import h2.config
import h2.connection
import h2.events
import h2.exceptions

from conftest import CA, CERTS


@dataclass
class HTTP2Observation:
    """Everything that reached the client for one request on a fresh connection."""

    status: int | None = None
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    #: RST_STREAM error code on the request's stream.
    reset: int | None = None
    #: GOAWAY (error code, last stream id), the last one received.
    goaway: tuple[int, int] | None = None
    #: How the connection ended: "eof" (the server closed it), "reset" (TCP RST), "garbage"
    #: (bytes that are no HTTP/2 or no TLS), "open" (still open when the client stopped).
    end: str = "open"

    def header(self, name: str) -> str | None:
        return next((value for key, value in self.headers if key == name), None)


class TLSStream:
    """TLS over memory BIOs on a plain socket, so the socket's own errors stay visible: an
    `ssl` socket reports a TCP reset under OpenSSL 3 as an unexpected EOF, indistinguishable
    from a FIN without close_notify."""

    def __init__(self, port: int, alpn: list[str] | None, certificate: str | None):
        context = ssl.create_default_context(cafile=str(CA))
        if alpn:
            context.set_alpn_protocols(alpn)
        if certificate:
            context.load_cert_chain(str(CERTS / f"{certificate}.pem"), str(CERTS / f"{certificate}-key.pem"))
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.incoming, self.outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.tls = context.wrap_bio(self.incoming, self.outgoing, server_hostname="localhost")
        while True:
            try:
                self.tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                self._flush()
                chunk = self.sock.recv(65536)
                if not chunk:
                    raise ConnectionError("the server closed the connection during the handshake")
                self.incoming.write(chunk)
        self._flush()

    def _flush(self):
        pending = self.outgoing.read()
        if pending:
            self.sock.sendall(pending)

    def send(self, data: bytes):
        self.tls.write(data)
        self._flush()

    def receive(self, timeout: float) -> bytes:
        """Plaintext bytes; b"" at the server's EOF. Raises socket.timeout, ConnectionResetError
        (a TCP reset), or ssl.SSLError (bytes that are no TLS record)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                data = self.tls.read(65536)
                self._flush()
                return data
            except ssl.SSLWantReadError:
                pass
            except ssl.SSLZeroReturnError:
                return b""  # close_notify
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise socket.timeout()
            self.sock.settimeout(remaining)
            chunk = self.sock.recv(65536)
            if not chunk:
                return b""
            self.incoming.write(chunk)

    def close(self):
        self.sock.close()


def http2_exchange(port: int, path: str, headers: list[tuple[str, str]], body: bytes, *,
                   wait: float = 2.0, certificate: str | None = "client-sandbox") -> HTTP2Observation:
    """Sends one request on stream 1 of a new connection and reads until the server closes
    the connection, or `wait` seconds pass after the stream ended (to see a GOAWAY or a close
    that follows an answer), or `wait` seconds pass with no answer at all."""
    sock = TLSStream(port, ["h2"], certificate)
    connection = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    connection.initiate_connection()
    request = [(":method", "POST"), (":scheme", "https"), (":authority", "localhost"), (":path", path), *headers]
    connection.send_headers(1, request, end_stream=not body)
    if body:
        connection.send_data(1, body, end_stream=True)
    sock.send(connection.data_to_send())

    seen = HTTP2Observation()
    stream_done_at: float | None = None
    started = time.monotonic()
    while True:
        deadline = (stream_done_at if stream_done_at is not None else started) + wait
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        try:
            data = sock.receive(remaining)
        except socket.timeout:
            break
        except ConnectionResetError:
            seen.end = "reset"
            break
        except ssl.SSLError:
            seen.end = "garbage"
            break
        if not data:
            seen.end = "eof"
            break
        try:
            events = connection.receive_data(data)
        except h2.exceptions.ProtocolError:
            seen.end = "garbage"
            break
        for event in events:
            if isinstance(event, h2.events.ResponseReceived) and event.stream_id == 1:
                for name, value in event.headers:
                    if name == ":status":
                        seen.status = int(value)
                    else:
                        seen.headers.append((name, value))
            elif isinstance(event, h2.events.DataReceived) and event.stream_id == 1:
                seen.body += event.data
                connection.acknowledge_received_data(event.flow_controlled_length, 1)
            elif isinstance(event, h2.events.StreamEnded) and event.stream_id == 1:
                stream_done_at = time.monotonic()
            elif isinstance(event, h2.events.StreamReset) and event.stream_id == 1:
                seen.reset = int(event.error_code)
                stream_done_at = time.monotonic()
            elif isinstance(event, h2.events.ConnectionTerminated):
                seen.goaway = (int(event.error_code), event.last_stream_id)
        outgoing = connection.data_to_send()
        if outgoing:
            try:
                sock.send(outgoing)
            except ConnectionResetError:
                # A reset can be reported to the write rather than the next read.
                seen.end = "reset"
                break
            except OSError:
                pass
    sock.close()
    return seen


@dataclass
class LegacyObservation:
    received: bytes = b""
    #: "eof", "reset", or "open" as for HTTP/2.
    end: str = "open"

    @property
    def packet(self) -> tuple[int, int] | None:
        """(status, identifier) when what arrived is exactly one error-response packet."""
        if len(self.received) == 6 and self.received[0] == 8:
            return self.received[1], struct.unpack(">I", self.received[2:6])[0]
        return None


def legacy_frame(identifier: int, token: bytes, payload: bytes, *, expiry: int = 0, priority: int = 10) -> bytes:
    """A command-2 frame: token, payload, identifier, expiry and priority items."""
    items = (
        bytes([1]) + struct.pack(">H", len(token)) + token
        + bytes([2]) + struct.pack(">H", len(payload)) + payload
        + bytes([3]) + struct.pack(">H", 4) + struct.pack(">I", identifier)
        + bytes([4]) + struct.pack(">H", 4) + struct.pack(">I", expiry)
        + bytes([5]) + struct.pack(">H", 1) + bytes([priority])
    )
    return bytes([2]) + struct.pack(">I", len(items)) + items


def legacy_exchange(port: int, data: bytes, *, wait: float = 1.5) -> LegacyObservation:
    """Sends `data` on a new gateway connection and reads until the server closes it or
    `wait` seconds pass without it doing so."""
    sock = TLSStream(port, None, "client-sandbox")
    sock.send(data)
    seen = LegacyObservation()
    deadline = time.monotonic() + wait
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        try:
            chunk = sock.receive(remaining)
        except socket.timeout:
            break
        except ConnectionResetError:
            seen.end = "reset"
            break
        except ssl.SSLError:
            seen.end = "garbage"
            break
        if not chunk:
            seen.end = "eof"
            break
        seen.received += chunk
    sock.close()
    return seen
