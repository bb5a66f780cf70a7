"""HTTP/2 provider API through curl and nghttp, the command-line clients providers script with."""

from __future__ import annotations

import json
import re
import time

from conftest import CA, CERTS, GOOD_TOKEN, TOPIC, provider_token, run, unique_token

ALERT = '{"aps":{"alert":"hello"}}'


def curl(server, token, *, auth="jwt", body=ALERT, jwt=None, headers=()):
    args = [
        "curl", "-sS", "--http2", "--cacert", str(CA), "--max-time", "20",
        "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert",
        "-D", "-", "--data-binary", "@-",
    ]
    if auth == "jwt":
        args += ["-H", f"authorization: bearer {jwt or provider_token()}"]
    elif auth == "cert":
        args += ["--cert", str(CERTS / "client-sandbox.pem"), "--key", str(CERTS / "client-sandbox-key.pem")]
    for header in headers:
        args += ["-H", header]
    args.append(server.url(token))
    result = run(args, input=body.encode())
    assert result.returncode == 0, result.stderr.decode()
    head, _, payload = result.stdout.decode().partition("\r\n\r\n")
    status_line, *lines = head.split("\r\n")
    assert status_line.startswith("HTTP/2 "), status_line  # curl really spoke HTTP/2
    response_headers = dict(line.split(": ", 1) for line in lines)
    return int(status_line.split()[1]), response_headers, json.loads(payload) if payload else None


def test_curl_jwt_success(server):
    token = unique_token()
    status, headers, body = curl(server, token)
    assert status == 200 and body is None
    assert re.fullmatch(r"[0-9A-F-]{36}", headers["apns-id"])
    assert "apns-unique-id" in headers  # sandbox
    record = server.journal.expect(token, status=200, accepted=True, responseApnsId=headers["apns-id"])
    authentication = dict(record["authentication"])
    issued_at = authentication.pop("issuedAt")  # which token: its iat, never the token itself
    assert authentication == {"kind": "providerToken", "teamId": "TEAM00000A", "keyId": "SANDBOX001"}
    assert abs(issued_at - time.time()) < 300, issued_at


def test_curl_certificate_success(server):
    token = unique_token()
    status, headers, _ = curl(server, token, auth="cert", headers=["apns-id: 123e4567-e89b-12d3-a456-4266554400a0"])
    assert status == 200
    assert headers["apns-id"] == "123e4567-e89b-12d3-a456-4266554400a0"  # echoed byte for byte
    record = server.journal.expect(token, status=200, responseApnsId=headers["apns-id"])
    assert record["authentication"]["kind"] == "certificate"


def test_curl_invalid_token(server):
    status, _, body = curl(server, "not-a-hex-token")
    assert (status, body) == (400, {"reason": "BadDeviceToken"})
    server.journal.expect("not-a-hex-token", status=400, reason="BadDeviceToken")


def test_curl_payload_too_large(server):
    token = unique_token()
    big = json.dumps({"aps": {"alert": "x" * 5000}})
    status, _, body = curl(server, token, body=big)
    assert (status, body) == (413, {"reason": "PayloadTooLarge"})
    server.journal.expect(token, status=413, reason="PayloadTooLarge")


def test_curl_expired_provider_token(server):
    token = unique_token()
    stale = provider_token(issued_at=int(time.time()) - 2 * 3600)
    status, _, body = curl(server, token, jwt=stale)
    assert (status, body) == (403, {"reason": "ExpiredProviderToken"})
    server.journal.expect(token, status=403, reason="ExpiredProviderToken")


def test_curl_without_credentials(server):
    token = unique_token()
    status, _, body = curl(server, token, auth=None)
    assert (status, body) == (403, {"reason": "MissingProviderToken"})
    server.journal.expect(token, status=403, reason="MissingProviderToken")


def nghttp(server, token, jwt, body_file):
    result = run([
        "nghttp", "-v", "-n", "--no-push", "-t", "20",
        "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert",
        "-H", f"authorization: bearer {jwt}", "-d", str(body_file),
        server.url(token),
    ])
    return result.returncode, result.stdout.decode(errors="replace")


def test_nghttp_jwt_success_and_settings(server, tmp_path):
    """nghttp shows the frames: ALPN h2, the server's SETTINGS, and the 200 with an apns-id."""
    body = tmp_path / "body.json"
    body.write_text(ALERT)
    token = unique_token()
    code, out = nghttp(server, token, provider_token(), body)
    assert code == 0, out
    assert "The negotiated protocol: h2" in out
    assert re.search(r"recv SETTINGS frame .*\n(.*\n)*?.*SETTINGS_MAX_CONCURRENT_STREAMS", out)
    assert re.search(r"recv \(stream_id=\d+\) :status: 200", out), out
    assert re.search(r"recv \(stream_id=\d+\) apns-id: [0-9A-F-]{36}", out)
    server.journal.expect(token, status=200, transport="http2", pushType="alert")


def test_nghttp_bad_device_token(server, tmp_path):
    body = tmp_path / "body.json"
    body.write_text(ALERT)
    code, out = nghttp(server, "abc", provider_token(), body)
    assert re.search(r"recv \(stream_id=\d+\) :status: 400", out), out
    assert '{"reason":"BadDeviceToken"}' in out or code == 0
    server.journal.expect("abc", status=400, reason="BadDeviceToken")
