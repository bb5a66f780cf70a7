"""Broadcast push (iOS 18 Live Activities) through curl and nghttp: every channel management
endpoint on its own listener, broadcasts on the provider port, and the journal's record of both.

No Python APNs client from PyPI or Debian supports broadcast channels (aioapns 4.0 and
apns2-up 0.9.0 were checked), so the command-line clients stand in for them."""

from __future__ import annotations

import re
import urllib.parse

from conftest import CA, CERTS, TOPIC, provider_token, run

CREATE = '{"message-storage-policy": 1, "push-type": "LiveActivity"}'
UPDATE = '{"aps":{"timestamp":1700000000,"event":"update","content-state":{"score":"3-2"}}}'
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def curl(port, path, *, method="POST", headers=(), body=None, auth="jwt"):
    args = ["curl", "-sS", "--http2", "--cacert", str(CA), "--max-time", "20", "-X", method, "-D", "-"]
    if auth == "jwt":
        args += ["-H", f"authorization: bearer {provider_token()}"]
    elif auth == "cert":
        args += ["--cert", str(CERTS / "client-sandbox.pem"), "--key", str(CERTS / "client-sandbox-key.pem")]
    for header in headers:
        args += ["-H", header]
    if body is not None:
        args += ["--data-binary", "@-"]
    args.append(f"https://127.0.0.1:{port}{path}")
    result = run(args, input=body.encode() if body is not None else None)
    assert result.returncode == 0, result.stderr.decode()
    head, _, payload = result.stdout.decode().partition("\r\n\r\n")
    status_line, *lines = head.split("\r\n")
    assert status_line.startswith("HTTP/2 "), status_line
    return int(status_line.split()[1]), dict(line.split(": ", 1) for line in lines), payload


def nghttp(port, path, *, headers=(), body_file=None):
    # No -n: the response body is printed after the frames, for the read answers.
    args = ["nghttp", "-v", "--no-push", "-t", "20", "-H", f"authorization: bearer {provider_token()}"]
    for header in headers:
        args += ["-H", header]
    if body_file is not None:
        args += ["-d", str(body_file)]
    args.append(f"https://127.0.0.1:{port}{path}")
    result = run(args)
    out = result.stdout.decode(errors="replace")
    assert result.returncode == 0, out + result.stderr.decode(errors="replace")
    status = re.search(r"recv \(stream_id=\d+\) :status: (\d+)", out)
    assert status, out
    return int(status.group(1)), out


def channel_events(server, channel):
    return server.journal.events(channel=channel)


def test_curl_channel_lifecycle_and_broadcast(server):
    """Create, read, read all, broadcast, delete: each answered as Apple documents, each journaled."""
    channels = f"/1/apps/{TOPIC}/channels"
    request_id = "0309f412-aa57-46a8-9ac6-b5aeca8c4594"
    status, headers, body = curl(server.manage, channels, headers=[f"apns-request-id: {request_id}"], body=CREATE)
    assert (status, body) == (201, ""), body
    assert headers["apns-request-id"] == request_id
    channel = headers["apns-channel-id"]
    assert re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", channel) and len(channel) % 4 == 0

    status, headers, body = curl(server.manage, channels, method="GET", headers=[f"apns-channel-id: {channel}"])
    assert (status, body) == (200, '{"message-storage-policy":1,"push-type":"LiveActivity"}')
    assert re.fullmatch(UUID, headers["apns-request-id"])

    status, _, body = curl(server.manage, f"/1/apps/{TOPIC}/all-channels", method="GET")
    assert status == 200 and f'"{channel}"' in body

    status, headers, body = curl(
        server.http2, f"/4/broadcasts/apps/{TOPIC}", body=UPDATE,
        headers=[f"apns-channel-id: {channel}", "apns-push-type: liveactivity", "apns-priority: 5"],
    )
    assert (status, body) == (200, "")
    assert re.fullmatch(r"[0-9A-F-]{36}", headers["apns-id"])
    assert re.fullmatch(UUID, headers["apns-request-id"]) and re.fullmatch(UUID, headers["apns-unique-id"])

    status, _, body = curl(server.manage, channels, method="DELETE", headers=[f"apns-channel-id: {channel}"])
    assert (status, body) == (204, "")

    events = channel_events(server, channel)
    assert [e["type"] for e in events] == ["channelOperation"] * 2 + ["broadcast", "channelOperation"]
    assert [e["channelOperation"]["operation"] for e in events if e["type"] == "channelOperation"] == ["create", "read", "delete"]
    assert events[0]["channelOperation"]["requestId"] == request_id
    assert events[0]["channelOperation"]["authentication"]["kind"] == "providerToken"
    broadcast = events[2]["broadcast"]
    assert broadcast["accepted"] is True and broadcast["status"] == 200
    assert broadcast["bundleId"] == TOPIC and broadcast["payload"] == UPDATE

    status, _, body = curl(server.http2, f"/4/broadcasts/apps/{TOPIC}", body=UPDATE,
                           headers=[f"apns-channel-id: {channel}", "apns-push-type: liveactivity"])
    assert (status, body) == (400, '{"reason":"ChannelNotRegistered"}')


