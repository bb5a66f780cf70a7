#!/usr/bin/env python3
"""Heap allocations per notification through the whole server, against committed ceilings.

Runs `mockapns serve` in its default configuration (frames journaled, verdicts and the
delivery model on, the log at its default level; certs-dev's credentials, every listener on a
free port) with malloc-counter.so preloaded, then for each path:

  http2   h2load pushes APNs-shaped requests (64-hex token, ~200-byte body, a provider token)
          over one connection, 100 streams at a time;
  legacy  one TLS connection (client-sandbox.pem) writes command-2 notifications, then one
          with a 31-byte token, and waits for the gateway's error packet for it (the gateway
          reads in order, so every earlier notification has been judged by then).

Each path is warmed up first; then the idle server's own rate is measured (its timers
allocate), the counter read, the requests sent, the server left to go idle again (a window of
IDLE_SECONDS allocating no more than idle: the journal's readers run after the answer), and the
counter read again. Allocations per notification = (the difference - the idle rate over the
time between) / the count: connection set-up, amortized over the count, is the only part that
is not per request.

    measure.py MOCKAPNS COUNTER_SO CEILINGS [COUNT]

prints one line per path and exits 1 when a path is over its ceiling (CEILINGS: lines
`path maximum`, `#` comments).
"""
import json
import shutil
import os
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import time

IDLE_SECONDS = 0.5
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CERTS = os.path.join(ROOT, "certs-dev")
TOKEN_HEX = "a1b2c3d4" * 8
PAYLOAD = ('{"aps":{"alert":{"title":"Benchmark","body":"%s"},"badge":1,"sound":"default"},'
           '"custom":{"id":12345}}' % ("x" * 100))


def read_counter(path):
    with open(path, "rb") as counter:
        allocations, reallocations = struct.unpack("<QQ", counter.read(16))
    return allocations, reallocations


def idle_rate(path, seconds=1.0):
    """Allocations per second of the server doing nothing (its readers' and caches' timers)."""
    before, started = read_counter(path)[0], time.monotonic()
    time.sleep(seconds)
    return (read_counter(path)[0] - before) / (time.monotonic() - started)


def wait_until_idle(path, idle_per_second, limit=20.0):
    """The counter, and when it was read, once a window of IDLE_SECONDS allocated no more than
    the idle server does (twice its rate, or 50): the journal's readers have caught up."""
    allowance = max(2 * idle_per_second * IDLE_SECONDS, 50)
    deadline = time.monotonic() + limit
    last = read_counter(path)
    while time.monotonic() < deadline:
        time.sleep(IDLE_SECONDS)
        now = read_counter(path)
        if now[0] - last[0] <= allowance:
            return now, time.monotonic()
        last = now
    raise SystemExit(f"allocations: the server never went idle ({limit:.0f} s)")


def h2load(port, jwt, payload_file, count):
    result = subprocess.run(
        ["h2load", "-n", str(count), "-c", "1", "-m", "100", "-t", "1", "-d", payload_file,
         "-H", "apns-topic: com.example.app", "-H", "apns-push-type: alert",
         "-H", f"authorization: bearer {jwt}",
         f"https://127.0.0.1:{port}/3/device/{TOKEN_HEX}"],
        capture_output=True, text=True)
    # A token connection starts with one stream (Apple's limit until a valid token is seen):
    # h2load's first 99 streams are refused, and count as requests the server handled.
    succeeded = [int(line.split()[7]) for line in result.stdout.splitlines() if line.startswith("requests:")]
    statuses = [line for line in result.stdout.splitlines() if line.startswith("status codes:")]
    if not succeeded or succeeded[0] < count - 99 or not statuses \
            or not statuses[0].startswith(f"status codes: {succeeded[0]} 2xx"):
        raise SystemExit("allocations: h2load did not get 200 for every request it could send:\n"
                         + result.stdout + result.stderr)


def legacy_frame(token, identifier, payload):
    items = (struct.pack(">BH", 1, len(token)) + token
             + struct.pack(">BH", 2, len(payload)) + payload
             + struct.pack(">BHI", 3, 4, identifier)
             + struct.pack(">BHI", 4, 4, 0)
             + struct.pack(">BHB", 5, 1, 10))
    return struct.pack(">BI", 2, len(items)) + items


