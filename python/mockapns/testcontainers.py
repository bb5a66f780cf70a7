"""`MockAPNsContainer`: the MockAPNs OCI image (the repository's `Containerfile`) as a
Testcontainers module, for tests that run their dependencies in containers.

    from mockapns.testcontainers import MockAPNsContainer

    with MockAPNsContainer() as apns:                  # the image, ports published, ready
        my_provider.push(token, payload, url=apns.push_url, ca_file=apns.ca_file,
                         provider_token=apns.provider_token())
        [record] = apns.control.wait_for(token=token, timeout=5)
        assert record["status"] == 200

Needs the optional dependency: `pip install "./python[testcontainers]"`. The image is not on
any registry. Which one runs, in this order: the `image` named (or `$MOCKAPNS_IMAGE`); else,
when the installed package carries the server (the platform wheel's `mockapns/bin/mockapns`),
an image made from that binary on a base image with glibc (`base_image`, `$MOCKAPNS_BASE_IMAGE`,
else `debian:bookworm-slim`), laid out as the repository's Containerfile lays out its own and
built once per version and base; else `mockapns:latest`, built from a release archive
(docs/guide/containers.md).

The container runs the image's own command line (every listener on the container's
interfaces, the control API open to other machines with a bearer token) with a control token
generated for it (`MOCKAPNS_CONTROL_TOKEN`), so the control API on the published port answers
only this object. Readiness is the control API's `GET /v1/health` on the published port (what
`mockapns health` and the image's HEALTHCHECK ask inside the container); then the generated
development credentials are copied out of the container into a temporary folder.
"""

from __future__ import annotations

import hashlib
import io
import ipaddress
import json
import os
import secrets
import shutil
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import docker.errors
from testcontainers.core.config import ConnectionMode
from testcontainers.core.container import DockerContainer

from .control import ControlClient, MockAPNsError, _bracketed
from .server import Credentials, bundled_binary

__all__ = ["DEFAULT_BASE_IMAGE", "DEFAULT_IMAGE", "MockAPNsContainer", "image_source"]

# What `podman build -t mockapns` / `docker build -t mockapns` tags (podman stores it as
# localhost/mockapns:latest and finds it under this name too).
DEFAULT_IMAGE = "mockapns:latest"
# Where the image keeps its generated credentials ($XDG_DATA_HOME/mockapns; a volume).
CREDENTIALS_PATH = "/var/lib/mockapns/mockapns"
# The base an image made from the wheel's binary starts from: any root with glibc (and
# libstdc++) as new as the binary needs (the wheel's manylinux tag says which).
DEFAULT_BASE_IMAGE = "debian:bookworm-slim"
# The image's command line (Containerfile CMD); `serve_args` are added after it.
_IMAGE_COMMAND = ["serve", "--host", "0.0.0.0", "--control-host", "0.0.0.0", "--control-allow-remote"]
# The Containerfile's layout, over `base` instead of a debootstrap root, for the wheel's binary.
_WHEEL_IMAGE = """FROM {base}
COPY mockapns /usr/local/bin/mockapns
ENV XDG_DATA_HOME=/var/lib/mockapns
VOLUME /var/lib/mockapns
WORKDIR /srv
EXPOSE 2197 2195 2196 2198 2199 2200
ENTRYPOINT ["/usr/local/bin/mockapns"]
CMD {command}
HEALTHCHECK --interval=5s --timeout=6s CMD ["/usr/local/bin/mockapns", "health"]
"""


def image_source(image: Optional[str] = None, binary: Optional[str] = None) -> "tuple[str, str]":
    """What a `MockAPNsContainer` runs: `("image", name)` for an image named (`image`, else
    `$MOCKAPNS_IMAGE`), else `("binary", path)` for the server the package carries (`binary`,
    else `bundled_binary()`), to make an image from; else `("image", DEFAULT_IMAGE)`."""
    named = image or os.environ.get("MOCKAPNS_IMAGE")
    if named:
        return "image", named
    carried = binary or bundled_binary()
    if carried:
        return "binary", carried
    return "image", DEFAULT_IMAGE
