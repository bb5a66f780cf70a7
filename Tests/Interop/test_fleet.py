"""A fleet: three `mockapns serve --state postgresql://… --replica rN` processes sharing their state
through a PostgreSQL cluster of the test's own, behind HAProxy in TCP passthrough (TLS and client
certificates end at the replicas). Providers push through HAProxy with curl, as they would
through a load balancer; the assertions read each replica's control API.

The flows are the ones a fleet must keep: a token unregistered through one replica answers 410
on all three; a channel made on one is sent to through another; a wait on one sees a
notification another served; a session made on one is served by all; and PostgreSQL killed in
the middle of a run loses no record once it returns.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from conftest import CA, CERTS, TOPIC, Server, provider_token, run, unique_token
from fleet import HAProxyFront, PostgresCluster, needs_haproxy, needs_postgres

pytestmark = [needs_postgres, needs_haproxy]

REPLICAS = ("r1", "r2", "r3")
ALERT = '{"aps":{"alert":"fleet"}}'


@pytest.fixture(scope="module")
def postgres():
    with PostgresCluster() as cluster:
        yield cluster


@pytest.fixture(scope="module")
def fleet(postgres, tmp_path_factory):
    """Three replicas on one PostgreSQL, and HAProxy in front of their provider, channel
    management and control ports."""
    replicas = []
    try:
        for name in REPLICAS:
            folder = tmp_path_factory.mktemp(name)
            replicas.append(Server(folder, "--state", postgres.url, "--replica", name,
                                   "--journal", str(folder / "journal.jsonl")).start())
        front = HAProxyFront({
            "http2": [r.http2 for r in replicas],
            "manage": [r.manage for r in replicas],
        }).start()
        try:
            yield Fleet(replicas, front, postgres)
        finally:
            front.stop()
    finally:
        # Every replica is stopped, even when stopping one fails; the first failure is told.
        failures = []
        for replica in replicas:
            try:
                replica.stop()
            except Exception as failure:  # noqa: BLE001 - the next replica must still stop
                failures.append(failure)
        if failures:
            raise failures[0]


class Fleet:
    def __init__(self, replicas: list[Server], front: HAProxyFront, postgres: PostgresCluster):
        self.replicas = replicas
        self.front = front
        self.postgres = postgres

    def settle(self, timeout: float = 10.0) -> None:
        """Waits until every replica has applied every change in the log and shipped its file:
        what the assertions after it read is the fleet's whole state."""
        deadline = time.monotonic() + timeout
        while True:
            newest = int(self.postgres.psql("SELECT coalesce(max(id), 0) FROM mockapns_changes") or 0)
            healths = [r.health()["fleet"] for r in self.replicas]
            if all(h["state"] == "connected" and h["appliedThrough"] >= newest and h["changesPending"] == 0
                   and h["recordsPending"] == 0 for h in healths):
                shipped = all(h["fileBytesShipped"] == Path(h["spool"]).stat().st_size for h in healths)
                if shipped:
                    return
            if time.monotonic() > deadline:
                pytest.fail(f"the fleet did not settle in {timeout} s: newest change {newest}, {healths}")
            time.sleep(0.05)


def push(port: int, token: str, *, auth: str = "cert", jwt: str | None = None, body: str = ALERT,
         path: str | None = None, push_type: str = "alert", headers: tuple[str, ...] = ()) -> tuple[int, str]:
    """One push with curl over HTTP/2: the status and the body."""
    args = ["curl", "-sS", "--http2", "--cacert", str(CA), "--max-time", "20", "-o", "-", "-w", "\n%{http_code}",
            "-H", f"apns-topic: {TOPIC}", "-H", f"apns-push-type: {push_type}"]
    if auth == "cert":
        args += ["--cert", str(CERTS / "client-sandbox.pem"), "--key", str(CERTS / "client-sandbox-key.pem")]
    else:
        args += ["-H", f"authorization: bearer {jwt or provider_token()}"]
    for header in headers:
        args += ["-H", header]
    args += ["--data-binary", body, f"https://127.0.0.1:{port}{path or '/3/device/' + token}"]
    result = run(args)
    assert result.returncode == 0, result.stderr.decode()
    text, _, status = result.stdout.decode().rpartition("\n")
    return int(status), text


