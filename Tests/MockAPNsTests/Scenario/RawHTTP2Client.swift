import MockAPNsTestSupport
import Foundation

/// An HTTP/2 client in a few lines of Python over its own `ssl` module: it sends the
/// preface and every request at once on one connection (streams 1, 3, 5, ...), then reads
/// until the server closes, resets, or goes quiet, and reports how the connection ended.
/// Frames come back raw, so GOAWAY and RST_STREAM can be checked field by field, and a
/// clean close (FIN) is told apart from a reset (RST).
enum RawHTTP2Client {
    struct Outcome: Decodable {
        /// "ok", or the TLS error that ended the handshake.
        var handshake: String
        /// "eof" (FIN), "reset" (RST), "timeout" (still open), or the error text.
        var ending: String
        var data: String
        var frames: [RawHTTP2Frame] { RawHTTP2Frame.parse(LegacyTLSClient.bytes(fromHex: data)) }
        var handshakeSucceeded: Bool { handshake == "ok" }

        /// The streams that got a HEADERS frame (an answer).
        var answeredStreams: [UInt32] { frames.filter { $0.type == 0x1 }.map(\.streamID) }
    }

    private struct Script: Encodable {
        var port: Int
        var ca: String
        var certificate: String
        var tokens: [String]
        var payload: String
        /// Raw bytes to send instead of HTTP/2 requests (hex), for the legacy gateway.
        var raw: String?
        /// Whether raw bytes go out with ALPN `h2` (hand-made HTTP/2).
        var alpn = false
        var timeout: Double
    }

    /// TLS runs over memory BIOs so the socket's own errors stay visible: Python's `ssl`
    /// sockets report a TCP reset under OpenSSL 3 as an "EOF in violation of protocol",
    /// indistinguishable from a FIN without close_notify.
    private static let program = #"""
    import json, socket, ssl, sys
    a = json.load(sys.stdin)
    ctx = ssl.create_default_context(cafile=a["ca"])
    if a.get("raw") is None or a.get("alpn"):
        ctx.set_alpn_protocols(["h2"])
    ctx.load_cert_chain(a["certificate"] + ".pem", a["certificate"] + "-key.pem")
    sock = socket.create_connection(("127.0.0.1", a["port"]))
    sock.settimeout(a["timeout"])
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = ctx.wrap_bio(incoming, outgoing, server_hostname="localhost")

    def flush():
        pending = outgoing.read()
        if pending:
            sock.sendall(pending)

    def report(handshake, ending, data=b""):
        print(json.dumps({"handshake": handshake, "ending": ending, "data": data.hex()}))
        sys.exit(0)

    while True:
        try:
            tls.do_handshake()
            break
        except ssl.SSLWantReadError:
            flush()
            try:
                chunk = sock.recv(65536)
            except Exception as e:
                report(str(e), "handshake")
            if not chunk:
                report("eof during handshake", "handshake")
            incoming.write(chunk)
        except Exception as e:
            report(str(e), "handshake")
    flush()

    def frame(kind, flags, stream, payload):
        return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload

    def literal(name, value):
        # HPACK literal without indexing, new name; every string here is under 127 bytes.
        return bytes([0, len(name)]) + name.encode() + bytes([len(value)]) + value.encode()

    if a.get("raw") is not None:
        out = bytes.fromhex(a["raw"])
    else:
        out = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0, b"")
        body = a["payload"].encode()
        for i, token in enumerate(a["tokens"]):
            stream = 1 + 2 * i
            block = b"".join(literal(n, v) for n, v in [
                (":method", "POST"), (":scheme", "https"), (":authority", "localhost"),
                (":path", "/3/device/" + token), ("apns-topic", "com.example.app"), ("apns-push-type", "alert")])
            out += frame(1, 0x4, stream, block) + frame(0, 0x1, stream, body)
    tls.write(out)
    flush()
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            report("ok", "reset", data)
        except socket.timeout:
            report("ok", "timeout", data)
        if not chunk:
            report("ok", "eof", data)
        incoming.write(chunk)
        while True:
            try:
                plain = tls.read(65536)
                if not plain:
                    break  # close_notify; the FIN follows
                data += plain
            except ssl.SSLWantReadError:
                break
            except ssl.SSLZeroReturnError:
                break  # close_notify; the FIN follows
            except Exception as e:
                report("ok", "error: " + str(e), data)
    """#

    /// Pushes to each token on one connection, all at once.
    static func push(port: Int, tokens: [String], payload: String = #"{"aps":{"alert":"hi"}}"#,
                     certificate: String = "universal", timeout: Double = 2) throws -> Outcome {
        try run(Script(port: port, ca: Fixtures.caPath, certificate: Fixtures.certificateDirectory + "/client-" + certificate,
                       tokens: tokens, payload: payload, raw: nil, timeout: timeout))
    }

    /// Sends raw bytes after the handshake (for the legacy gateway) and reads as `push` does.
    static func send(port: Int, bytes: [UInt8], certificate: String = "sandbox", timeout: Double = 2) throws -> Outcome {
        try run(Script(port: port, ca: Fixtures.caPath, certificate: Fixtures.certificateDirectory + "/client-" + certificate,
                       tokens: [], payload: "", raw: bytes.map { String(format: "%02x", $0) }.joined(), timeout: timeout))
    }

    /// Sends hand-made HTTP/2 bytes (preface included) over ALPN `h2`, and reads as `push` does.
    static func sendHTTP2(port: Int, bytes: [UInt8], certificate: String = "universal", timeout: Double = 2) throws -> Outcome {
        var script = Script(port: port, ca: Fixtures.caPath, certificate: Fixtures.certificateDirectory + "/client-" + certificate,
                            tokens: [], payload: "", raw: bytes.map { String(format: "%02x", $0) }.joined(), timeout: timeout)
        script.alpn = true
        return try run(script)
    }

    private static func run(_ script: Script) throws -> Outcome {
        let result = try ProcessRunner.run("python3", ["-c", program], input: try JSONEncoder().encode(script), timeout: script.timeout + 20)
        guard result.status == 0, let line = result.stdout.split(separator: "\n").last else {
            throw CurlFailure(status: result.status, stderr: result.stderr)
        }
        return try JSONDecoder().decode(Outcome.self, from: Data(line.utf8))
    }
}

extension RawHTTP2Frame {
    static let rstStream: UInt8 = 0x3

    /// For RST_STREAM: the error code.
    var rstStreamErrorCode: UInt32? {
        guard type == Self.rstStream, payload.count == 4 else { return nil }
        return bigEndian(payload[0..<4])
    }

    /// For GOAWAY: the last stream id.
    var goAwayLastStreamID: UInt32? {
        guard type == Self.goAway, payload.count >= 8 else { return nil }
        return bigEndian(payload[0..<4]) & 0x7FFF_FFFF
    }
}
