"""The Python helper's web push calls against the real `mockapns` binary ($MOCKAPNS_BIN or PATH):
the web push port, subscribing as a page would, and expiring, revoking and forgetting a
subscription. Pushes are sent with curl, encrypted (aes128gcm, RFC 8291) and signed (VAPID,
RFC 8292) here with `cryptography`, as a provider's own code would do it."""

from __future__ import annotations

import base64
import json
import os
import struct
import subprocess
import time

import pytest

from mockapns import ControlAPIError, MockAPNs, MockAPNsError

cryptography = pytest.importorskip("cryptography", reason="the pushes are encrypted and signed with cryptography")
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature  # noqa: E402
from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # noqa: E402
from cryptography.hazmat.primitives.kdf.hkdf import HKDF  # noqa: E402

SUBJECT = "mailto:ops@example.com"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def point(key: ec.EllipticCurvePrivateKey | ec.EllipticCurvePublicKey) -> bytes:
    public = key.public_key() if isinstance(key, ec.EllipticCurvePrivateKey) else key
    return public.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def vapid(key: ec.EllipticCurvePrivateKey, audience: str, subject: str = SUBJECT) -> str:
    """The RFC 8292 Authorization header: `vapid t=<ES256 JWT>, k=<public key>`."""
    header = b64url(json.dumps({"typ": "JWT", "alg": "ES256"}).encode())
    claims = b64url(json.dumps({"aud": audience, "exp": int(time.time()) + 3600, "sub": subject}).encode())
    r, s = decode_dss_signature(key.sign(f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256())))
    signature = b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))
    return f"vapid t={header}.{claims}.{signature}, k={b64url(point(key))}"


def encrypt(subscription: dict, message: bytes) -> bytes:
    """aes128gcm (RFC 8188) with the keys of RFC 8291, one record."""
    receiver = unb64url(subscription["keys"]["p256dh"])
    auth = unb64url(subscription["keys"]["auth"])
    sender = ec.generate_private_key(ec.SECP256R1())
    shared = sender.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), receiver))
    ikm = HKDF(hashes.SHA256(), 32, auth, b"WebPush: info\0" + receiver + point(sender)).derive(shared)
    salt = os.urandom(16)
    cek = HKDF(hashes.SHA256(), 16, salt, b"Content-Encoding: aes128gcm\0").derive(ikm)
    nonce = HKDF(hashes.SHA256(), 12, salt, b"Content-Encoding: nonce\0").derive(ikm)
    header = salt + struct.pack("!IB", 4096, 65) + point(sender)
    return header + AESGCM(cek).encrypt(nonce, message + b"\x02", None)


def push(apns: MockAPNs, subscription: dict, key: ec.EllipticCurvePrivateKey, message: bytes) -> tuple[int, str]:
    """One web push with curl over HTTP/2. Returns the HTTP status and body."""
    args = ["curl", "-sS", "--http2", "--cacert", str(apns.ca_file), "-o", "-", "-w", "\n%{http_code}",
            "-H", "TTL: 60", "-H", "Content-Encoding: aes128gcm", "-H", "Content-Type: application/octet-stream",
            "-H", f"Authorization: {vapid(key, apns.web_push_url)}", "--data-binary", "@-", subscription["endpoint"]]
    result = subprocess.run(args, input=encrypt(subscription, message), capture_output=True, timeout=30)
    assert result.returncode == 0, result.stderr
    body, _, status = result.stdout.decode().rpartition("\n")
    return int(status), body


def new_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def test_the_web_push_port_is_a_free_one_and_named_in_the_listening_line(mockapns):
    port = mockapns.web_push_port
    assert port not in (2200, mockapns.http2_port, mockapns.control_port)
    assert mockapns.get("/v1/ports")["webPush"] == port
    assert mockapns.web_push_url == f"https://127.0.0.1:{port}"
    assert f"webPush=127.0.0.1:{port}" in mockapns.log_text()


