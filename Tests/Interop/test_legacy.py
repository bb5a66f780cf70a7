"""Legacy binary gateway and feedback service through `openssl s_client` (hand-made frames)
and PyAPNs (tapns3: command 1 with its error-response thread, command 2 frames, feedback)."""

from __future__ import annotations

import struct
import subprocess
import time
from datetime import timezone

import pytest

from conftest import CA, CERTS, run, unique_token
from patches import pyapns_connect, pyapns_verifying

CERT = str(CERTS / "client-sandbox.pem")
KEY = str(CERTS / "client-sandbox-key.pem")
PAYLOAD = b'{"aps":{"alert":"hello"}}'


@pytest.fixture(autouse=True)
def needs_legacy(server):
    if "gateway" not in server.ports:
        pytest.skip("this build has no legacy listeners")


def frame(token: bytes, payload: bytes = PAYLOAD, identifier: int = 1, expiry: int = 0, priority: int = 10) -> bytes:
    """A command-2 notification, items in id order."""
    items = b"".join(
        struct.pack(">BH", item_id, len(data)) + data
        for item_id, data in (
            (1, token), (2, payload), (3, struct.pack(">I", identifier)),
            (4, struct.pack(">I", expiry)), (5, bytes([priority])),
        )
    )
    return struct.pack(">BI", 2, len(items)) + items


def s_client(port: int, data: bytes = b"", cert: str = CERT, key: str = KEY) -> subprocess.CompletedProcess:
    """openssl s_client as a provider: write `data`, then read until the server closes."""
    return run([
        "openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-CAfile", str(CA),
        "-cert", cert, "-key", key, "-verify_return_error", "-quiet", "-ign_eof",
    ], input=data, timeout=20)


def error_packets(data: bytes) -> list[tuple[int, int, int]]:
    return [struct.unpack(">BBI", data[i:i + 6]) for i in range(0, len(data) - len(data) % 6, 6)]


def test_openssl_gateway_success_then_bad_token_size(server):
    """Two good notifications, then one with a 16-byte token: one error packet (status 5)
    naming the third identifier, then the server closes (s_client -ign_eof returns)."""
    good = unique_token()
    data = frame(bytes.fromhex(good), identifier=1) + frame(bytes.fromhex(good), identifier=2)
    data += frame(bytes(16), identifier=3)
    result = s_client(server.ports["gateway"], data)
    assert error_packets(result.stdout) == [(8, 5, 3)], (result.stdout, result.stderr)
    last = server.journal.expect(good, count=2, transport="legacy", accepted=True)
    assert last["identifier"] == 2 and last["authentication"] == {"kind": "certificate"}
    server.journal.expect_event("legacyFrame", identifier=3, problem="status 5")


def test_openssl_gateway_payload_too_large(server):
    token = unique_token()
    big = b'{"aps":{"alert":"' + b"x" * 3000 + b'"}}'
    result = s_client(server.ports["gateway"], frame(bytes.fromhex(token), big, identifier=77))
    assert error_packets(result.stdout) == [(8, 7, 77)], (result.stdout, result.stderr)
    server.journal.expect_event("legacyFrame", identifier=77, problem="status 7")


def test_openssl_gateway_requires_a_client_certificate(server):
    result = run([
        "openssl", "s_client", "-connect", f"127.0.0.1:{server.ports['gateway']}",
        "-CAfile", str(CA), "-quiet", "-ign_eof",
    ], input=frame(bytes(32)), timeout=20)
    assert result.stdout == b""  # no error packet: the handshake itself fails
    assert b"alert" in result.stderr.lower() or result.returncode != 0, result.stderr
    server.journal.expect_event("tlsFailed")


def test_openssl_feedback_empty(server):
    """With no unregistered token the feedback service sends nothing and closes."""
    before = len(server.journal.events(type="feedbackTuple"))
    result = s_client(server.ports["feedback"])
    assert result.stdout == b"", result.stdout
    assert len(server.journal.events(type="feedbackTuple")) == before


