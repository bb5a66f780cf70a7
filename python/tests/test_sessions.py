"""Eight pytest-xdist workers on one shared server, each in its own session: each scripts a
scenario that conflicts with every other's (the same device token refused with a different
reason), pushes with its session's client certificate over HTTP/2, and sees exactly its own
notifications, scenario, verdicts and journal. The run's sessions end with it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

from mockapns import ControlAPIError, MockAPNs

WORKER_TESTS = '''
import os, ssl

import httpx
import pytest

TOPIC = "com.example.app"
SHARED = "ab" * 32
# One reason per test, each with the status Apple answers it with.
REASONS = [("BadDeviceToken", 400), ("Unregistered", 410), ("DeviceTokenNotForTopic", 400), ("TopicDisallowed", 400),
           ("BadExpirationDate", 400), ("BadPriority", 400), ("TooManyRequests", 429), ("ExpiredToken", 410)]


@pytest.mark.parametrize("index", range(8))
def test_each_worker_sees_only_its_own(mockapns_session, tmp_path, index):
    reason, status = REASONS[index]
    mockapns_session.load_scenario({"name": f"worker-{index}", "rules": [
        {"match": {"tokens": [SHARED]}, "action": {"type": "reject", "reason": reason}}]})
    _, certificate, certificate_key = mockapns_session.write_credentials(tmp_path)
    tls = ssl.create_default_context(cafile=os.environ["MOCKAPNS_CA"])
    tls.load_cert_chain(certificate, certificate_key)
    own = [os.urandom(32).hex() for _ in range(5)]
    with httpx.Client(http2=True, verify=tls, timeout=15) as client:
        for token in [SHARED] * 3 + own:
            answer = client.post(os.environ["MOCKAPNS_HTTP2"] + "/3/device/" + token, content=b'{"aps":{"alert":"hi"}}',
                                 headers={"apns-topic": TOPIC})
            if token == SHARED:
                assert (answer.status_code, answer.json()["reason"]) == (status, reason)
            else:
                assert answer.status_code == 200, answer.text
    seen = mockapns_session.wait_for(count=8, timeout=10)
    assert sorted(record["deviceToken"] for record in seen) == sorted([SHARED] * 3 + own)
    assert {record["authentication"]["session"] for record in seen} == {mockapns_session.id}
    assert [record["reason"] for record in seen if record["deviceToken"] == SHARED] == [reason] * 3
    assert len(mockapns_session.notifications()) == 8, "nothing of any other worker's"
    assert mockapns_session.scenario()["name"] == f"worker-{index}", "no other worker replaced it"
    providers = mockapns_session.report()["providers"]
    assert providers and all(f"OU={mockapns_session.team_id}" in p["provider"]["subject"] for p in providers)
    assert sum(p["notifications"]["acceptedAtOnce"] for p in providers) == 5
'''


@pytest.fixture
def shared_server(tmp_path):
    with MockAPNs("--quiet", "--journal", str(tmp_path / "journal.jsonl"), workdir=tmp_path / "server") as server:
        yield server


def test_eight_workers_on_one_server_each_see_only_their_own_session(shared_server, tmp_path):
    project = tmp_path / "provider"
    project.mkdir()
    (project / "test_workers.py").write_text(textwrap.dedent(WORKER_TESTS))
    environment = dict(os.environ, MOCKAPNS_CA=str(shared_server.ca_file), MOCKAPNS_HTTP2=shared_server.http2_url)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "8", "--mockapns-url", shared_server.control_url],
        cwd=project, env=environment, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert "8 passed" in result.stdout, result.stdout

    # The server's own view saw every worker's pushes, each tagged with its session, and the
    # sessions ended with the run.
    every = shared_server.notifications()
    assert len(every) == 64
    sessions = {record["authentication"].get("session") for record in every}
    assert None not in sessions and 1 < len(sessions) <= 8
    assert shared_server.sessions() == []
    # The JSONL file's lines are tagged the same way (the file is written a moment behind).
    deadline = time.monotonic() + 10
    while True:
        lines = [json.loads(line) for line in (tmp_path / "journal.jsonl").read_text().splitlines()]
        tagged = [line["notification"]["authentication"].get("session") for line in lines if line.get("type") == "notification"]
        if len(tagged) >= 64 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert len(tagged) == 64 and set(tagged) == sessions


def test_a_session_token_cannot_reach_the_whole_server(shared_server):
    with shared_server.create_session(topics=["com.example.app"]) as session:
        assert [listed["id"] for listed in session.sessions()] == [session.id]
        with pytest.raises(ControlAPIError) as refused:
            session.advance_clock(5)
        assert refused.value.status == 403
        assert "use the server's control token" in str(refused.value)
    with pytest.raises(ControlAPIError) as ended:
        session.notifications()
    assert ended.value.status == 401
