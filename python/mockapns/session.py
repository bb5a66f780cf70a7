"""Sessions: credentials a running MockAPNs server issued, each with its own scenario, rules,
registry and view of the journal, so parallel test runs on one server do not see each other.

    session = ControlClient("http://127.0.0.1:2198").create_session(topics=["com.acme.app"])
    key, certificate, certificate_key = session.write_credentials(folder)
    ...                                   # the provider pushes with the session's key or certificate
    [record] = session.wait_for(token=token)   # only this session's notifications
    session.end()

Every `ControlClient` call on a `Session` is scoped to it: `load_scenario`, `add_rule`,
`unregister`, `notifications`, `wait_for`, `report`, `reset` and `clear_journal` see and change
the session alone. What belongs to the whole server (the clock, channels, web push, metrics)
is refused to a session's token (`ControlAPIError` 403).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

from .control import ControlClient, MockAPNsError


class Session(ControlClient):
    """One session on a server: a control client holding the session's control token, and its
    provider key and client certificate (PEM text, never printed by `repr`)."""

    def __init__(self, url: str, created: Mapping[str, Any], *, timeout: float = 15.0):
        super().__init__(url, bearer_token=created["controlToken"], timeout=timeout)
        self.id: str = created["id"]
        self.team_id: str = created["teamId"]
        self.key_id: str = created["keyId"]
        self.topics: List[str] = list(created["topics"])
        self.idle_seconds: Optional[int] = created.get("idleSeconds")
        self.provider_key_pem: str = created["providerKey"]
        self.certificate_pem: Optional[str] = created.get("certificate")
        self.certificate_key_pem: Optional[str] = created.get("certificateKey")
        self.certificate_unavailable: Optional[str] = created.get("certificateUnavailable")

    def __repr__(self) -> str:
        return f"Session(id={self.id!r}, team_id={self.team_id!r}, key_id={self.key_id!r}, topics={self.topics!r})"

    def write_credentials(self, folder: "Path | str") -> Tuple[Path, Optional[Path], Optional[Path]]:
        """Writes the session's key as `AuthKey_<key_id>.p8` beside a `keys.json` naming it (the
        key folder `mockapns token --key-dir` reads), and its certificate and certificate key
        as `client-session.pem` and `client-session-key.pem`; returns the three paths (the last
        two `None` when the server issued no certificate). Files are readable by the owner only."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        key = folder / f"AuthKey_{self.key_id}.p8"
        _write_private(key, self.provider_key_pem)
        manifest = {"keys": [{"keyId": self.key_id, "teamId": self.team_id, "environment": "both", "scope": "team",
                              "topics": self.topics}]}
        (folder / "keys.json").write_text(json.dumps(manifest, indent=2) + "\n")
        if self.certificate_pem is None or self.certificate_key_pem is None:
            return key, None, None
        certificate = folder / "client-session.pem"
        certificate.write_text(self.certificate_pem)
        certificate_key = folder / "client-session-key.pem"
        _write_private(certificate_key, self.certificate_key_pem)
        return key, certificate, certificate_key

    def provider_token(self, folder: "Path | str", *, binary: Optional[str] = None, issued_at: Optional[int] = None) -> str:
        """A provider token (JWT) signed with the session's key by `mockapns token`, from the
        key folder `write_credentials(folder)` wrote; `issued_at` (epoch seconds) defaults to
        the server clock's reading."""
        from .server import find_binary

        if issued_at is None:
            issued_at = self.clock()["millisecondsSince1970"] // 1000
        if not (Path(folder) / f"AuthKey_{self.key_id}.p8").exists():
            self.write_credentials(folder)
        args = [find_binary(binary), "token", "--key-dir", str(folder), "--key-id", self.key_id, "--issued-at", str(issued_at)]
        result = subprocess.run(args, capture_output=True, text=True, timeout=30)
        if result.returncode != 0:
            raise MockAPNsError(f"mockapns token failed ({result.returncode}): {result.stderr.strip()}")
        return result.stdout.strip()

    def end(self) -> None:
        """Ends the session (`DELETE /v1/sessions/{id}`): its scenario, rules and registry go,
        its token and key stop working. Ending one already ended is not an error."""
        from .control import ControlAPIError

        try:
            self.delete(f"/v1/sessions/{self.id}")
        except ControlAPIError as error:
            if error.status not in (401, 404):
                raise

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.end()


def _write_private(path: Path, text: str) -> None:
    path.touch(mode=0o600, exist_ok=True)
    path.chmod(0o600)
    path.write_text(text)