def test_pyapns_enhanced_error_response(server):
    """PyAPNs' enhanced mode (command 1) and its error-response listener thread."""
    with pyapns_verifying() as apns:
        class UncheckedPayload(apns.Payload):
            def _check_size(self):  # PyAPNs refuses > 256 bytes itself; the mock must say 7
                pass

        errors = []
        gateway = pyapns_connect(
            apns.GatewayConnection(use_sandbox=True, cert_file=CERT, key_file=KEY, enhanced=True),
            server.ports["gateway"],
        )
        gateway.register_response_listener(errors.append)
        token = unique_token()
        gateway.send_notification(token, apns.Payload(alert="hello", badge=1), identifier=41)
        gateway.send_notification(token, UncheckedPayload(alert="x" * 3000), identifier=42)
        deadline = time.monotonic() + 10
        while not errors and time.monotonic() < deadline:
            time.sleep(0.05)
        gateway.force_close()
    assert errors == [{"status": 7, "identifier": 42}]
    record = server.journal.expect(token, transport="legacy", accepted=True, identifier=41)
    assert "expiration" in record  # command 1 carries an expiry
    server.journal.expect_event("legacyFrame", identifier=42, problem="status 7")


def test_pyapns_frame_batch(server):
    """PyAPNs' Frame: several command-2 notifications in one write, all accepted."""
    with pyapns_verifying() as apns:
        errors = []
        gateway = pyapns_connect(
            apns.GatewayConnection(use_sandbox=True, cert_file=CERT, key_file=KEY, enhanced=True),
            server.ports["gateway"],
        )
        gateway.register_response_listener(errors.append)
        batch = apns.Frame()
        tokens = [unique_token() for _ in range(20)]
        for identifier, token in enumerate(tokens):
            batch.add_item(token, apns.Payload(alert="hi"), identifier, int(time.time()) + 3600, 10)
        gateway.send_notification_multiple(batch)
        time.sleep(0.5)
        gateway.force_close()
    assert errors == []
    for identifier, token in enumerate(tokens):
        server.journal.expect(token, transport="legacy", accepted=True, identifier=identifier, priority=10)


def test_unregistered_token_http2_then_feedback(server):
    """A token unregistered through the control API: 410 with the unregistration time on
    HTTP/2 (curl), status 8 on the legacy gateway (PyAPNs), then exactly one feedback tuple
    for it, read by PyAPNs' FeedbackConnection; a second read finds nothing."""
    token = unique_token()
    since = int(time.time() * 1000) - 60_000
    server.journal.post(f"/v1/registry/{token}/unregister", {"since": since})

    from test_http2_cli import curl
    status, _, body = curl(server, token)
    assert (status, body) == (410, {"reason": "Unregistered", "timestamp": since})
    server.journal.expect(token, transport="http2", status=410, reason="Unregistered", timestamp=since)

    with pyapns_verifying() as apns:
        errors = []
        gateway = pyapns_connect(
            apns.GatewayConnection(use_sandbox=True, cert_file=CERT, key_file=KEY, enhanced=True),
            server.ports["gateway"],
        )
        gateway.register_response_listener(errors.append)
        gateway.send_notification(token, apns.Payload(alert="hello"), identifier=808)
        deadline = time.monotonic() + 10
        while not errors and time.monotonic() < deadline:
            time.sleep(0.05)
        gateway.force_close()
        assert errors == [{"status": 8, "identifier": 808}]
        server.journal.expect(token, count=2, transport="legacy", legacyStatus=8, reason="Unregistered")

        def feedback():
            connection = pyapns_connect(
                apns.FeedbackConnection(use_sandbox=True, cert_file=CERT, key_file=KEY), server.ports["feedback"]
            )
            return [(t.decode(), when) for t, when in connection.items()]

        first = [item for item in feedback() if item[0] == token]
        assert len(first) == 1 and int(first[0][1].replace(tzinfo=timezone.utc).timestamp()) == since // 1000
        assert [item for item in feedback() if item[0] == token] == []
    server.journal.expect_event("feedbackTuple", deviceToken=token, timestamp=since)
