"""The everyday tool: `GET /metrics` read by Prometheus' own text parser (prometheus_client)
and checked against what was sent, and RSA credentials (`mockapns certs generate --key-type
rsa`) used by an HTTP/2 client (aioapns; curl limited to RSA key exchange) and a legacy
client (PyAPNs)."""

from __future__ import annotations

import asyncio
import subprocess
import time
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from conftest import TOPIC, Server, mockapns_bin, run, unique_token
from patches import aioapns_target, apns_ssl_context, pyapns_connect, pyapns_verifying


def scrape(server: Server) -> dict[str, list]:
    """GET /metrics, parsed by prometheus_client: samples by metric family name."""
    url = f"http://127.0.0.1:{server.ports['control']}/metrics"
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.headers["content-type"].startswith("text/plain")
        text = response.read().decode()
    return {family.name: family.samples for family in text_string_to_metric_families(text)}


def value(samples: list, name: str, **labels) -> float:
    """The value of the one sample called `name` whose labels include `labels` (0 if none)."""
    found = [s.value for s in samples if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())]
    assert len(found) <= 1, (name, labels, found)
    return found[0] if found else 0.0


def curl_push(server: Server, token: str, cert_dir, extra: list[str] | None = None) -> subprocess.CompletedProcess:
    return run([
        "curl", "--http2", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", str(cert_dir / "ca.pem"),
        "--cert", str(cert_dir / "client-sandbox.pem"), "--key", str(cert_dir / "client-sandbox-key.pem"),
        "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert", "-d", '{"aps":{"alert":"hi"}}',
        *(extra or []), server.url(token),
    ])


def test_metrics_count_what_was_sent(tmp_path):
    from conftest import CERTS

    server = Server(tmp_path).start()
    try:
        for _ in range(3):
            assert curl_push(server, unique_token(), CERTS).stdout == b"200"
        for _ in range(2):
            assert curl_push(server, "0123", CERTS).stdout == b"400"
        # A legacy client without a certificate: the gateway's handshake fails.
        run(["openssl", "s_client", "-connect", f"127.0.0.1:{server.ports['gateway']}", "-quiet"], input=b"", timeout=10)
        server.journal.expect_event("connectionClosed", transport="legacy")

        families = scrape(server)
        notifications = families["mockapns_notifications"]
        assert value(notifications, "mockapns_notifications_total", protocol="http2", status="200", reason="") == 3
        assert value(notifications, "mockapns_notifications_total", protocol="http2", status="400", reason="BadDeviceToken") == 2

        http2 = {"listener": "http2", "port": str(server.http2)}
        assert value(families["mockapns_connections"], "mockapns_connections_total", **http2) == 5
        deadline = time.monotonic() + 5
        while value(families["mockapns_connections_open"], "mockapns_connections_open", **http2) != 0:
            assert time.monotonic() < deadline, "connections still counted open after curl exited"
            time.sleep(0.05)
            families = scrape(server)
        gateway = {"listener": "legacy", "port": str(server.ports["gateway"])}
        failures = families["mockapns_tls_handshake_failures"]
        assert sum(s.value for s in failures if s.name.endswith("_total") and s.labels.get("port") == gateway["port"]) == 1

        histogram = families["mockapns_request_duration_seconds"]
        assert value(histogram, "mockapns_request_duration_seconds_count", protocol="http2") == 5
        assert value(histogram, "mockapns_request_duration_seconds_bucket", protocol="http2", le="+Inf") == 5

        journal = server.journal.get("/v1/journal")
        events = value(families["mockapns_journal_events"], "mockapns_journal_events_total")
        assert 0 < events <= journal["lastSequence"]
        assert value(families["mockapns_journal_dropped_events"], "mockapns_journal_dropped_events_total") == 0
    finally:
        server.stop()


def test_scenario_firings_are_counted_by_rule(tmp_path):
    from conftest import CERTS, REPO

    server = Server(tmp_path, "--scenario", str(REPO / "scenarios" / "flaky-503-then-ok.json")).start()
    try:
        codes = [curl_push(server, unique_token(), CERTS).stdout for _ in range(3)]
        assert codes == [b"503", b"503", b"200"]
        fired = server.journal.get("/v1/scenario")["firings"]
        samples = scrape(server)["mockapns_scenario_actions_fired"]
        for rule in fired:
            assert value(samples, "mockapns_scenario_actions_fired_total", rule=rule["rule"]) == rule["fired"]
        assert sum(rule["fired"] for rule in fired) >= 2
    finally:
        server.stop()


@pytest.fixture(scope="module")
def rsa_certs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rsa")
    result = run([mockapns_bin(), "certs", "generate", "--key-type", "rsa", "--out", str(folder)])
    assert result.returncode == 0, result.stderr
    text = run(["openssl", "x509", "-in", str(folder / "server.pem"), "-noout", "-text"]).stdout.decode()
    assert "rsaEncryption" in text and "(2048 bit)" in text
    return folder


@pytest.fixture(scope="module")
def rsa_server(rsa_certs, tmp_path_factory):
    server = Server(tmp_path_factory.mktemp("rsa-server"), "--cert-dir", str(rsa_certs)).start()
    yield server
    server.stop()


def test_rsa_curl_with_rsa_key_exchange_only(rsa_server, rsa_certs):
    """A TLS 1.2 client offering only RSA key exchange needs the server's RSA certificate."""
    token = unique_token()
    result = curl_push(rsa_server, token, rsa_certs, ["--tls-max", "1.2", "--ciphers", "AES128-GCM-SHA256"])
    assert result.stdout == b"200", result.stderr
    rsa_server.journal.expect(token, status=200)
    session = rsa_server.journal.get("/v1/events", type="tlsEstablished")["events"][-1]
    assert session["cipher"] == "AES128-GCM-SHA256" and session["version"] == "TLSv1.2", session


def test_rsa_aioapns_certificate(rsa_server, rsa_certs):
    from aioapns import APNs, NotificationRequest, PushType

    async def go():
        client = APNs(
            client_cert=str(rsa_certs / "client-universal.bundle.pem"), topic=TOPIC, use_sandbox=True,
            ssl_context=apns_ssl_context(rsa_certs / "ca.pem"), max_connection_attempts=1,
        )
        return await client.send_notification(NotificationRequest(
            device_token=token, message={"aps": {"alert": "rsa"}}, push_type=PushType.ALERT))

    token = unique_token()
    with aioapns_target(rsa_server.http2):
        result = asyncio.run(asyncio.wait_for(go(), 30))
    assert result.is_successful, (result.status, result.description)
    record = rsa_server.journal.expect(token, status=200)
    assert record["authentication"]["kind"] == "certificate"


def test_rsa_pyapns_legacy_gateway(rsa_server, rsa_certs):
    token = unique_token()
    with pyapns_verifying(rsa_certs / "ca.pem") as apns:
        gateway = pyapns_connect(
            apns.GatewayConnection(use_sandbox=True, cert_file=str(rsa_certs / "client-sandbox.pem"),
                                   key_file=str(rsa_certs / "client-sandbox-key.pem"), enhanced=True),
            rsa_server.ports["gateway"],
        )
        gateway.send_notification(token, apns.Payload(alert="rsa"))
        record = rsa_server.journal.expect(token, transport="legacy", accepted=True)
        gateway.force_close()
    assert record["authentication"] == {"kind": "certificate"}
