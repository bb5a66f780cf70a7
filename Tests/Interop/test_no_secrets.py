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