_LOOPBACK_NAMES = {"localhost", "localhost.", "127.0.0.1", "::1"}


class MockAPNsContainer(DockerContainer):
    """One MockAPNs container with its ports published on free host ports.

    - `image`: the image name (default `$MOCKAPNS_IMAGE`, else one made from the server the
      platform wheel carries, else `mockapns:latest`).
    - `binary`, `base_image`: the server binary an image is made from when no image is named
      (default: the wheel's), and the base it goes on (default `$MOCKAPNS_BASE_IMAGE`, else
      `debian:bookworm-slim`).
    - `serve_args`: further `mockapns serve` flags after the image's own command line (e.g.
      `["--clock", "2026-01-01T00:00:00Z"]`; a `--scenario` file must be inside the container:
      add it with `with_copy_into_container` or a volume).
    - `control_token`: the control API's bearer token (default: a random one).
    - `bind_address`: the host address the ports are published on: `"127.0.0.1"` keeps them
      off other machines; the default (None) is Testcontainers' (every interface), which a
      remote Docker host (`DOCKER_HOST=tcp://...`) needs.
    - `allowed_hosts`: names the control API must answer to besides loopback ones; the
      Docker host's name is added when it is not a loopback name (the control API refuses
      other names with 421, against DNS rebinding).
    - `startup_timeout`: seconds to wait for `GET /v1/health`.
    - further keywords go to `DockerContainer` (and on to the Docker API's create call, e.g.
      `ulimits=`, `labels=`).
    """

    HTTP2_PORT = 2197
    GATEWAY_PORT = 2195
    FEEDBACK_PORT = 2196
    CONTROL_PORT = 2198
    CHANNEL_MANAGEMENT_PORT = 2199
    WEB_PUSH_PORT = 2200
    PORTS = (HTTP2_PORT, GATEWAY_PORT, FEEDBACK_PORT, CONTROL_PORT, CHANNEL_MANAGEMENT_PORT, WEB_PUSH_PORT)

    def __init__(
        self,
        image: Optional[str] = None,
        *,
        serve_args: Sequence[str] = (),
        control_token: Optional[str] = None,
        bind_address: Optional[str] = None,
        allowed_hosts: Sequence[str] = (),
        startup_timeout: float = 60.0,
        binary: Optional[str] = None,
        base_image: Optional[str] = None,
        **kwargs: Any,
    ) -> None:
        self.source, name = image_source(image, binary)
        self.base_image = base_image or os.environ.get("MOCKAPNS_BASE_IMAGE") or DEFAULT_BASE_IMAGE
        # Made from the binary at start (`_image_from_binary`); until then, named for it.
        self._binary = name if self.source == "binary" else None
        super().__init__(name if self.source == "image" else "mockapns-wheel:unbuilt", **kwargs)
        # 16 to 256 characters, as the server requires.
        self.control_token = control_token or secrets.token_urlsafe(24)
        self.serve_args: List[str] = list(serve_args)
        self.allowed_hosts: List[str] = list(allowed_hosts)
        self.startup_timeout = startup_timeout
        self.bind_address = bind_address
        for port in self.PORTS:
            # docker-py: (address,) publishes on that address with a free port; None on all.
            self.ports[f"{port}/tcp"] = (bind_address,) if bind_address else None  # type: ignore[assignment]
        self.with_env("MOCKAPNS_CONTROL_TOKEN", self.control_token)
        self._credentials_dir: Optional[Path] = None
        self._control: Optional[ControlClient] = None

    # Lifecycle

    def start(self) -> "MockAPNsContainer":
        names = list(self.allowed_hosts)
        docker = self.get_docker_client()
        if docker.get_connection_mode() == ConnectionMode.docker_host:
            host = docker.host()
            if host not in _LOOPBACK_NAMES and not _is_loopback_address(host):
                names.append(host)
        command = list(_IMAGE_COMMAND)
        for name in dict.fromkeys(names):
            command += ["--control-allowed-host", name]
        self.with_command(command + self.serve_args)
        try:
            if self._binary is not None:
                self.image = self._image_from_binary(self._binary)
            super().start()
            self._wait_until_ready()
            self._copy_credentials()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self, force: bool = True, delete_volume: bool = True) -> None:
        """Removes the container (and its anonymous volume: the credentials) and the copied
        credentials. Safe to call twice."""
        try:
            if self._container is not None:
                try:
                    self._container.remove(force=force, v=delete_volume)
                except docker.errors.NotFound:
                    pass
                self._container = None
            self.get_docker_client().client.close()
        finally:
            if self._credentials_dir is not None:
                shutil.rmtree(self._credentials_dir, ignore_errors=True)
                self._credentials_dir = None
            self._control = None

    def __enter__(self) -> "MockAPNsContainer":
        return self.start()

    # Where it is

    @property
    def host(self) -> str:
        """The host the published ports are on, as Testcontainers finds it (`localhost` for a
        local Docker or podman socket)."""
        return self.get_container_host_ip()

    def port(self, container_port: int) -> int:
        """The host port published for one of the container's ports (`HTTP2_PORT`, ...)."""
        return int(self.get_exposed_port(container_port))

    @property
    def push_url(self) -> str:
        """The HTTP/2 provider API, e.g. `https://localhost:32771` (POST `/3/device/<token>`).
        The server's certificate names `localhost`, 127.0.0.1 and ::1 (and Apple's host names):
        a client reaching it under another name must verify it as `localhost`."""
        return f"https://{_bracketed(self.host)}:{self.port(self.HTTP2_PORT)}"

    def device_url(self, token: str) -> str:
        """`push_url` + `/3/device/<token>`."""
        return f"{self.push_url}/3/device/{token}"

    @property
    def gateway_address(self) -> "tuple[str, int]":
        """The legacy binary gateway (TLS with a client certificate)."""
        return self.host, self.port(self.GATEWAY_PORT)

    @property
    def feedback_address(self) -> "tuple[str, int]":
        """The legacy feedback service."""
        return self.host, self.port(self.FEEDBACK_PORT)

    @property
    def channel_management_url(self) -> str:
        """The broadcast channel management API."""
        return f"https://{_bracketed(self.host)}:{self.port(self.CHANNEL_MANAGEMENT_PORT)}"

    @property
    def web_push_url(self) -> str:
        """Safari's web push endpoint (HTTP/2 and HTTP/1.1), on by default in the image."""
        return f"https://{_bracketed(self.host)}:{self.port(self.WEB_PUSH_PORT)}"

    @property
    def control_url(self) -> str:
        """The control API (plain HTTP; needs `Authorization: Bearer <control_token>`)."""
        return f"http://{_bracketed(self.host)}:{self.port(self.CONTROL_PORT)}"

    @property
    def control(self) -> ControlClient:
        """A `ControlClient` of the container's control API, with its bearer token:
        `notifications()`, `wait_for()`, `load_scenario()`, `reset()`, `report()`, ..."""
        if self._control is None:
            self._control = ControlClient(self.control_url, bearer_token=self.control_token)
        return self._control

    # Credentials

    @property
    def credentials(self) -> Credentials:
        """The container's generated development credentials, copied out of it: `ca_file`,
        `client_certificate(kind)`, `client_bundle(kind)`, `key_file(key_id)`, `team_id(key_id)`."""
        if self._credentials_dir is None:
            raise MockAPNsError("the container is not started")
        return Credentials(self._credentials_dir)

    @property
    def ca_file(self) -> Path:
        """`ca.pem`: what a client must trust to accept the server's certificate."""
        return self.credentials.ca_file

    def provider_token(self, key_id: str = "SANDBOX001", *, team: Optional[str] = None, clock: Optional[str] = None) -> str:
        """A provider token (JWT) made by `mockapns token` inside the container, with its key.
        Against a server started with `--clock`, pass the same `clock`."""
        command = ["mockapns", "token", "--key-id", key_id, "--key-dir", CREDENTIALS_PATH]
        if team is not None:
            command += ["--team", team]
        if clock is not None:
            command += ["--clock", clock]
        result = self.exec(command)
        output = result.output.decode("utf-8", errors="replace").strip()
        if result.exit_code != 0:
            raise MockAPNsError(f"mockapns token in the container exited {result.exit_code}: {output}")
        return output.splitlines()[-1]

    def logs_text(self) -> str:
        """What the server printed (standard output, then standard error)."""
        stdout, stderr = self.get_logs()
        return (stdout + stderr).decode("utf-8", errors="replace")

    # Internals

    def _image_from_binary(self, binary: str) -> str:
        """The image of `binary` over `base_image`, built unless there: tagged with the binary's
        size and modification time and the base, so another binary or base makes another."""
        status = os.stat(binary)
        key = hashlib.sha256(f"{status.st_size}:{status.st_mtime_ns}:{self.base_image}".encode()).hexdigest()[:16]
        tag = f"localhost/mockapns-wheel:{key}"
        client = self.get_docker_client().client
        try:
            client.images.get(tag)
            return tag
        except docker.errors.ImageNotFound:
            pass
        context = io.BytesIO()
        with tarfile.open(fileobj=context, mode="w") as tar:
            recipe = _WHEEL_IMAGE.format(base=self.base_image, command=json.dumps(_IMAGE_COMMAND)).encode()
            info = tarfile.TarInfo("Dockerfile")
            info.size = len(recipe)
            tar.addfile(info, io.BytesIO(recipe))
            tar.add(binary, arcname="mockapns")
        context.seek(0)
        try:
            client.images.build(fileobj=context, custom_context=True, tag=tag, rm=True, pull=False)
        except (docker.errors.BuildError, docker.errors.APIError) as error:
            raise MockAPNsError(
                f"could not make an image of {binary} over {self.base_image} ({error}); name a built image instead "
                "(image=, MOCKAPNS_IMAGE), or another base (base_image=, MOCKAPNS_BASE_IMAGE) with glibc as new as "
                "the wheel's manylinux tag says"
            ) from error
        return tag

    def _wait_until_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        last = "no answer yet"
        while True:
            container = self.get_wrapped_container()
            container.reload()
            if container.status in ("exited", "dead"):
                raise MockAPNsError(
                    f"the MockAPNs container ({self.image}) exited before it was ready "
                    f"(status {container.attrs.get('State', {}).get('ExitCode')}):\n{self.logs_text()[-4000:]}"
                )
            if container.status == "running":
                try:
                    client = ControlClient(self.control_url, bearer_token=self.control_token, timeout=2.0)
                    health: Dict[str, Any] = client.health()
                    if isinstance(health, dict):
                        return
                    last = f"GET /v1/health answered {health!r}"
                except (MockAPNsError, OSError, StopIteration) as error:
                    # Not listening yet, or the container ended meanwhile (seen next round).
                    last = str(error)
            if time.monotonic() > deadline:
                raise MockAPNsError(
                    f"the MockAPNs container ({self.image}) was not ready within {self.startup_timeout:g} s "
                    f"(GET /v1/health: {last}):\n{self.logs_text()[-4000:]}"
                )
            time.sleep(0.2)

    def _copy_credentials(self) -> None:
        stream, _ = self.get_wrapped_container().get_archive(CREDENTIALS_PATH)
        archive = io.BytesIO(b"".join(stream))
        folder = Path(tempfile.mkdtemp(prefix="mockapns-container-"))
        with tarfile.open(fileobj=archive) as tar:
            # The archive holds one folder, `mockapns/`, with regular files only.
            for member in tar.getmembers():
                parts = Path(member.name).parts
                if not member.isfile() or len(parts) != 2:
                    continue
                source = tar.extractfile(member)
                if source is not None:
                    (folder / parts[1]).write_bytes(source.read())
        if not (folder / "ca.pem").exists():
            shutil.rmtree(folder, ignore_errors=True)
            raise MockAPNsError(f"no ca.pem in the container's {CREDENTIALS_PATH}")
        self._credentials_dir = folder


def _is_loopback_address(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
