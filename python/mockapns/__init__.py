"""Run MockAPNs, a mock Apple Push Notification service, from Python tests.

    from mockapns import MockAPNs

    with MockAPNs() as apns:                 # `mockapns serve` on free ports, fresh credentials
        ...                                  # your provider pushes to apns.device_url(token)
        [record] = apns.wait_for(token=token)
        assert record["status"] == 200

With pytest, installing the package registers the `mockapns` fixture (one server per session,
reset before each test) and `mockapns_rule`, which adds a rule (`Rule.reject("Unregistered")
.for_token(token)`) on top of the scenario for one test and removes it after. Standard library
only; the `mockapns` binary is found through `binary=`, `$MOCKAPNS_BIN`, the one the platform
wheel carries, or `PATH`.
"""

from .control import ControlAPIError, ControlClient, Event, MockAPNsError, Notification, WaitTimeout
from .rules import Rule
from .server import Credentials, MockAPNs, ServerExited, bundled_binary, find_binary
from .session import Session

__all__ = [
    "ControlAPIError",
    "ControlClient",
    "Credentials",
    "Event",
    "MockAPNs",
    "MockAPNsError",
    "Notification",
    "Rule",
    "ServerExited",
    "Session",
    "WaitTimeout",
    "bundled_binary",
    "find_binary",
]
