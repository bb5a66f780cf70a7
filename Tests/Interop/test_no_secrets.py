"""No record, log line or page holds a secret that can be replayed: after pushes with a
provider token, with client certificates and on the legacy gateway, neither the journal
(control API), nor the JSONL file, nor the server's log at debug level, nor the dashboard's
page holds a provider token's signature or any byte of a private key."""

from __future__ import annotations

import base64
import json
import urllib.request

from conftest import CA, CERTS, TOPIC, Server, provider_token, run, unique_token
from wire import legacy_exchange, legacy_frame


def key_fragments() -> list[str]:
    """Pieces of every private key in the development set, as they would appear if printed:
    40-character runs of each PEM's base64 body, and of its DER bytes in hex."""
    fragments = []
    for path in list(CERTS.glob("*-key.pem")) + list(CERTS.glob("*.p8")):
        body = "".join(line for line in path.read_text().splitlines() if not line.startswith("-----"))
        fragments += [body[i:i + 40] for i in range(0, len(body) - 40, 40)]
        der = base64.b64decode(body).hex()
        fragments += [der[i:i + 40] for i in range(0, len(der) - 40, 80)]
    return fragments


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read().decode(errors="replace")


def test_no_signature_and_no_private_key_anywhere(tmp_path):
    journal_file = tmp_path / "journal.jsonl"
    server = Server(tmp_path, "--journal", str(journal_file), "--log-level", "debug").start()
    # `Server` starts at info; a second --log-level wins, so debug lines are checked too.
    jwt = provider_token()
    signature = jwt.split(".")[2]
    try:
        token = unique_token()
        for auth in (["-H", f"authorization: bearer {jwt}"],
                     ["--cert", str(CERTS / "client-sandbox.pem"), "--key", str(CERTS / "client-sandbox-key.pem")]):
            result = run(["curl", "--http2", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", str(CA), *auth,
                          "-H", f"apns-topic: {TOPIC}", "-d", '{"aps":{"alert":"hi"}}', server.url(token)])
            assert result.stdout == b"200", result.stderr
        # A malformed request quoting the token in an error, and a token that fails to verify.
        run(["curl", "--http2", "-sS", "-o", "/dev/null", "--cacert", str(CA), "-H", f"authorization: bearer {jwt}x",
             "-H", f"apns-topic: {TOPIC}", "-d", "{}", server.url(token)])
        legacy_exchange(server.ports["gateway"], legacy_frame(1, bytes.fromhex(token), b'{"aps":{}}'), wait=0.5)
        server.journal.expect(token, count=4)

        control = f"http://127.0.0.1:{server.ports['control']}"
        seen = {
            "events": json.dumps(server.journal.events(limit=100000)),
            "notifications": json.dumps(server.journal.notifications()),
            "dashboard": fetch(control + "/"),
        }
    finally:
        server.stop()
    seen["journal file"] = journal_file.read_text()
    seen["log"] = server.log_text()

    assert "bearer eyJ" in seen["events"], "the token's header and claims are recorded"
    assert "<signature removed>" in seen["events"]
    fragments = key_fragments()
    assert len(fragments) > 50
    for name, text in seen.items():
        assert signature not in text, f"the provider token's signature is in the {name}"
        assert "PRIVATE KEY" not in text, f"a private key is in the {name}"
        leaked = [fragment for fragment in fragments if fragment in text]
        assert not leaked, f"private key bytes are in the {name}: {leaked[:3]}"


def test_a_token_in_any_field_or_in_pieces_is_never_recorded_whole(tmp_path):
    """A provider token sent where none belongs (`apns-collapse-id`, `apns-id`, the device
    token's place in the path), the signature alone after `bearer`, and a signature split by
    a blank: none of it is in the events, the notifications, the JSONL file, the event stream
    or the log, in any piece that would make a token whole again."""
    journal_file = tmp_path / "journal.jsonl"
    server = Server(tmp_path, "--journal", str(journal_file), "--log-level", "debug").start()
    jwt = provider_token()
    header_and_claims, signature = jwt.rsplit(".", 1)
    half = len(signature) // 2
    token = unique_token()
    control = f"http://127.0.0.1:{server.ports['control']}"
    try:
        sends = [
            [f"authorization: bearer {jwt}", f"apns-collapse-id: {jwt}"],
            [f"authorization: bearer {jwt}", f"apns-id: {jwt}"],
            [f"authorization: bearer {signature}"],
            [f"authorization: bearer {header_and_claims}.{signature[:half]} {signature[half:]}"],
        ]
        for headers in sends:
            run(["curl", "--http2", "-sS", "-o", "/dev/null", "--cacert", str(CA),
                 *[arg for header in headers for arg in ("-H", header)],
                 "-H", f"apns-topic: {TOPIC}", "-d", '{"aps":{"alert":"hi"}}', server.url(token)])
        run(["curl", "--http2", "-sS", "-o", "/dev/null", "--cacert", str(CA), "-H", f"authorization: bearer {jwt}",
             "-H", f"apns-topic: {TOPIC}", "-d", "{}", server.url(jwt)])
        server.journal.expect(token, count=len(sends))
        seen = {
            "events": json.dumps(server.journal.events(limit=100000)),
            "notifications": json.dumps(server.journal.notifications()),
        }
        # The dashboard's event stream, from the first event to the last one seen above.
        last = max(event["seq"] for event in server.journal.events(limit=100000))
        streamed = []
        with urllib.request.urlopen(control + "/v1/events/stream?after=0", timeout=10) as stream:
            while f"id: {last}" not in streamed:
                line = stream.readline()
                assert line, "the stream ended"
                streamed.append(line.decode(errors="replace").strip())
        seen["stream"] = "\n".join(streamed)
    finally:
        server.stop()
    seen["journal file"] = journal_file.read_text()
    seen["log"] = server.log_text()

    assert "<signature removed>" in seen["events"], "the tokens' header and claims are recorded"
    pieces = [signature, signature[:half], signature[half:]]
    for name, text in seen.items():
        for piece in pieces:
            assert piece not in text, f"a piece of the provider token's signature is in the {name}"
