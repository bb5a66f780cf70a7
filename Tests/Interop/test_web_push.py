"""Safari's web push endpoint (RFC 8030 push requests, VAPID RFC 8292, aes128gcm RFC 8291)
driven by pywebpush, the Python web push library a provider's back end uses, with the VAPID
signer it depends on (py_vapid); one push over HTTP/2 with curl. Subscriptions are made over
the control API, as a page's `pushManager.subscribe()` would make them, and every answer is
checked against what the server recorded: the decrypted message, the VAPID claims, the
diagnosis naming each misconfiguration, and the provider verdicts.

pywebpush sends with `requests` (HTTP/1.1), `Authorization: vapid t=<JWT>, k=<key>` (py_vapid's
`Vapid` is `Vapid02`, RFC 8292), `TTL: 0` unless told otherwise, `Content-Encoding: aes128gcm`,
and computes `aud` from the endpoint's scheme and host unless the claims name one.

requests lets `REQUESTS_CA_BUNDLE` (set on many machines) take precedence over a session's
`verify`, so the session here trusts the development CA with `trust_env = False`.
"""

from __future__ import annotations

import gc
import json
import time

import pytest
import requests
from cryptography.hazmat.primitives import serialization
from py_vapid import Vapid, Vapid01, VapidException
from py_vapid.jwt import sign
from py_vapid.utils import b64urlencode, num_to_bytes
from pywebpush import WebPusher, WebPushException, webpush

from conftest import CA, TOPIC, provider_token, run, unique_token

SUBJECT = "mailto:ops@example.com"
DECLARATIVE = {"web_push": 8030, "notification": {"title": "Order shipped", "navigate": "https://example.com/x"}}


# ---- Helpers --------------------------------------------------------------------------------

@pytest.fixture
def session():
    """What a provider's back end keeps: one requests session trusting the development CA."""
    with requests.Session() as http:
        http.verify = str(CA)
        http.trust_env = False  # else REQUESTS_CA_BUNDLE would replace `verify`
        yield http


def new_vapid() -> Vapid:
    key = Vapid()
    key.generate_keys()
    return key


def public_key(key: Vapid) -> str:
    """The applicationServerKey a page passes to pushManager.subscribe (base64url)."""
    raw = key.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return b64urlencode(raw)


def private_key_text(key: Vapid) -> str:
    """The private key as a provider keeps it in its configuration: the raw scalar, base64url."""
    return b64urlencode(num_to_bytes(key.private_key.private_numbers().private_value, 32))


def subscribe(server, key: Vapid) -> dict:
    subscription = server.subscribe_web_push(public_key(key))
    assert subscription["state"] == "active"
    assert subscription["endpoint"] == f"https://127.0.0.1:{server.web_push_port}/{subscription['id']}"
    return subscription


def mark(server) -> int:
    """The journal's last sequence number: what is recorded after it belongs to the next push."""
    return server.health()["journal"]["lastSequence"]


def outcome(server, subscription: dict, after: int) -> tuple[dict, list[str]]:
    """The record of the one push sent to `subscription` since `after`, and the codes of the
    diagnoses recorded before it on its connection."""
    [record] = server.wait_for(token=subscription["id"], after=after, timeout=5)
    assert record["transport"] == "webPush"
    diagnoses = server.events("diagnosis", connection=record["connection"], after=after)
    return record, [event["code"] for event in diagnoses if event["seq"] < record["seq"]]


def refused(send) -> requests.Response:
    """Runs `send`, which must raise pywebpush's WebPushException, and returns the response."""
    with pytest.raises(WebPushException) as failure:
        send()
    assert failure.value.response is not None, failure.value
    return failure.value.response


# ---- Accepted pushes ------------------------------------------------------------------------

