"""A provider team's first test, as the platform wheel installs it: `pip install` of the wheel
(with pytest and httpx[http2]) into an empty venv, no mockapns anywhere else, no binary path
given. The `mockapns` fixture starts the server the wheel carries; the provider pushes over
HTTP/2 with a provider token and the test asserts on what the server recorded; a rule is added
for one test, and a wait that runs out names its near misses."""

import os
import shutil
import ssl

import httpx

import mockapns
from mockapns import Rule, WaitTimeout

TOKEN = "a1b2c3d4" * 8
UNREGISTERED = "0a" * 32


def push(apns, token, payload):
    """One push as a provider sends it: HTTP/2, TLS verified against the server's CA, a JWT."""
    with httpx.Client(http2=True, verify=ssl.create_default_context(cafile=apns.ca_file)) as client:
        return client.post(
            apns.device_url(token),
            headers={
                "authorization": f"bearer {apns.provider_token()}",
                "apns-topic": "com.example.app",
                "apns-push-type": "alert",
            },
            json=payload,
        )


def test_the_server_is_the_one_the_wheel_carries():
    assert "MOCKAPNS_BIN" not in os.environ and shutil.which("mockapns") is None, "nothing but the wheel may offer a binary"
    bundled = mockapns.bundled_binary()
    assert bundled is not None and bundled.endswith(os.path.join("mockapns", "bin", "mockapns"))
    assert mockapns.find_binary() == bundled


def test_a_push_over_http2_is_accepted_and_recorded(mockapns):
    response = push(mockapns, TOKEN, {"aps": {"alert": "hello"}})
    assert response.http_version == "HTTP/2"
    assert response.status_code == 200, response.text
    assert response.headers["apns-id"]
    [record] = mockapns.wait_for(token=TOKEN, timeout=5)
    assert record["status"] == 200
    assert record["topic"] == "com.example.app"


def test_an_unregistered_token_is_answered_410_with_its_timestamp(mockapns):
    mockapns.unregister(UNREGISTERED)
    response = push(mockapns, UNREGISTERED, {"aps": {"alert": "hello"}})
    assert response.status_code == 410
    assert response.json()["reason"] == "Unregistered"
    assert isinstance(response.json()["timestamp"], int)


def test_a_rule_added_for_one_test_answers_as_it_says_and_goes_with_the_test(mockapns, mockapns_rule):
    mockapns_rule(Rule.reject("BadDeviceToken").for_token(TOKEN).times(1))
    refused = push(mockapns, TOKEN, {"aps": {"alert": "one"}})
    assert (refused.status_code, refused.json()["reason"]) == (400, "BadDeviceToken")
    assert push(mockapns, TOKEN, {"aps": {"alert": "two"}}).status_code == 200, "times(1): the rule is spent"


def test_the_rule_of_the_test_before_is_gone(mockapns):
    assert mockapns.added_rules() == []
    assert push(mockapns, TOKEN, {"aps": {"alert": "three"}}).status_code == 200


def test_a_failed_wait_names_what_almost_matched(mockapns):
    push(mockapns, TOKEN, {"aps": {"alert": "hello"}})
    try:
        mockapns.wait_for(token=TOKEN, topic="com.example.other", timeout=1)
    except WaitTimeout as failed:
        [closest, *_] = failed.near_misses
        assert closest["differences"] == [
            {"condition": "topic", "expected": "com.example.other", "actual": "com.example.app"}]
    else:
        raise AssertionError("the wait should have run out: nothing was pushed to that topic")

