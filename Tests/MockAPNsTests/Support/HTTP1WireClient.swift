import MockAPNsTestSupport
import Foundation

/// An HTTP/1.1 client that writes raw bytes at its own pace (Python's `ssl` and `socket`
/// modules, an independent stack): a request line cut short, headers dripped a byte at a
/// time, a body shorter than it says, broken framing. It reads throughout, so it sees the
/// server's answer and its close when they come, and stops as soon as the server closes.
struct HTTP1WireClient {
    /// What came back.
    struct Outcome: CustomStringConvertible {
        /// Everything received, as Latin-1 text.
        var received: String
        /// Whether the server closed the connection (EOF or reset) before the client stopped.
        var closed: Bool
        /// Seconds from the connection's start (after TLS) to the server's close.
        var closedAfter: Double?

        /// The status code of each answer received, in order.
        var statuses: [Int] {
            received.components(separatedBy: "HTTP/1.1 ").dropFirst().compactMap { Int($0.prefix(3)) }
        }

        /// Whether an answer carries the header line `name: value` (name without case).
        func hasHeader(_ name: String, _ value: String) -> Bool {
            received.components(separatedBy: "\r\n").contains { line in
                guard let colon = line.firstIndex(of: ":") else { return false }
                return line[..<colon].lowercased() == name.lowercased()
                    && line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces) == value
            }
        }

        var description: String { "closed: \(closed) after \(closedAfter.map { String($0) } ?? "-") s; received: \(received.prefix(600))" }
    }

    var port: Int
    /// TLS with ALPN `http/1.1` (the web push listener), or plain TCP (the control API).
    var tls = true

    private static let script = #"""
    import json, select, socket, ssl, sys, time
    plan = json.loads(sys.stdin.read())
    raw = socket.create_connection(("127.0.0.1", plan["port"]), timeout=10)
    if plan["tls"]:
        context = ssl.create_default_context(cafile=plan["ca"])
        context.set_alpn_protocols(["http/1.1"])
        sock = context.wrap_socket(raw, server_hostname="localhost")
    else:
        sock = raw
    sock.setblocking(False)
    started = time.monotonic()
    received = bytearray()
    closed_after = None

    def readable(seconds):
        if plan["tls"] and sock.pending():
            return True
        return bool(select.select([sock], [], [], max(seconds, 0))[0])

    def pump(seconds):
        """Reads for up to `seconds`, or until the server closes."""
        global closed_after
        deadline = time.monotonic() + seconds
        while closed_after is None:
            if not readable(deadline - time.monotonic()):
                return
            try:
                chunk = sock.recv(65536)
            except (ssl.SSLWantReadError, BlockingIOError):
                if time.monotonic() >= deadline:
                    return
                continue
            except (ConnectionError, ssl.SSLError, OSError):
                chunk = b""
            if not chunk:
                closed_after = time.monotonic() - started
                return
            received.extend(chunk)

    def send(data):
        """Sends `data` in pieces, reading between them; stops once the server answered or closed."""
        global closed_after
        before = len(received)
        for at in range(0, len(data), 16384):
            if closed_after is not None or len(received) > before:
                return
            piece = data[at:at + 16384]
            while piece and closed_after is None:
                try:
                    piece = piece[sock.send(piece):]
                except (ssl.SSLWantWriteError, ssl.SSLWantReadError, BlockingIOError):
                    pump(0.01)
                except (ConnectionError, ssl.SSLError, OSError):
                    pump(1)
                    if closed_after is None:
                        closed_after = time.monotonic() - started
            pump(0)

    for step in plan["steps"]:
        send(bytes.fromhex(step["send"]))
        pump(step["pause"])
    drip = bytes.fromhex(plan["drip"])
    for byte in drip:
        if closed_after is not None:
            break
        send(bytes([byte]))
        pump(plan["dripInterval"])
    pump(plan["readFor"])
    print(json.dumps({"received": received.decode("latin-1"), "closedAfter": closed_after}))
    """#

    /// Sends each step's bytes and reads for its pause, then drips `drip` one byte every
    /// `dripInterval` seconds (stopping when the server closes), then reads until the server
    /// closes or `readFor` seconds pass.
    func exchange(
        _ steps: [(bytes: [UInt8], pause: Double)], drip: [UInt8] = [], dripInterval: Double = 0.1, readFor: Double = 10
    ) throws -> Outcome {
        let plan: [String: Any] = [
            "port": port, "tls": tls, "ca": Fixtures.caPath,
            "steps": steps.map { ["send": Self.hex($0.bytes), "pause": $0.pause] },
            "drip": Self.hex(drip), "dripInterval": dripInterval, "readFor": readFor,
        ]
        let text = String(decoding: try JSONSerialization.data(withJSONObject: plan), as: UTF8.self)
        let longest = readFor + Double(drip.count) * dripInterval + steps.map(\.pause).reduce(0, +)
        let result = try ProcessRunner.run("python3", ["-c", Self.script], input: Data(text.utf8), timeout: longest + 30)
        guard result.status == 0,
              let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        else { throw CurlFailure(status: result.status, stderr: result.stderr + result.stdout) }
        let closedAfter = object["closedAfter"] as? Double
        return Outcome(received: object["received"] as? String ?? "", closed: closedAfter != nil, closedAfter: closedAfter)
    }

    /// One step: `text`'s bytes, then read for `pause` seconds.
    func exchange(_ text: String, pause: Double = 0, readFor: Double = 10) throws -> Outcome {
        try exchange([(Array(text.utf8), pause)], readFor: readFor)
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
