"""Typed scenario rules, so no test writes a scenario rule's JSON by hand.

    from mockapns import Rule

    gone = Rule.reject("Unregistered").for_token(token).times(1)
    with apns.rule(gone):            # POST /v1/scenario/rules, DELETE when the block ends
        ...                          # pushes to `token` answer 410 here

A rule is an action (`reject`, `answer`, `delay`, a fault), then the conditions a request must
meet; each method returns a new rule. `to_json()` gives the rule as a scenario file's `rules`
hold it (scenarios/schema.json): the server checks it with the scenario decoder and refuses a
mistake with its JSON path (`ControlAPIError.parameter`, e.g. `$.match.priorities[0]`).
"""

from __future__ import annotations

import copy
from typing import Any, Dict, Mapping, Optional

_ABSENT = object()


class Rule:
    """One scenario rule: an action and the conditions a request must meet for it to fire."""

    def __init__(self, action: Optional[Mapping[str, Any]] = None, **fields: Any):
        self._json: Dict[str, Any] = {key: value for key, value in fields.items() if value is not None}
        if action is not None:
            self._json["action"] = dict(action)

    # Actions

    @classmethod
    def reject(cls, reason: str, *, timestamp: Optional[int] = None) -> "Rule":
        """Refuses with one of Apple's reasons (`"Unregistered"`, `"BadDeviceToken"`): its status
        and `{"reason": ...}`; a 410 carries `timestamp` (ms since 1970) or the time of the answer."""
        return cls({"type": "reject", "reason": reason, **({"timestamp": timestamp} if timestamp is not None else {})})

    @classmethod
    def accept(cls) -> "Rule":
        """Answers success whatever the server would say (tried before validation)."""
        return cls({"type": "accept"}, stage="beforeValidation")

    @classmethod
    def answer(cls, status: int, *, reason: Optional[str] = None, body: Optional[str] = None,
               headers: Optional[Mapping[str, str]] = None) -> "Rule":
        """Answers `status` with the header fields given and `body`, or `{"reason": reason}`."""
        action: Dict[str, Any] = {"type": "respond", "status": status}
        if headers:
            action["headers"] = dict(headers)
        if body is not None:
            action["body"] = body
        if reason is not None:
            action["reason"] = reason
        return cls(action)

    @classmethod
    def delay(cls, milliseconds: float) -> "Rule":
        """Keeps the server's own answer and sends it `milliseconds` later."""
        return cls(None, delay={"distribution": "fixed", "milliseconds": milliseconds})

    @classmethod
    def close_connection(cls) -> "Rule":
        """Closes the connection (TCP FIN) without answering."""
        return cls({"type": "closeConnection"})

    @classmethod
    def reset_connection(cls) -> "Rule":
        """Aborts the connection: the client sees a TCP RST."""
        return cls({"type": "resetConnection"})

    @classmethod
    def reset_stream(cls, error_code: int = 8) -> "Rule":
        """Resets the request's HTTP/2 stream (8, CANCEL, by default)."""
        return cls({"type": "resetStream", "errorCode": error_code})

    @classmethod
    def go_away(cls, error_code: int = 0, *, reason: Optional[str] = None) -> "Rule":
        """GOAWAY with `error_code` and `{"reason": reason}` as its debug data, then close."""
        return cls({"type": "goAway", "errorCode": error_code, **({"reason": reason} if reason is not None else {})})

    @classmethod
    def stall(cls) -> "Rule":
        """Never answers; the connection stays open."""
        return cls({"type": "stall"})

    @classmethod
    def shutdown(cls) -> "Rule":
        """Answers, then goes away as a server shutting down does (GOAWAY Shutdown)."""
        return cls({"type": "shutdown"})

    @classmethod
    def limit_rate(cls, pushes: int, per_seconds: float) -> "Rule":
        """Gives the request's token a rate window; a push past it is refused 429 TooManyRequests."""
        return cls({"type": "limitRate", "pushes": pushes, "perSeconds": per_seconds})

    @classmethod
    def device_offline(cls) -> "Rule":
        """Takes the request's device offline before its notification reaches the delivery model."""
        return cls({"type": "deviceOffline"})

    @classmethod
    def device_online(cls) -> "Rule":
        """Brings the request's device back online."""
        return cls({"type": "deviceOnline"})

    # Conditions

    def for_token(self, *tokens: str) -> "Rule":
        """Only requests to one of these device tokens (hex, any case)."""
        return self._adding("tokens", [token.lower() for token in tokens])

    def for_topic(self, *topics: str) -> "Rule":
        """Only requests for one of these topics (`apns-topic`)."""
        return self._adding("topics", list(topics))

    def for_push_type(self, *push_types: str) -> "Rule":
        """Only requests of one of these push types (`alert`, `background`, ...)."""
        return self._adding("pushTypes", list(push_types))

    def for_priority(self, *priorities: int) -> "Rule":
        """Only requests of one of these priorities (none sent counts as 10)."""
        return self._adding("priorities", list(priorities))

    def for_protocol(self, *protocols: str) -> "Rule":
        """Only requests on one of these protocols (`http2`, `legacy`, `webPush`)."""
        return self._adding("protocols", list(protocols))

    def when_payload(self, path: str, *, equals: Any = _ABSENT, exists: Optional[bool] = None) -> "Rule":
        """Only requests whose JSON payload holds `equals` at the dotted `path`
        (`aps.alert.title`), or has (`exists=True`) or lacks it."""
        condition: Dict[str, Any] = {"path": path}
        if equals is not _ABSENT:
            condition["equals"] = equals
        if exists is not None:
            condition["exists"] = exists
        return self._adding("payload", [condition])

    def with_probability(self, probability: float) -> "Rule":
        """Fires only with this chance (0 to 1), from the scenario's seeded generator."""
        return self._matching(probability=probability)

    # Firing

    def times(self, count: int) -> "Rule":
        """Fires at most `count` times, then lets requests through."""
        return self._with(times=count)

    def delayed(self, milliseconds: float) -> "Rule":
        """Waits `milliseconds` before its answer or fault."""
        return self._with(delay={"distribution": "fixed", "milliseconds": milliseconds})

    def before_validation(self) -> "Rule":
        """Is tried before the server validates the request, so it sees requests it would refuse."""
        return self._with(stage="beforeValidation")

    def requiring_state(self, state: str) -> "Rule":
        """Fires only while the scenario is in the named `state`."""
        return self._with(requiresState=state)

    def setting_state(self, state: str) -> "Rule":
        """Moves the scenario to the named `state` when it fires."""
        return self._with(setsState=state)

    def named(self, name: str) -> "Rule":
        """The name the journal's records of its firings carry (by default `added[<id>]`)."""
        return self._with(name=name)

    def to_json(self) -> Dict[str, Any]:
        """The rule as a scenario file's `rules` hold it: what `POST /v1/scenario/rules` takes."""
        return copy.deepcopy(self._json)

    def __repr__(self) -> str:
        return f"Rule({self._json!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rule) and other._json == self._json

    def _with(self, **fields: Any) -> "Rule":
        rule = Rule()
        rule._json = {**self.to_json(), **fields}
        return rule

    def _matching(self, **conditions: Any) -> "Rule":
        match = {**self._json.get("match", {}), **conditions}
        return self._with(match=match)

    def _adding(self, key: str, values: list) -> "Rule":
        existing = list(self._json.get("match", {}).get(key, []))
        return self._matching(**{key: existing + [value for value in values if value not in existing]})