def test_pywebpush_declarative_push_is_accepted_and_recorded_decrypted(server, session):
    key = new_vapid()
    subscription = subscribe(server, key)
    after = mark(server)
    message = json.dumps(DECLARATIVE)
    response = webpush(subscription_info=subscription, data=message, vapid_private_key=private_key_text(key),
                       vapid_claims={"sub": SUBJECT}, requests_session=session)
    assert (response.status_code, response.text) == (201, "")
    assert "apns-id" not in {name.lower() for name in response.headers}

    record, diagnoses = outcome(server, subscription, after)
    assert (record["status"], record["accepted"], record.get("reason")) == (201, True, None)
    assert diagnoses == []
    # The application server is known by its public key (no secret); the JWT is never kept.
    assert record["authentication"] == {"kind": "vapid", "keyId": public_key(key)}
    details = record["webPush"]
    assert details["message"] == message
    assert details["notification"]["title"] == "Order shipped"
    assert details["notification"]["navigate"] == "https://example.com/x"
    # What pywebpush sends unless told otherwise.
    assert (details["ttl"], details["contentEncoding"]) == (0, "aes128gcm")
    vapid = details["vapid"]
    assert (vapid["sub"], vapid["aud"], vapid["k"]) == (SUBJECT, f"https://127.0.0.1:{server.web_push_port}", public_key(key))
    assert abs(vapid["exp"] - (time.time() + 12 * 3600)) < 120, "pywebpush's default: 12 hours ahead"
    tls = server.events("tlsEstablished", connection=record["connection"])
    assert [event["alpn"] for event in tls] == ["http/1.1"], tls


def test_pywebpush_plain_text_push_is_recorded_as_sent(server, session):
    key = new_vapid()
    subscription = subscribe(server, key)
    after = mark(server)
    message = "Your order shipped. Plain text, no Declarative Web Push"
    response = webpush(subscription_info=subscription, data=message, vapid_private_key=key,
                       vapid_claims={"sub": "https://example.com"}, ttl=3600,
                       headers={"Urgency": "high", "Topic": "order-42"}, requests_session=session)
    assert response.status_code == 201
    record, diagnoses = outcome(server, subscription, after)
    assert (record["status"], record["accepted"]) == (201, True)
    assert "webPush.undecryptable" not in diagnoses
    details = record["webPush"]
    assert details["message"] == message
    assert "notification" not in details
    assert (details["ttl"], details["urgency"]) == (3600, "high")
    assert (record["topic"], record["collapseId"]) == ("order-42", "order-42")
    assert details["vapid"]["sub"] == "https://example.com"


def test_curl_http2_push_encrypted_and_signed_by_pywebpush(server, tmp_path):
    """pywebpush itself speaks HTTP/1.1; Apple's endpoint also speaks HTTP/2: the same request,
    encrypted by pywebpush's WebPusher and signed by py_vapid, sent with curl --http2."""
    key = new_vapid()
    subscription = subscribe(server, key)
    message = "over HTTP/2"
    body = tmp_path / "body.bin"
    body.write_bytes(WebPusher(subscription).encode(message.encode(), "aes128gcm")["body"])
    authorization = key.sign({"sub": SUBJECT, "aud": f"https://127.0.0.1:{server.web_push_port}"})["Authorization"]
    after = mark(server)
    result = run([
        "curl", "-sS", "--http2", "--cacert", str(CA), "--max-time", "20", "-o", "-", "-w", "\n%{http_code} %{http_version}",
        "-H", "TTL: 60", "-H", "Content-Encoding: aes128gcm", "-H", "Urgency: low", "-H", f"Authorization: {authorization}",
        "--data-binary", f"@{body}", subscription["endpoint"],
    ])
    assert result.returncode == 0, result.stderr.decode()
    answer, _, status = result.stdout.decode().rpartition("\n")
    assert (status, answer) == ("201 2", "")

    record, diagnoses = outcome(server, subscription, after)
    assert (record["status"], diagnoses) == (201, [])
    assert record["webPush"]["message"] == message
    assert (record["webPush"]["ttl"], record["webPush"]["urgency"]) == (60, "low")
    assert [event["alpn"] for event in server.events("tlsEstablished", connection=record["connection"])] == ["h2"]
    assert server.events("http2Frame", connection=record["connection"]), "HTTP/2 frames on the push's connection"


# ---- Misconfigurations: 403 BadJwtToken, each diagnosed -------------------------------------

MISCONFIGURED_CLAIMS = [
    pytest.param({"sub": "mailto: ops@example.com"}, "webPush.vapidSubject", id="sub-space-after-mailto"),
    pytest.param({"sub": "mailto:<ops@example.com>"}, "webPush.vapidSubject", id="sub-angle-brackets"),
    pytest.param({"sub": "mailto:ops@localhost"}, "webPush.vapidSubject", id="sub-localhost"),
    pytest.param({"sub": SUBJECT, "aud": "https://web.push.apple.com"}, "webPush.vapidAudience", id="aud-apple-origin"),
    pytest.param({"sub": SUBJECT, "exp": 25 * 3600}, "webPush.vapidExpiration", id="exp-25-hours-ahead"),
]


