"""The server side of every assertion: what the journal recorded, read over the control API
with the Python helper (python/mockapns; README, "Python: a server for your tests"), plus the
suite's two assertion shorthands."""

from __future__ import annotations

from typing import Any

from mockapns import ControlAPIError, ControlClient, WaitTimeout


class Journal:
    def __init__(self, control: ControlClient):
        self.control = control

    def request(self, method: str, path: str, body: Any = None, **query: Any) -> Any:
        return self.control.request(method, path, body, **query)

    def get(self, path: str, **query: Any) -> Any:
        return self.control.get(path, **query)

    def post(self, path: str, body: Any = None) -> Any:
        return self.control.post(path, body)

    # Notifications

    def notifications(self, **query: Any) -> list[dict]:
        return self.control.notifications(**query)

    def expect(self, token: str, count: int = 1, **fields: Any) -> dict:
        """Waits (up to 5 s) until the journal holds `count` notifications for `token` and
        returns the last one, after checking `fields` on it (for example status=410,
        reason="Unregistered")."""
        try:
            records = self.control.wait_for(count, token=token, timeout=5)
        except WaitTimeout as timeout:
            records = timeout.found
        except ControlAPIError:
            # A token the filter cannot take (not hex): look through everything.
            records = [r for r in self.control.notifications() if r.get("deviceToken") == token]
        assert len(records) >= count, f"journal has {len(records)} notifications for {token}, expected {count}"
        record = records[-1]
        mismatched = {k: (record.get(k), v) for k, v in fields.items() if record.get(k) != v}
        assert not mismatched, f"journal record for {token}: (recorded, expected) {mismatched}\n{record}"
        return record

    # Other events

    def events(self, **query: Any) -> list[dict]:
        return self.control.events(**query)

    def expect_event(self, type: str, timeout: float = 5, **fields: Any) -> dict:
        """Waits until an event of `type` whose fields include `fields` is in the journal.
        A string expected for a string field matches as a substring."""
        try:
            return self.control.wait_for_event(
                type, timeout=timeout, predicate=lambda event: all(_matches(event.get(k), v) for k, v in fields.items()),
            )
        except WaitTimeout as missing:
            raise AssertionError(f"no {type} event with {fields}: {missing}") from None


def _matches(recorded: Any, expected: Any) -> bool:
    if isinstance(expected, str) and isinstance(recorded, str):
        return expected in recorded
    return recorded == expected
