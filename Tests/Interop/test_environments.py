"""`mockapns serve --environment both`: a sandbox and a production listener for each protocol,
driven by curl and openssl, over one device registry in which each token belongs to one
environment."""

from __future__ import annotations

import pytest

from conftest import CA, CERTS, TOPIC, Server, provider_token, run, unique_token


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    # --ephemeral-ports (the helper's) gives the production listeners free ports too.
    instance = Server(tmp_path_factory.mktemp("both"), "--environment", "both").start()
    yield instance
    instance.stop()


def curl(port: int, token: str, *, key: str | None = "BOTHENV001", cert: str | None = None):
    args = ["curl", "-sS", "--http2", "--cacert", str(CA), "-o", "-", "-w", "\n%{http_code}",
            "-H", f"apns-topic: {TOPIC}", "--data-binary", '{"aps":{"alert":"hello"}}']
    if key:
        args += ["-H", f"authorization: bearer {provider_token(key)}"]
    if cert:
        args += ["--cert", str(CERTS / f"client-{cert}.pem"), "--key", str(CERTS / f"client-{cert}-key.pem")]
    result = run(args + [f"https://127.0.0.1:{port}/3/device/{token}"])
    assert result.returncode == 0, result.stderr.decode()
    body, _, status = result.stdout.decode().rpartition("\n")
    return int(status), body


def test_the_ports_file_names_both_environments(both):
    environments = both.ports["environments"]
    assert set(environments) == {"sandbox", "production"}
    for listener in ("http2", "gateway", "feedback", "channelManagement"):
        assert environments["sandbox"][listener] != environments["production"][listener], listener
    assert both.ports["http2"] == environments["sandbox"]["http2"]
    assert both.journal.get("/v1/ports")["environments"] == environments


def test_a_token_of_the_other_environment_is_bad_device_token(both):
    production = both.ports["environments"]["production"]["http2"]
    sandbox = both.ports["environments"]["sandbox"]["http2"]
    token = unique_token()
    assert curl(production, token) == (200, "")
    assert curl(sandbox, token) == (400, '{"reason":"BadDeviceToken"}')
    records = both.journal.notifications(token=token)
    assert [r["environment"] for r in records] == ["production", "sandbox"]
    diagnosis = both.journal.expect_event("diagnosis", code="registry.tokenInOtherEnvironment", message=token)
    assert "belongs to the production environment" in diagnosis["message"]


def test_certificates_and_keys_keep_their_environments(both):
    production = both.ports["environments"]["production"]["http2"]
    assert curl(production, unique_token(), key=None, cert="sandbox") == (403, '{"reason":"BadCertificateEnvironment"}')
    assert curl(production, unique_token(), key="SANDBOX001") == (403, '{"reason":"BadEnvironmentKeyIdInToken"}')
    assert curl(production, unique_token(), key=None, cert="production")[0] == 200


def test_openssl_reaches_each_gateway(both):
    for environment in ("sandbox", "production"):
        port = both.ports["environments"][environment]["gateway"]
        result = run(["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-CAfile", str(CA),
                      "-cert", str(CERTS / "client-universal.pem"), "-key", str(CERTS / "client-universal-key.pem"),
                      "-brief"], input=b"", timeout=20)
        assert b"Verification: OK" in result.stderr or b"Verify return code: 0" in result.stdout + result.stderr, result.stderr