def test_a_subscription_is_what_the_page_gets_and_a_push_to_it_is_recorded_decrypted(mockapns):
    key = new_key()
    subscription = mockapns.subscribe_web_push(point(key))
    assert subscription["state"] == "active" and subscription["expirationTime"] is None
    assert subscription["endpoint"] == f"{mockapns.web_push_url}/{subscription['id']}"
    assert len(unb64url(subscription["keys"]["p256dh"])) == 65 and len(unb64url(subscription["keys"]["auth"])) == 16
    assert mockapns.subscribe_web_push(b64url(point(key)))["id"] != subscription["id"], "a text key: another page"
    assert mockapns.web_push_subscription(subscription["id"]) == subscription
    assert subscription in mockapns.web_push_subscriptions()

    message = {"web_push": 8030, "notification": {"title": "Helper", "navigate": "https://example.com/helper"}}
    assert push(mockapns, subscription, key, json.dumps(message).encode()) == (201, "")
    [record] = mockapns.wait_for(token=subscription["id"], protocol="webPush", timeout=5)
    assert (record["transport"], record["status"], record["authentication"]["kind"]) == ("webPush", 201, "vapid")
    assert json.loads(record["webPush"]["message"]) == message
    assert record["webPush"]["notification"]["title"] == "Helper"
    assert record["webPush"]["vapid"] == {
        "sub": SUBJECT, "aud": mockapns.web_push_url, "exp": record["webPush"]["vapid"]["exp"], "k": b64url(point(key))}


def test_a_key_that_is_not_a_p256_point_is_refused_with_its_json_path(mockapns):
    with pytest.raises(ControlAPIError) as refusal:
        mockapns.subscribe_web_push(b"\x04" + bytes(10))
    assert (refusal.value.status, refusal.value.parameter) == (400, "$.applicationServerKey")
    assert mockapns.web_push_subscriptions() == []


@pytest.mark.parametrize("end", ["expire_web_push", "revoke_web_push"])
def test_an_expired_or_revoked_subscription_is_gone(mockapns, end):
    key = new_key()
    subscription = mockapns.subscribe_web_push(point(key))
    ended = getattr(mockapns, end)(subscription["id"])
    state = {"expire_web_push": "expired", "revoke_web_push": "revoked"}[end]
    assert (ended["id"], ended["state"]) == (subscription["id"], state)
    assert mockapns.web_push_subscription(subscription["id"])["state"] == state
    status, body = push(mockapns, subscription, key, b"still there?")
    assert status == 410 and json.loads(body)["reason"] == "Unregistered"
    assert isinstance(json.loads(body)["timestamp"], int)
    [record] = mockapns.wait_for(token=subscription["id"], timeout=5)
    assert (record["status"], record["reason"]) == (410, "Unregistered")
    gone = mockapns.wait_for_event("diagnosis", predicate=lambda e: e["code"] == "webPush.goneSubscription", timeout=5)
    assert gone["connection"] == record["connection"]


def test_a_forgotten_subscription_is_unknown(mockapns):
    key = new_key()
    subscription = mockapns.subscribe_web_push(point(key))
    assert mockapns.forget_web_push(subscription["id"]) == {"id": subscription["id"], "deleted": True}
    assert mockapns.web_push_subscriptions() == []
    with pytest.raises(ControlAPIError) as missing:
        mockapns.web_push_subscription(subscription["id"])
    assert (missing.value.status, missing.value.parameter) == (404, "id")
    with pytest.raises(ControlAPIError):
        mockapns.revoke_web_push(subscription["id"])
    status, body = push(mockapns, subscription, key, b"anyone?")
    assert (status, json.loads(body)) == (400, {"reason": "BadDeviceToken"})


def test_reset_forgets_the_subscriptions(mockapns):
    mockapns.subscribe_web_push(point(new_key()))
    assert len(mockapns.web_push_subscriptions()) == 1
    mockapns.reset()
    assert mockapns.web_push_subscriptions() == []


def test_a_server_without_web_push_has_no_such_port(tmp_path):
    with MockAPNs("--no-web-push", workdir=tmp_path) as apns:
        assert "webPush" not in apns.ports
        with pytest.raises(MockAPNsError, match="no webPush listener"):
            apns.web_push_port
