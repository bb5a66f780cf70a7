"""The record is the answer: for every scenario action, at each stage, on the HTTP/2 provider
API, on broadcasts and on the legacy gateway, what the journal recorded equals what the
client read on the wire.

Each case loads a one-rule scenario, sends one request on a fresh connection with a client
that reports every frame (`h2` over Python's TLS; raw bytes for the gateway), then reads the
request's record through the control API and compares it with the observation field by
field: the status, Apple's reason and timestamp, `apns-id`, `apns-unique-id`, a scripted
answer's headers and body, the legacy packet, the fault and the rule. The comparison is
generic (it knows nothing of the case); each case also states what it expects to see, so a
rule that silently did nothing fails too.

Before validation, each request is one the decision core would refuse (an unregistered
token, a channel that does not exist), so an answer the core would not give proves the rule
answered without it."""

from __future__ import annotations

import base64
import json
import os
import time

import pytest

from conftest import GOOD_TOKEN, TOPIC, Server
from wire import HTTP2Observation, LegacyObservation, http2_exchange, legacy_exchange, legacy_frame

PAYLOAD = b'{"aps":{"alert":"truth"}}'
LIVE_ACTIVITY = b'{"aps":{"timestamp":1700000000,"event":"update","content-state":{"n":1}}}'

#: Every reason Apple defines, as the server lists them (filled once per module).
APPLE_REASONS: set[str] = set()

# (case name, scenario action, what the client must see): the same table for every stage
# and protocol; each protocol answers in its own terms (see the actions table of docs/guide/scenarios.md).
ACTIONS = [
    ("accept", {"type": "accept"}),
    ("reject 429", {"type": "reject", "reason": "TooManyRequests"}),
    ("reject 410", {"type": "reject", "reason": "Unregistered", "timestamp": 1767225600000}),
    ("respond 503", {"type": "respond", "status": 503, "headers": {"retry-after": "30"},
                     "body": '{"reason":"ServiceUnavailable"}', "legacyStatus": 1}),
    ("respond custom", {"type": "respond", "status": 500, "reason": "NotAnAppleReason", "legacyStatus": 6}),
    ("respond 200", {"type": "respond", "status": 200, "headers": {"x-mock": "yes"}}),
    ("closeConnection", {"type": "closeConnection"}),
    ("resetConnection", {"type": "resetConnection"}),
    ("goAway", {"type": "goAway", "errorCode": "ENHANCE_YOUR_CALM", "reason": "TooManyProviderTokenUpdates"}),
    ("goAway answered", {"type": "goAway", "errorCode": "NO_ERROR", "lastStreamId": "current", "answerRequest": True}),
    ("resetStream", {"type": "resetStream", "errorCode": "REFUSED_STREAM"}),
    ("stall", {"type": "stall"}),
    ("lowerMaxConcurrentStreams", {"type": "lowerMaxConcurrentStreams", "limit": 3}),
    ("sendGarbage inside TLS", {"type": "sendGarbage", "hex": "deadbeefdeadbeefdeadbeef", "insideTLS": True}),
    ("sendGarbage on the socket", {"type": "sendGarbage", "length": 32}),
    ("closeAfterBytes", {"type": "closeAfterBytes", "bytes": 5}),
    ("shutdown", {"type": "shutdown"}),
]
STAGES = ["beforeValidation", "afterValidation"]
DELAY_MS = 300


@pytest.fixture(scope="module")
def truth_server(tmp_path_factory):
    instance = Server(tmp_path_factory.mktemp("truth")).start()
    APPLE_REASONS.update(entry["reason"] for entry in instance.journal.get("/v1/reasons")["reasons"])
    yield instance
    instance.stop()


def load(server: Server, stage: str, action: dict, match: dict, delayed: bool = False) -> str:
    rule = {"name": f"truth {stage} {action['type']}", "stage": stage, "match": match, "action": action}
    if delayed:
        rule["delay"] = {"distribution": "fixed", "milliseconds": DELAY_MS}
    server.journal.request("PUT", "/v1/scenario", {"name": "record truth", "rules": [rule]})
    return rule["name"]


def body_fields(body: bytes) -> tuple[str | None, int | None]:
    try:
        parsed = json.loads(body)
    except ValueError:
        return None, None
    if not isinstance(parsed, dict):
        return None, None
    return parsed.get("reason"), parsed.get("timestamp")


