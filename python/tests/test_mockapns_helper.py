"""The Python helper against the real `mockapns` binary ($MOCKAPNS_BIN or PATH): starting and
stopping, credentials, the control API calls and their errors. Pushes are sent with curl, as a
provider's HTTP/2 client would send them."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import threading
from pathlib import Path

import pytest

from mockapns import ControlAPIError, ControlClient, MockAPNs, MockAPNsError, ServerExited, WaitTimeout, find_binary

TOPIC = "com.example.app"


def push(apns: MockAPNs, token: str, payload: dict, *, topic: str = TOPIC, jwt: str | None = None,
         certificate: str | None = None) -> tuple[int, str]:
    """One notification with curl: a provider token unless a client certificate kind is given.
    Returns the HTTP status and body."""
    args = ["curl", "-sS", "--http2", "--cacert", str(apns.ca_file), "-o", "-", "-w", "\n%{http_code}",
            "-H", f"apns-topic: {topic}", "-H", "apns-push-type: alert", "--data-binary", json.dumps(payload)]
    if certificate is not None:
        cert, key = apns.credentials.client_certificate(certificate)
        args += ["--cert", str(cert), "--key", str(key)]
    else:
        args += ["-H", f"authorization: bearer {jwt or apns.provider_token()}"]
    result = subprocess.run(args + [apns.device_url(token)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    body, _, status = result.stdout.rpartition("\n")
    return int(status), body


def new_token() -> str:
    return os.urandom(32).hex()


# Starting and stopping


def test_a_server_of_its_own_on_free_ports_with_fresh_credentials_and_a_graceful_stop():
    apns = MockAPNs(topics=["com.acme.news"], team="ACME000001").start()
    workdir = apns.workdir
    try:
        listeners = [apns.http2_port, apns.gateway_port, apns.feedback_port, apns.channel_management_port, apns.control_port]
        assert len(set(listeners)) == 5
        assert not set(listeners) & {2195, 2196, 2197, 2198, 2199}, "Apple's or the default ports"
        assert apns.get("/v1/ports")["http2"] == apns.http2_port
        assert apns.credentials.directory == workdir / "credentials"
        assert apns.credentials.team_id() == "ACME000001"
        assert "com.acme.news" in apns.credentials.key()["topics"]

        token = new_token()
        assert push(apns, token, {"aps": {"alert": "by token"}}, topic="com.acme.news")[0] == 200
        assert push(apns, token, {"aps": {"alert": "by certificate"}}, topic="com.acme.news", certificate="sandbox")[0] == 200
        records = apns.wait_for(2, token=token, timeout=5)
        assert [r["authentication"]["kind"] for r in records] == ["providerToken", "certificate"]
        assert records[0]["authentication"]["teamId"] == "ACME000001"
    finally:
        assert apns.stop() == 0
    assert not workdir.exists(), "the temporary working folder is removed"


def test_the_log_keeps_the_output_and_a_given_workdir_stays(tmp_path):
    with MockAPNs(workdir=tmp_path) as apns:
        assert f"http2=127.0.0.1:{apns.http2_port}" in apns.log_text()
    text = (tmp_path / "mockapns.log").read_text()
    assert "mockapns received SIGTERM, shutting down" in text
    assert json.loads((tmp_path / "ports.json").read_text())["http2"] == apns.ports["http2"]


def test_a_failed_start_raises_with_what_the_server_said(tmp_path):
    missing = tmp_path / "missing-scenario.json"
    with pytest.raises(ServerExited) as failure:
        MockAPNs("--scenario", str(missing), workdir=tmp_path).start()
    assert str(missing) in failure.value.output
    assert failure.value.returncode == 1
    assert "exit status 1" in str(failure.value)


def test_a_server_that_never_listens_is_killed_after_the_start_timeout(tmp_path):
    # A stand-in that generates credentials with the real binary, then prints and hangs.
    stand_in = tmp_path / "hanging-mockapns"
    stand_in.write_text(f'#!/bin/sh\n[ "$1" = certs ] && exec {find_binary()} "$@"\necho starting\nexec sleep 60\n')
    stand_in.chmod(0o755)
    apns = MockAPNs(binary=stand_in, workdir=tmp_path / "work", start_timeout=0.5)
    with pytest.raises(ServerExited, match="no listening line within 0.5 s; killed") as failure:
        apns.start()
    assert failure.value.returncode == -signal.SIGKILL
    assert "starting" in failure.value.output
    assert not apns.running


def test_a_crash_is_reported_by_the_next_call_and_by_stop(tmp_path):
    apns = MockAPNs(workdir=tmp_path).start()
    apns.process.send_signal(signal.SIGKILL)
    apns.process.wait(10)
    with pytest.raises(ServerExited) as call:
        apns.notifications()
    assert call.value.returncode == -signal.SIGKILL
    assert "mockapns listening" in call.value.output
    with pytest.raises(ServerExited, match="stopped by itself with exit status -9"):
        apns.stop()
    assert tmp_path.exists()


def test_stop_with_another_signal_expects_that_signal(tmp_path):
    apns = MockAPNs(workdir=tmp_path).start()
    assert apns.stop(signal.SIGKILL) == -signal.SIGKILL
    assert apns.stop() == -signal.SIGKILL, "a second stop answers the same"
    assert not apns.running


def test_the_binary_comes_from_the_argument_the_environment_or_the_path(tmp_path, monkeypatch):
    binary = find_binary()
    assert find_binary(binary) == binary
    not_executable = tmp_path / "mockapns"
    not_executable.write_text("")
    with pytest.raises(MockAPNsError, match="not an executable file"):
        find_binary(not_executable)
    monkeypatch.delenv("MOCKAPNS_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    with pytest.raises(MockAPNsError, match="MOCKAPNS_BIN"):
        find_binary()
    on_path = tmp_path / "bin"
    on_path.mkdir()
    (on_path / "mockapns").symlink_to(Path(binary).resolve())
    monkeypatch.setenv("PATH", str(on_path))
    assert find_binary() == str(on_path / "mockapns")
    monkeypatch.setenv("MOCKAPNS_BIN", binary)
    assert find_binary() == binary, "MOCKAPNS_BIN comes before PATH"


def test_the_binary_the_wheel_carries_comes_before_the_path(tmp_path, monkeypatch):
    import mockapns.server

    binary = find_binary()
    # The package as the platform wheel installs it: mockapns/bin/mockapns beside server.py.
    package = tmp_path / "site-packages" / "mockapns"
    (package / "bin").mkdir(parents=True)
    (package / "bin" / "mockapns").symlink_to(Path(binary).resolve())
    monkeypatch.setattr(mockapns.server, "__file__", str(package / "server.py"))
    on_path = tmp_path / "elsewhere"
    on_path.mkdir()
    (on_path / "mockapns").symlink_to(Path(binary).resolve())
    monkeypatch.setenv("PATH", str(on_path))
    monkeypatch.delenv("MOCKAPNS_BIN", raising=False)
    assert find_binary() == str(package / "bin" / "mockapns"), "the wheel's binary comes before PATH"
    monkeypatch.setenv("MOCKAPNS_BIN", binary)
    assert find_binary() == binary, "a binary named in MOCKAPNS_BIN comes before the wheel's"
    assert find_binary(on_path / "mockapns") == str(on_path / "mockapns"), "the binary given comes first"


# The control API


def test_wait_for_returns_as_soon_as_the_notification_is_recorded(mockapns):
    token = new_token()
    waited: list = []
    waiter = threading.Thread(target=lambda: waited.append(mockapns.wait_for(token=token, timeout=20)))
    waiter.start()
    assert push(mockapns, token, {"aps": {"alert": "hello"}})[0] == 200
    waiter.join(20)
    [[record]] = waited
    assert record["deviceToken"] == token and record["status"] == 200
    assert json.loads(record["payload"]) == {"aps": {"alert": "hello"}}
    assert mockapns.notifications(token=token, accepted=True) == [record]
    assert mockapns.notifications(token=token, accepted=False) == []


def test_wait_for_applies_the_predicate_to_what_the_filters_let_through(mockapns):
    token, other = new_token(), new_token()
    for alert in ("first", "second", "third"):
        push(mockapns, token, {"aps": {"alert": alert}})
    push(mockapns, other, {"aps": {"alert": "second"}})
    second = mockapns.wait_for(token=token, predicate=lambda r: "second" in r["payload"], timeout=5)
    assert [(r["deviceToken"], json.loads(r["payload"])["aps"]["alert"]) for r in second] == [(token, "second")]
    both = mockapns.wait_for(2, predicate=lambda r: "second" in r["payload"], timeout=5)
    assert {r["deviceToken"] for r in both} == {token, other}


def test_wait_for_times_out_with_what_the_journal_holds(mockapns):
    token = new_token()
    push(mockapns, token, {"aps": {"alert": "here"}}, topic="com.example.wrong")
    with pytest.raises(WaitTimeout) as timeout:
        mockapns.wait_for(token=token, accepted=True, timeout=0.5)
    message = str(timeout.value)
    assert "1 notification(s) matching token=" in message and "0 matched" in message
    assert f"token={token} topic=com.example.wrong => 400 TopicDisallowed" in message, message
    assert timeout.value.found == []
    with pytest.raises(WaitTimeout, match="1 matched"):
        mockapns.wait_for(2, token=token, timeout=0.2)


def test_a_refusal_carries_the_servers_error_and_parameter(mockapns):
    with pytest.raises(ControlAPIError) as refusal:
        mockapns.notifications(limit=0)
    assert (refusal.value.status, refusal.value.parameter) == (400, "limit")
    assert "limit must be an integer from 1 to 100000" in refusal.value.error
    assert str(refusal.value).startswith("GET /v1/notifications: 400 ")
    with pytest.raises(ControlAPIError) as missing:
        mockapns.get("/v1/nope")
    assert (missing.value.status, missing.value.parameter) == (404, "path")


def test_a_broken_scenario_names_the_json_path_and_changes_nothing(mockapns, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "name": "broken",\n  "rules": [{"match": {}, "respond": 503}]\n}\n')
    with pytest.raises(ControlAPIError) as refusal:
        mockapns.load_scenario(broken)
    assert refusal.value.status == 400 and refusal.value.parameter == "body"
    assert "line 3" in refusal.value.error and "$.rules[0]" in refusal.value.error
    assert mockapns.scenario()["name"] == "none"


def test_a_loaded_scenario_answers_until_reset_puts_the_started_one_back(mockapns, tmp_path):
    token = new_token()
    scenario = {"name": "bad token", "rules": [
        {"match": {"tokens": [token]}, "action": {"type": "reject", "reason": "BadDeviceToken"}}]}
    assert mockapns.load_scenario(scenario)["name"] == "bad token"
    status, body = push(mockapns, token, {"aps": {"alert": "a"}})
    assert (status, json.loads(body)) == (400, {"reason": "BadDeviceToken"})
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps({**scenario, "name": "from a file"}))
    assert mockapns.load_scenario(path)["name"] == "from a file"
    cleared = mockapns.reset()
    assert cleared["cleared"]["journalEvents"] > 0
    assert mockapns.scenario()["name"] == "none"
    assert push(mockapns, token, {"aps": {"alert": "b"}})[0] == 200
    assert [r["status"] for r in mockapns.notifications()] == [200], "the journal starts after the reset"


def test_unregister_then_the_report_blames_the_provider_that_keeps_pushing(mockapns):
    token = new_token()
    mockapns.unregister(token, since=1_767_225_600)
    for _ in range(3):
        status, body = push(mockapns, token, {"aps": {"alert": "still there?"}})
        assert status == 410 and json.loads(body) == {"reason": "Unregistered", "timestamp": 1_767_225_600_000}
    report = mockapns.report()
    assert "unregistered-token" in report["brokenRules"]
    [provider] = report["providers"]
    rule = next(r for r in provider["rules"] if r["rule"] == "unregistered-token")
    assert not rule["passed"] and rule["findings"] >= 1


def test_the_clock_and_provider_tokens_issued_on_it(mockapns):
    pinned = mockapns.set_clock("2030-01-01T00:00:00Z")
    assert pinned["fixed"] is True and pinned["millisecondsSince1970"] == 1_893_456_000_000
    assert mockapns.advance_clock(90)["millisecondsSince1970"] == 1_893_456_090_000
    token = new_token()
    assert push(mockapns, token, {"aps": {"alert": "on the server's clock"}})[0] == 200
    stale = mockapns.provider_token(issued_at=1_893_456_090 - 7200)
    status, body = push(mockapns, token, {"aps": {"alert": "two hours old"}}, jwt=stale)
    assert (status, json.loads(body)["reason"]) == (403, "ExpiredProviderToken")
    resumed = mockapns.resume_clock()
    assert resumed["fixed"] is False and resumed["millisecondsSince1970"] >= 1_893_456_090_000
    assert mockapns.reset()["clock"]["fixed"] is False


def test_wait_for_event_follows_the_journal(mockapns):
    token = new_token()
    push(mockapns, token, {"aps": {"alert": "x"}})
    handshake = mockapns.wait_for_event("tlsEstablished", predicate=lambda e: e.get("alpn") == "h2", timeout=5)
    assert handshake["version"] in ("TLSv1.2", "TLSv1.3")
    frames = mockapns.events(["http2Frame"], connection=handshake["connection"])
    assert frames and {e["type"] for e in frames} == {"http2Frame"}
    with pytest.raises(WaitTimeout, match="tlsFailed event"):
        mockapns.wait_for_event("tlsFailed", timeout=0.3)


def test_the_fixture_starts_each_test_from_a_reset_server(mockapns):
    assert mockapns.notifications() == []
    assert mockapns.scenario()["name"] == "none"
    assert mockapns.clock()["fixed"] is False


def test_a_control_client_for_a_server_started_elsewhere(mockapns):
    # The control API answers loopback names: localhost is one of them.
    elsewhere = ControlClient(f"http://localhost:{mockapns.control_port}")
    assert elsewhere.health()["status"] == "ok"
    assert elsewhere.control_url == f"http://localhost:{mockapns.control_port}"
    token = new_token()
    push(mockapns, token, {"aps": {"alert": "seen from outside"}})
    [record] = elsewhere.wait_for(token=token, timeout=5)
    assert record["status"] == 200
    with pytest.raises(ValueError, match="plain http with a host and a port"):
        ControlClient("https://127.0.0.1")
    with pytest.raises(MockAPNsError, match="cannot reach the control API"):
        ControlClient(f"http://127.0.0.1:{free_port()}", timeout=2).health()


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_addresses_follow_the_host_flags(tmp_path):
    with MockAPNs("--host", "127.0.0.2", "--control-host=127.0.0.3", workdir=tmp_path) as apns:
        assert apns.http2_url == f"https://127.0.0.2:{apns.http2_port}"
        assert apns.control_url == f"http://127.0.0.3:{apns.control_port}"
        assert apns.health()["status"] == "ok"
        assert f"http2=127.0.0.2:{apns.http2_port}" in apns.log_text()
        assert f"control=127.0.0.3:{apns.control_port}" in apns.log_text()