def test_curl_management_refusals(server):
    channels = f"/1/apps/{TOPIC}/channels"
    cases = [
        ("GET", channels, [], None, 400, "MissingChannelId"),
        ("GET", channels, ["apns-channel-id: ***"], None, 400, "BadChannelId"),
        ("DELETE", channels, ["apns-channel-id: bm9uZQ=="], None, 400, "ChannelNotRegistered"),
        ("POST", channels, [], '{"message-storage-policy": 0}', 400, "MissingPushType"),
        ("POST", channels, [], '{"message-storage-policy": 0, "push-type": "alert"}', 400, "InvalidPushType"),
        ("GET", f"/1/apps/{TOPIC}/everything", [], None, 404, "BadPath"),
        ("PATCH", channels, [], "{}", 405, "MethodNotAllowed"),
    ]
    for method, path, headers, body, status, reason in cases:
        got, response_headers, payload = curl(server.manage, path, method=method, headers=headers, body=body)
        assert (got, payload) == (status, f'{{"reason":"{reason}"}}'), (method, path)
        assert re.fullmatch(UUID, response_headers["apns-request-id"])
    status, _, payload = curl(server.manage, f"/1/apps/{TOPIC}/all-channels", method="GET", auth=None)
    assert (status, payload) == (403, '{"reason":"MissingProviderToken"}')
    # Certificates authenticate the management API as they do the provider API.
    status, _, _ = curl(server.manage, f"/1/apps/{TOPIC}/all-channels", method="GET", auth="cert")
    assert status == 200


def test_nghttp_every_endpoint(server, tmp_path):
    """nghttp speaks to both listeners: ALPN h2, and every endpoint with its documented status."""
    create = tmp_path / "create.json"
    create.write_text(CREATE)
    update = tmp_path / "update.json"
    update.write_text(UPDATE)
    channels = f"/1/apps/{TOPIC}/channels"

    status, out = nghttp(server.manage, channels, body_file=create)
    assert status == 201 and "The negotiated protocol: h2" in out
    channel = re.search(r"recv \(stream_id=\d+\) apns-channel-id: (\S+)", out).group(1)

    status, out = nghttp(server.manage, channels, headers=[f"apns-channel-id: {channel}"])
    assert status == 200 and '"message-storage-policy":1' in out

    status, out = nghttp(server.manage, f"/1/apps/{TOPIC}/all-channels")
    assert status == 200 and channel in out

    status, out = nghttp(server.http2, f"/4/broadcasts/apps/{TOPIC}", body_file=update,
                         headers=[f"apns-channel-id: {channel}", "apns-push-type: liveactivity"])
    assert status == 200
    assert re.search(r"recv \(stream_id=\d+\) apns-request-id: " + UUID, out)

    status, out = nghttp(server.manage, channels, headers=[":method: DELETE", f"apns-channel-id: {channel}"])
    assert status == 204

    assert [e["type"] for e in channel_events(server, channel)] == [
        "channelOperation", "channelOperation", "broadcast", "channelOperation"]


def test_control_api_lists_creates_and_deletes_channels(server):
    journal = server.journal
    made = journal.post("/v1/channels", {"bundleId": TOPIC, "messageStoragePolicy": 0})
    assert made["bundleId"] == TOPIC and made["messageStoragePolicy"] == 0 and made["environment"] == "sandbox"
    listed = journal.get("/v1/channels", bundleId=TOPIC)["channels"]
    assert made["id"] in [c["id"] for c in listed]
    # The channel made through the control API takes broadcasts (No Messages Stored: expiration 0 only).
    status, _, _ = curl(server.http2, f"/4/broadcasts/apps/{TOPIC}", body=UPDATE,
                        headers=[f"apns-channel-id: {made['id']}", "apns-push-type: liveactivity", "apns-expiration: 0"])
    assert status == 200
    deleted = journal.request("DELETE", "/v1/channels/" + urllib.parse.quote(made["id"], safe=""))
    assert deleted == {"id": made["id"], "deleted": True}
    assert made["id"] not in [c["id"] for c in journal.get("/v1/channels")["channels"]]


