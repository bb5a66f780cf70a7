"""Provider verdicts: scripted providers that break each rule on purpose, and ones that keep
it, each judged by a running `mockapns serve` with the exact findings asserted; then the
report as a CI reads it (`mockapns report --junit`, checked by a JUnit parser, and its exit
status under `--fail-on`), from the live server and from its JSONL journal file.

The providers are `h2` over Python's TLS (wire.py's TLSStream): every request, reconnection
and delay is the script's own, so what the judge must find is known exactly."""

from __future__ import annotations

import json
import socket
import ssl
import subprocess
import time
import uuid
from pathlib import Path

import h2.config
import h2.connection
import h2.events
import hpack
import hyperframe.frame
import junitparser
import pytest

from conftest import CA, CERTS, TOPIC, Server, mockapns_bin, provider_token, unique_token
from wire import TLSStream

PAYLOAD = b'{"aps":{"alert":"verdicts"}}'


class Provider:
    """One scripted provider connection: HTTP/2 over TLS, one request at a time, with a client
    certificate (client-sandbox) or a provider token."""

    def __init__(self, port: int, *, token: str | None = None):
        self.port = port
        self.jwt = token
        self.sock = TLSStream(port, ["h2"], None if token else "client-sandbox")
        self.h2 = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.h2.initiate_connection()
        self.sock.send(self.h2.data_to_send())
        #: (error code, last stream id) of the GOAWAY received, if any.
        self.goaway: tuple[int, int] | None = None
        self.closed = False

    def headers(self, stream: int, device_token: str, apns_id: str | None) -> list[tuple[str, str]]:
        headers = [(":method", "POST"), (":scheme", "https"), (":authority", "localhost"),
                   (":path", f"/3/device/{device_token}"), ("apns-topic", TOPIC), ("apns-push-type", "alert")]
        if apns_id:
            headers.append(("apns-id", apns_id))
        if self.jwt:
            headers.append(("authorization", f"bearer {self.jwt}"))
        return headers

    def push(self, device_token: str, payload: bytes = PAYLOAD, apns_id: str | None = None, wait: float = 5.0):
        """Sends one notification and waits for its answer: the status, or "reset", "goaway"
        (the GOAWAY left the stream unprocessed), "closed" or "timeout"."""
        stream = self.h2.get_next_available_stream_id()
        self.h2.send_headers(stream, self.headers(stream, device_token, apns_id))
        self.h2.send_data(stream, payload, end_stream=True)
        self.sock.send(self.h2.data_to_send())
        status = None
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                data = self.sock.receive(deadline - time.monotonic())
            except socket.timeout:
                return "timeout"
            except (ConnectionResetError, ssl.SSLError, OSError):
                self.closed = True
                return "closed"
            if not data:
                self.closed = True
                return "closed"
            for event in self.h2.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream:
                    status = int(dict(event.headers)[":status"])
                elif isinstance(event, h2.events.StreamEnded) and event.stream_id == stream:
                    self._flush()
                    return status
                elif isinstance(event, h2.events.StreamReset) and event.stream_id == stream:
                    self._flush()
                    return "reset"
                elif isinstance(event, h2.events.ConnectionTerminated):
                    self.goaway = (int(event.error_code), event.last_stream_id)
                    if event.last_stream_id < stream:
                        return "goaway"
            self._flush()
        return "timeout"

    def push_ignoring_goaway(self, device_token: str, stream: int):
        """Opens `stream` although a GOAWAY said not to: HEADERS encoded with the
        connection's own HPACK state, sent past h2's state machine (which, rightly, refuses)."""
        block = self.h2.encoder.encode(self.headers(stream, device_token, None))
        frame = hyperframe.frame.HeadersFrame(stream, data=block, flags=["END_HEADERS", "END_STREAM"])
        self.sock.send(frame.serialize())

    def _flush(self):
        pending = self.h2.data_to_send()
        if pending:
            try:
                self.sock.send(pending)
            except OSError:
                self.closed = True

    def close(self):
        self.sock.close()

    def close_cleanly(self, wait: float = 5.0) -> bool:
        """Closes as HTTP/2 clients do: GOAWAY(NO_ERROR), then reads until the server, its
        last answer out, closes the socket. Returns whether it did within `wait`."""
        self.h2.close_connection()
        self._flush()
        deadline = time.monotonic() + wait
        try:
            while time.monotonic() < deadline:
                if not self.sock.receive(deadline - time.monotonic()):
                    return True
        except (socket.timeout, ConnectionResetError, ssl.SSLError, OSError):
            return False
        finally:
            self.sock.close()
        return False


