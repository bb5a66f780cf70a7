"""Delivery as a provider's developer meets it: `mockapns serve` with `--forward-simulator`
(a stand-in for `xcrun simctl push` that records its arguments and standard input) and
`--forward-url` (a Python HTTP receiver), pushes sent by curl, a device taken offline through
the control API, and the delivery log read back by `apns-unique-id`."""

from __future__ import annotations

import http.server
import json
import sys
import threading
import time

import pytest

from conftest import CA, CERTS, TOPIC, Server, run, unique_token

STAND_IN = """\
import json, pathlib, sys
folder = pathlib.Path(sys.argv[1])
index = len(list(folder.glob("call-*.json")))
(folder / f"call-{index}.json").write_text(json.dumps({"args": sys.argv[2:], "input": sys.stdin.read()}))
"""


class Receiver(http.server.BaseHTTPRequestHandler):
    bodies: list[dict] = []

    def do_POST(self):  # noqa: N802 (the standard library's name)
        length = int(self.headers["Content-Length"])
        Receiver.bodies.append({"type": self.headers["Content-Type"], "body": json.loads(self.rfile.read(length))})
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def receiver():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()


@pytest.fixture(scope="module")
def forwarding_server(tmp_path_factory, receiver):
    folder = tmp_path_factory.mktemp("delivery")
    (folder / "calls").mkdir()
    stand_in = folder / "simctl.py"
    stand_in.write_text(STAND_IN)
    command = f"{sys.executable} {stand_in} {folder / 'calls'} push {{udid}} {{bundleId}} -"
    instance = Server(folder, "--forward-simulator", "booted", "--forward-simulator-command", command,
                      "--forward-url", f"http://127.0.0.1:{receiver.server_address[1]}/push").start()
    instance.calls = folder / "calls"
    yield instance
    instance.stop()


def push(server: Server, token: str, alert: str) -> dict[str, str]:
    """One push with curl and the sandbox client certificate; returns the answer's headers."""
    result = run([
        "curl", "--http2", "-sS", "-D", "-", "-o", "/dev/null", "--cacert", str(CA),
        "--cert", str(CERTS / "client-sandbox.pem"), "--key", str(CERTS / "client-sandbox-key.pem"),
        "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert", "-d", json.dumps({"aps": {"alert": alert}}),
        server.url(token),
    ])
    assert result.returncode == 0, result.stderr.decode()
    lines = result.stdout.decode().splitlines()
    assert lines[0].split()[1] == "200", lines
    return {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:] if ":" in line)}


def wait_for(what: str, found, timeout: float = 10):
    deadline = time.monotonic() + timeout
    while not (value := found()):
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        time.sleep(0.02)
    return value


def test_a_delivered_push_reaches_the_simulator_command_and_the_webhook(forwarding_server, receiver):
    token = unique_token()
    answer = push(forwarding_server, token, "to both")
    call = json.loads(wait_for("the stand-in's call", lambda: sorted(forwarding_server.calls.glob("call-*.json")))[-1].read_text())
    assert call["args"] == ["push", "booted", TOPIC, "-"]
    assert json.loads(call["input"]) == {"aps": {"alert": "to both"}}
    posted = wait_for("the webhook", lambda: [b for b in Receiver.bodies if b["body"]["deviceToken"] == token])[0]
    assert posted["type"] == "application/json"
    assert posted["body"]["uniqueId"] == answer["apns-unique-id"]
    assert posted["body"]["payload"] == {"aps": {"alert": "to both"}}


def test_offline_three_pushes_online_only_the_last_arrives(forwarding_server):
    journal = forwarding_server.journal
    token = unique_token()
    assert journal.request("PUT", f"/v1/devices/{token}", {"online": False})["online"] is False
    answers = [push(forwarding_server, token, f"update {n}") for n in (1, 2, 3)]
    journal.expect(token, count=3)
    assert journal.request("PUT", f"/v1/devices/{token}", {"online": True})["stored"] == []
    logs = [journal.get(f"/v1/delivery/{a['apns-unique-id']}")["notifications"][0] for a in answers]
    assert [log["state"] for log in logs] == ["superseded", "superseded", "delivered"]
    assert [line["console"] for line in logs[2]["timeline"]] == [
        "Received by APNs", "Stored - Device Offline", "Delivered to Device (From Storage)"]
    # Only the last one reached the webhook: the journal says the others were never delivered.
    posted = wait_for("the webhook", lambda: [b["body"] for b in Receiver.bodies if b["body"]["deviceToken"] == token])
    assert [body["payload"]["aps"]["alert"] for body in posted] == ["update 3"]
    assert posted[0]["fromStorage"] is True
