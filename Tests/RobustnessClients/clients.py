"""Hostile and careless clients for the Swift robustness tests (Tests/MockAPNsTests/Robustness).

Each mode is one client; the Swift test starts it with `python3 clients.py MODE ARGS...`,
talks to it over stdin/stdout where it needs to, and checks what it printed. Only the Python
standard library is used (ssl, socket, asyncio), with hand-made HTTP/2 frames, so what goes on
the wire is exactly what the test means.
"""
import asyncio
import os
import random
import re
import select
import socket
import ssl
import struct
import sys
import time

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = 0, 1, 3, 4, 6, 7, 8, 9


def frame(kind, flags, stream, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def literal(name, value):
    """HPACK literal header field without indexing, new name, no Huffman."""
    assert len(name) < 127 and len(value) < 127
    return b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value


def request_block(token, topic=b"com.example.app"):
    # :method POST (static 3), :scheme https (static 7), :path and :authority with indexed names.
    path = b"/3/device/" + token
    return (b"\x83\x87" + b"\x04" + bytes([len(path)]) + path + b"\x01\x09localhost"
            + literal(b"apns-topic", topic) + literal(b"apns-push-type", b"alert"))


def tls_context(cafile, certificate=None, alpn=None):
    context = ssl.create_default_context(cafile=cafile)
    if alpn:
        context.set_alpn_protocols(alpn)
    if certificate:
        context.load_cert_chain(certificate + ".pem", certificate + "-key.pem")
    return context


def read_frames(sock, timeout):
    """Frames the server sent until EOF (or the timeout): [(type, flags, stream, payload)], eof."""
    sock.settimeout(timeout)
    data = b""
    eof = False
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            chunk = sock.recv(65536)
            if not chunk:
                eof = True
                break
            data += chunk
    except (socket.timeout, TimeoutError):
        pass
    except (ConnectionResetError, ssl.SSLError, OSError):
        eof = True
    frames = []
    while len(data) >= 9:
        length = int.from_bytes(data[0:3], "big")
        if len(data) < 9 + length:
            break
        frames.append((data[3], data[4], int.from_bytes(data[5:9], "big") & 0x7FFFFFFF, data[9:9 + length]))
        data = data[9 + length:]
    return frames, eof


def mode_late_handshake(port, cafile):
    """Connects (TCP only), waits for `go` on stdin, then does TLS and one request; prints frames."""
    raw = socket.create_connection(("127.0.0.1", port))
    print("connected", flush=True)
    sys.stdin.readline()
    sock = tls_context(cafile, alpn=["h2"]).wrap_socket(raw, server_hostname="localhost")
    token = b"a1b2c3d4" * 8
    sock.sendall(PREFACE + frame(SETTINGS, 0, 0, b"") + frame(HEADERS, 0x5, 1, request_block(token)))
    frames, eof = read_frames(sock, 15)
    for kind, flags, stream, payload in frames:
        if kind == GOAWAY:
            last, code = struct.unpack(">II", payload[:8])
            print("goaway", last & 0x7FFFFFFF, code, payload[8:].decode(errors="replace"), flush=True)
        else:
            print("frame", kind, flags, stream, flush=True)
    print("eof", eof, flush=True)


def mode_slow_reader(port, cafile, count):
    """Opens a huge window, sends `count` requests and never reads; prints how many went out,
    then waits for `close` on stdin."""
    sock = tls_context(cafile, alpn=["h2"]).wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="localhost")
    sock.sendall(PREFACE + frame(SETTINGS, 0, 0, struct.pack(">HI", 4, 0x7FFFFFFF))
                 + frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 0x7FFFFFFF - 65535)))
    sock.settimeout(3)
    block = request_block(b"a1b2c3d4" * 8)
    sent = 0
    try:
        for index in range(count):
            sock.sendall(frame(HEADERS, 0x5, 1 + 2 * index, block))
            sent += 1
    except (socket.timeout, TimeoutError):
        pass
    except OSError:
        pass
    print("sent", sent, flush=True)
    sys.stdin.readline()
    sock.close()
    print("closed", flush=True)