@pytest.mark.parametrize("claims, code", MISCONFIGURED_CLAIMS)
def test_pywebpush_misconfigured_claims_are_refused_bad_jwt_token(server, session, claims, code):
    """Claims py_vapid signs without complaint, which Apple refuses."""
    key = new_vapid()
    subscription = subscribe(server, key)
    claims = dict(claims)
    if "exp" in claims:
        claims["exp"] += int(time.time())
    after = mark(server)
    response = refused(lambda: webpush(subscription_info=subscription, data="hello", vapid_private_key=key,
                                       vapid_claims=dict(claims), requests_session=session))
    assert (response.status_code, response.json()) == (403, {"reason": "BadJwtToken"})

    record, diagnoses = outcome(server, subscription, after)
    assert (record["status"], record["reason"], record["accepted"]) == (403, "BadJwtToken", False)
    assert diagnoses == [code]
    assert record["authentication"]["kind"] == "vapid" and record["authentication"]["refusal"] == "BadJwtToken"
    assert record["authentication"]["detail"]
    assert record["webPush"]["vapid"]["sub"] == claims["sub"]
    if "aud" in claims:
        assert record["webPush"]["vapid"]["aud"] == claims["aud"]
    if "exp" in claims:
        assert record["webPush"]["vapid"]["exp"] == claims["exp"]


def test_pywebpush_without_sub_is_refused_locally_then_by_the_server(server, session):
    """py_vapid will not sign claims without `sub`; a provider signing its own JWT can."""
    key = new_vapid()
    subscription = subscribe(server, key)
    with pytest.raises(VapidException, match="sub"):
        webpush(subscription_info=subscription, data="hello", vapid_private_key=key, vapid_claims={"exp": int(time.time()) + 3600},
                requests_session=session)
    claims = {"aud": f"https://127.0.0.1:{server.web_push_port}", "exp": int(time.time()) + 3600}
    token = sign(claims, key.private_key)
    after = mark(server)
    response = refused(lambda: webpush(subscription_info=subscription, data="hello", requests_session=session,
                                       headers={"Authorization": f"vapid t={token},k={public_key(key)}"}))
    assert (response.status_code, response.json()) == (403, {"reason": "BadJwtToken"})
    record, diagnoses = outcome(server, subscription, after)
    assert (record["status"], record["reason"], diagnoses) == (403, "BadJwtToken", ["webPush.vapidSubject"])


def test_pywebpush_signed_with_another_key_than_the_subscriptions(server, session):
    page_key, other_key = new_vapid(), new_vapid()
    subscription = subscribe(server, page_key)
    after = mark(server)
    response = refused(lambda: webpush(subscription_info=subscription, data="hello", vapid_private_key=other_key,
                                       vapid_claims={"sub": SUBJECT}, requests_session=session))
    assert (response.status_code, response.json()) == (403, {"reason": "BadJwtToken"})
    record, diagnoses = outcome(server, subscription, after)
    assert (record["status"], record["reason"], diagnoses) == (403, "BadJwtToken", ["webPush.vapidWrongKey"])
    assert record["webPush"]["vapid"]["k"] == public_key(other_key)


def test_pywebpush_with_the_draft_vapid_scheme(server, session):
    """py_vapid's Vapid01: `Authorization: WebPush <JWT>` with `Crypto-Key: p256ecdsa=`, the
    draft scheme older providers still send."""
    key = Vapid01()
    key.generate_keys()
    subscription = subscribe(server, key)
    after = mark(server)
    response = refused(lambda: webpush(subscription_info=subscription, data="hello", vapid_private_key=key,
                                       vapid_claims={"sub": SUBJECT}, requests_session=session))
    assert (response.status_code, response.json()) == (403, {"reason": "BadJwtToken"})
    record, diagnoses = outcome(server, subscription, after)
    assert (record["status"], record["reason"], diagnoses) == (403, "BadJwtToken", ["webPush.vapidMalformed"])


