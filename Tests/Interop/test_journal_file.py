"""The JSONL journal file is complete at full rate: h2load pushes as fast as the server takes
them, with every frame journaled and the file's buffer made small, so its writer falls behind
and the server must read more slowly rather than leave events out. After SIGTERM, every
answer h2load counted as 2xx is a notification line in the file, and the log says the file
made the server wait."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time

from conftest import TOPIC, Server, provider_token, run

REQUESTS = 8_000


def test_every_answered_notification_is_in_the_file_at_full_rate(tmp_path):
    journal_file = tmp_path / "journal.jsonl"
    config = tmp_path / "config.json"
    # A buffer of 256 events: the writer's 50 ms batches cannot keep up with h2load.
    config.write_text(json.dumps({"journal": {"file": str(journal_file), "fileBuffer": 256, "capacity": 1000}}))
    server = Server(tmp_path, "--config", str(config)).start()
    try:
        payload = tmp_path / "payload.json"
        payload.write_text('{"aps":{"alert":"full rate"}}')
        token = "a1b2c3d4" * 8
        result = run([
            "h2load", "-n", str(REQUESTS), "-c", "4", "-m", "100", "-t", "1", "-d", str(payload),
            "-H", f"authorization: bearer {provider_token()}", "-H", f"apns-topic: {TOPIC}",
            "-H", "apns-push-type: alert", server.url(token),
        ], timeout=240)
        out = result.stdout.decode()
        assert result.returncode == 0, out + result.stderr.decode()
        answered = int(re.search(r"status codes: (\d+) 2xx", out).group(1))
        # A token connection starts at one stream until its first good token, as Apple's do:
        # h2load's first burst on each connection is partly refused, the rest answered 200.
        assert answered >= REQUESTS - 4 * 99, out
    finally:
        assert server.stop(signal.SIGTERM) == 0

    notifications = 0
    accepted = 0
    sequences = []
    for line in journal_file.read_text().splitlines():
        event = json.loads(line)
        assert event.get("type") != "gap", f"the file left events out: {line}"
        sequences.append(event["seq"])
        if event["type"] == "notification":
            notifications += 1
            record = event["notification"]
            if record["accepted"] and 200 <= record.get("status", 0) < 300:
                accepted += 1
    assert accepted == answered, f"{answered} answered 2xx, {accepted} in the file ({notifications} notification lines)"
    assert sequences == list(range(1, len(sequences) + 1)), "the file holds every event, in order"
    # The memory journal kept only 1,000 events; the file kept them all, because the server
    # waited for it.
    assert len(sequences) > 3 * REQUESTS  # two frames in, the notification, one frame out
    assert "the journal file is behind" in server.log_text()


def test_sigterm_under_load_stops_accepting_at_once_and_finishes_the_file_in_bounds(tmp_path):
    """SIGTERM while h2load pushes at full rate with a journal file: the server stops taking
    requests at once (GOAWAY), writes out what the file still buffers within its bound, says in
    the log how far the file got, and exits well inside a container runtime's 10 seconds."""
    journal_file = tmp_path / "journal.jsonl"
    config = tmp_path / "config.json"
    # A small buffer keeps the writer behind all the time, as a release build at full rate does.
    config.write_text(json.dumps({"journal": {"file": str(journal_file), "fileBuffer": 256}}))
    server = Server(tmp_path, "--config", str(config)).start()
    payload = tmp_path / "payload.json"
    payload.write_text('{"aps":{"alert":"until SIGTERM"}}')
    load = subprocess.Popen([
        "h2load", "-c", "4", "-m", "50", "-t", "1", "-D", "20", "-d", str(payload),
        "-H", f"authorization: bearer {provider_token()}", "-H", f"apns-topic: {TOPIC}",
        "-H", "apns-push-type: alert", server.url("a1b2c3d4" * 8),
    ], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        time.sleep(2.5)
        signalled = time.time()
        assert server.stop(signal.SIGTERM, timeout=10) == 0
        exited = time.time() - signalled
    finally:
        load.kill()
        load.communicate(timeout=30)
    assert exited < 9, f"the server took {exited:.1f} s to exit after SIGTERM"
    log = server.log_text()
    assert "received SIGTERM" in log
    assert re.search(r"the journal file is (complete|incomplete): \d+ events written at shutdown", log), log[-2000:]
    # Requests stop at the signal: none is answered later than a second after it.
    late = 0
    answered = 0
    for line in journal_file.read_text().splitlines():
        event = json.loads(line)
        if event.get("type") == "notification":
            answered += 1
            if event["time"] / 1000 > signalled + 1:
                late += 1
    assert answered > 0
    assert late == 0, f"{late} notifications answered more than a second after SIGTERM"