def mode_slow_readers(port, cafile, connections, requests):
    """Opens `connections` TLS connections, each with a huge window; on each sends up to
    `requests` requests without ever reading (stopping where the socket will take no more);
    prints "ready CONNECTIONS REQUESTS-SENT", then waits for `close` on stdin."""
    context = tls_context(cafile, alpn=["h2"])
    block = request_block(b"a1b2c3d4" * 8)
    hello = PREFACE + frame(SETTINGS, 0, 0, struct.pack(">HI", 4, 0x7FFFFFFF)) \
        + frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 0x7FFFFFFF - 65535))
    socks = []
    sent = 0
    for _ in range(connections):
        sock = context.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="localhost")
        sock.settimeout(0.05)
        try:
            sock.sendall(hello)
            for index in range(requests):
                sock.sendall(frame(HEADERS, 0x5, 1 + 2 * index, block))
                sent += 1
        except (socket.timeout, TimeoutError, ssl.SSLWantWriteError, OSError):
            pass
        socks.append(sock)
    print("ready", len(socks), sent, flush=True)
    sys.stdin.readline()
    for sock in socks:
        sock.close()
    print("closed", flush=True)


def mode_early_answer(port, count):
    """Control API requests the server answers before reading them whole: a 1 MiB header (400)
    and a body over the limit, cut short (413). Prints each status line, then closes."""
    big_header = b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Large: " + b"a" * (1 << 20) + b"\r\n\r\n"
    big_body = b"PUT /v1/scenario HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (5 << 20) + b" " * (4608 << 10)
    for request in [big_header] * count + [big_body] * count:
        sock = socket.create_connection(("127.0.0.1", port))
        sock.settimeout(10)
        try:
            sock.sendall(request)
        except OSError:
            pass
        data = b""
        try:
            while b"\r\n" not in data:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        except OSError:
            pass
        print(data.split(b"\r\n")[0].decode(errors="replace"), flush=True)
        sock.close()