def legacy(port, count):
    context = ssl.create_default_context(cafile=os.path.join(CERTS, "ca.pem"))
    context.load_cert_chain(os.path.join(CERTS, "client-sandbox.pem"), os.path.join(CERTS, "client-sandbox-key.pem"))
    payload = PAYLOAD.encode()
    token = bytes.fromhex(TOKEN_HEX)
    batch = b"".join(legacy_frame(token, identifier, payload) for identifier in range(1, count + 1))
    final = legacy_frame(token[:31], count + 1, payload)
    with socket.create_connection(("127.0.0.1", port)) as raw:
        with context.wrap_socket(raw, server_hostname="localhost") as connection:
            connection.sendall(batch + final)
            answer = b""
            while len(answer) < 6:
                chunk = connection.recv(6 - len(answer))
                if not chunk:
                    break
                answer += chunk
    command, status, identifier = struct.unpack(">BBI", answer) if len(answer) == 6 else (None, None, None)
    if (command, status, identifier) != (8, 5, count + 1):
        raise SystemExit(f"allocations: expected the error packet (8, 5 invalid token size, {count + 1}) "
                         f"for the final notification, got {answer.hex()}")


def main():
    if len(sys.argv) not in (4, 5):
        raise SystemExit(__doc__)
    mockapns, counter_library, ceilings_file = sys.argv[1:4]
    count = int(sys.argv[4]) if len(sys.argv) == 5 else 20000
    ceilings = {}
    with open(ceilings_file) as lines:
        for line in lines:
            fields = line.split("#", 1)[0].split()
            if fields:
                ceilings[fields[0]] = float(fields[1])

    work = tempfile.mkdtemp(prefix="mockapns-allocations.")
    counter = os.path.join(work, "counter")
    ports_file = os.path.join(work, "ports.json")
    payload_file = os.path.join(work, "payload.json")
    with open(payload_file, "w") as payload:
        payload.write(PAYLOAD)
    jwt = subprocess.run([mockapns, "token", "--key-id", "SANDBOX001", "--key-dir", CERTS],
                         capture_output=True, text=True, check=True).stdout.strip()
    environment = dict(os.environ, LD_PRELOAD=counter_library, MALLOC_COUNTER_FILE=counter)
    with open(os.path.join(work, "serve.log"), "w") as log:
        server = subprocess.Popen([mockapns, "serve", "--cert-dir", CERTS, "--ephemeral-ports",
                                   "--ports-file", ports_file], stdout=log, stderr=subprocess.STDOUT,
                                  env=environment)
    failures = []
    try:
        deadline = time.monotonic() + 30
        while not os.path.exists(ports_file) or os.path.getsize(ports_file) == 0:
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("allocations: the server did not start; its log:\n"
                                 + open(os.path.join(work, "serve.log")).read())
            time.sleep(0.05)
        time.sleep(0.1)  # the file is written whole, but give the writer its close
        ports = json.load(open(ports_file))
        if read_counter(counter) == (0, 0):
            raise SystemExit("allocations: the counter never moved: was malloc-counter.so preloaded?")

        paths = {
            "http2": (lambda n: h2load(ports["http2"], jwt, payload_file, n)),
            "legacy": (lambda n: legacy(ports["gateway"], n)),
        }
        for name, send in paths.items():
            send(max(count // 10, 100))  # warm up: caches, pools, the journal's first chunks
            idle = idle_rate(counter)
            before, started = wait_until_idle(counter, idle)
            send(count)
            after, ended = wait_until_idle(counter, idle)
            # What the idle server allocated meanwhile is not the requests'.
            per = (after[0] - before[0] - idle * (ended - started)) / count
            re_per = (after[1] - before[1]) / count
            ceiling = ceilings.get(name)
            figures = (f"{per:.2f} allocations (+{re_per:.2f} reallocations) per notification over {count}"
                       f" (idle server: {idle:.0f} allocations/s, subtracted)")
            if ceiling is None:
                print(f"allocations {name}: {figures}; no ceiling committed")
                failures.append(name)
            elif per > ceiling:
                print(f"allocations {name}: FAILED: {figures}, over the ceiling of {ceiling:g}")
                failures.append(name)
            else:
                print(f"allocations {name}: passed: {figures}, ceiling {ceiling:g}")
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
