"""`mockapns.testcontainers.MockAPNsContainer` against the built OCI image, through a Docker API
(Docker's, or podman's: `podman system service`). A push with curl over HTTP/2, verified
against the CA copied out of the container, is answered 200 with an apns-id, and the control
API on the published port has it in its journal.

Runs where the image and a Docker API are: Tests/Release/image.sh builds the image, starts
podman's service and runs this file with MOCKAPNS_IMAGE set to the image. Anywhere else
(Tests/Interop/run.sh runs python/tests) it is skipped, saying what is missing.

    MOCKAPNS_IMAGE=localhost/mockapns:latest DOCKER_HOST=unix:///tmp/podman.sock \\
    TESTCONTAINERS_RYUK_DISABLED=true pytest python/tests/test_testcontainers.py

MOCKAPNS_TEST_ULIMITS (`nofile=SOFT:HARD,nproc=SOFT:HARD`) gives the container those limits,
where the host refuses the runtime's defaults (image.sh sets it when podman needs them).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from typing import Any, Dict, List

import pytest

pytest.importorskip("testcontainers", reason='testcontainers is not installed (pip install "./python[testcontainers]")')

import docker  # noqa: E402  (installed with testcontainers)
import docker.errors  # noqa: E402
import docker.types  # noqa: E402

import mockapns.server  # noqa: E402
from mockapns.testcontainers import DEFAULT_IMAGE, MockAPNsContainer, image_source  # noqa: E402

TOPIC = "com.example.app"
TOKEN = "a1b2c3d4" * 8


@pytest.fixture(scope="module")
def image() -> str:
    name = os.environ.get("MOCKAPNS_IMAGE")
    if not name:
        pytest.skip("MOCKAPNS_IMAGE is not set: Tests/Release/image.sh sets it to the image it builds (docs/guide/containers.md)")
    try:
        client = docker.from_env()
        client.ping()
    except Exception as error:  # no socket, refused, not a Docker API
        hint = (
            "start podman's Docker API (podman system service --time=0 unix:///tmp/podman.sock) and set "
            "DOCKER_HOST=unix:///tmp/podman.sock"
            if shutil.which("podman")
            else "neither Docker nor podman is installed"
        )
        pytest.skip(f"no Docker API at {os.environ.get('DOCKER_HOST', 'the default socket')} ({error}): {hint}")
    try:
        client.images.get(name)
    except docker.errors.ImageNotFound:
        pytest.skip(f"no image {name} here: build it from a release archive (docs/guide/containers.md)")
    finally:
        client.close()
    return name


def container_options() -> Dict[str, Any]:
    options: Dict[str, Any] = {}
    # A local socket: the published ports stay on loopback.
    if os.environ.get("DOCKER_HOST", "unix://").startswith("unix://"):
        options["bind_address"] = "127.0.0.1"
    limits = os.environ.get("MOCKAPNS_TEST_ULIMITS")
    if limits:
        ulimits: List[docker.types.Ulimit] = []
        for item in limits.split(","):
            name, _, values = item.partition("=")
            soft, _, hard = values.partition(":")
            ulimits.append(docker.types.Ulimit(name=name, soft=int(soft), hard=int(hard or soft)))
        options["ulimits"] = ulimits
    return options


def curl_push(apns: MockAPNsContainer, payload: Dict[str, Any], *auth: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["curl", "--http2", "-sS", "-D", "-", "-o", "/dev/null", "--cacert", str(apns.ca_file), *auth,
         "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert", "--data-binary", json.dumps(payload),
         apns.device_url(TOKEN)],
        capture_output=True, text=True, timeout=30,
    )


def response_headers(output: str) -> Dict[str, str]:
    lines = output.strip().splitlines()
    headers = {"status": lines[0].strip()}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return headers


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_container_answers_a_push_and_journals_it(image: str) -> None:
    with MockAPNsContainer(image, **container_options()) as apns:
        assert apns.push_url.startswith("https://") and apns.control_url.startswith("http://")
        assert apns.ca_file.read_text().startswith("-----BEGIN CERTIFICATE-----")

        # A provider token made inside the container, TLS verified against the copied CA.
        result = curl_push(apns, {"aps": {"alert": "from a container"}}, "-H", f"authorization: bearer {apns.provider_token()}")
        assert result.returncode == 0, f"curl: {result.stderr}\n{apns.logs_text()}"
        headers = response_headers(result.stdout)
        assert headers["status"] == "HTTP/2 200", result.stdout
        apns_id = headers.get("apns-id")
        assert apns_id, result.stdout

        # A client certificate copied out of the container.
        certificate, key = apns.credentials.client_certificate("sandbox")
        result = curl_push(apns, {"aps": {"alert": "with a certificate"}}, "--cert", str(certificate), "--key", str(key))
        assert result.returncode == 0, f"curl: {result.stderr}\n{apns.logs_text()}"
        assert response_headers(result.stdout)["status"] == "HTTP/2 200", result.stdout

        # The journal, through the published control port (the container's bearer token).
        first, second = apns.control.wait_for(2, token=TOKEN, timeout=10)
        assert (first["status"], first["responseApnsId"], first["topic"]) == (200, apns_id, TOPIC)
        assert json.loads(first["payload"]) == {"aps": {"alert": "from a container"}}
        assert first["authentication"]["kind"] == "providerToken"
        assert second["status"] == 200 and second["authentication"]["kind"] != "providerToken"

        container_id = apns.get_container_id()

    client = docker.from_env()
    try:
        with pytest.raises(docker.errors.NotFound):
            client.containers.get(container_id)
    finally:
        client.close()


def test_a_named_image_comes_first_then_the_binary_the_wheel_carries(tmp_path, monkeypatch):
    # The package as the platform wheel installs it: mockapns/bin/mockapns beside server.py.
    package = tmp_path / "mockapns"
    (package / "bin").mkdir(parents=True)
    carried = package / "bin" / "mockapns"
    carried.write_text("#!/bin/sh\n")
    carried.chmod(0o755)
    monkeypatch.delenv("MOCKAPNS_IMAGE", raising=False)
    monkeypatch.setattr(mockapns.server, "__file__", str(tmp_path / "elsewhere" / "server.py"))
    assert image_source() == ("image", DEFAULT_IMAGE), "no wheel binary: the image built from an archive"
    monkeypatch.setattr(mockapns.server, "__file__", str(package / "server.py"))
    assert image_source() == ("binary", str(carried)), "the wheel's binary, when no image is named"
    monkeypatch.setenv("MOCKAPNS_IMAGE", "registry.example.com/mockapns:1")
    assert image_source() == ("image", "registry.example.com/mockapns:1")
    assert image_source("mine:latest") == ("image", "mine:latest")


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_an_image_is_made_from_the_binary_when_none_is_named(monkeypatch):
    """Tests/Release/image.sh sets MOCKAPNS_RELEASE_BINARY (the archive's binary, as the wheel
    carries it) and MOCKAPNS_BASE_IMAGE (its minimal Debian root, imported as an image)."""
    binary, base = os.environ.get("MOCKAPNS_RELEASE_BINARY"), os.environ.get("MOCKAPNS_BASE_IMAGE")
    if not binary or not base:
        pytest.skip("MOCKAPNS_RELEASE_BINARY and MOCKAPNS_BASE_IMAGE are not set: Tests/Release/image.sh sets them")
    monkeypatch.delenv("MOCKAPNS_IMAGE", raising=False)
    container = MockAPNsContainer(binary=binary, base_image=base, **container_options())
    assert container.source == "binary"
    with container as apns:
        assert apns.image.startswith("localhost/mockapns-wheel:"), apns.image
        status = subprocess.run(
            ["curl", "--http2", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", str(apns.ca_file),
             "-H", f"authorization: bearer {apns.provider_token()}", "-H", f"apns-topic: {TOPIC}",
             "-H", "apns-push-type: alert", "-d", '{"aps":{"alert":"hi"}}', apns.device_url(TOKEN)],
            capture_output=True, text=True, timeout=30,
        )
        assert status.stdout == "200", status.stderr
        assert [record["status"] for record in apns.control.notifications(token=TOKEN)] == [200]