def served_by(fleet: Fleet, token: str) -> set[str]:
    """The replicas whose own journal recorded a notification to `token` (the control API's
    events are each replica's own; its notifications are the fleet's)."""
    return {replica.health()["fleet"]["replica"] for replica in fleet.replicas
            if any(event["notification"]["deviceToken"] == token
                   for event in replica.get("/v1/events", type="notification", limit=100000)["events"])}


def test_a_token_unregistered_through_one_replica_answers_410_on_all_three(fleet):
    token = unique_token()
    fleet.replicas[0].unregister(token)
    fleet.settle()
    for replica in fleet.replicas:
        status, body = push(replica.http2, token)
        assert status == 410 and json.loads(body)["reason"] == "Unregistered", (replica.ports, body)
    # Through the load balancer, which hands each connection to the next replica.
    for _ in REPLICAS:
        assert push(fleet.front.port("http2"), token)[0] == 410
    # The fleet's record of all six, from any replica, and each replica served some.
    found = fleet.replicas[0].wait_for(6, token=token, timeout=10)
    assert [n["status"] for n in found] == [410] * 6
    assert served_by(fleet, token) == set(REPLICAS)


def test_a_channel_made_on_one_replica_is_sent_to_through_another(fleet):
    # Made with the channel management API (a request-path change) on replica 1.
    args = ["curl", "-sS", "--http2", "--cacert", str(CA), "--max-time", "20", "-D", "-", "-o", "/dev/null",
            "-H", f"authorization: bearer {provider_token()}", "--data-binary",
            '{"message-storage-policy": 0, "push-type": "LiveActivity"}',
            f"https://127.0.0.1:{fleet.replicas[0].manage}/1/apps/{TOPIC}/channels"]
    result = run(args)
    assert result.returncode == 0, result.stderr.decode()
    head = result.stdout.decode()
    assert head.startswith("HTTP/2 201"), head
    channel = re.search(r"apns-channel-id: (\S+)", head).group(1)
    fleet.settle()
    status, body = push(
        fleet.replicas[1].http2, "", path=f"/4/broadcasts/apps/{TOPIC}", auth="jwt",
        body='{"aps":{"timestamp":1700000000,"event":"update","content-state":{}}}',
        push_type="liveactivity", headers=(f"apns-channel-id: {channel}", "apns-priority: 5"),
    )
    assert status == 200, body
    # Replica 3 lists it on the control API, with the id replica 1 gave it.
    assert channel in [c["id"] for c in fleet.replicas[2].get("/v1/channels")["channels"]]
    # Deleted on replica 3's control API: gone on replica 2's provider API.
    fleet.replicas[2].delete(f"/v1/channels/{channel.replace('/', '%2F').replace('+', '%2B')}")
    fleet.settle()
    status, body = push(
        fleet.replicas[1].http2, "", path=f"/4/broadcasts/apps/{TOPIC}", auth="jwt",
        body='{"aps":{"timestamp":1700000000,"event":"update","content-state":{}}}',
        push_type="liveactivity", headers=(f"apns-channel-id: {channel}", "apns-priority: 5"),
    )
    assert status == 400 and json.loads(body)["reason"] == "ChannelNotRegistered", body


def test_a_wait_on_replica_1_sees_a_notification_served_by_replica_3(fleet):
    import threading

    token = unique_token()
    answers: list = []
    waiter = threading.Thread(target=lambda: answers.append(fleet.replicas[0].wait_for(1, token=token, timeout=15)))
    waiter.start()
    time.sleep(0.2)  # the wait is open before the push (nothing to await: a long poll has no event of its own)
    assert push(fleet.replicas[2].http2, token)[0] == 200
    waiter.join(20)
    assert answers and len(answers[0]) == 1
    assert answers[0][0]["deviceToken"] == token and answers[0][0]["status"] == 200
    # Replica 1's own journal never saw it, replica 3's did: the answer came from the fleet's records.
    assert served_by(fleet, token) == {"r3"}


def test_a_scenario_loaded_on_one_replica_is_in_force_on_the_others(fleet):
    token = unique_token()
    fleet.replicas[1].load_scenario({
        "name": "fleet-refusal",
        "rules": [{"match": {"tokens": [token]}, "action": {"type": "reject", "reason": "BadTopic"}}],
    })
    fleet.settle()
    try:
        for replica in fleet.replicas:
            assert replica.scenario()["name"] == "fleet-refusal"
            status, body = push(replica.http2, token)
            assert (status, json.loads(body)["reason"]) == (400, "BadTopic")
    finally:
        fleet.replicas[0].reset()
        fleet.settle()
    assert {r.scenario()["name"] for r in fleet.replicas} == {fleet.replicas[0].scenario()["name"]}


