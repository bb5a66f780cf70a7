"""apns-client (apnsclient): command-2 batches with its failure/retry bookkeeping, and the
feedback service. See patches.py for its TLS patch."""

from __future__ import annotations

import calendar
import time

import pytest

from conftest import CERTS, unique_token
from patches import apnsclient_tls

BUNDLE = str(CERTS / "client-sandbox.bundle.pem")


@pytest.fixture(autouse=True)
def needs_legacy(server):
    if "gateway" not in server.ports:
        pytest.skip("this build has no legacy listeners")


def test_batch_with_an_unregistered_token_then_feedback(server):
    """Three tokens in one message; the second is unregistered. apnsclient reports it failed
    with status 8 and asks to retry the rest (the gateway closed after the error packet); the
    journal has the first accepted, the second refused and the third dropped; feedback lists the
    second once."""
    good, gone, after = unique_token(), unique_token(), unique_token()
    since = int(time.time() * 1000) - 5_000
    server.journal.post(f"/v1/registry/{gone}/unregister", {"since": since})

    with apnsclient_tls() as apnsclient:
        session = apnsclient.Session()
        gateway = session.new_connection(("127.0.0.1", server.ports["gateway"]), cert_file=BUNDLE)
        result = apnsclient.APNs(gateway).send(apnsclient.Message([good, gone, after], alert="hello", badge=1))
        assert result.failed == {gone: (8, "Invalid token")}
        assert result.needs_retry() and result.retry().tokens == [after]

        server.journal.expect(good, transport="legacy", accepted=True, identifier=0)
        server.journal.expect(gone, transport="legacy", accepted=False, legacyStatus=8, reason="Unregistered")
        # Dropped unexamined after the error, and recorded so, with its real token.
        server.journal.expect(after, transport="legacy", accepted=False, dropped=True)

        feedback = session.new_connection(("127.0.0.1", server.ports["feedback"]), cert_file=BUNDLE)
        # (hex token as bytes, naive UTC datetime) pairs
        tuples = {token.decode(): when for token, when in apnsclient.APNs(feedback).feedback()}
    assert gone in tuples, tuples
    assert calendar.timegm(tuples[gone].utctimetuple()) == since // 1000
    server.journal.expect_event("feedbackTuple", deviceToken=gone)


def test_batch_all_accepted(server):
    tokens = [unique_token() for _ in range(50)]
    with apnsclient_tls() as apnsclient:
        gateway = apnsclient.Session().new_connection(("127.0.0.1", server.ports["gateway"]), cert_file=BUNDLE)
        result = apnsclient.APNs(gateway).send(apnsclient.Message(tokens, alert="hi", expiry=3600, priority=5))
    assert result.failed == {} and not result.needs_retry()
    for identifier, token in enumerate(tokens):
        server.journal.expect(token, transport="legacy", accepted=True, identifier=identifier, priority=5)