def start(tmp_path: Path, scenario: dict | None = None, *extra: str) -> Server:
    args = list(extra)
    if scenario is not None:
        path = tmp_path / "scenario.json"
        path.write_text(json.dumps({"name": "verdicts", **scenario}))
        args += ["--scenario", str(path)]
    return Server(tmp_path, *args).start()


def eventually(condition, describe, timeout: float = 5):
    """Waits for what the server records a moment after the client acts (a close)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, describe()
        time.sleep(0.05)


def report(server: Server) -> dict:
    return server.journal.get("/v1/report")


def findings(server: Server) -> dict[str, list[dict]]:
    """Each rule's findings over every provider, by rule name."""
    found: dict[str, list[dict]] = {}
    for provider in report(server)["providers"]:
        for rule in provider["rules"]:
            found.setdefault(rule["rule"], []).extend(rule["examples"])
    return found


def checks(server: Server) -> list[str]:
    return sorted(example["check"] for examples in findings(server).values() for example in examples)


def only_provider(server: Server) -> dict:
    (provider,) = [p for p in report(server)["providers"] if p["provider"]["kind"] != "unidentified"]
    return provider


# ---- 1. Unregistered tokens ------------------------------------------------------------------

def test_unregistered_token_pushed_again_is_found(tmp_path):
    server = start(tmp_path)
    try:
        token = unique_token()
        server.journal.post(f"/v1/registry/{token}/unregister")
        client = Provider(server.http2)
        assert client.push(token) == 410
        time.sleep(0.05)
        assert client.push(token, b'{"aps":{"alert":"again"}}') == 410
        client.close()
        assert checks(server) == ["pushAfterUnregistered"]
        (finding,) = findings(server)["unregistered-token"]
        assert finding["deviceToken"] == token and len(finding["notifications"]) == 2
        assert finding["provider"]["kind"] == "certificate"
    finally:
        server.stop()


def test_unregistered_token_left_alone_passes(tmp_path):
    server = start(tmp_path)
    try:
        token = unique_token()
        server.journal.post(f"/v1/registry/{token}/unregister")
        client = Provider(server.http2)
        assert client.push(token) == 410
        assert client.push(unique_token()) == 200
        client.close()
        assert checks(server) == []
        assert only_provider(server)["notifications"] == {
            "tried": 2, "acceptedAtOnce": 1, "acceptedAfterRetries": 0, "refused": 1, "lost": 0, "sentAgainAfterAcceptance": 0}
    finally:
        server.stop()


# ---- 2. Permanent refusals -------------------------------------------------------------------

def test_retried_bad_device_token_is_found_and_a_single_try_passes(tmp_path):
    server = start(tmp_path)
    try:
        client = Provider(server.http2)
        assert client.push("0123456789") == 400  # BadDeviceToken
        time.sleep(0.2)
        assert client.push("0123456789") == 400
        assert client.push("abcdef") == 400       # another bad token, tried once: fine
        client.close()
        assert checks(server) == ["retriedPermanentRefusal"]
        (finding,) = findings(server)["permanent-retry"]
        assert "400 BadDeviceToken" in finding["message"] and finding["deviceToken"] == "0123456789"
    finally:
        server.stop()


# ---- 3. Backoff -------------------------------------------------------------------------------

THREE_503 = {"rules": [{"name": "busy", "times": 3, "action": {"type": "reject", "reason": "ServiceUnavailable"}}]}


def retry_until_accepted(client: Provider, token: str, delays: list[float]) -> list:
    statuses = [client.push(token)]
    for delay in delays:
        time.sleep(delay)
        statuses.append(client.push(token))
    return statuses


