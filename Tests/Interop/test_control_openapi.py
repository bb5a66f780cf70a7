"""The control API against its own OpenAPI document, with schemathesis: every check it has
(all are on unless schemathesis.toml turns one off: server errors, status codes, content
types, response schemas, schema-valid data accepted and invalid data refused, 405 with
`Allow` for undocumented methods, response time), a fixed number of examples per operation
and a fixed seed, so the run is bounded (about a minute) and repeatable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CONFIG = Path(__file__).with_name("schemathesis.toml")


def test_control_api_agrees_with_its_openapi_document(fresh_server, tmp_path):
    control = fresh_server.ports["control"]
    schemathesis = Path(sys.executable).with_name("st")
    # In tmp_path: hypothesis keeps its example database in the working directory.
    result = subprocess.run(
        [str(schemathesis), "--config-file", str(CONFIG), "run", f"http://127.0.0.1:{control}/openapi.json",
         "--max-examples", "40", "--seed", "20260101", "--workers", "1",
         "--request-timeout", "10", "--max-response-time", "5",
         # An event stream never ends by design; the Swift tests and the browser tests cover it.
         "--exclude-path", "/v1/events/stream",
         "--report", "junit", "--report-junit-path", str(tmp_path / "schemathesis.xml")],
        cwd=tmp_path, capture_output=True, timeout=900,
    )
    output = result.stdout.decode(errors="replace") + result.stderr.decode(errors="replace")
    assert result.returncode == 0, output[-6000:]
    assert fresh_server.process.poll() is None, "the server died:\n" + fresh_server.log_text()[-3000:]
