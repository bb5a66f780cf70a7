"""h2spec --strict, the HTTP/2 conformance suite, against the HTTP/2 port of `mockapns serve`
in its default configuration (TLS, authentication on).

h2spec is not in a package registry: build it from its source (summerwind/h2spec) and put
it on PATH or name it in H2SPEC. Without it the case is reported skipped with that reason.
"""

from __future__ import annotations

import os
import re
import shutil

import pytest

from conftest import CA, TOPIC, provider_token, run, unique_token


def h2spec_binary() -> str | None:
    return os.environ.get("H2SPEC") or shutil.which("h2spec")


def test_h2spec_strict_passes_every_case(fresh_server, tmp_path):
    binary = h2spec_binary()
    if binary is None:
        pytest.skip("h2spec is not installed: build summerwind/h2spec from source and put it on PATH or in H2SPEC")
    report = tmp_path / "h2spec.xml"
    result = run(
        [binary, "--strict", "--tls", "--insecure", "--host", "127.0.0.1", "--port", str(fresh_server.http2),
         "--timeout", "5", "--junit-report", str(report)],
        timeout=600,
    )
    output = result.stdout.decode(errors="replace")
    summary = re.search(r"(\d+) tests, (\d+) passed, (\d+) skipped, (\d+) failed", output)
    assert summary, output[-3000:]
    total, passed, skipped, failed = map(int, summary.groups())
    failures = [line for line in output.splitlines() if "×" in line]
    assert (failed, skipped) == (0, 0), "\n".join(failures) or output[-3000:]
    assert passed == total == 147, summary.group(0)

    # The server took every broken input in its stride: a real client is still served.
    status = run([
        "curl", "-sS", "--http2", "--cacert", str(CA), "-o", "/dev/null", "-w", "%{http_code}",
        "-H", f"apns-topic: {TOPIC}", "-H", f"authorization: bearer {provider_token()}",
        "--data-binary", '{"aps":{"alert":"hi"}}', fresh_server.url(unique_token()),
    ])
    assert status.stdout.decode() == "200", status.stderr.decode()
