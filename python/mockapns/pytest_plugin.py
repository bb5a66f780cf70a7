"""The pytest plugin, registered by installing the package (entry point `pytest11`).

Fixtures:
    mockapns          the session's server, reset (`MockAPNs.reset()`) before the test
    mockapns_server   the session's server as it is (started on first use, stopped at the end)
    mockapns_rule     adds rules on top of the scenario for this test (`mockapns_rule(Rule.reject(
                      "Unregistered").for_token(token))`) and removes them after it
    mockapns_options  keyword arguments for `MockAPNs` (override it in a conftest.py:
                      `{"serve_args": ["--clock", "2026-01-01T00:00:00Z"], "topics": ["com.acme.app"]}`)

The binary: `--mockapns-bin PATH`, else `$MOCKAPNS_BIN`, else the one the platform wheel carries
(`mockapns/bin/mockapns`), else `mockapns` on `PATH`.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, List, Mapping, Union

import pytest

from .control import ControlAPIError
from .rules import Rule
from .server import MockAPNs, find_binary


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mockapns", "MockAPNs, a mock Apple Push Notification service")
    group.addoption(
        "--mockapns-bin", metavar="PATH", default=None,
        help="the mockapns binary for the mockapns fixture (default: $MOCKAPNS_BIN, else the one the installed "
        "wheel carries, else mockapns on PATH)",
    )


@pytest.fixture(scope="session")
def mockapns_options() -> Dict[str, Any]:
    """Keyword arguments for the session's `MockAPNs` (`serve_args` become its flags)."""
    return {}


@pytest.fixture(scope="session")
def mockapns_server(
    pytestconfig: pytest.Config, mockapns_options: Dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[MockAPNs]:
    """One `mockapns serve` for the session, its working folder under pytest's temporary
    folders (kept for the last runs, with `mockapns.log`)."""
    options = dict(mockapns_options)
    serve_args = options.pop("serve_args", ())
    options.setdefault("binary", find_binary(pytestconfig.getoption("mockapns_bin")))
    options.setdefault("workdir", tmp_path_factory.mktemp("mockapns"))
    server = MockAPNs(*serve_args, **options).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def mockapns(mockapns_server: MockAPNs) -> MockAPNs:
    """The session's server, reset for this test: an empty journal and registry, the
    scenario it started with (from the top), the clock as started, fresh verdicts."""
    mockapns_server.reset()
    return mockapns_server


@pytest.fixture
def mockapns_rule(mockapns: MockAPNs) -> Iterator[Callable[[Union[Rule, Mapping[str, Any]]], Dict[str, Any]]]:
    """Adds a rule on top of the scenario for this test: call it with a `Rule` (or the rule's
    JSON as a dict); it returns the rule as stored (`{"id", "fired", "rule"}`). Every rule it
    added is removed when the test ends, passed or failed."""
    added: List[Dict[str, Any]] = []

    def add(rule: Union[Rule, Mapping[str, Any]]) -> Dict[str, Any]:
        stored = mockapns.add_rule(rule)
        added.append(stored)
        return stored

    yield add
    for stored in reversed(added):
        try:
            mockapns.remove_rule(stored)
        except ControlAPIError as error:
            # The test reset the server (or removed the rule) itself.
            if error.status != 404:
                raise