def test_retrying_at_once_is_found(tmp_path):
    server = start(tmp_path, THREE_503)
    try:
        client = Provider(server.http2)
        assert retry_until_accepted(client, unique_token(), [0, 0, 0]) == [503, 503, 503, 200]
        client.close()
        assert checks(server) == ["backoffDoesNotGrow"] + ["retriedTooSoon"] * 3
        provider = only_provider(server)
        assert provider["notifications"]["acceptedAfterRetries"] == 1
        assert provider["retryDelays"]["count"] == 3 and provider["retryDelays"]["maximumMilliseconds"] < 100
    finally:
        server.stop()


def test_exponential_backoff_passes(tmp_path):
    server = start(tmp_path, THREE_503)
    try:
        client = Provider(server.http2)
        assert retry_until_accepted(client, unique_token(), [0.15, 0.3, 0.6]) == [503, 503, 503, 200]
        client.close()
        assert checks(server) == []
        delays = only_provider(server)["retryDelays"]["firstMilliseconds"]
        assert len(delays) == 3 and delays[0] >= 150 and delays[1] >= 300 and delays[2] >= 600, delays
    finally:
        server.stop()


# ---- 4. GOAWAY, reconnect storms, churn ---------------------------------------------------------

GOAWAY_OPEN = {"rules": [{"name": "goaway", "times": 1, "action": {
    "type": "goAway", "errorCode": "NO_ERROR", "reason": "Shutdown", "lastStreamId": 0, "closeConnection": False}}]}


def test_a_stream_after_goaway_is_found(tmp_path):
    server = start(tmp_path, GOAWAY_OPEN)
    try:
        client = Provider(server.http2)
        token = unique_token()
        assert client.push(token) == "goaway"
        client.push_ignoring_goaway(token, stream=3)
        server.journal.expect_event("diagnosis", code="http2.streamAfterGoAway")
        client.close()
        assert "streamAfterGoAway" in checks(server)
        (finding,) = findings(server)["connection-misuse"]
        assert finding["figures"] == {"stream": 3, "lastStreamID": 0}
    finally:
        server.stop()


def test_a_new_connection_after_goaway_passes(tmp_path):
    server = start(tmp_path, GOAWAY_OPEN)
    try:
        client = Provider(server.http2)
        token = unique_token()
        assert client.push(token) == "goaway"
        client.close()
        again = Provider(server.http2)  # at once: the GOAWAY said the stream was not processed
        assert again.push(token) == 200
        again.close()
        assert checks(server) == []
        assert only_provider(server)["notifications"]["acceptedAfterRetries"] == 1
    finally:
        server.stop()


RESET_EIGHT = {"rules": [{"name": "drop", "times": 8, "action": {"type": "resetConnection"}}]}


def reconnect_until_accepted(port: int, token: str, pause: float, grow: float = 1.0, attempts: int = 12) -> list:
    outcomes = []
    for _ in range(attempts):
        client = Provider(port)
        outcome = client.push(token)
        client.close()
        outcomes.append(outcome)
        if outcome == 200:
            return outcomes
        time.sleep(pause)
        pause *= grow
    return outcomes


def test_a_reconnect_storm_is_found(tmp_path):
    server = start(tmp_path, RESET_EIGHT)
    try:
        outcomes = reconnect_until_accepted(server.http2, unique_token(), pause=0)
        assert outcomes == ["closed"] * 8 + [200]
        found = checks(server)
        assert "reconnectStorm" in found and "retriedTooSoon" in found, found
        storm = next(f for f in findings(server)["connection-misuse"] if f["check"] == "reconnectStorm")
        assert storm["figures"]["connections"] > 5
    finally:
        server.stop()


def test_reconnecting_with_backoff_passes(tmp_path):
    scenario = {"rules": [{"name": "drop", "times": 3, "action": {"type": "resetConnection"}}]}
    server = start(tmp_path, scenario)
    try:
        outcomes = reconnect_until_accepted(server.http2, unique_token(), pause=0.2, grow=2)
        assert outcomes == ["closed"] * 3 + [200]
        assert checks(server) == []
        assert only_provider(server)["connections"] == 4
    finally:
        server.stop()


