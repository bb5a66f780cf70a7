"""The few changes the Python clients need to reach a mock on 127.0.0.1 instead of Apple.

Each client is used as published; only where it hard-codes Apple's host, port or TLS set-up
do we change it, here and nowhere else:

aioapns 4.0
  * Host and port are class attributes (`APNsDevelopmentClientProtocol.APNS_SERVER`, used for
    both the TCP connection and the `host` header, and `APNsTLSClientProtocol.APNS_PORT`, 443),
    with no constructor argument: `aioapns_target` sets them for the duration of a test.
  * Trust: `APNs(ssl_context=...)` is a public argument; we pass a context that trusts
    certs-dev/ca.pem (for certificate connections aioapns loads the client certificate into
    the context we give it).
  * ALPN: aioapns offers no ALPN protocol (it relies on Apple accepting HTTP/2 by prior
    knowledge over TLS). The mock refuses a TLS client that does not offer `h2`, so our
    context offers `h2`. `test_aioapns.py::test_default_tls_context_without_alpn` records what
    happens without it.

tapns3 3.0.0 (PyAPNs)
  * Host and port are instance attributes set in the constructor (`server`, `port`); we
    overwrite them on the connection object.
  * Trust: it calls the module-level `ssl.wrap_socket` (deprecated, no certificate checks).
    `pyapns_verifying` swaps in a function with the same signature that builds an
    `SSLContext` trusting certs-dev/ca.pem, so the client also checks the mock's certificate.

apns-client 0.2.1 (module apnsclient)
  * Host and port: its sessions take an `(host, port)` tuple instead of a name; no change.
  * TLS: it builds its pyOpenSSL context with `SSLv3_METHOD`, which pyOpenSSL no longer has,
    and never checks the server. `apnsclient_tls` aliases that name to `TLS_CLIENT_METHOD`
    (TLS 1.2/1.3 as negotiated) and wraps its `load_context` to trust certs-dev/ca.pem and
    verify the peer.
"""

from __future__ import annotations

import contextlib
import ssl

from conftest import CA


def apns_ssl_context(ca=CA) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(ca))
    context.set_alpn_protocols(["h2"])
    return context


@contextlib.contextmanager
def aioapns_target(port: int, host: str = "127.0.0.1"):
    import aioapns.connection as connection

    saved = (
        connection.APNsDevelopmentClientProtocol.APNS_SERVER,
        connection.APNsProductionClientProtocol.APNS_SERVER,
        connection.APNsTLSClientProtocol.APNS_PORT,
    )
    connection.APNsDevelopmentClientProtocol.APNS_SERVER = host
    connection.APNsProductionClientProtocol.APNS_SERVER = host
    connection.APNsTLSClientProtocol.APNS_PORT = port
    try:
        yield
    finally:
        (
            connection.APNsDevelopmentClientProtocol.APNS_SERVER,
            connection.APNsProductionClientProtocol.APNS_SERVER,
            connection.APNsTLSClientProtocol.APNS_PORT,
        ) = saved


@contextlib.contextmanager
def pyapns_verifying(ca=CA):
    import apns

    def wrap_socket(sock, keyfile=None, certfile=None, do_handshake_on_connect=True, **_):
        context = ssl.create_default_context(cafile=str(ca))
        if certfile:
            context.load_cert_chain(certfile, keyfile)
        return context.wrap_socket(
            sock, server_hostname="127.0.0.1", do_handshake_on_connect=do_handshake_on_connect
        )

    saved = apns.wrap_socket
    apns.wrap_socket = wrap_socket
    try:
        yield apns
    finally:
        apns.wrap_socket = saved


def pyapns_connect(connection, port: int):
    """Points a tapns3 connection object at the mock."""
    connection.server = "127.0.0.1"
    connection.port = port
    return connection


@contextlib.contextmanager
def apnsclient_tls():
    import OpenSSL.SSL as SSL

    had_method = hasattr(SSL, "SSLv3_METHOD")
    if not had_method:
        SSL.SSLv3_METHOD = SSL.TLS_CLIENT_METHOD
    from apnsclient.backends import stdio

    original = stdio.Certificate.load_context

    def load_context(self, *args, **kwargs):
        context, certificate = original(self, *args, **kwargs)
        context.load_verify_locations(str(CA))
        context.set_verify(SSL.VERIFY_PEER, lambda connection, cert, errno, depth, ok: bool(ok))
        return context, certificate

    stdio.Certificate.load_context = load_context
    try:
        import apnsclient

        yield apnsclient
    finally:
        stdio.Certificate.load_context = original
        if not had_method:
            del SSL.SSLv3_METHOD
