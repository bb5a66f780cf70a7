"""The fleet harness on its own (fleet.py), without a mockapns server: the throwaway PostgreSQL
keeps what is written, refuses connections once stopped however it died, and comes back on the
same port with its data; the HAProxy front takes turns over its backends, never sends them its
own readiness probes, and passes bytes through unchanged in both directions."""

from __future__ import annotations

import os
import socket
import socketserver
import threading

import pytest

from fleet import HAProxyFront, PostgresCluster, needs_haproxy, needs_postgres


def refused(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return False
    except ConnectionRefusedError:
        return True


@needs_postgres
def test_a_cluster_starts_with_its_user_and_database_and_keeps_what_is_written():
    with PostgresCluster() as pg:
        assert pg.url == f"postgresql://mockapns@127.0.0.1:{pg.port}/mockapns"
        assert pg.running and pg.ready()
        assert pg.psql("select current_user, current_database()") == "mockapns|mockapns"
        pg.psql("create table replicas (name text primary key, seen int);"
                "insert into replicas values ('a', 1), ('b', 2)")
        assert pg.psql("select name, seen from replicas order by name") == "a|1\nb|2"
        # Only 127.0.0.1, only TCP.
        assert pg.psql("show listen_addresses") == "127.0.0.1"
        assert pg.psql("show unix_socket_directories") == ""


@needs_postgres
@pytest.mark.parametrize("mode", ["immediate", "kill"])
def test_a_stopped_cluster_refuses_connections_and_restart_brings_back_the_same_data(mode):
    with PostgresCluster() as pg:
        port, url, data = pg.port, pg.url, pg.data_dir
        pg.psql("create table state (k text primary key, v text); insert into state values ('token', 'gone')")

        pg.stop(mode)
        assert not pg.running
        assert refused(port)
        assert not pg.ready()

        pg.restart()
        assert (pg.port, pg.url, pg.data_dir) == (port, url, data)
        assert pg.psql("select v from state where k = 'token'") == "gone"
        pg.psql("insert into state values ('after', 'restart')")

        # A running cluster restarts too (a clean "fast" stop by default), still with all of it.
        pg.restart()
        assert pg.port == port
        assert pg.psql("select k from state order by k") == "after\ntoken"


@needs_postgres
def test_a_failing_test_still_leaves_no_server_and_no_folder():
    with pytest.raises(RuntimeError, match="the test failed"):
        with PostgresCluster() as pg:
            root, port, process = pg.root, pg.port, pg.process
            raise RuntimeError("the test failed")
    assert process.poll() is not None
    assert not root.exists()
    assert refused(port)


@needs_postgres
def test_psql_reports_the_error_and_stops_at_it():
    with PostgresCluster() as pg:
        pg.psql("create table t (n int)")
        with pytest.raises(RuntimeError, match="no_such_table"):
            pg.psql("insert into t values (1); select * from no_such_table; insert into t values (2)")
        assert pg.psql("select n from t") == "1"


class NamedEcho(socketserver.ThreadingTCPServer):
    """A backend on a free port of 127.0.0.1 that greets each connection with its name and a
    newline, then echoes what it reads until the peer half-closes; it counts its connections."""

    daemon_threads = True

    def __init__(self, name: str):
        self.name = name.encode()
        self.connections = 0
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), NamedEchoHandler)
        self.thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def port(self) -> int:
        return self.server_address[1]

    def close(self) -> None:
        self.shutdown()
        self.server_close()


class NamedEchoHandler(socketserver.BaseRequestHandler):
    def handle(self):
        with self.server.lock:
            self.server.connections += 1
        self.request.sendall(self.server.name + b"\n")
        while data := self.request.recv(65536):
            self.request.sendall(data)


def greeting(port: int) -> tuple[socket.socket, str]:
    conn = socket.create_connection(("127.0.0.1", port), timeout=10)
    line = b""
    while not line.endswith(b"\n"):
        chunk = conn.recv(1)
        assert chunk, f"the connection through port {port} closed before a backend greeted it"
        line += chunk
    return conn, line.decode().strip()


@pytest.fixture
def backends():
    a, b = NamedEcho("a"), NamedEcho("b")
    yield a, b
    a.close()
    b.close()


@needs_haproxy
def test_the_front_takes_turns_over_its_backends_and_probes_none_of_them(backends):
    a, b = backends
    with HAProxyFront({"http2": [a.port, b.port], "control": [b.port]}) as front:
        assert front.running
        assert front.port("http2") != front.port("control")
        assert a.connections == b.connections == 0

        names = []
        for _ in range(4):
            conn, name = greeting(front.port("http2"))
            conn.close()
            names.append(name)
        assert set(names) == {"a", "b"}
        assert names[0] != names[1] and names[0::2] == [names[0]] * 2 and names[1::2] == [names[1]] * 2

        assert [greeting(front.port("control"))[1] for _ in range(2)] == ["b", "b"]
        assert (a.connections, b.connections) == (2, 4)
        with pytest.raises(KeyError):
            front.port("legacy")


@needs_haproxy
def test_the_front_passes_bytes_through_unchanged_both_ways(backends):
    a, b = backends
    payload = bytes(range(256)) * 1024 + os.urandom(100_000)
    with HAProxyFront({"http2": [a.port, b.port]}) as front:
        for _ in range(2):
            conn, name = greeting(front.port("http2"))
            with conn:
                conn.sendall(payload)
                conn.shutdown(socket.SHUT_WR)
                echoed = bytearray()
                while chunk := conn.recv(65536):
                    echoed += chunk
            assert name in ("a", "b")
            assert bytes(echoed) == payload


@needs_haproxy
def test_a_stopped_front_refuses_connections_and_leaves_no_folder(backends):
    a, _ = backends
    front = HAProxyFront({"http2": [a.port]}).start()
    port, root, process = front.port("http2"), front.root, front.process
    assert greeting(port)[1] == "a"
    front.stop()
    assert process.poll() is not None
    assert not root.exists()
    assert refused(port)
    front.stop()