def test_a_connection_per_notification_is_churn_and_one_connection_is_not(tmp_path):
    server = start(tmp_path)
    try:
        for _ in range(10):
            client = Provider(server.http2)
            assert client.push(unique_token()) == 200
            client.close()
            time.sleep(0.02)
        # The tenth close reaches the journal just after the client's.
        eventually(lambda: checks(server) == ["connectionChurn"], lambda: checks(server))
        server.journal.post("/v1/reset")
        client = Provider(server.http2)
        for _ in range(12):
            assert client.push(unique_token()) == 200
        client.close()
        assert checks(server) == []
        assert only_provider(server)["notifications"]["acceptedAtOnce"] == 12
    finally:
        server.stop()


# ---- 5. Provider tokens -----------------------------------------------------------------------

def test_a_token_renewed_per_connection_is_found_and_a_shared_token_is_not(tmp_path):
    server = start(tmp_path)
    try:
        now = int(time.time())
        first = Provider(server.http2, token=provider_token(issued_at=now - 60))
        assert first.push(unique_token()) == 200
        second = Provider(server.http2, token=provider_token(issued_at=now - 30))  # a new token, seconds later
        assert second.push(unique_token()) == 200
        first.close()
        second.close()
        assert checks(server) == ["earlyTokenRenewal"]
        (finding,) = findings(server)["token-misuse"]
        assert finding["provider"] == {"kind": "providerToken", "teamId": "TEAM00000A", "keyId": "SANDBOX001",
                                       "name": "token team TEAM00000A key SANDBOX001"}
        assert finding["figures"]["issuedAt"] == now - 30 and finding["figures"]["previousIssuedAt"] == now - 60

        server.journal.post("/v1/reset")
        shared = provider_token(issued_at=now - 10)
        for _ in range(2):
            client = Provider(server.http2, token=shared)
            assert client.push(unique_token()) == 200
            client.close()
        assert checks(server) == []
    finally:
        server.stop()


def test_an_expired_token_is_found(tmp_path):
    server = start(tmp_path)
    try:
        client = Provider(server.http2, token=provider_token(issued_at=int(time.time()) - 7200))
        assert client.push(unique_token()) == 403
        client.close()
        # No token was ever accepted on the connection, so who sent it is known only when it
        # closes: the finding waits for that, and goes to the unidentified clients. The
        # notification, refused with a reason that says renew and retry, is lost.
        eventually(lambda: checks(server) == ["expiredProviderToken", "lostNotification"], lambda: checks(server))
        (finding,) = findings(server)["token-misuse"]
        assert finding["provider"]["kind"] == "unidentified"
    finally:
        server.stop()


# ---- 6. Lost notifications ------------------------------------------------------------------------

ONE_500 = {"rules": [{"name": "fail once", "times": 1, "action": {"type": "reject", "reason": "InternalServerError"}}]}


def test_a_500_never_retried_is_lost_and_retried_is_not(tmp_path):
    server = start(tmp_path, ONE_500)
    try:
        client = Provider(server.http2)
        lost = unique_token()
        assert client.push(lost) == 500
        assert client.push(unique_token()) == 200
        assert checks(server) == ["lostNotification"]
        (finding,) = findings(server)["lost"]
        assert finding["deviceToken"] == lost
        server.journal.post("/v1/reset")
        kept = unique_token()
        assert client.push(kept) == 500
        time.sleep(0.2)
        assert client.push(kept) == 200
        client.close()
        assert checks(server) == []
        assert report(server)["totals"] == {
            "tried": 1, "acceptedAtOnce": 0, "acceptedAfterRetries": 1, "refused": 0, "lost": 0, "sentAgainAfterAcceptance": 0}
    finally:
        server.stop()


# ---- The report a CI reads ------------------------------------------------------------------------

