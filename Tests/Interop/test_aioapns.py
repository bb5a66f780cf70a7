"""aioapns (asyncio + h2), JWT and client-certificate authentication. See patches.py for the
three lines that point it at the mock."""

from __future__ import annotations

import asyncio
import json
import logging
import ssl
import time

import pytest
from aioapns import APNs, NotificationRequest, PushType
from aioapns.exceptions import ConnectionError as APNsConnectionError

from conftest import CA, CERTS, KEY_FILE, KEY_ID, REPO, TEAM, TOPIC, Server, unique_token
from patches import aioapns_target, apns_ssl_context


def jwt_client(**kwargs) -> APNs:
    return APNs(
        key=KEY_FILE.read_text(), key_id=KEY_ID, team_id=TEAM, topic=TOPIC,
        use_sandbox=True, ssl_context=apns_ssl_context(), max_connection_attempts=1, **kwargs,
    )


def cert_client() -> APNs:
    return APNs(
        client_cert=str(CERTS / "client-universal.bundle.pem"), topic=TOPIC,
        use_sandbox=True, ssl_context=apns_ssl_context(), max_connection_attempts=1,
    )


def request(token: str, message=None) -> NotificationRequest:
    return NotificationRequest(
        device_token=token, message=message or {"aps": {"alert": "hello"}}, push_type=PushType.ALERT
    )


def send(server, client_factory, *requests):
    async def go():
        client = client_factory()
        return [await client.send_notification(r) for r in requests]

    with aioapns_target(server.http2):
        return asyncio.run(asyncio.wait_for(go(), 30))


def test_jwt_success(server):
    token = unique_token()
    (result,) = send(server, jwt_client, request(token))
    assert result.is_successful and result.status == "200"
    record = server.journal.expect(token, status=200, responseApnsId=result.notification_id)
    authentication = dict(record["authentication"])
    issued_at = authentication.pop("issuedAt")  # the iat aioapns signed, never the token itself
    assert authentication == {"kind": "providerToken", "teamId": TEAM, "keyId": KEY_ID}
    assert abs(issued_at - time.time()) < 300, issued_at


def test_certificate_success(server):
    token = unique_token()
    (result,) = send(server, cert_client, request(token))
    assert result.is_successful and result.status == "200"
    record = server.journal.expect(token, status=200, responseApnsId=result.notification_id)
    assert record["authentication"]["kind"] == "certificate"


def test_invalid_token(server):
    (result,) = send(server, jwt_client, request("0123456789"))
    assert (result.status, result.description) == ("400", "BadDeviceToken")
    server.journal.expect("0123456789", status=400, reason="BadDeviceToken")


def test_payload_too_large(server):
    token = unique_token()
    (result,) = send(server, cert_client, request(token, {"aps": {"alert": "x" * 5000}}))
    assert (result.status, result.description) == ("413", "PayloadTooLarge")
    server.journal.expect(token, status=413, reason="PayloadTooLarge")


def test_expired_provider_token(server, monkeypatch):
    """aioapns signs with `iat = time.time()`; its clock is moved two hours back."""
    import aioapns.connection

    class TwoHoursAgo:
        @staticmethod
        def time():
            return time.time() - 2 * 3600

    monkeypatch.setattr(aioapns.connection, "time", TwoHoursAgo)
    token = unique_token()
    (result,) = send(server, jwt_client, request(token))
    assert (result.status, result.description) == ("403", "ExpiredProviderToken")
    server.journal.expect(token, status=403, reason="ExpiredProviderToken")


def test_many_in_flight_on_one_connection(server):
    """The token connection starts at one stream and is raised after the first good request;
    aioapns follows SETTINGS_MAX_CONCURRENT_STREAMS."""
    tokens = [unique_token() for _ in range(200)]

    async def go():
        client = jwt_client(max_connections=1)
        return await asyncio.gather(*(client.send_notification(request(t)) for t in tokens))

    with aioapns_target(server.http2):
        results = asyncio.run(asyncio.wait_for(go(), 60))
    assert [r.status for r in results] == ["200"] * len(tokens)
    connections = {server.journal.expect(t, status=200)["connection"] for t in tokens[::20]}
    assert len(connections) == 1, connections


def test_default_tls_context_without_alpn(server):
    """aioapns' own TLS context offers no ALPN. APNs serves HTTP/2 to such clients by prior
    knowledge (pushy#808), and so does the mock by default (http2.clientsWithoutALPN)."""
    def client():
        context = ssl.create_default_context(cafile=str(CA))  # aioapns' own default, plus our CA
        return APNs(key=KEY_FILE.read_text(), key_id=KEY_ID, team_id=TEAM, topic=TOPIC,
                    use_sandbox=True, ssl_context=context, max_connection_attempts=1)

    (result,) = send(server, client, request(unique_token()))
    assert result.is_successful


def run_goaway_scenario(tmp_path, caplog):
    """Twelve notifications on one connection under scenarios/goaway-shutdown-mid-batch.json
    (the fifth request on a connection is answered, then GOAWAY NO_ERROR names its stream as
    the last, with {"reason":"Shutdown"}). Returns aioapns' results, its GOAWAY log lines, and
    the journal's outbound frames and notifications of the first connection."""
    caplog.set_level(logging.DEBUG, logger="aioapns")
    server = Server(tmp_path, "--scenario", str(REPO / "scenarios/goaway-shutdown-mid-batch.json")).start()
    try:
        tokens = [unique_token() for _ in range(12)]

        async def go():
            client = jwt_client(max_connections=1)
            first = await client.send_notification(request(tokens[0]))  # raises the stream limit

            async def one(token):
                try:
                    return await asyncio.wait_for(client.send_notification(request(token)), 5)
                except Exception as error:  # noqa: BLE001 - what aioapns tells its caller
                    return error

            return [first, *await asyncio.gather(*(one(t) for t in tokens[1:]))]

        with aioapns_target(server.http2):
            results = asyncio.run(asyncio.wait_for(go(), 60))
        goaway = [r.getMessage() for r in caplog.records if "terminated" in r.getMessage()]
        frames = [e for e in server.journal.events(type="http2Frame", connection=1) if e.get("direction") == "outbound"]
        notifications = [n for n in server.journal.notifications() if n.get("connection") == 1]
        return results, goaway, frames, notifications
    finally:
        server.stop()