def test_a_session_made_on_one_replica_is_served_by_all(fleet, tmp_path):
    session = fleet.replicas[0].create_session(topics=[TOPIC])
    try:
        fleet.settle()
        jwt = session.provider_token(tmp_path)
        token = unique_token()
        for replica in fleet.replicas:
            assert push(replica.http2, token, auth="jwt", jwt=jwt)[0] == 200
        # Its control token works on replica 3, and sees the session's three notifications,
        # served by three replicas.
        from mockapns import ControlClient
        scoped = ControlClient(fleet.replicas[2].control_url, bearer_token=session.bearer_token)
        found = scoped.wait_for(3, token=token, timeout=10)
        assert len(found) == 3
        assert all(n["authentication"].get("session") == session.id for n in found)
        # The server's default credentials are not the session's: once the fleet holds that
        # push too (the server's view sees four), the session's view still holds three.
        assert push(fleet.replicas[1].http2, token)[0] == 200
        assert len(fleet.replicas[0].wait_for(4, token=token, timeout=10)) == 4
        assert len(scoped.notifications(token=token)) == 3
    finally:
        session.end()
    fleet.settle()
    assert all(session.id not in [s["id"] for s in r.sessions()] for r in fleet.replicas)


def test_postgresql_killed_mid_run_loses_no_record(fleet):
    token = unique_token()
    before = 20
    for index in range(before):
        assert push(fleet.front.port("http2"), token)[0] == 200
    fleet.postgres.stop("kill")
    try:
        for index in range(before):
            assert push(fleet.front.port("http2"), token)[0] == 200
        # Each replica says the fleet is degraded, and answers from its own journal.
        deadline = time.monotonic() + 10
        while any(r.health()["status"] != "degraded" for r in fleet.replicas):
            assert time.monotonic() < deadline, [r.health() for r in fleet.replicas]
            time.sleep(0.1)
        local = sum(len(r.notifications(token=token)) for r in fleet.replicas)
        assert local == 2 * before
        metrics = run(["curl", "-sS", f"{fleet.replicas[0].control_url}/metrics"]).stdout.decode()
        assert 'mockapns_fleet_up{replica="r1"} 0' in metrics
    finally:
        fleet.postgres.restart()
    fleet.settle(timeout=20)
    found = fleet.replicas[0].wait_for(2 * before, token=token, timeout=10)
    assert len(found) == 2 * before
    # Every record of every replica's journal file (its frames aside) is in PostgreSQL, once:
    # the blocks of a run do not overlap, every record lies in one, and the run shipped as many
    # as its file holds.
    for replica in fleet.replicas:
        lines = [json.loads(line) for line in Path(replica.tmp / "journal.jsonl").read_text().splitlines() if line]
        kept = [line["seq"] for line in lines if line.get("type") not in ("gap", "http2Frame", "legacyFrame")]
        health = replica.health()["fleet"]
        rows = fleet.postgres.psql(
            f"SELECT first_seq, last_seq FROM mockapns_record_blocks WHERE run = '{health['run']}' ORDER BY first_seq")
        blocks = [tuple(int(n) for n in row.split("|")) for row in rows.split()]
        assert all(earlier[1] < later[0] for earlier, later in zip(blocks, blocks[1:])), blocks
        assert all(any(first <= seq <= last for first, last in blocks) for seq in kept)
        assert health["recordsShipped"] == len(kept)