def mode_pipelined(port):
    """Sends two control API requests at once, the second a long poll; prints each status line."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                 b"GET /v1/notifications/wait?count=1&timeout=1500 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    sock.settimeout(10)
    data = b""
    try:
        while data.count(b"HTTP/1.1 ") < 2 or not data.rstrip().endswith(b"}"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    # A body is not followed by CRLF, so the next status line may start mid-line.
    for status in re.findall(rb"HTTP/1\.1 \d{3} [A-Za-z ]*", data):
        print(status.decode().strip(), flush=True)
    sock.close()


def mode_idle(port, what, cafile, certificate):
    """Opens a connection and does nothing more (`tcp`: not even TLS; `tls`: the handshake
    only; `partial-preface`: the handshake and 10 bytes of the HTTP/2 preface; `http`: half a
    request line); prints how long until the server closed it."""
    started = time.monotonic()
    raw = socket.create_connection(("127.0.0.1", port))
    sock = raw
    if what in ("tls", "partial-preface"):
        sock = tls_context(cafile, certificate=certificate or None, alpn=["h2"]).wrap_socket(raw, server_hostname="localhost")
        if what == "partial-preface":
            sock.sendall(PREFACE[:10])
    elif what == "http":
        raw.sendall(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    sock.settimeout(5)
    try:
        while sock.recv(65536):
            pass
        print("eof %.3f" % (time.monotonic() - started), flush=True)
    except (socket.timeout, TimeoutError):
        print("open", flush=True)
    except OSError:
        print("eof %.3f" % (time.monotonic() - started), flush=True)


def mode_hold(port, count):
    """Waits for `go`, opens `count` TCP connections and holds them until `close`."""
    sys.stdin.readline()
    held = []
    for _ in range(count):
        try:
            held.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        except OSError:
            break
    print("opened", len(held), flush=True)
    sys.stdin.readline()
    for sock in held:
        sock.close()
    print("closed", flush=True)


# ---- Garbage ---------------------------------------------------------------------------------

def garbage_http2(rng, index):
    """One malformed HTTP/2 exchange (after a good preface unless the case is about the preface)."""
    token = b"a1b2c3d4" * 8
    case = index % 8
    good = PREFACE + frame(SETTINGS, 0, 0, b"")
    if case == 0:
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 512)))
    if case == 1:  # a length field that lies (says far more than follows, or more than allowed)
        return good + struct.pack(">I", rng.choice([0xFFFFFF, 16385, 70000]))[1:] + bytes([HEADERS, 0x5]) + struct.pack(">I", 1) + b"\x83"
    if case == 2:  # invalid HPACK: an index far past both tables, or a truncated literal
        block = rng.choice([b"\xff\xff\xff\xff\x0f", b"\x00\x7f\xff\xff\xff\x0f", b"\xbe", b"\x40\x05ab"])
        return good + frame(HEADERS, 0x5, 1, block)
    if case == 3:  # a 1 MB header value, split over CONTINUATION frames
        value = b"v" * (1 << 20)
        block = request_block(token) + b"\x00\x07x-large" + b"\x7f" + encode_integer(len(value) - 127) + value
        frames = frame(HEADERS, 0x1, 1, block[:16384])
        offset = 16384
        while offset < len(block):
            piece = block[offset:offset + 16384]
            offset += 16384
            frames += frame(CONTINUATION, 0x4 if offset >= len(block) else 0x0, 1, piece)
        return good + frames
    if case == 4:  # random frames of random types on random streams
        out = good
        for _ in range(rng.randint(1, 8)):
            payload = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 64)))
            out += frame(rng.randint(0, 12), rng.getrandbits(8), rng.getrandbits(31), payload)
        return out
    if case == 5:  # a zero-length token and other bad paths
        path = rng.choice([b"/3/device/", b"/3/device", b"/", b"/3/device/" + b"z" * 64])
        block = b"\x83\x87\x04" + bytes([len(path)]) + path + b"\x01\x09localhost"
        return good + frame(HEADERS, 0x5, 1, block)
    if case == 6:  # DATA on idle and closed streams, WINDOW_UPDATE overflow, PING of bad size
        return good + rng.choice([frame(DATA, 0x1, 7, b"{}"), frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 0x7FFFFFFF)) * 2,
                                  frame(PING, 0, 0, b"1234567"), frame(SETTINGS, 0, 0, b"\x00\x04\xff\xff\xff\xff")])
    return rng.choice([b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", PREFACE[:10], good[:-3]])


def encode_integer(value):
    out = b""
    while value >= 128:
        out += bytes([(value & 0x7F) | 0x80])
        value >>= 7
    return out + bytes([value])


def garbage_legacy(rng, index):
    token = bytes(rng.getrandbits(8) for _ in range(32))
    case = index % 6
    if case == 0:
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 300)))
    if case == 1:  # command bytes 3-255
        return bytes([3 + index % 253]) + bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 64)))
    if case == 2:  # command 2 with a frame length that lies
        return b"\x02" + struct.pack(">I", rng.choice([0, 1, 0xFFFFFFFF, 5000, 100])) + b"\x01\x00\x20" + token
    if case == 3:  # zero-length tokens (command 1 and 2)
        return rng.choice([b"\x01" + struct.pack(">IIH", 1, 0, 0) + b"\x00\x02{}",
                           b"\x02" + struct.pack(">I", 3 + 5) + b"\x01\x00\x00" + b"\x02\x00\x02{}"])
    if case == 4:  # command 0/1 with payload lengths past the frame, and a huge payload length
        return b"\x00\x00\x20" + token + struct.pack(">H", rng.choice([0xFFFF, 4000, 3])) + b"{}"
    return b"\x02" + struct.pack(">I", 12) + b"\x09\x00\x09" + b"\x00" * 9  # unknown item id


def garbage_control(rng, index):
    case = index % 6
    if case == 0:
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 400)))
    if case == 1:  # a content length that lies
        return b"PUT /v1/scenario HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{" % rng.choice([10, 99999999, 5 << 20])
    if case == 2:  # a 1 MB header value
        return b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Large: " + b"a" * (1 << 20) + b"\r\n\r\n"
    if case == 3:
        return b"POST /v1/feedback HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n" + bytes(rng.getrandbits(8) for _ in range(20))
    if case == 4:
        return rng.choice([b"GET /v1/notifications?limit=-1&after=\xff HTTP/1.1\r\n\r\n", b"\r\n\r\n\r\n", b"GET " + b"/" * 9000 + b" HTTP/1.1\r\n\r\n",
                           b"POST /v1/registry//unregister HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}"])
    return b"GET /v1/health HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\nzz\r\n"


async def one_garbage(port, payload, context, tls_before):
    try:
        if context is not None and not tls_before:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", port, ssl=context, server_hostname="localhost"), 10)
        else:
            reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 10)
        writer.write(payload)
        try:
            await asyncio.wait_for(writer.drain(), 5)
        except Exception:
            pass
        if writer.can_write_eof():
            writer.write_eof()  # plain TCP: the server sees the end at once
        # The server answers garbage at once (an error, GOAWAY, a close); one that waits for
        # the rest of a frame is left after a short while.
        try:
            await asyncio.wait_for(reader.read(1 << 16), 0.3)
        except Exception:
            pass
        writer.close()
        try:
            await asyncio.wait_for(writer.wait_closed(), 2)
        except Exception:
            pass
        return True
    except Exception:
        return False


async def garbage(kind, port, cafile, certificate, count, seed, parallel):
    rng = random.Random(seed)
    make = {"http2": garbage_http2, "legacy": garbage_legacy, "feedback": garbage_legacy, "control": garbage_control}[kind]
    context = None
    if kind != "control":
        context = tls_context(cafile, certificate=certificate or None, alpn=["h2"] if kind == "http2" else None)
    cases = []
    for index in range(count):
        payload = make(rng, index)
        # On the TLS ports three inputs in four go in place of the TLS handshake (random bytes,
        # or a record header that promises a ClientHello and sends noise); the fourth is sent
        # after a real handshake. Handshakes dominate the run time.
        tls_before = context is not None and index % 4 != 0
        if tls_before:
            payload = bytes([0x16, 0x03, rng.randint(0, 4)]) + bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 200))) if index % 2 else payload
        cases.append((payload, tls_before))
    semaphore = asyncio.Semaphore(parallel)
    connected = 0

    async def run(case):
        nonlocal connected
        async with semaphore:
            if await one_garbage(port, case[0], context, case[1]):
                connected += 1

    await asyncio.gather(*(run(case) for case in cases))
    print("inputs", count, "connected", connected, flush=True)


def main():
    mode = sys.argv[1]
    if mode == "late-handshake":
        mode_late_handshake(int(sys.argv[2]), sys.argv[3])
    elif mode == "slow-reader":
        mode_slow_reader(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
    elif mode == "slow-readers":
        mode_slow_readers(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    elif mode == "early-answer":
        mode_early_answer(int(sys.argv[2]), int(sys.argv[3]))
    elif mode == "pipelined":
        mode_pipelined(int(sys.argv[2]))
    elif mode == "hold":
        mode_hold(int(sys.argv[2]), int(sys.argv[3]))
    elif mode == "idle":
        mode_idle(int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5] if len(sys.argv) > 5 else "")
    elif mode == "garbage":
        kind, port, cafile, certificate, count, seed = sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], int(sys.argv[6]), int(sys.argv[7])
        asyncio.run(garbage(kind, port, cafile, certificate, count, seed, parallel=16))
    else:
        sys.exit("unknown mode " + mode)


if __name__ == "__main__":
    main()