def mockapns_report(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([mockapns_bin(), "report", *args], capture_output=True, text=True, timeout=60)


def misbehave(server: Server, lost: str) -> None:
    """A provider that retries a 500 at once and loses another notification."""
    client = Provider(server.http2)
    retried = unique_token()
    assert client.push(unique_token()) == 200
    assert client.push(retried) == 500
    assert client.push(retried) == 200
    assert client.push(lost) == 500
    client.close()


def failing_once_and_for(lost: str) -> dict:
    return {"rules": [
        {"name": "lost", "match": {"tokens": [lost]}, "action": {"type": "reject", "reason": "InternalServerError"}},
        {"name": "once", "match": {"requestIndex": {"equals": 2}}, "action": {"type": "reject", "reason": "InternalServerError"}},
    ]}


def check_junit(path: Path, lost_token: str):
    xml = junitparser.JUnitXml.fromfile(str(path))
    suites = list(xml)
    assert [suite.name for suite in suites][0].startswith("certificate "), [s.name for s in suites]
    (suite,) = [s for s in suites if s.name.startswith("certificate ")]
    cases = {case.name: case for case in suite}
    assert list(cases) == ["unregistered-token", "permanent-retry", "no-backoff", "connection-misuse", "token-misuse", "lost"]
    failed = {name for name, case in cases.items() if not case.is_passed}
    assert failed == {"no-backoff", "lost"}, failed
    (failure,) = cases["lost"].result
    assert isinstance(failure, junitparser.Failure) and failure.type == "lost"
    assert lost_token[:8] in failure.text and "notifications #" in failure.text, failure.text
    assert suite.tests == 6 and suite.failures == 2
    assert xml.tests >= 6 and xml.failures >= 2


def test_report_junit_and_exit_status_from_the_live_server_and_from_the_file(tmp_path):
    journal = tmp_path / "journal.jsonl"
    lost = unique_token()
    server = start(tmp_path, failing_once_and_for(lost), "--journal", str(journal))
    try:
        misbehave(server, lost)
        control = f"http://127.0.0.1:{server.ports['control']}"
        live_xml = tmp_path / "live.xml"
        result = mockapns_report("--control", control, "--junit", str(live_xml), "--fail-on", "lost,permanent-retry")
        assert result.returncode == 1, result
        assert "of 3 notifications tried, 1 accepted at once, 1 after retries, 0 refused, 1 lost" in result.stdout, result.stdout
        assert "FAIL lost (1)" in result.stdout and "broken: lost" in result.stderr, result
        check_junit(live_xml, lost)
        assert mockapns_report("--control", control, "--fail-on", "permanent-retry,unregistered-token").returncode == 0
        as_json = json.loads(mockapns_report("--control", control, "--json").stdout)
        assert as_json["brokenRules"] == ["no-backoff", "lost"]
    finally:
        assert server.stop() == 0
    file_xml = tmp_path / "file.xml"
    result = mockapns_report("--file", str(journal), "--junit", str(file_xml), "--fail-on", "all")
    assert result.returncode == 1, result
    check_junit(file_xml, lost)
    # The stop recorded the lost notification in the file, as a verdict event.
    verdicts = [json.loads(line)["verdict"] for line in journal.read_text().splitlines() if '"type":"verdict"' in line]
    assert [v["check"] for v in verdicts if v["rule"] == "lost"] == ["lostNotification"]
    # Judged with other thresholds: a retry 0 ms later is fine if the minimum is 0.
    config = tmp_path / "lenient.json"
    config.write_text(json.dumps({"verdicts": {"minimumRetryDelayMilliseconds": 0}}))
    lenient = mockapns_report("--file", str(journal), "--config", str(config), "--fail-on", "no-backoff")
    assert lenient.returncode == 0, lenient


def curl_push(server: Server, token: str, payload: bytes) -> int:
    """One push with curl (client-sandbox, the h2 providers' certificate): the status."""
    result = subprocess.run(
        ["curl", "-sS", "--http2", "--cacert", str(CA), "--max-time", "20",
         "--cert", str(CERTS / "client-sandbox.pem"), "--key", str(CERTS / "client-sandbox-key.pem"),
         "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert", "-o", "/dev/null", "-w", "%{http_code}",
         "--data-binary", payload.decode(), server.url(token)],
        capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result
    return int(result.stdout)


def test_pushes_after_a_410_fail_the_report_when_the_acceptance_came_on_a_cleanly_closed_connection(tmp_path):
    """A push over a connection the client ends with GOAWAY(NO_ERROR), as h2 clients close; the
    token unregistered; the same payload pushed three times with curl. The close is the
    client's in the record, the 410s are refusals, and `--fail-on unregistered-token` fails,
    from the live server and from its JSONL file alike."""
    journal = tmp_path / "journal.jsonl"
    server = start(tmp_path, None, "--journal", str(journal))
    try:
        token = unique_token()
        client = Provider(server.http2)
        assert client.push(token) == 200
        assert client.close_cleanly(), "the server closes once the client's GOAWAY ended the connection"
        server.journal.expect_event("connectionClosed", closedBy="client", reason="client GOAWAY NO_ERROR")
        server.journal.post(f"/v1/registry/{token}/unregister")
        assert [curl_push(server, token, PAYLOAD) for _ in range(3)] == [410, 410, 410]
        eventually(lambda: len(server.journal.events(type="connectionClosed")) >= 4, lambda: "curl's connections closed")
        control = f"http://127.0.0.1:{server.ports['control']}"
        live = mockapns_report("--control", control, "--fail-on", "unregistered-token")
        assert live.returncode == 1, live
        assert "of 2 notifications tried, 1 accepted at once, 0 after retries, 1 refused, 0 lost" in live.stdout, live.stdout
        assert "sent again after being accepted" not in live.stdout, live.stdout
        assert "FAIL unregistered-token (2)" in live.stdout, live.stdout
    finally:
        assert server.stop() == 0
    from_file = mockapns_report("--file", str(journal), "--fail-on", "unregistered-token")
    assert from_file.returncode == 1, from_file
    assert "FAIL unregistered-token (2)" in from_file.stdout, from_file.stdout


def test_report_errors_are_plain(tmp_path):
    missing = mockapns_report("--file", str(tmp_path / "none.jsonl"))
    assert missing.returncode == 2 and "cannot open" in missing.stderr, missing
    unknown = mockapns_report("--file", str(tmp_path / "none.jsonl"), "--fail-on", "lost,telepathy")
    assert unknown.returncode != 0 and 'unknown rule "telepathy"' in unknown.stderr, unknown
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"seq":1,"time":0,"mono":0,"type":"telepathy"}\n')
    result = mockapns_report("--file", str(bad))
    assert result.returncode == 2 and "line 1" in result.stderr and "telepathy" in result.stderr, result


def test_the_journal_files_of_two_replicas_are_judged_as_one_run(tmp_path):
    """Two servers, each with its own JSONL file, as replicas behind a load balancer: the token
    is unregistered on both; the provider is answered 410 by the first, then pushes to the
    token again through the second. Neither file alone breaks a rule (one 410 each); read
    together, the push after the 410 is found, and the two replicas' connection 1 are two."""
    journals = [tmp_path / "first.jsonl", tmp_path / "second.jsonl"]
    folders = [tmp_path / "first", tmp_path / "second"]
    for folder in folders:
        folder.mkdir()
    servers = [start(folder, None, "--journal", str(journal)) for folder, journal in zip(folders, journals)]
    try:
        token = unique_token()
        for server in servers:
            server.journal.post(f"/v1/registry/{token}/unregister")
        first = Provider(servers[0].http2)
        assert first.push(token) == 410
        first.close()
        time.sleep(0.05)  # the second push comes later by the clock, as it does on the wire
        second = Provider(servers[1].http2)
        assert second.push(token, b'{"aps":{"alert":"again"}}') == 410
        second.close()
    finally:
        for server in servers:
            assert server.stop() == 0
    for journal in journals:
        alone = mockapns_report("--file", str(journal), "--fail-on", "unregistered-token")
        assert alone.returncode == 0, alone
    together = mockapns_report("--file", str(journals[0]), "--file", str(journals[1]), "--fail-on", "unregistered-token", "--json")
    assert together.returncode == 1, together
    report = json.loads(together.stdout)
    (provider,) = [p for p in report["providers"] if p["provider"]["kind"] == "certificate"]
    assert provider["connections"] == 2, "the two replicas' connection 1 are two connections"
    (rule,) = [r for r in provider["rules"] if r["rule"] == "unregistered-token"]
    assert rule["findings"] == 1 and rule["examples"][0]["deviceToken"] == token
