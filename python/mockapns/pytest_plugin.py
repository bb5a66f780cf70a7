"""The pytest plugin, registered by installing the package (entry point `pytest11`).

Fixtures:
    mockapns          the session's server, reset (`MockAPNs.reset()`) before the test
    mockapns_server   the session's server as it is (started on first use, stopped at the end)
    mockapns_rule     adds rules on top of the scenario for this test (`mockapns_rule(Rule.reject(
                      "Unregistered").for_token(token))`) and removes them after it
    mockapns_options  keyword arguments for `MockAPNs` (override it in a conftest.py:
                      `{"serve_args": ["--clock", "2026-01-01T00:00:00Z"], "topics": ["com.acme.app"]}`)
    mockapns_session  this test run's own session on the server (a `Session`: its key, certificate and
                      control token), put back as it was made before each test: tests in parallel
                      (pytest-xdist workers, or several CI jobs on one shared server) each get one,
                      and none sees another's notifications, scenario, rules or registry
    mockapns_session_options  keyword arguments for `create_session` (`{"topics": ["com.acme.app"]}`)

A shared server: `--mockapns-url URL` (or `$MOCKAPNS_URL`) makes the session fixtures use the
server at that control URL instead of starting one (`$MOCKAPNS_CONTROL_TOKEN`: its control
token, when it asks for one).

The binary: `--mockapns-bin PATH`, else `$MOCKAPNS_BIN`, else the one the platform wheel carries
(`mockapns/bin/mockapns`), else `mockapns` on `PATH`.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, Iterator, List, Mapping, Union

import pytest

from .control import ControlAPIError, ControlClient
from .rules import Rule
from .server import MockAPNs, find_binary
from .session import Session


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mockapns", "MockAPNs, a mock Apple Push Notification service")
    group.addoption(
        "--mockapns-bin", metavar="PATH", default=None,
        help="the mockapns binary for the mockapns fixture (default: $MOCKAPNS_BIN, else the one the installed "
        "wheel carries, else mockapns on PATH)",
    )
    group.addoption(
        "--mockapns-url", metavar="URL", default=None,
        help="the control URL of a running MockAPNs server the session fixtures make their sessions on "
        "(default: $MOCKAPNS_URL, else a server started for the run)",
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


@pytest.fixture(scope="session")
def mockapns_session_options() -> Dict[str, Any]:
    """Keyword arguments for the run's `create_session` (`topics`, `idle_seconds`, `scenario`)."""
    return {}


@pytest.fixture(scope="session")
def mockapns_shared_session(
    pytestconfig: pytest.Config, request: pytest.FixtureRequest, mockapns_session_options: Dict[str, Any]
) -> Iterator[Session]:
    """This run's session (one per pytest-xdist worker), made on the server `--mockapns-url`
    names, else on the run's own server; ended when the run ends."""
    url = pytestconfig.getoption("mockapns_url") or os.environ.get("MOCKAPNS_URL")
    server: ControlClient = (
        ControlClient(url, bearer_token=os.environ.get("MOCKAPNS_CONTROL_TOKEN")) if url
        else request.getfixturevalue("mockapns_server")
    )
    session = server.create_session(**mockapns_session_options)
    try:
        yield session
    finally:
        session.end()


@pytest.fixture
def mockapns_session(mockapns_shared_session: Session) -> Session:
    """The run's session, put back as it was made for this test: its journal view empty, its
    registry and added rules gone, the scenario it was made with running from the start."""
    mockapns_shared_session.reset()
    return mockapns_shared_session
