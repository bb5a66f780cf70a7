"""The server side of every assertion: what the journal recorded, read over the control API
(plain HTTP JSON on 127.0.0.1, the "control" port of the ports file).

TODO(control-api): the control API is not in this build yet. Until it is, `Journal.expect`
records nothing and every test asserts only what its client reported. Replace the body of
`expect` with a query of the control API's notification endpoint once it lands.
"""

from __future__ import annotations

import json
import time
import urllib.request


class Journal:
    def __init__(self, port: int | None):
        self.port = port

    @property
    def available(self) -> bool:
        return self.port is not None

    def get(self, path: str):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=10) as response:
            return json.loads(response.read())

    def expect(self, token: str, **fields):
        """Waits until the journal holds a notification for `token` whose verdict matches
        `fields` (for example status=410, reason="Unregistered"), and returns it."""
        if not self.available:
            return None  # TODO(control-api): see the module comment.
        deadline = time.monotonic() + 5
        seen = []
        while time.monotonic() < deadline:
            seen = self.notifications(token)
            for record in seen:
                if all(record.get(key) == value for key, value in fields.items()):
                    return record
            time.sleep(0.05)
        raise AssertionError(f"journal has no notification for {token} with {fields}; it has {seen}")

    def notifications(self, token: str) -> list[dict]:
        return []  # TODO(control-api)