def test_any_replica_reports_verdicts_for_the_whole_fleet(fleet):
    """A provider answered 410 by replica 1 pushes to the token again through replica 2: neither
    replica saw both pushes, and replica 3 saw neither, yet replica 3's report finds the push
    after the 410, over two connections."""
    fleet.replicas[0].reset()  # the fleet's report starts over after it, as a server's does
    fleet.settle()
    token = unique_token()
    fleet.replicas[0].unregister(token)
    fleet.settle()
    assert push(fleet.replicas[0].http2, token)[0] == 410
    time.sleep(0.05)  # the second push comes later by the clock, as it does on the wire
    assert push(fleet.replicas[1].http2, token)[0] == 410
    fleet.settle()
    report = fleet.replicas[2].report()
    (provider,) = [p for p in report["providers"] if p["provider"]["kind"] == "certificate"]
    assert provider["connections"] == 2
    (rule,) = [r for r in provider["rules"] if r["rule"] == "unregistered-token"]
    assert rule["findings"] == 1 and rule["examples"][0]["deviceToken"] == token
    # The metrics say the same fleet is up, per replica.
    metrics = run(["curl", "-sS", f"{fleet.replicas[2].control_url}/metrics"]).stdout.decode()
    assert 'mockapns_fleet_up{replica="r3"} 1' in metrics


def test_a_web_push_subscription_made_on_one_replica_is_read_by_another(fleet):
    """A browser subscribed through replica 1; the application server's push reaches replica 2
    (as through a load balancer), which holds the subscription's keys and reads the message.
    Expired through replica 3, the subscription is gone on replica 2 too."""
    import requests
    from cryptography.hazmat.primitives import serialization
    from py_vapid import Vapid
    from py_vapid.utils import b64urlencode
    from pywebpush import WebPushException, webpush

    key = Vapid()
    key.generate_keys()
    server_key = b64urlencode(key.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))
    subscription = fleet.replicas[0].subscribe_web_push(server_key)
    fleet.settle()
    subscription["endpoint"] = f"https://127.0.0.1:{fleet.replicas[1].web_push_port}/{subscription['id']}"
    with requests.Session() as http:
        http.verify = str(CA)
        http.trust_env = False
        response = webpush(subscription_info=subscription, data="shipped", vapid_private_key=key,
                           vapid_claims={"sub": "mailto:ops@example.com"}, requests_session=http)
        assert response.status_code == 201
        [record] = fleet.replicas[1].wait_for(token=subscription["id"], timeout=5)
        assert record["webPush"]["message"] == "shipped"
        fleet.replicas[2].post(f"/v1/web-push/subscriptions/{subscription['id']}/expire")
        fleet.settle()
        with pytest.raises(WebPushException) as gone:
            webpush(subscription_info=subscription, data="again", vapid_private_key=key,
                    vapid_claims={"sub": "mailto:ops@example.com"}, requests_session=http)
        assert gone.value.response.status_code == 410


def test_a_session_in_use_through_one_replica_stays_on_all_and_ends_on_all_when_idle(fleet, tmp_path):
    """Idle time is the fleet's: a session pushed to through replica 2 alone is not ended by
    replicas 1 and 3, which saw none of its requests; once nobody uses it, all three end it."""
    # A use reaches the other replicas within about 3 s (a second to be written, a second to
    # be read, a second to the next look for idle sessions): an idle time well above that.
    session = fleet.replicas[0].create_session(topics=[TOPIC], idle_seconds=5)
    fleet.settle()
    jwt = session.provider_token(tmp_path)
    token = unique_token()
    started = time.monotonic()
    while time.monotonic() - started < 11:  # more than twice its idle time, in use all along
        assert push(fleet.replicas[1].http2, token, auth="jwt", jwt=jwt)[0] == 200
        time.sleep(0.5)
    for replica in fleet.replicas:
        assert session.id in [s["id"] for s in replica.sessions()], replica.health()["fleet"]["replica"]
    deadline = time.monotonic() + 15
    while any(session.id in [s["id"] for s in r.sessions()] for r in fleet.replicas):
        assert time.monotonic() < deadline, "an idle session was not ended on every replica"
        time.sleep(0.2)


