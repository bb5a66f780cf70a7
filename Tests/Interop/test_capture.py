"""The journal as a capture Wireshark opens: a server driven by curl, nghttp, h2load, the
legacy load generator and a legacy client reading its error packet and the feedback
service; `mockapns journal --pcap` writes the pcapng file (the same bytes as the control
API's GET /v1/journal/capture.pcapng), and tshark, Debian's, reads it back. Its HTTP/2
frames, counted by type and direction, and their decoded header lists (HPACK included) are
the journal's; the repository's Lua dissector names the legacy commands, tokens,
identifiers, the error packet and the feedback tuple the journal recorded."""

from __future__ import annotations

import json
import shutil
import socket
import ssl
import struct
import time
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

from conftest import CA, CERTS, REPO, TOPIC, Server, mockapns_bin, provider_token, run, unique_token

LUA = REPO / "tools" / "wireshark" / "mockapns-legacy.lua"
ALERT = '{"aps":{"alert":"capture"}}'


def tshark() -> str:
    path = shutil.which("tshark")
    if path is None:
        pytest.fail("tshark missing; run scripts/install-deps.sh --test (Debian's tshark package)")
    return path


def legacy_socket(port: int) -> ssl.SSLSocket:
    context = ssl.create_default_context(cafile=str(CA))
    context.check_hostname = False
    context.load_cert_chain(str(CERTS / "client-sandbox.pem"), str(CERTS / "client-sandbox-key.pem"))
    return context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=10))


def command2(token: str, payload: bytes, identifier: int) -> bytes:
    items = bytes([1]) + struct.pack(">H", 32) + bytes.fromhex(token)
    items += bytes([2]) + struct.pack(">H", len(payload)) + payload
    items += bytes([3]) + struct.pack(">HI", 4, identifier)
    items += bytes([4]) + struct.pack(">HI", 4, 0)
    items += bytes([5]) + struct.pack(">HB", 1, 10)
    return bytes([2]) + struct.pack(">I", len(items)) + items


def read_all(connection: ssl.SSLSocket) -> bytes:
    data = b""
    while chunk := connection.recv(4096):
        data += chunk
    return data


def drive(server: Server, tmp_path: Path) -> dict:
    """Traffic from every client; what each was told, for the checks after."""
    url_token = unique_token()
    jwt = provider_token()
    body = tmp_path / "body.json"
    body.write_text(ALERT)
    common = ["-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert", "-H", f"authorization: bearer {jwt}"]

    for token in (url_token, "not-a-hex-token"):
        result = run(["curl", "-sS", "--http2", "--cacert", str(CA), "--max-time", "20", *common,
                      "--data-binary", f"@{body}", "-o", "/dev/null", server.url(token)])
        assert result.returncode == 0, result.stderr.decode()
    result = run(["nghttp", "-n", "--no-push", "-t", "20", *common, "-d", str(body), server.url(url_token)])
    assert result.returncode == 0, result.stdout.decode() + result.stderr.decode()
    result = run(["h2load", "-n", "10", "-c", "1", "-m", "1", "-d", str(body), *common, server.url(url_token)], timeout=60)
    assert result.returncode == 0 and "10 succeeded" in result.stdout.decode(), result.stdout.decode()

    generator = Path(mockapns_bin()).parent / "LegacyLoadGenerator"
    assert generator.exists(), f"{generator} missing: swift build --build-tests builds it"
    result = run([str(generator), "--port", str(server.ports["gateway"]), "--connections", "1", "--notifications", "20",
                  "--payload-bytes", "60"], timeout=60)
    assert result.returncode == 0, result.stdout.decode() + result.stderr.decode()

    # A token unregistered: the gateway answers status 8 naming the identifier, and the
    # feedback service sends its tuple.
    gone = unique_token()
    since = int(time.time() * 1000) - 60_000
    server.journal.post(f"/v1/registry/{gone}/unregister", {"since": since})
    with legacy_socket(server.ports["gateway"]) as gateway:
        gateway.sendall(command2(gone, ALERT.encode(), 808))
        assert read_all(gateway) == bytes([8, 8]) + struct.pack(">I", 808)
    with legacy_socket(server.ports["feedback"]) as feedback:
        tuples = read_all(feedback)
    assert bytes.fromhex(gone) in tuples
    return {"gone": gone}


def wait_until_every_connection_closed(server: Server) -> None:
    deadline = time.monotonic() + 10
    while True:
        opened = server.journal.events(type="connectionOpened", limit=100_000)
        closed = server.journal.events(type="connectionClosed", limit=100_000)
        if len(opened) == len(closed):
            return
        assert time.monotonic() < deadline, f"{len(opened)} connections opened, {len(closed)} closed"
        time.sleep(0.05)


def read_capture(path: Path, ports: dict) -> list[dict]:
    """tshark's dissection of every packet, as JSON (repeated fields as arrays)."""
    result = run([
        tshark(), "-r", str(path), "-X", f"lua_script:{LUA}",
        "-d", f"tcp.port=={ports['http2']},http2",
        "-d", f"tcp.port=={ports['gateway']},mockapns_gateway",
        "-d", f"tcp.port=={ports['feedback']},mockapns_feedback",
        "-T", "json", "--no-duplicate-keys", "-J", "tcp http2 mockapns_gateway mockapns_feedback",
    ], timeout=120)
    assert result.returncode == 0, result.stderr.decode()
    return [packet["_source"]["layers"] for packet in json.loads(result.stdout)]