def assert_http2_record_is_the_wire(record: dict, seen: HTTP2Observation, rule: str, label: str):
    """Every field of the record's answer against what the client read."""
    context = f"{label}\nrecord: {record}\nwire: {seen}"
    assert record.get("rule") == rule, context
    fault = record.get("fault") or {}
    kind = fault.get("type")
    if kind == "closeAfterBytes":
        # The answer was written into the connection, which then let only `bytes` more bytes
        # out: a budget smaller than the answer's TLS record cuts it before the client reads it.
        assert seen.end != "open", context
        if seen.status is None:
            return
    assert record.get("status") == seen.status, context
    if seen.status is not None:
        assert record["accepted"] == (200 <= seen.status < 300), context
        assert record.get("responseApnsId") == seen.header("apns-id"), context
        assert record.get("uniqueId") == seen.header("apns-unique-id"), context
        reason, timestamp = body_fields(seen.body)
        assert record.get("reason") == (reason if reason in APPLE_REASONS else None), context
        assert record.get("timestamp") == timestamp, context
    else:
        assert record["accepted"] is False, context
        assert "responseApnsId" not in record and "reason" not in record, context
    if "responseHeaders" in record:  # a scripted answer: everything it wrote, as written
        written = [[name, value] for name, value in seen.headers if name not in ("apns-id", "apns-unique-id")]
        assert record["responseHeaders"] == written, context
        assert record.get("responseBody", "").encode() == seen.body, context

    assert (kind == "resetStream") == (seen.reset is not None), context
    if kind == "resetStream":
        assert fault["errorCode"] == seen.reset, context
    if kind != "closeAfterBytes":
        assert (kind == "resetConnection") == (seen.end == "reset"), context
    if kind == "sendGarbage":
        assert seen.end in ("garbage", "eof"), context  # TLS may see the close before the bytes
    if kind in ("goAway", "shutdown"):
        assert seen.goaway is not None, context
        assert seen.goaway[0] == fault.get("errorCode", 0), context
        if fault.get("lastStreamId") is not None:
            assert seen.goaway[1] == fault["lastStreamId"], context
    if kind == "closeConnection":
        assert seen.end == "eof" and seen.status is None, context
    if kind == "stall":
        assert seen.end == "open" and seen.status is None and seen.reset is None, context
    if kind is None:
        assert seen.end == "open" and seen.goaway is None, context
        assert seen.status is not None, context


def http2_expectation(action: dict, seen: HTTP2Observation, label: str):
    """The case's own expectation: what its action puts on the wire."""
    kind = action["type"]
    expected_status = {
        "accept": 200, "reject": {"TooManyRequests": 429, "Unregistered": 410}.get(action.get("reason")),
        "respond": action.get("status"), "stall": None, "closeConnection": None, "resetConnection": None,
        "resetStream": None, "sendGarbage": None,
    }
    if kind in expected_status:
        assert seen.status == expected_status[kind], f"{label}: {seen}"
    if kind == "goAway":
        assert seen.goaway is not None, f"{label}: {seen}"
        assert (seen.status is not None) == bool(action.get("answerRequest")), f"{label}: {seen}"


def unique_token() -> str:
    return os.urandom(32).hex()


def wait_for_record(server: Server, token: str, label: str) -> dict:
    answer = server.journal.get("/v1/notifications/wait", token=token, count=1, timeout=5000)
    records = answer["notifications"]
    assert len(records) == 1, f"{label}: expected one record for the request, found {records}"
    return records[0]


@pytest.mark.parametrize("stage", STAGES)
def test_http2_push_record_equals_wire(truth_server, stage):
    server = truth_server
    for name, action in ACTIONS:
        for delayed in (False, True):
            if delayed and action["type"] not in ("reject", "respond", "resetStream", "accept"):
                continue
            label = f"HTTP/2 {stage} {name}{' delayed' if delayed else ''}"
            token = unique_token()
            if stage == "beforeValidation":
                server.journal.post(f"/v1/registry/{token}/unregister", {})
            rule = load(server, stage, action, {"tokens": [token]}, delayed)
            started = time.monotonic()
            seen = http2_exchange(
                server.http2, f"/3/device/{token}", [("apns-topic", TOPIC), ("apns-push-type", "alert")], PAYLOAD,
                wait=0.6,
            )
            if delayed and seen.status is not None:
                assert time.monotonic() - started >= DELAY_MS / 1000, label
            http2_expectation(action, seen, label)
            record = wait_for_record(server, token, label)
            assert_http2_record_is_the_wire(record, seen, rule, label)
            assert record.get("delayMs") == (DELAY_MS if delayed else None), label
            assert record["payloadLength"] == len(PAYLOAD) and record["deviceToken"] == token, label
    server.journal.request("PUT", "/v1/scenario", {"name": "none", "rules": []})