def test_a_real_client_through_the_load_balancer_is_served_by_the_fleet_as_one(fleet):
    """aioapns, a provider library, through HAProxy: three connections (one per client, handed
    out in turn), each pushing to a token unregistered through replica 3 and to a good one;
    every replica answers 410 for the first, and replica 1 finds all six notifications."""
    import asyncio

    from aioapns import APNs, NotificationRequest, PushType

    from conftest import KEY_FILE, KEY_ID, TEAM
    from patches import aioapns_target, apns_ssl_context

    gone, good = unique_token(), unique_token()
    fleet.replicas[2].unregister(gone)
    fleet.settle()

    async def one_client():
        client = APNs(key=KEY_FILE.read_text(), key_id=KEY_ID, team_id=TEAM, topic=TOPIC, use_sandbox=True,
                      ssl_context=apns_ssl_context(), max_connection_attempts=1)
        return [await client.send_notification(NotificationRequest(
            device_token=token, message={"aps": {"alert": "fleet"}}, push_type=PushType.ALERT)) for token in (gone, good)]

    with aioapns_target(fleet.front.port("http2")):
        results = [asyncio.run(asyncio.wait_for(one_client(), 30)) for _ in REPLICAS]
    for first, second in results:
        assert (first.status, first.description) == ("410", "Unregistered")
        assert second.is_successful
    found = fleet.replicas[0].wait_for(6, predicate=lambda n: n["deviceToken"] in (gone, good), timeout=10)
    assert len(found) == 6
    assert served_by(fleet, good) == set(REPLICAS), "each connection went to the next replica"


def test_what_a_scenario_rule_does_on_one_replica_is_in_force_on_all(fleet):
    """A rule's effect on the request path travels too: a push served by replica 1 fires a
    limitRate rule and a deviceOffline rule there; replica 3, which served nothing, holds the
    token's window and the device offline."""
    limited, dark = unique_token(), unique_token()
    fleet.replicas[1].load_scenario({"name": "fleet-rule-effects", "rules": [
        {"name": "one a day", "match": {"tokens": [limited]}, "action": {"type": "limitRate", "pushes": 1, "perSeconds": 86400}},
        {"name": "goes dark", "match": {"tokens": [dark]}, "action": {"type": "deviceOffline"}},
    ]})
    fleet.settle()
    try:
        assert push(fleet.replicas[0].http2, limited)[0] == 200
        assert push(fleet.replicas[0].http2, dark)[0] == 200
        fleet.settle()
        window = fleet.replicas[2].get(f"/v1/registry/{limited}/rate-limit")
        assert (window["scope"], window["rateLimit"]["pushes"], window["rateLimit"]["perSeconds"]) == ("token", 1, 86400)
        deadline = time.monotonic() + 10
        while fleet.replicas[2].get(f"/v1/devices/{dark}").get("online") is not False:
            assert time.monotonic() < deadline, fleet.replicas[2].get(f"/v1/devices/{dark}")
            time.sleep(0.05)
    finally:
        fleet.replicas[0].reset()
        fleet.settle()


def test_the_shipped_haproxy_configuration_fronts_the_fleet(fleet, tmp_path):
    """deploy/haproxy/haproxy.cfg, with its binds and servers pointed at this fleet and nothing
    else changed: a push through its provider frontend is served, and its control frontend
    reaches a replica whose reads are the fleet's."""
    import subprocess

    from conftest import REPO, free_ports
    from fleet import haproxy_binary

    kinds = {2197: "http2", 2195: "gateway", 2196: "feedback", 2199: "channelManagement", 2200: "webPush", 2198: "control"}
    fronts = dict(zip(kinds, free_ports(len(kinds))))
    text = (REPO / "deploy/haproxy/haproxy.cfg").read_text()
    for port, front in fronts.items():
        text = text.replace(f"bind :{port}\n", f"bind 127.0.0.1:{front}\n")
        for index, replica in enumerate(fleet.replicas, start=1):
            text = text.replace(f"mockapns-{index}:{port}\n", f"127.0.0.1:{replica.ports[kinds[port]]}\n")
    assert "mockapns-" not in text and "bind :" not in text, "every server and bind was pointed at the test's"
    config = tmp_path / "haproxy.cfg"
    config.write_text(text)
    check = subprocess.run([haproxy_binary(), "-c", "-f", str(config)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    process = subprocess.Popen([haproxy_binary(), "-f", str(config), "-db"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        token = unique_token()
        deadline = time.monotonic() + 10
        while True:
            try:
                status, _ = push(fronts[2197], token)
                break
            except AssertionError:
                assert time.monotonic() < deadline, "HAProxy did not start"
                time.sleep(0.05)
        assert status == 200
        from mockapns import ControlClient
        through = ControlClient(f"http://127.0.0.1:{fronts[2198]}")
        assert through.health()["fleet"]["state"] == "connected"
        assert len(through.wait_for(1, token=token, timeout=10)) == 1
    finally:
        process.terminate()
        process.wait(10)