def test_goaway_mid_batch_scenario(tmp_path, caplog):
    results, goaway, frames, notifications = run_goaway_scenario(tmp_path, caplog)
    # Client: aioapns reports the GOAWAY, then fails what it cannot send anywhere else.
    assert goaway, "aioapns saw no GOAWAY"
    assert "code=0" in goaway[0] and 'b\'{"reason":"Shutdown"}\'' in goaway[0], goaway[0]
    assert "last_stream_id=9" in goaway[0], goaway[0]  # streams 1, 3, 5, 7, 9
    answered = [r for r in results if not isinstance(r, BaseException)]
    assert [r.status for r in answered] == ["200"] * 5, [getattr(r, "status", r) for r in results]
    # Server: five notifications judged 200 on the connection, then GOAWAY naming stream 9.
    assert [(n["stream"], n["status"]) for n in notifications] == [(1, 200), (3, 200), (5, 200), (7, 200), (9, 200)]
    goaway_frames = [f for f in frames if f["frameType"] == "GOAWAY"]
    assert len(goaway_frames) == 1 and goaway_frames[0]["lastStreamID"] == 9, goaway_frames
    assert "Shutdown" in json.dumps(goaway_frames[0])
    # answerRequest: the fifth answer goes out before the GOAWAY.
    sent = [(f["stream"], f["frameType"]) for f in frames if f["frameType"] in ("HEADERS", "GOAWAY")]
    assert sent[-2:] == [(9, "HEADERS"), (0, "GOAWAY")], sent


def test_goaway_shutdown_mid_batch(tmp_path, caplog):
    """A batch in flight on one connection when the server is stopped (SIGTERM): the
    connection gets GOAWAY NO_ERROR {"reason":"Shutdown"}, the requests the server took are
    answered, and the rest fail as closed-connection errors, which is what aioapns tells its
    caller. The server side comes from its JSONL journal, flushed on SIGTERM."""
    caplog.set_level(logging.DEBUG, logger="aioapns")
    journal_file = tmp_path / "journal.jsonl"
    server = Server(tmp_path, "--journal", str(journal_file)).start()
    tokens = [unique_token() for _ in range(400)]
    done = []

    async def go():
        client = jwt_client(max_connections=1)

        async def one(token):
            try:
                # aioapns 4.0 can hand a request to the connection after it saw it close;
                # such a request never completes, so each one gets a deadline.
                result = await asyncio.wait_for(client.send_notification(request(token)), 5)
            except Exception as error:  # noqa: BLE001 - what aioapns tells its caller
                result = error
            done.append(result)
            if len(done) == 100:
                server.process.send_signal(15)
            return result

        first = await client.send_notification(request(tokens[0]))  # raises the stream limit
        assert first.is_successful
        return [first, *await asyncio.gather(*(one(t) for t in tokens[1:]))]

    try:
        with aioapns_target(server.http2):
            results = asyncio.run(asyncio.wait_for(go(), 60))
        assert server.process.wait(20) == 0
    finally:
        server.stop()

    answered = {t for t, r in zip(tokens, results) if not isinstance(r, BaseException)}
    assert len(answered) >= 100 and all(r.status == "200" for r in results if not isinstance(r, BaseException))
    assert len(answered) < len(tokens), "the whole batch finished before the shutdown"
    # What aioapns 4.0 tells its caller for the rest: closed-connection errors, deadlines, or
    # h2's ProtocolError when it still opens a stream on the connection that went away.
    unanswered = [r for r in results if isinstance(r, BaseException)]
    assert all(isinstance(r, (APNsConnectionError, asyncio.TimeoutError, ConnectionError)) or
               type(r).__name__ in ("ConnectionClosed", "MaxAttemptsExceeded", "ProtocolError") for r in unanswered), \
        {type(r).__name__ for r in unanswered}
    # aioapns reports the GOAWAY when it reads it; when its own write hits the closed socket
    # first, asyncio drops the unread GOAWAY and aioapns reports only the lost connection.
    goaway = [r.getMessage() for r in caplog.records if "terminated" in r.getMessage()]
    lost = [r.getMessage() for r in caplog.records if "lost" in r.getMessage()]
    assert goaway or lost, [r.getMessage() for r in caplog.records][-10:]
    if goaway:
        assert "code=0" in goaway[0] and 'b\'{"reason":"Shutdown"}\'' in goaway[0], goaway[0]
    assert "received SIGTERM" in server.log_text()

    events = [json.loads(line) for line in journal_file.read_text().splitlines() if line.strip()]
    notifications = [e["notification"] for e in events if e.get("type") == "notification"]
    journaled_ok = {n["deviceToken"] for n in notifications if n.get("status") == 200}
    assert answered <= journaled_ok, f"{len(answered - journaled_ok)} answered but not journaled"
    goaway_frames = [e for e in events if e.get("type") == "http2Frame" and e.get("frameType") == "GOAWAY"
                     and e.get("direction") == "outbound"]
    assert goaway_frames and "Shutdown" in json.dumps(goaway_frames[0]), goaway_frames