def test_pywebpush_aesgcm_content_encoding_is_a_bad_payload(server, session):
    key = new_vapid()
    subscription = subscribe(server, key)
    after = mark(server)
    response = refused(lambda: webpush(subscription_info=subscription, data="hello", vapid_private_key=key,
                                       vapid_claims={"sub": SUBJECT}, content_encoding="aesgcm", requests_session=session))
    assert (response.status_code, response.json()) == (400, {"reason": "BadRequestPayload"})
    record, diagnoses = outcome(server, subscription, after)
    assert (record["status"], record["reason"], diagnoses) == (400, "BadRequestPayload", ["webPush.contentEncoding"])
    assert record["webPush"]["contentEncoding"] == "aesgcm"


# ---- Gone subscriptions and the provider verdict --------------------------------------------

@pytest.mark.parametrize("end, state", [("revoke_web_push", "revoked"), ("expire_web_push", "expired")])
def test_pywebpush_to_a_gone_subscription_gets_410_and_pushing_again_breaks_a_rule(server, end, state):
    key = new_vapid()
    subscription = subscribe(server, key)
    assert getattr(server, end)(subscription["id"])["state"] == state
    after = mark(server)
    with requests.Session() as http:
        http.verify, http.trust_env = str(CA), False

        def send():
            webpush(subscription_info=subscription, data="still there?", vapid_private_key=key,
                    vapid_claims={"sub": SUBJECT}, requests_session=http)

        response = refused(send)
        assert response.status_code == 410
        answer = response.json()
        assert answer["reason"] == "Unregistered" and isinstance(answer["timestamp"], int)
        record, diagnoses = outcome(server, subscription, after)
        assert (record["status"], record["reason"], diagnoses) == (410, "Unregistered", ["webPush.goneSubscription"])

        time.sleep(0.15)
        again = refused(send)
        assert again.status_code == 410
    # The verdict is reached once the provider's connection is closed. Closing the session is
    # not enough: the responses (and the exceptions' tracebacks) keep the socket open until
    # they are collected.
    del response, again, send
    gc.collect()
    verdict = server.wait_for_event(
        "verdict", after=after, timeout=10,
        predicate=lambda event: event["verdict"]["rule"] == "unregistered-token"
        and event["verdict"].get("deviceToken") == subscription["id"],
    )
    assert verdict["verdict"]["check"] == "pushAfterUnregistered"
    report = server.report()
    assert "unregistered-token" in report["brokenRules"]
    examples = [example for provider in report["providers"] for rule in provider["rules"]
                if rule["rule"] == "unregistered-token" for example in rule["examples"]]
    assert any(example.get("deviceToken") == subscription["id"] for example in examples), examples


# ---- Scenarios ------------------------------------------------------------------------------

def test_scenario_429_reaches_pywebpush_and_leaves_http2_alone(server, session):
    key = new_vapid()
    subscription = subscribe(server, key)
    rule = {"name": "web push rate limit", "match": {"protocols": ["webPush"]},
            "action": {"type": "reject", "reason": "TooManyRequests"}}
    server.journal.request("PUT", "/v1/scenario", {"name": "web push 429", "rules": [rule]})
    try:
        after = mark(server)
        response = refused(lambda: webpush(subscription_info=subscription, data="hello", vapid_private_key=key,
                                           vapid_claims={"sub": SUBJECT}, requests_session=session))
        assert (response.status_code, response.json()) == (429, {"reason": "TooManyRequests"})
        record, _ = outcome(server, subscription, after)
        assert (record["status"], record["reason"], record["rule"]) == (429, "TooManyRequests", "web push rate limit")

        # The rule matches web push only: an APNs push on the provider API is answered as usual.
        token = unique_token()
        result = run([
            "curl", "-sS", "--http2", "--cacert", str(CA), "-o", "/dev/null", "-w", "%{http_code}",
            "-H", f"authorization: bearer {provider_token()}", "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert",
            "-d", '{"aps":{"alert":"hi"}}', server.url(token),
        ])
        assert result.stdout == b"200", result.stderr.decode()
        fired = {entry["rule"]: entry["fired"] for entry in server.journal.get("/v1/scenario")["firings"]}
        assert fired == {"web push rate limit": 1}
    finally:
        server.journal.request("PUT", "/v1/scenario", {"name": "none", "rules": []})