def as_list(value) -> list:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def test_tshark_reads_the_journal_capture_as_the_journal_recorded_it(tmp_path):
    server = Server(tmp_path).start()
    try:
        told = drive(server, tmp_path)
        wait_until_every_connection_closed(server)
        events = server.journal.events(limit=100_000)

        capture = tmp_path / "journal.pcapng"
        control = f"http://127.0.0.1:{server.ports['control']}"
        result = run([mockapns_bin(), "journal", "--control", control, "--pcap", str(capture)])
        assert result.returncode == 0, result.stderr.decode()
        with urllib.request.urlopen(control + "/v1/journal/capture.pcapng", timeout=30) as answer:
            assert answer.headers["Content-Type"] == "application/vnd.tcpdump.pcap"
            assert answer.read() == capture.read_bytes(), "the command writes what the control API gives"
        packets = read_capture(capture, server.ports)
    finally:
        server.stop()

    http2_port = str(server.ports["http2"])
    peers = {event["connection"]: event["peer"].rsplit(":", 1)[1] for event in events if event["type"] == "connectionOpened"}

    # HTTP/2: every frame, by direction and type, and every header list by connection and stream.
    journal_frames = Counter()
    journal_headers = Counter()
    for event in events:
        if event["type"] != "http2Frame":
            continue
        journal_frames[(event["direction"], event["frameType"])] += 1
        if event["frameType"] == "HEADERS":
            key = (peers[event["connection"]], event["direction"], event["stream"])
            journal_headers[key + (tuple(tuple(pair) for pair in event["headers"]),)] += 1
    names = {0: "DATA", 1: "HEADERS", 2: "PRIORITY", 3: "RST_STREAM", 4: "SETTINGS", 6: "PING", 7: "GOAWAY", 8: "WINDOW_UPDATE"}
    capture_frames = Counter()
    capture_headers = Counter()
    preface = 0
    for layers in packets:
        tcp = layers["tcp"]
        if http2_port not in (tcp["tcp.srcport"], tcp["tcp.dstport"]):
            continue
        outbound = tcp["tcp.srcport"] == http2_port
        client_port = tcp["tcp.dstport"] if outbound else tcp["tcp.srcport"]
        for http2 in as_list(layers.get("http2")):
            for stream in as_list(http2.get("http2.stream")):
                if "http2.magic" in stream:
                    preface += 1
                    continue
                if "http2.type" not in stream:
                    continue
                frame_type = names.get(int(stream["http2.type"]), stream["http2.type"])
                capture_frames[("outbound" if outbound else "inbound", frame_type)] += 1
                if frame_type == "HEADERS":
                    fields = tuple(
                        (header["http2.header.name"], header.get("http2.header.value", ""))
                        for header in as_list(stream.get("http2.header"))
                    )
                    key = (client_port, "outbound" if outbound else "inbound", int(stream["http2.streamid"]))
                    capture_headers[key + (fields,)] += 1
    assert journal_frames[("inbound", "HEADERS")] >= 13 and journal_frames[("outbound", "DATA")] >= 1, journal_frames
    assert capture_frames == journal_frames
    assert capture_headers == journal_headers
    assert preface == len([p for p in peers if any(e["type"] == "http2Frame" and e["connection"] == p for e in events)])
    paths = {value for key in capture_headers for name, value in key[3] if name == ":path"}
    assert "/3/device/not-a-hex-token" in paths
    topics = {value for key in capture_headers for name, value in key[3] if name == "apns-topic"}
    assert topics == {TOPIC}

    # The legacy gateway: each notification's command, identifier and token; the error packet.
    gateway_port = str(server.ports["gateway"])
    journal_legacy = Counter(
        (event["command"], event.get("identifier"), event.get("deviceToken"))
        for event in events if event["type"] == "legacyFrame" and "problem" not in event
    )
    capture_legacy = Counter()
    errors = []
    for layers in packets:
        for pdu in as_list(layers.get("mockapns_gateway")):
            command = int(pdu["mockapns_gateway.command"])
            if command == 8:
                errors.append((int(pdu["mockapns_gateway.status"]), int(pdu["mockapns_gateway.identifier"])))
                continue
            items = {}
            for item in as_list(pdu.get("mockapns_gateway.item_tree")):
                items.update(item)
            identifier = items.get("mockapns_gateway.identifier") or pdu.get("mockapns_gateway.identifier")
            token = items.get("mockapns_gateway.token") or pdu.get("mockapns_gateway.token")
            capture_legacy[(command, int(identifier) if identifier else None, token.replace(":", "") if token else None)] += 1
    assert sum(journal_legacy.values()) >= 21, journal_legacy
    assert capture_legacy == journal_legacy
    assert (8, 808) in errors
    journal_packets = [
        (event["notification"]["legacyStatus"], event["notification"]["legacyPacketIdentifier"])
        for event in events if event["type"] == "notification" and "legacyStatus" in event["notification"]
    ]
    assert sorted(errors) == sorted(journal_packets)
    assert any(layers["tcp"]["tcp.srcport"] == gateway_port for layers in packets if "mockapns_gateway" in layers)

    # The feedback service: its tuple's token.
    capture_feedback = [
        tuple_["mockapns_feedback.token"].replace(":", "")
        for layers in packets for tuple_ in as_list(layers.get("mockapns_feedback"))
    ]
    journal_feedback = [event["deviceToken"] for event in events if event["type"] == "feedbackTuple"]
    assert capture_feedback == journal_feedback and told["gone"] in capture_feedback