# Apple's sample payload ("Sending broadcast push notification requests to APNs").
SAMPLE = ('{"aps":{"timestamp":1685952000,"event":"update","content-state":{"currentHealthLevel":0.0,'
          '"eventDescription":"Power Panda has been knocked down!"},"alert":{"title":{"loc-key":"%@ is knocked down!",'
          '"loc-args":["Power Panda"]},"body":{"loc-key":"Use a potion to heal %@!","loc-args":["Power Panda"]},'
          '"sound":"HeroDown.mp4"}}}')


def test_nghttp_sends_apples_token_sample(server, tmp_path):
    """The token sample's headers as Apple writes them, then the header table's other
    spellings and priorities: each answered 200 with apns-request-id and apns-unique-id."""
    status, headers, _ = curl(server.manage, f"/1/apps/{TOPIC}/channels",
                              body='{"message-storage-policy": 0, "push-type": "LiveActivity"}')
    assert status == 201
    channel = headers["apns-channel-id"]
    payload = tmp_path / "sample.json"
    payload.write_text(SAMPLE)
    variants = [
        ("liveactivity", "10", ["apns-id: eabeae54-14a8-11e5-b60b-1697f925ec7b"]),
        ("Liveactivity", "5", []),
        ("liveactivity", "1", []),
    ]
    for push_type, priority, extra in variants:
        status, out = nghttp(server.http2, f"/4/broadcasts/apps/{TOPIC}", body_file=payload, headers=[
            f"apns-push-type: {push_type}", "apns-expiration: 0", f"apns-priority: {priority}", f"apns-channel-id: {channel}", *extra])
        assert status == 200, (push_type, priority, out[-2000:])
        assert re.search(r"recv \(stream_id=\d+\) apns-unique-id: " + UUID, out), out[-2000:]
        assert re.search(r"recv \(stream_id=\d+\) apns-request-id: " + UUID, out)


def test_curl_documented_refusals(server):
    """The error table's broadcast reasons that the first suite did not reach."""
    status, headers, _ = curl(server.manage, f"/1/apps/{TOPIC}/channels", body=CREATE)
    channel = headers["apns-channel-id"]
    cases = [
        (server.manage, f"/1/apps/{TOPIC}/channels", "POST", [], '{"message-storage-policy":1,"push-type":"LiveActivity","x":1}',
         400, "BadRequestParams"),
        (server.manage, f"/1/apps/{TOPIC}/channels", "POST", [], '{"message-storage-policy":', 400, "BadRequestPayload"),
        (server.manage, f"/1/apps/{TOPIC}.push-type.liveactivity/channels", "POST", [], CREATE, 400, "TopicDisallowed"),
        (server.http2, f"/4/broadcasts/apps/{TOPIC}", "POST",
         [f"apns-channel-id: {channel}", "apns-push-type: liveactivity", f"apns-topic: {TOPIC}.push-type.liveactivity"],
         UPDATE, 400, "TopicDisallowed"),
        (server.http2, f"/4/broadcasts/apps/{TOPIC}", "POST", [f"apns-channel-id: {channel}", "apns-push-type: liveactivity"],
         '{"aps":', 400, "BadRequestPayload"),
        (server.http2, f"/4/broadcasts/apps/{TOPIC}", "POST", [f"apns-channel-id: {channel}", "apns-push-type: liveactivity"],
         '{"p":"' + "x" * 5114 + '"}', 413, "PayloadTooLarge"),
    ]
    for port, path, method, headers, body, status, reason in cases:
        got, response_headers, payload = curl(port, path, method=method, headers=headers, body=body)
        assert (got, payload) == (status, f'{{"reason":"{reason}"}}'), (path, headers, body[:40])
        assert re.fullmatch(UUID, response_headers["apns-request-id"])
    # Authentication comes first: no credentials and no channel id is 403, not MissingChannelId.
    got, _, payload = curl(server.http2, f"/4/broadcasts/apps/{TOPIC}", headers=["apns-push-type: liveactivity"], body=UPDATE, auth=None)
    assert (got, payload) == (403, '{"reason":"MissingProviderToken"}')
    # A bundle id the key does not cover: 403 TopicMismatch.
    got, _, payload = curl(server.manage, "/1/apps/com.example.other/all-channels", method="GET", auth="cert")
    assert (got, payload) == (403, '{"reason":"TopicMismatch"}')
