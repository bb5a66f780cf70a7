"""Real clients through the chaos scenario (scenarios/chaos-5-percent.json): each client the
suite drives sends a batch as its documentation shows, with its own retry logic and nothing
added, and the server judges it. The test holds the verdicts to what the client itself
reports (every notification it was told was accepted is counted accepted, none more), and
prints one row of the "How real clients are judged" table (docs/guide/verdicts.md); with
MOCKAPNS_VERDICT_TABLE set, the rows are also appended to that file."""

from __future__ import annotations

import asyncio
import os
import time

import pytest

from conftest import CERTS, KEY_FILE, KEY_ID, REPO, TEAM, TOPIC, Server, unique_token
from patches import aioapns_target, apns_ssl_context, apnsclient_tls, pyapns_connect, pyapns_verifying

CHAOS = REPO / "scenarios" / "chaos-5-percent.json"
HTTP2_COUNT = 300
LEGACY_COUNT = 100


def provider_report(server: Server, kind: str) -> dict:
    report = server.journal.get("/v1/report")
    (provider,) = [p for p in report["providers"] if p["provider"]["kind"] == kind]
    return provider


def row(client: str, provider: dict) -> str:
    tally = provider["notifications"]
    cells = [client, f"{tally['tried']}: {tally['acceptedAtOnce']} at once, {tally['acceptedAfterRetries']} after retries, "
                     f"{tally['refused']} refused, {tally['lost']} lost, {tally['sentAgainAfterAcceptance']} sent again after acceptance"]
    for rule in provider["rules"]:
        cells.append("pass" if rule["passed"] else
                     f"**fail** ({rule['findings']}: " + ", ".join(sorted({e['check'] for e in rule['examples']})) + ")")
    delays = provider["retryDelays"]
    cells.append(f"{delays['count']} retries, {delays['minimumMilliseconds']}–{delays['maximumMilliseconds']} ms"
                 if delays["count"] else "no retries")
    line = "| " + " | ".join(cells) + " |"
    print("\nverdict row:", line)
    for rule in provider["rules"]:
        for example in rule["examples"][:3]:
            print(f"  {rule['rule']}: {example['message']}")
    target = os.environ.get("MOCKAPNS_VERDICT_TABLE")
    if target:
        with open(target, "a") as table:
            table.write(line + "\n")
    return line


def judged(server: Server, kind: str, accepted_by_client: int, *, tried_at_most: int) -> dict:
    """The provider's verdicts, held to what the client reports: everything it was told was
    accepted is counted accepted (an acceptance whose answer a dropped connection lost is
    accepted too, so the server may count more, never fewer), and no notification more than
    it sent is counted, however often it re-sent one."""
    provider = provider_report(server, kind)
    tally = provider["notifications"]
    assert tally["acceptedAtOnce"] + tally["acceptedAfterRetries"] >= accepted_by_client, (tally, accepted_by_client)
    assert 0 < tally["tried"] <= tried_at_most, tally
    assert [r["rule"] for r in provider["rules"]] == [
        "unregistered-token", "permanent-retry", "no-backoff", "connection-misuse", "token-misuse", "lost"]
    assert tally["lost"] == next(r["findings"] for r in provider["rules"] if r["rule"] == "lost")
    return provider


@pytest.mark.parametrize("auth", ["jwt", "certificate"])
def test_aioapns_under_chaos(tmp_path, auth):
    from aioapns import APNs, NotificationRequest, PushType

    server = Server(tmp_path, "--scenario", str(CHAOS)).start()
    try:
        def client() -> APNs:
            common = dict(topic=TOPIC, use_sandbox=True, ssl_context=apns_ssl_context())
            if auth == "jwt":
                return APNs(key=KEY_FILE.read_text(), key_id=KEY_ID, team_id=TEAM, **common)
            return APNs(client_cert=str(CERTS / "client-universal.bundle.pem"), **common)

        async def go():
            apns = client()

            async def one(index: int):
                request = NotificationRequest(device_token=unique_token(), message={"aps": {"alert": f"chaos {index}"}},
                                              push_type=PushType.ALERT)
                try:
                    # A stalled request is never answered; the caller gives up on it.
                    return await asyncio.wait_for(apns.send_notification(request), 5)
                except Exception as error:  # noqa: BLE001 - what aioapns tells its caller
                    return error

            return await asyncio.gather(*(one(i) for i in range(HTTP2_COUNT)))

        with aioapns_target(server.http2):
            results = asyncio.run(asyncio.wait_for(go(), 120))
        accepted = sum(1 for r in results if not isinstance(r, BaseException) and r.is_successful)
        time.sleep(0.3)
        provider = judged(server, "providerToken" if auth == "jwt" else "certificate", accepted, tried_at_most=HTTP2_COUNT)
        row(f"aioapns 4.0 ({'JWT' if auth == 'jwt' else 'certificate'})", provider)
    finally:
        server.stop()


def test_pyapns_tapns3_under_chaos(tmp_path):
    server = Server(tmp_path, "--scenario", str(CHAOS)).start()
    try:
        tokens = [unique_token() for _ in range(LEGACY_COUNT)]
        with pyapns_verifying() as apns:
            errors = []
            gateway = pyapns_connect(apns.GatewayConnection(
                use_sandbox=True, cert_file=str(CERTS / "client-sandbox.pem"), key_file=str(CERTS / "client-sandbox-key.pem"),
                enhanced=True), server.ports["gateway"])
            gateway.register_response_listener(errors.append)
            for identifier, token in enumerate(tokens):
                gateway.send_notification(token, apns.Payload(alert=f"chaos {identifier}"), identifier=identifier)
            time.sleep(2)  # its worker reads error responses and resends after them
            gateway.force_close()
        # The legacy protocol answers success with silence: the client never learns which
        # notifications were accepted, so the judge's count is held to the journal's.
        accepted = sum(1 for n in server.journal.notifications(protocol="legacy") if n.get("accepted"))
        provider = judged(server, "certificate", accepted, tried_at_most=LEGACY_COUNT)
        row("PyAPNs (tapns3 3.0.0, enhanced)", provider)
    finally:
        server.stop()


def test_apns_client_under_chaos(tmp_path):
    server = Server(tmp_path, "--scenario", str(CHAOS)).start()
    try:
        tokens = [unique_token() for _ in range(LEGACY_COUNT)]
        with apnsclient_tls() as apnsclient:
            session = apnsclient.Session()
            gateway = session.new_connection(("127.0.0.1", server.ports["gateway"]),
                                             cert_file=str(CERTS / "client-sandbox.bundle.pem"))
            service = apnsclient.APNs(gateway)
            # Its documented loop: send, then send `retry()` while `needs_retry()`.
            stopped = None
            try:
                result = service.send(apnsclient.Message(tokens, alert="chaos"))
                for _ in range(10):
                    if not result.needs_retry():
                        break
                    result = service.send(result.retry())
            except ValueError as error:
                # apns-client keeps its SSL context and calls set_timeout on it for every new
                # connection; pyOpenSSL 24+ refuses to change a context in use, so the client
                # gives up at its first reconnection.
                assert "cannot be mutated" in str(error), error
                stopped = "stops at its first reconnection: pyOpenSSL refuses its reused SSL context"
        accepted = sum(1 for n in server.journal.notifications(protocol="legacy") if n.get("accepted"))
        provider = judged(server, "certificate", accepted, tried_at_most=LEGACY_COUNT)
        row("apns-client 0.2.1" + (f" ({stopped})" if stopped else ""), provider)
    finally:
        server.stop()