def test_http2_record_without_a_rule_is_the_cores_answer_as_written(truth_server):
    """No scenario: accepted (200, apns-id, apns-unique-id) and refused (410 with its time)."""
    server = truth_server
    server.journal.request("PUT", "/v1/scenario", {"name": "none", "rules": []})
    token = unique_token()
    seen = http2_exchange(server.http2, f"/3/device/{token}", [("apns-topic", TOPIC)], PAYLOAD)
    assert seen.status == 200 and seen.header("apns-unique-id")
    assert_http2_record_is_the_wire(wait_for_record(server, token, "accepted"), seen, None, "accepted")
    gone = unique_token()
    server.journal.post(f"/v1/registry/{gone}/unregister", {})
    seen = http2_exchange(server.http2, f"/3/device/{gone}", [("apns-topic", TOPIC)], PAYLOAD)
    assert seen.status == 410
    assert_http2_record_is_the_wire(wait_for_record(server, gone, "unregistered"), seen, None, "unregistered")


@pytest.mark.parametrize("stage", STAGES)
def test_broadcast_record_equals_wire(truth_server, stage):
    server = truth_server
    for name, action in ACTIONS:
        label = f"broadcast {stage} {name}"
        if stage == "afterValidation":
            channel = server.journal.post("/v1/channels", {"bundleId": TOPIC, "messageStoragePolicy": 0})["id"]
        else:
            channel = base64.b64encode(os.urandom(16)).decode()  # no such channel: the core says 400
        rule = load(server, stage, action, {"channels": [channel]})
        headers = [("apns-channel-id", channel), ("apns-push-type", "liveactivity")]
        seen = http2_exchange(server.http2, f"/4/broadcasts/apps/{TOPIC}", headers, LIVE_ACTIVITY,
                              wait=0.6)
        http2_expectation(action, seen, label)
        events = []
        deadline = time.monotonic() + 5
        while not events and time.monotonic() < deadline:
            events = server.journal.events(type="broadcast", channel=channel)
            time.sleep(0.02 if not events else 0)
        assert len(events) == 1, f"{label}: {events}"
        record = events[0]["broadcast"]
        if seen.status is not None:
            # A broadcast answer carries apns-request-id beside Apple's headers.
            assert record["requestId"] == seen.header("apns-request-id"), label
        assert_http2_record_is_the_wire(record, seen, rule, label)
    server.journal.request("PUT", "/v1/scenario", {"name": "none", "rules": []})


def assert_legacy_record_is_the_wire(record: dict, seen: LegacyObservation, rule: str, label: str):
    context = f"{label}\nrecord: {record}\nwire: {seen}"
    assert record.get("rule") == rule, context
    packet = seen.packet
    if packet is not None:
        assert (record.get("legacyStatus"), record.get("legacyPacketIdentifier")) == packet, context
        assert record["accepted"] is False, context
    else:
        assert "legacyStatus" not in record, context
    kind = (record.get("fault") or {}).get("type")
    assert (kind == "resetConnection") == (seen.end == "reset"), context
    if kind == "sendGarbage":
        assert packet is None and (seen.received or seen.end in ("garbage", "eof")), context
    if kind in ("closeConnection", "stall"):
        assert seen.received == b"", context
    if kind == "shutdown":
        assert packet is not None and packet[0] == 10, context
    if record["accepted"]:
        # The binary protocol answers a success with silence, and stays open.
        assert seen.received == b"" and seen.end == "open", context


def legacy_expectation(action: dict, seen: LegacyObservation, identifier: int, label: str):
    kind = action["type"]
    if kind == "accept":
        assert seen.received == b"", f"{label}: {seen}"
    elif kind == "reject":
        # Reason.swift maps each reason to its status byte (TooManyRequests has none: 255).
        status = {"TooManyRequests": 255, "Unregistered": 8}[action["reason"]]
        assert seen.packet == (status, identifier), f"{label}: {seen}"
    elif kind == "respond":
        expected = None if action["status"] < 300 else (action["legacyStatus"], identifier)
        assert seen.packet == expected, f"{label}: {seen}"
    elif kind in ("goAway", "shutdown"):
        assert seen.packet == (10, 0), f"{label}: {seen}"
    elif kind == "resetConnection":
        assert seen.end == "reset", f"{label}: {seen}"


@pytest.mark.parametrize("stage", STAGES)
def test_legacy_record_equals_wire(truth_server, stage):
    server = truth_server
    for index, (name, action) in enumerate(ACTIONS):
        label = f"legacy {stage} {name}"
        token = unique_token()
        if stage == "beforeValidation":
            server.journal.post(f"/v1/registry/{token}/unregister", {})
        rule = load(server, stage, action, {"tokens": [token]})
        identifier = 1000 + index
        seen = legacy_exchange(server.ports["gateway"], legacy_frame(identifier, bytes.fromhex(token), PAYLOAD),
                               wait=0.7)
        legacy_expectation(action, seen, identifier, label)
        record = wait_for_record(server, token, label)
        assert record["identifier"] == identifier, label
        assert_legacy_record_is_the_wire(record, seen, rule, label)
    server.journal.request("PUT", "/v1/scenario", {"name": "none", "rules": []})
