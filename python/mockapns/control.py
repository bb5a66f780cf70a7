"""The control API of a running MockAPNs server: plain HTTP/1.1 JSON on a loopback port.

Every request follows the control port's rules (docs/guide/control-api.md): the `Host` header
names the loopback address the request is sent to, no `Origin` is sent, and every request
that is not GET or HEAD carries `Content-Type: application/json`, with a body or without.
A refusal raises `ControlAPIError` with the server's `{"error", "parameter"}`.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import os
import time
import urllib.parse
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Union

from .rules import Rule

if TYPE_CHECKING:  # session.py imports this module
    from .session import Session

Notification = Dict[str, Any]
"""One notification record of the journal (`seq`, `deviceToken`, `topic`, `status`, `reason`,
`payload`, ...; the OpenAPI document's `Notification`)."""

Event = Dict[str, Any]
"""One journal event (`seq`, `type` and the fields of its kind; see `GET /v1/event-kinds`)."""

# The server answers a long poll after at most this many milliseconds (`maximumWaitMilliseconds`).
_LONGEST_WAIT_MS = 300_000
# What a page of notifications or events holds unless `limit` says otherwise (the API's default).
_PAGE = 1000


class MockAPNsError(Exception):
    """Anything this package reports: a refusal, a timeout, a server that stopped or never started."""


class ControlAPIError(MockAPNsError):
    """The control API refused a request: its status and the server's JSON error.

    `error` is the server's explanation (for a JSON body it starts with the line and column and
    names the JSON path, e.g. `$.rules[0].action`), `parameter` what it blames: a query
    parameter (`limit`), `path`, `body`, a JSON path, or a header (`Host`, `Content-Type`).
    """

    def __init__(self, method: str, path: str, status: int, error: str, parameter: Optional[str], body: bytes):
        self.method = method
        self.path = path
        self.status = status
        self.error = error
        self.parameter = parameter
        self.body = body
        blame = f" (parameter: {parameter})" if parameter else ""
        super().__init__(f"{method} {path}: {status} {error}{blame}")


class WaitTimeout(MockAPNsError, TimeoutError):
    """What was waited for did not happen in time. `found` holds what matched by then;
    for a wait for notifications, `near_misses` the notifications that came closest, ranked
    (fewest failed conditions first, then the newest; at most 5), each
    `{"notification": {...}, "differences": [{"condition", "expected", "actual"}]}`."""

    def __init__(self, message: str, found: List[Dict[str, Any]], near_misses: Optional[List[Dict[str, Any]]] = None):
        super().__init__(message)
        self.found = found
        self.near_misses = near_misses or []


class ControlClient:
    """A client of one server's control API (`http://127.0.0.1:2198` unless told otherwise).

    `MockAPNs` is one of these for the server it started; use this class directly for a server
    started elsewhere (a compose service, `mockapns serve` in another terminal).
    `bearer_token` is needed only for a server with `--control-allow-remote` reached from
    another machine.
    """

    def __init__(self, url: str = "http://127.0.0.1:2198", *, bearer_token: Optional[str] = None, timeout: float = 15.0):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "http" or not parts.hostname or not parts.port:
            raise ValueError(f"the control API is plain http with a host and a port, like http://127.0.0.1:2198, not {url!r}")
        self._control_host: str = parts.hostname
        self._control_port: Optional[int] = parts.port
        self.bearer_token = bearer_token
        self.timeout = timeout

    @property
    def control_url(self) -> str:
        """The control API's base URL, e.g. `http://127.0.0.1:41021` (its dashboard is at `/`)."""
        host, port = self._address()
        return f"http://{_bracketed(host)}:{port}"

    # Requests

    def request(self, method: str, path: str, body: Any = None, *, long_poll: float = 0.0, **query: Any) -> Any:
        """Sends one request and returns the answer: parsed JSON, text for other types
        (`/metrics`), None when empty.

        `body` is JSON-encoded unless it is `bytes` (sent as they are). Query values: None is
        left out, booleans are `true`/`false`, lists are joined with commas. `long_poll` is how
        long (seconds) the server may hold the answer, added to the client's timeout.
        Raises `ControlAPIError` when the server refuses, `MockAPNsError` when it cannot be reached.
        """
        target = path
        pairs = [(name, _query_value(value)) for name, value in query.items() if value is not None]
        if pairs:
            target += "?" + urllib.parse.urlencode(pairs)
        headers = {"Accept": "application/json"}
        data: Optional[bytes] = None
        if method.upper() not in ("GET", "HEAD"):
            headers["Content-Type"] = "application/json"
            if body is not None:
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
        elif body is not None:
            raise ValueError(f"{method} takes no body")
        if self.bearer_token:
            headers["Authorization"] = f"Bearer {self.bearer_token}"
        host, port = self._address()
        connection = http.client.HTTPConnection(host, port, timeout=self.timeout + long_poll)
        try:
            connection.request(method, target, body=data, headers=headers)
            response = connection.getresponse()
            raw = response.read()
        except OSError as error:
            self._unreachable(error)
            raise MockAPNsError(f"{method} {path}: cannot reach the control API at {self.control_url}: {error}") from error
        finally:
            connection.close()
        content_type = response.getheader("Content-Type", "")
        if response.status >= 400:
            raise _refusal(method, path, response.status, raw, content_type)
        if not raw:
            return None
        if content_type.startswith("application/json"):
            return json.loads(raw)
        return raw.decode("utf-8", errors="replace")

    def get(self, path: str, **query: Any) -> Any:
        """GET `path` (query parameters as keywords)."""
        return self.request("GET", path, **query)

    def post(self, path: str, body: Any = None, **query: Any) -> Any:
        """POST `path` with `body` as JSON ({} when None)."""
        return self.request("POST", path, {} if body is None else body, **query)

    def put(self, path: str, body: Any, **query: Any) -> Any:
        """PUT `path` with `body` as JSON."""
        return self.request("PUT", path, body, **query)

    def delete(self, path: str, **query: Any) -> Any:
        """DELETE `path`."""
        return self.request("DELETE", path, **query)

    # The server

    def health(self) -> Dict[str, Any]:
        """`GET /v1/health`: liveness and how full the journal is."""
        return self.get("/v1/health")

    # Notifications

    def notifications(
        self,
        *,
        token: Optional[str] = None,
        topic: Optional[str] = None,
        protocol: Optional[str] = None,
        status: Optional[int] = None,
        reason: Optional[str] = None,
        accepted: Optional[bool] = None,
        connection: Optional[int] = None,
        after: Optional[int] = None,
        limit: Optional[int] = None,
        push_type: Optional[str] = None,
        priority: Optional[int] = None,
        payload_path: Optional[str] = None,
        payload_value: Optional[str] = None,
    ) -> List[Notification]:
        """The recorded notifications that match every filter given, oldest first (at most
        `limit`, default 1000). `protocol` is `http2`, `legacy`, `feedback` or `webPush`; `reason` one of
        Apple's reasons (`BadDeviceToken`); `after` a journal sequence number (`seq`);
        `payload_path` a dotted path the JSON payload must have (`aps.alert.title`), holding
        `payload_value` when that is given (a string's text, or a number or boolean as written)."""
        filters = _notification_filters(token, topic, protocol, status, reason, accepted, connection, after,
                                        push_type, priority, payload_path, payload_value)
        return self.get("/v1/notifications", limit=limit, **filters)["notifications"]

    def wait_for(
        self,
        count: int = 1,
        *,
        timeout: float = 10.0,
        predicate: Optional[Callable[[Notification], bool]] = None,
        token: Optional[str] = None,
        topic: Optional[str] = None,
        protocol: Optional[str] = None,
        status: Optional[int] = None,
        reason: Optional[str] = None,
        accepted: Optional[bool] = None,
        connection: Optional[int] = None,
        after: Optional[int] = None,
        push_type: Optional[str] = None,
        priority: Optional[int] = None,
        payload_path: Optional[str] = None,
        payload_value: Optional[str] = None,
    ) -> List[Notification]:
        """Waits until `count` recorded notifications match, and returns the matches (at least
        `count`), oldest first. Notifications recorded before the call count too; to count only
        later ones, pass `after=` the journal's `lastSequence` (`health()["journal"]`) read first.

        The filters are those of `notifications()`, applied by the server; `predicate`, when
        given, is applied here to each record the filters let through (say, on its payload).
        The wait is the server's long poll, so it returns as soon as the last one is recorded.
        Raises `WaitTimeout` after `timeout` seconds, naming what matched and the near misses:
        the notifications that came closest, each with the conditions it failed
        (`WaitTimeout.near_misses`, from the server's `408` answer).
        """
        if count < 1:
            raise ValueError("count must be at least 1")
        filters = _notification_filters(token, topic, protocol, status, reason, accepted, connection, after,
                                        push_type, priority, payload_path, payload_value)
        deadline = time.monotonic() + timeout
        found: List[Notification] = []
        near_misses: List[Dict[str, Any]] = []
        if predicate is None:
            while True:
                left = _milliseconds_left(deadline)
                answer = self._wait_page(filters, count=count, left_ms=left, limit=max(count, _PAGE))
                found = answer["notifications"]
                near_misses = answer.get("nearMisses", [])
                if answer.get("complete"):
                    return found
                if left < _LONGEST_WAIT_MS:
                    break
        else:
            # The server filters; each new record is then judged here. `after` walks the journal.
            filters = dict(filters)
            while True:
                left = _milliseconds_left(deadline)
                answer = self._wait_page(filters, count=1, left_ms=left, limit=_PAGE)
                page = answer["notifications"]
                near_misses = answer.get("nearMisses", near_misses)
                found += [record for record in page if predicate(record)]
                if len(found) >= count:
                    return found
                if page:
                    filters["after"] = page[-1]["seq"]
                elif left == 0:
                    break
        wanted = ", ".join(f"{name}={value!r}" for name, value in filters.items() if name != "after" or after is not None)
        if predicate is not None:
            wanted += (", " if wanted else "") + "the predicate"
        closest = "\n".join("  " + _summary(miss["notification"]) + ": " + "; ".join(
            f"{difference['condition']}: expected {difference['expected']}, got {difference['actual']}"
            for difference in miss["differences"]) for miss in near_misses)
        raise WaitTimeout(
            f"waited {timeout:g} s for {count} notification(s) matching {wanted or 'anything'}; "
            f"{len(found)} matched. "
            + (f"Closest:\n{closest}" if closest else f"The journal's last notifications:\n{self._last_notifications()}"),
            found,
            near_misses,
        )

    def _wait_page(self, filters: Mapping[str, Any], *, count: int, left_ms: int, limit: int) -> Dict[str, Any]:
        # The server answers 408 when the wait ran out, with what matched and the near misses.
        try:
            return self.request("GET", "/v1/notifications/wait", count=count, timeout=left_ms, limit=limit,
                                long_poll=left_ms / 1000, **filters)
        except ControlAPIError as refusal:
            if refusal.status != 408:
                raise
            return json.loads(refusal.body)

    # Rules added on top of the scenario (a rule per test)

    def add_rule(self, rule: Union[Rule, Mapping[str, Any]]) -> Dict[str, Any]:
        """Adds one rule on top of the running scenario (`POST /v1/scenario/rules`): tried before
        the scenario's own rules, the newest first, and kept when the scenario is replaced, until
        `remove_rule()` or `reset()`. Returns `{"id", "fired", "rule"}`, the rule as stored.
        A rule the scenario decoder refuses raises `ControlAPIError` naming its JSON path."""
        return self.post("/v1/scenario/rules", rule.to_json() if isinstance(rule, Rule) else dict(rule))

    def remove_rule(self, rule: Union[int, Mapping[str, Any]]) -> Dict[str, Any]:
        """Removes an added rule by its id, or by what `add_rule()` returned
        (`DELETE /v1/scenario/rules/{id}`); an id no added rule has raises `ControlAPIError` (404)."""
        id = rule["id"] if isinstance(rule, Mapping) else int(rule)
        return self.delete(f"/v1/scenario/rules/{id}")

    def added_rules(self) -> List[Dict[str, Any]]:
        """The rules added on top of the scenario, newest (tried first) first, each
        `{"id", "fired", "rule"}`."""
        return self.get("/v1/scenario/rules")["rules"]

    @contextlib.contextmanager
    def rule(self, rule: Union[Rule, Mapping[str, Any]]) -> Iterator[Dict[str, Any]]:
        """Adds `rule` for the `with` block and removes it when the block ends, however it ends;
        yields the rule as stored (`{"id", "fired", "rule"}`)."""
        added = self.add_rule(rule)
        try:
            yield added
        finally:
            try:
                self.remove_rule(added)
            except ControlAPIError as error:
                # A reset inside the block already removed it.
                if error.status != 404:
                    raise

    # Other journal events

    def events(
        self,
        type: Union[str, Sequence[str], None] = None,
        *,
        connection: Optional[int] = None,
        stream: Optional[int] = None,
        protocol: Optional[str] = None,
        channel: Optional[str] = None,
        after: Optional[int] = None,
        limit: Optional[int] = None,
    ) -> List[Event]:
        """Journal events, oldest first: of the kinds in `type` (one or several:
        `tlsEstablished`, `http2Frame`, `legacyFrame`, `diagnosis`, `verdict`, ...), on one
        connection or stream, of one protocol, about one broadcast channel, after a sequence
        number."""
        query = dict(type=type, connection=connection, stream=stream, protocol=protocol, channel=channel, after=after)
        return self.get("/v1/events", limit=limit, **query)["events"]

    def wait_for_event(
        self,
        type: Union[str, Sequence[str], None] = None,
        *,
        timeout: float = 10.0,
        predicate: Optional[Callable[[Event], bool]] = None,
        connection: Optional[int] = None,
        stream: Optional[int] = None,
        protocol: Optional[str] = None,
        channel: Optional[str] = None,
        after: Optional[int] = None,
    ) -> Event:
        """The first journal event that matches the filters of `events()` and `predicate`;
        events recorded before the call count too. Waits with the server's long poll; raises
        `WaitTimeout` after `timeout` seconds with the last events of those kinds."""
        query: Dict[str, Any] = dict(type=type, connection=connection, stream=stream, protocol=protocol, channel=channel, after=after)
        deadline = time.monotonic() + timeout
        seen: List[Event] = []
        while True:
            left = _milliseconds_left(deadline)
            answer = self._events_page(query, left)
            page = answer["events"]
            for event in page:
                if predicate is None or predicate(event):
                    return event
            if page:
                seen = (seen + page)[-5:]
                query["after"] = page[-1]["seq"]
            elif left == 0:
                break
        raise WaitTimeout(
            f"waited {timeout:g} s for a {_kinds(type)} event{' matching the predicate' if predicate else ''}; "
            f"the last ones of that kind: {json.dumps(seen)}",
            [],
        )

    def _events_page(self, query: Mapping[str, Any], left_ms: int) -> Dict[str, Any]:
        # `wait` makes the server hold the answer until an event matches (at least 1 ms).
        if left_ms == 0:
            return self.get("/v1/events", limit=_PAGE, **query)
        return self.request("GET", "/v1/events", limit=_PAGE, wait=left_ms, long_poll=left_ms / 1000, **query)

    # Provider verdicts, scenarios, reset

    def report(self) -> Dict[str, Any]:
        """`GET /v1/report`: the verdicts on each provider's retry logic since the start or the
        last reset (`providers[].rules[]` with `passed` and `findings`, `brokenRules`, `totals`)."""
        return self.get("/v1/report")

    def load_scenario(self, scenario: Union[Mapping[str, Any], str, "os.PathLike[str]"]) -> Dict[str, Any]:
        """Replaces the running scenario (`PUT /v1/scenario`) with a dict or the scenario file
        at a path (sent as written, so an error's line and column are the file's), and returns
        its summary. A broken scenario changes nothing and raises `ControlAPIError` naming the
        JSON path at fault."""
        if isinstance(scenario, Mapping):
            return self.put("/v1/scenario", dict(scenario))
        return self.put("/v1/scenario", Path(scenario).read_bytes())

    def scenario(self) -> Dict[str, Any]:
        """`GET /v1/scenario`: the running scenario, its named state and each rule's firings."""
        return self.get("/v1/scenario")

    def reset(self) -> Dict[str, Any]:
        """`POST /v1/reset`: clears the journal, the device registry, the feedback queue and the
        delivery model, puts the broadcast channels back, starts the running scenario over and
        sets the clock back; returns what was cleared."""
        return self.post("/v1/reset", {})

    # Sessions

    def create_session(
        self, *, topics: Optional[Sequence[str]] = None, idle_seconds: Optional[int] = None,
        scenario: Optional[Mapping[str, Any]] = None,
    ) -> "Session":
        """`POST /v1/sessions`: a session with a provider key, a client certificate and a
        control token of its own, starting with `scenario` (default: the server's). Returns a
        `Session`, a client scoped to it. `idle_seconds=0` keeps it until `end()`."""
        from .session import Session

        body: Dict[str, Any] = {}
        if topics is not None:
            body["topics"] = list(topics)
        if idle_seconds is not None:
            body["idleSeconds"] = idle_seconds
        if scenario is not None:
            body["scenario"] = dict(scenario)
        return Session(self.control_url, self.post("/v1/sessions", body), timeout=self.timeout)

    def sessions(self) -> List[Dict[str, Any]]:
        """`GET /v1/sessions`: every session (or, for a session's client, its own), without secrets."""
        return self.get("/v1/sessions")["sessions"]

    def clear_journal(self) -> None:
        """`DELETE /v1/journal`: forgets the journal (sequence numbers keep rising) and starts
        the provider verdicts over."""
        self.delete("/v1/journal")

    # The device registry

    def unregister(self, token: str, *, since: Union[datetime, float, None] = None, topic: Optional[str] = None) -> Dict[str, Any]:
        """Marks a device token unregistered since `since` (a datetime or epoch seconds; default
        the server's now): pushes to it get 410 `Unregistered` with that timestamp, and the
        legacy feedback service reports it once."""
        body: Dict[str, Any] = {}
        if since is not None:
            body["since"] = _milliseconds_since_1970(since)
        if topic is not None:
            body["topic"] = topic
        return self.post(f"/v1/registry/{urllib.parse.quote(token, safe='')}/unregister", body)

    # Web push subscriptions (Safari's web push endpoint)

    def subscribe_web_push(self, application_server_key: Union[str, bytes]) -> Dict[str, Any]:
        """Subscribes a page, as `pushManager.subscribe({applicationServerKey})` does in Safari:
        `application_server_key` is the VAPID public key, the 65-byte uncompressed P-256 point
        (bytes, or their base64url text). Returns the subscription: what `PushSubscription.toJSON()`
        gives the page (`endpoint`, `expirationTime`, `keys` with `p256dh` and `auth`), usable
        as it is as pywebpush's `subscription_info`, plus its `id` (the journal's `deviceToken`
        of each push to it) and `state` (`active`). A key that is not such a point raises
        `ControlAPIError` with `parameter` `$.applicationServerKey`."""
        if isinstance(application_server_key, (bytes, bytearray)):
            application_server_key = base64.urlsafe_b64encode(bytes(application_server_key)).rstrip(b"=").decode()
        return self.post("/v1/web-push/subscriptions", {"applicationServerKey": application_server_key})

    def web_push_subscriptions(self) -> List[Dict[str, Any]]:
        """Every web push subscription the server knows, whatever its `state` (`active`,
        `expired`, `revoked`), oldest first. `reset()` forgets them all."""
        return self.get("/v1/web-push/subscriptions")["subscriptions"]

    def web_push_subscription(self, id: str) -> Dict[str, Any]:
        """One web push subscription by its `id`; an unknown one raises `ControlAPIError` (404)."""
        return self.get(_web_push_path(id))

    def expire_web_push(self, id: str) -> Dict[str, Any]:
        """Lets a subscription expire, as Safari does when it drops one: pushes to its endpoint
        are then answered 410 `Unregistered`. Returns the subscription (`state` `expired`)."""
        return self.post(_web_push_path(id) + "/expire", {})

    def revoke_web_push(self, id: str) -> Dict[str, Any]:
        """Revokes a subscription, as when the user turns the site's notifications off or the
        page calls `unsubscribe()`: pushes to its endpoint are then answered 410 `Unregistered`
        (and a provider that keeps pushing breaks the `unregistered-token` rule of `report()`).
        Returns the subscription (`state` `revoked`)."""
        return self.post(_web_push_path(id) + "/revoke", {})

    def forget_web_push(self, id: str) -> Dict[str, Any]:
        """Removes a subscription altogether (`DELETE`): pushes to its endpoint are then answered
        400 `BadDeviceToken`, as for one the server never issued. Returns `{"id", "deleted"}`."""
        return self.request("DELETE", _web_push_path(id), {})

    # The clock

    def clock(self) -> Dict[str, Any]:
        """`GET /v1/clock`: `millisecondsSince1970`, `time`, `fixed` and `offsetMilliseconds`."""
        return self.get("/v1/clock")

    def set_clock(self, when: Union[datetime, str, float]) -> Dict[str, Any]:
        """Pins the server clock at `when`: a datetime (naive means UTC), an ISO 8601 UTC text
        (`2026-01-01T00:00:00Z`) or epoch seconds. Provider tokens must then be issued at that
        time (`MockAPNs.provider_token()` does so)."""
        if isinstance(when, str):
            return self.put("/v1/clock", {"time": when})
        return self.put("/v1/clock", {"millisecondsSince1970": _milliseconds_since_1970(when)})

    def advance_clock(self, by: Union[timedelta, float]) -> Dict[str, Any]:
        """Moves the clock by a timedelta or seconds (negative: back), without waiting."""
        seconds = by.total_seconds() if isinstance(by, timedelta) else float(by)
        return self.post("/v1/clock/advance", {"milliseconds": round(seconds * 1000)})

    def resume_clock(self) -> Dict[str, Any]:
        """Lets the clock follow real time again from its current reading."""
        return self.post("/v1/clock/resume", {})

    # Hooks for MockAPNs

    def _address(self) -> "tuple[str, int]":
        if self._control_port is None:
            raise MockAPNsError("the control API's port is not known yet")
        return self._control_host, self._control_port

    def _unreachable(self, error: OSError) -> None:
        """Called when a request cannot be sent or answered; may raise something clearer."""

    def _last_notifications(self) -> str:
        try:
            answer = self.get("/v1/notifications", limit=100_000)
        except MockAPNsError as error:
            return f"  (unreadable: {error})"
        recent = answer["notifications"][-5:]
        if not recent:
            return "  (none)"
        return "\n".join("  " + _summary(record) for record in recent)


def _refusal(method: str, path: str, status: int, raw: bytes, content_type: str) -> ControlAPIError:
    error, parameter = raw.decode("utf-8", errors="replace"), None
    if content_type.startswith("application/json"):
        try:
            answer = json.loads(raw)
        except ValueError:
            answer = None
        if isinstance(answer, dict) and isinstance(answer.get("error"), str):
            error, parameter = answer["error"], answer.get("parameter")
    return ControlAPIError(method, path, status, error, parameter, raw)


def _web_push_path(id: str) -> str:
    return f"/v1/web-push/subscriptions/{urllib.parse.quote(id, safe='')}"


def _notification_filters(
    token: Optional[str], topic: Optional[str], protocol: Optional[str], status: Optional[int], reason: Optional[str],
    accepted: Optional[bool], connection: Optional[int], after: Optional[int], push_type: Optional[str] = None,
    priority: Optional[int] = None, payload_path: Optional[str] = None, payload_value: Optional[str] = None,
) -> Dict[str, Any]:
    named = dict(token=token, topic=topic, protocol=protocol, status=status, reason=reason,
                 accepted=accepted, connection=connection, after=after, pushType=push_type, priority=priority,
                 payloadPath=payload_path, payloadValue=payload_value)
    return {name: value for name, value in named.items() if value is not None}


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(item) for item in value)
    return str(value)


def _milliseconds_left(deadline: float) -> int:
    return max(0, min(_LONGEST_WAIT_MS, int((deadline - time.monotonic()) * 1000)))


def _milliseconds_since_1970(when: Union[datetime, float]) -> int:
    if isinstance(when, datetime):
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        return round(when.timestamp() * 1000)
    return round(float(when) * 1000)


def _kinds(type: Union[str, Sequence[str], None]) -> str:
    if type is None:
        return "journal"
    return type if isinstance(type, str) else "/".join(type)


def _summary(record: Notification) -> str:
    answer = f"{record.get('status')} {record.get('reason')}" if record.get("reason") else str(record.get("status"))
    return (f"seq {record.get('seq')} {record.get('transport')} token={record.get('deviceToken')} "
            f"topic={record.get('topic')} => {answer}")


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host
