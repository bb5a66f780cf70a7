"""A rule per test and failed waits that say what almost matched, as a Python provider team
writes them: pushes over HTTP/2 with httpx (Python's standard library has no HTTP/2 client),
a rule added for one test with the `mockapns_rule` fixture or the `rule()` context manager, and
a `wait_for` that raises with the near misses."""

from __future__ import annotations

import os
import ssl

import httpx
import pytest

from mockapns import ControlAPIError, MockAPNs, Rule, WaitTimeout

TOPIC = "com.example.app"


def new_token() -> str:
    return os.urandom(32).hex()


def push(apns: MockAPNs, client: httpx.Client, token: str, payload: str = '{"aps":{"alert":"hi"}}') -> httpx.Response:
    """One push as a provider sends it: HTTP/2 on the client's connection, with its provider token."""
    return client.post(apns.device_url(token), content=payload, headers={"apns-topic": TOPIC, "apns-push-type": "alert"})


@pytest.fixture
def http2(mockapns: MockAPNs):
    """A provider's HTTP/2 client: the development CA, and one provider token for the connection
    (APNs refuses a connection whose token changes too often: 429 TooManyProviderTokenUpdates)."""
    tls = ssl.create_default_context(cafile=str(mockapns.ca_file))
    headers = {"authorization": f"bearer {mockapns.provider_token()}"}
    with httpx.Client(http2=True, verify=tls, headers=headers, timeout=15) as client:
        yield client


def test_pushes_go_over_http2(mockapns, http2):
    answer = push(mockapns, http2, new_token())
    assert answer.http_version == "HTTP/2"
    assert answer.status_code == 200


def test_a_rule_for_one_test_answers_on_top_of_the_scenario(mockapns, mockapns_rule, http2):
    gone, other = new_token(), new_token()
    mockapns.load_scenario({"name": "everyone 500", "rules": [{"action": {"type": "reject", "reason": "InternalServerError"}}]})
    stored = mockapns_rule(Rule.reject("Unregistered", timestamp=1_700_000_000_000).for_token(gone.upper()).times(2))
    assert stored["rule"]["name"] == f"added[{stored['id']}]"
    assert stored["rule"]["match"]["tokens"] == [gone]

    answer = push(mockapns, http2, gone)
    assert answer.status_code == 410
    assert answer.json() == {"reason": "Unregistered", "timestamp": 1_700_000_000_000}
    assert push(mockapns, http2, other).status_code == 500, "a push the rule does not match falls to the scenario"
    assert [rule["fired"] for rule in mockapns.added_rules()] == [1]


def test_the_fixture_removed_the_previous_tests_rule(mockapns):
    assert mockapns.added_rules() == []


def test_a_rule_in_a_with_block_is_removed_when_the_block_ends(mockapns, http2):
    token = new_token()
    with mockapns.rule(Rule.answer(503, reason="ServiceUnavailable", headers={"retry-after": "5"}).for_token(token)) as stored:
        answer = push(mockapns, http2, token)
        assert (answer.status_code, answer.headers["retry-after"]) == (503, "5")
        mockapns.load_scenario({"name": "replaced"})
        assert push(mockapns, http2, token).status_code == 503, "a replaced scenario keeps the rule"
    assert mockapns.added_rules() == []
    assert push(mockapns, http2, token).status_code == 200
    with pytest.raises(ControlAPIError) as refused:
        mockapns.remove_rule(stored)
    assert refused.value.status == 404


def test_a_broken_rule_names_its_json_path(mockapns):
    with pytest.raises(ControlAPIError) as refused:
        mockapns.add_rule(Rule.stall().for_priority(11))
    assert refused.value.status == 400
    assert refused.value.parameter == "$.match.priorities[0]"
    assert mockapns.added_rules() == []


def test_a_payload_rule_and_a_wait_on_the_payload(mockapns, mockapns_rule, http2):
    token = new_token()
    mockapns_rule(Rule.answer(500, reason="InternalServerError").when_payload("aps.alert.title", equals="fail me"))
    assert push(mockapns, http2, token, '{"aps":{"alert":{"title":"fail me"}}}').status_code == 500
    assert push(mockapns, http2, token, '{"aps":{"alert":{"title":"fine"}}}').status_code == 200
    [record] = mockapns.wait_for(token=token, payload_path="aps.alert.title", payload_value="fine", timeout=5)
    assert record["status"] == 200


def test_a_failed_wait_raises_with_its_near_misses(mockapns, http2):
    token, other = new_token(), new_token()
    assert push(mockapns, http2, other).status_code == 200
    assert push(mockapns, http2, token).status_code == 200
    with pytest.raises(WaitTimeout) as failed:
        mockapns.wait_for(token=token, status=410, push_type="alert", timeout=0.3)
    assert failed.value.found == []
    misses = failed.value.near_misses
    assert [miss["notification"]["deviceToken"] for miss in misses] == [token, other], "the closest first"
    assert misses[0]["differences"] == [{"condition": "status", "expected": "410", "actual": "200"}]
    assert [difference["condition"] for difference in misses[1]["differences"]] == ["token", "status"]
    assert "status: expected 410, got 200" in str(failed.value)
