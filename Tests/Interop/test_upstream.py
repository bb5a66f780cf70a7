"""Upstream mode with real clients: aioapns and h2load push through one MockAPNs (the proxy)
to another (the upstream), whose scenario answers otherwise than the proxy's own rules would.
The relayed answers must be the upstream's, the proxy's scripted faults must never reach the
upstream, each disagreement must be recorded and counted, and an upstream that is down must
give the provider a 503, not a hang."""

from __future__ import annotations

import asyncio
import json
import re
import time

import pytest
from aioapns import APNs, NotificationRequest, PushType

from conftest import CA, CERTS, KEY_FILE, KEY_ID, TEAM, TOPIC, Server, free_port, provider_token, run, unique_token
from patches import aioapns_target, apns_ssl_context

GONE = "0a" * 32
THROTTLED = "c4" * 32


def scenario_file(tmp, name: str, rules: list) -> str:
    path = tmp / f"{name}.json"
    path.write_text(json.dumps({"name": name, "rules": rules}))
    return str(path)


def upstream_flags(url: str) -> list:
    return [
        "--upstream", url, "--upstream-ca", str(CA),
        "--upstream-certificate", str(CERTS / "client-universal.pem"),
        "--upstream-key", str(CERTS / "client-universal-key.pem"),
        "--upstream-timeout", "2", "--upstream-connect-timeout", "2",
    ]


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("upstream")
    upstream_rules = [{"name": "gone", "match": {"tokens": [GONE]},
                       "action": {"type": "reject", "reason": "Unregistered", "timestamp": 1700000000000}}]
    upstream = Server(tmp / "up", "--scenario", scenario_file(tmp, "apple", upstream_rules)).start()
    proxy_rules = [{"name": "throttle", "match": {"tokens": [THROTTLED]},
                    "action": {"type": "reject", "reason": "TooManyRequests"}}]
    proxy = Server(tmp / "proxy", "--scenario", scenario_file(tmp, "chaos", proxy_rules),
                   *upstream_flags(f"https://127.0.0.1:{upstream.http2}")).start()
    yield upstream, proxy
    proxy.stop()
    upstream.stop()


def jwt_client() -> APNs:
    return APNs(key=KEY_FILE.read_text(), key_id=KEY_ID, team_id=TEAM, topic=TOPIC, use_sandbox=True,
                ssl_context=apns_ssl_context(), max_connection_attempts=1)


def cert_client() -> APNs:
    return APNs(client_cert=str(CERTS / "client-universal.bundle.pem"), topic=TOPIC, use_sandbox=True,
                ssl_context=apns_ssl_context(), max_connection_attempts=1)


def send(port: int, client_factory, *tokens: str):
    async def go():
        client = client_factory()
        return [await client.send_notification(NotificationRequest(
            device_token=token, message={"aps": {"alert": "through the proxy"}}, push_type=PushType.ALERT))
            for token in tokens]

    with aioapns_target(port):
        return asyncio.run(asyncio.wait_for(go(), 30))


@pytest.mark.parametrize("client_factory", [jwt_client, cert_client], ids=["jwt", "certificate"])
def test_aioapns_gets_the_upstreams_answers_unchanged(pair, client_factory):
    upstream, proxy = pair
    token = unique_token()
    accepted, gone = send(proxy.http2, client_factory, token, GONE)
    assert accepted.is_successful and accepted.status == "200"
    # The apns-id is the upstream's own: the one it recorded, not one the proxy made.
    seen = upstream.journal.expect(token, status=200)
    assert accepted.notification_id == seen["responseApnsId"]
    assert seen["payload"] == json.dumps({"aps": {"alert": "through the proxy"}}, separators=(",", ":")) or \
        json.loads(seen["payload"]) == {"aps": {"alert": "through the proxy"}}
    assert not gone.is_successful and gone.status == "410" and gone.description == "Unregistered"
    record = proxy.journal.expect(token, status=200)
    assert record["upstream"]["origin"] == f"https://127.0.0.1:{upstream.http2}"
    assert record["upstream"]["disagrees"] is False and record["upstream"]["ownStatus"] == 200
    assert record["responseApnsId"] == accepted.notification_id
    # The fidelity check: MockAPNs' own rules would have accepted the gone token.
    disagreement = proxy.journal.expect_event("diagnosis", code="fidelity.disagreement", message="410 Unregistered")
    assert "MockAPNs' own rules answer 200" in disagreement["message"]
    report = proxy.journal.control.report()
    pairs = {(row["upstream"], row["mockapns"]): row["count"] for row in report["upstream"]["byAnswers"]}
    assert pairs.get(("410 Unregistered", "200"), 0) >= 1, report["upstream"]


def test_the_proxys_scripted_answers_never_reach_the_upstream(pair):
    upstream, proxy = pair
    (throttled,) = send(proxy.http2, jwt_client, THROTTLED)
    assert throttled.status == "429" and throttled.description == "TooManyRequests"
    record = proxy.journal.expect(THROTTLED, status=429)
    assert record["rule"] == "throttle" and "upstream" not in record
    assert upstream.journal.notifications(token=THROTTLED) == []


def test_h2load_through_the_proxy_one_upstream_connection_per_client_connection(pair, tmp_path):
    upstream, proxy = pair
    token = unique_token()
    payload = tmp_path / "payload.json"
    payload.write_text('{"aps":{"alert":"load"}}')
    before = len(upstream.journal.events(type="connectionOpened"))
    result = run(["h2load", "-n", "300", "-c", "3", "-m", "20", "-t", "1", "-d", str(payload),
                  "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert",
                  "-H", f"authorization: bearer {provider_token()}", proxy.url(token)], timeout=120)
    output = result.stdout.decode()
    assert result.returncode == 0, output + result.stderr.decode()
    answered = int(re.search(r"status codes: (\d+) 2xx", output).group(1))
    # A token connection starts at one stream until its first good token, as Apple's do: the
    # first burst on each connection is partly refused, the rest answered 200.
    assert answered >= 300 - 3 * 19, output
    records = upstream.journal.control.wait_for(answered, token=token, timeout=10)
    assert len(records) == answered, "each 200 the client got is one the upstream gave"
    # Each of h2load's three connections was relayed over one upstream connection of its own
    # (APNs ties a connection to one provider token's team and update rate), closed after it.
    opened = len(upstream.journal.events(type="connectionOpened")) - before
    assert opened == 3, opened
    assert len({record["connection"] for record in records}) == 3


def test_an_upstream_that_is_down_gets_the_provider_503_quickly(tmp_path):
    proxy = Server(tmp_path, *upstream_flags(f"https://127.0.0.1:{free_port()}")).start()
    try:
        token = unique_token()
        started = time.monotonic()
        (result,) = send(proxy.http2, jwt_client, token)
        assert result.status == "503" and result.description == "ServiceUnavailable"
        assert time.monotonic() - started < 20, "the provider waited for an upstream that is down"
        record = proxy.journal.expect(token, status=503)
        assert record["upstream"]["failureKind"] == "unreachable"
        proxy.journal.expect_event("diagnosis", code="upstream.failed", message="gave no answer")
        assert proxy.journal.control.report()["upstream"]["failed"] == 1
    finally:
        proxy.stop()
