"""The server side of every assertion: what the journal recorded, read over the control API
(plain HTTP JSON on 127.0.0.1, the "control" port of the ports file; see the README's
"The control API" and Sources/MockAPNs/Control/control-api.openapi.json)."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request


class Journal:
    def __init__(self, port: int | None):
        self.port = port

    def request(self, method: str, path: str, body=None, **query):
        url = f"http://127.0.0.1:{self.port}{path}"
        if query:
            url += "?" + urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
        data = json.dumps(body).encode() if body is not None else None
        # The control API takes state changes only as JSON, with or without a body.
        headers = {} if method in ("GET", "HEAD") else {"Content-Type": "application/json"}
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        with urllib.request.urlopen(request, timeout=15) as response:
            text = response.read()
        return json.loads(text) if text else None

    def get(self, path: str, **query):
        return self.request("GET", path, **query)

    def post(self, path: str, body=None):
        return self.request("POST", path, body if body is not None else {})

    # Notifications

    def notifications(self, **query) -> list[dict]:
        return self.get("/v1/notifications", **query)["notifications"]

    def expect(self, token: str, count: int = 1, **fields) -> dict:
        """Waits (up to 5 s) until the journal holds `count` notifications for `token` and
        returns the last one, after checking `fields` on it (for example status=410,
        reason="Unregistered")."""
        try:
            answer = self.get("/v1/notifications/wait", token=token, count=count, timeout=5000)
            records = answer["notifications"]
        except urllib.error.HTTPError:
            # A token the filter cannot take (not hex): look through everything.
            records = [r for r in self.notifications() if r.get("deviceToken") == token]
        assert len(records) >= count, f"journal has {len(records)} notifications for {token}, expected {count}"
        record = records[-1]
        mismatched = {k: (record.get(k), v) for k, v in fields.items() if record.get(k) != v}
        assert not mismatched, f"journal record for {token}: (recorded, expected) {mismatched}\n{record}"
        return record

    # Other events

    def events(self, **query) -> list[dict]:
        return self.get("/v1/events", **query)["events"]

    def expect_event(self, type: str, timeout: float = 5, **fields) -> dict:
        """Waits until an event of `type` whose fields include `fields` is in the journal.
        A string expected for a string field matches as a substring."""
        deadline = time.monotonic() + timeout
        seen: list[dict] = []
        while True:
            seen = self.events(type=type)
            for event in seen:
                if all(_matches(event.get(k), v) for k, v in fields.items()):
                    return event
            if time.monotonic() > deadline:
                raise AssertionError(f"no {type} event with {fields}; recorded: {seen[-5:]}")
            time.sleep(0.05)


def _matches(recorded, expected) -> bool:
    if isinstance(expected, str) and isinstance(recorded, str):
        return expected in recorded
    return recorded == expected
