import MockAPNsTestSupport
import Foundation

/// A legacy provider written with Python's `ssl` module (an independent TLS stack): it opens
/// one or more connections with a client certificate from certs-dev/, writes bytes in one
/// `sendall`, then reads until the server closes, or closes without reading.
enum LegacyTLSClient {
    /// One connection's script.
    struct Connection: Encodable {
        /// Bytes written at once after the handshake, as hex.
        var send: String
        /// Close this many seconds after sending, without reading anything; `nil` reads until EOF.
        var closeWithoutReadingAfter: Double? = nil
        /// Send one byte at a time, this many seconds apart (a client trickling a frame),
        /// stopping early if the server closes; `nil` sends everything at once.
        var trickleInterval: Double? = nil

        init(send bytes: [UInt8], closeWithoutReadingAfter: Double? = nil, trickleInterval: Double? = nil) {
            self.send = bytes.map { String(format: "%02x", $0) }.joined()
            self.closeWithoutReadingAfter = closeWithoutReadingAfter
            self.trickleInterval = trickleInterval
        }
    }

    /// What one connection saw.
    struct Outcome: Decodable {
        /// "ok", or the TLS error that ended the handshake.
        var handshake: String
        /// The negotiated version, e.g. "TLSv1.2".
        var version: String?
        /// Everything received after the handshake, as hex.
        var data: String
        /// Whether the server closed the connection (EOF, close_notify or reset) before the timeout.
        var closed: Bool
        /// A reset or TLS error met while reading, if any.
        var error: String?
        /// Seconds from the end of the handshake to the server's close (or the timeout).
        var elapsed: Double
        /// Bytes written before the server closed (all of them unless trickling was cut short).
        var sent: Int

        var handshakeSucceeded: Bool { handshake == "ok" }
        var received: [UInt8] { LegacyTLSClient.bytes(fromHex: data) }
    }

    private struct Script: Encodable {
        var port: Int
        var ca: String
        /// "sandbox", "production", "universal", "expired", "untrusted", or nil for none.
        var certificate: String?
        var certificateDirectory: String
        var maximumVersion: String?
        var minimumVersion: String?
        var timeout: Double
        var readyFile: String?
        var connections: [Connection]
    }

    private static let program = #"""
    import json, os, socket, ssl, sys, time
    args = json.loads(sys.stdin.read())
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(args["ca"])
    if args.get("minimumVersion"):
        ctx.set_ciphers("DEFAULT:@SECLEVEL=0")
        ctx.minimum_version = getattr(ssl.TLSVersion, args["minimumVersion"])
    if args.get("maximumVersion"):
        ctx.maximum_version = getattr(ssl.TLSVersion, args["maximumVersion"])
    if args.get("certificate"):
        base = os.path.join(args["certificateDirectory"], "client-" + args["certificate"])
        ctx.load_cert_chain(base + ".pem", base + "-key.pem")
    outcomes = []
    for connection in args["connections"]:
        outcome = {"handshake": "ok", "version": None, "data": "", "closed": False, "error": None, "elapsed": 0.0, "sent": 0}
        raw = socket.create_connection(("127.0.0.1", args["port"]))
        raw.settimeout(args["timeout"])
        try:
            s = ctx.wrap_socket(raw, server_hostname="localhost")
        except (ssl.SSLError, OSError) as error:
            outcome["handshake"] = str(error)
            outcomes.append(outcome)
            raw.close()
            continue
        outcome["version"] = s.version()
        started = time.monotonic()
        payload = bytes.fromhex(connection["send"])
        if connection.get("trickleInterval") is not None:
            for index in range(len(payload)):
                try:
                    s.sendall(payload[index:index + 1])
                except (OSError, ssl.SSLError):
                    break
                outcome["sent"] = index + 1
                time.sleep(connection["trickleInterval"])
        else:
            s.sendall(payload)
            outcome["sent"] = len(payload)
        if args.get("readyFile"):
            open(args["readyFile"], "w").close()
        if connection.get("closeWithoutReadingAfter") is not None:
            time.sleep(connection["closeWithoutReadingAfter"])
            s.close()
            outcomes.append(outcome)
            continue
        data = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    outcome["closed"] = True
                    break
                data += chunk
        except (ConnectionResetError, ssl.SSLError) as error:
            outcome["closed"] = True
            outcome["error"] = str(error)
        except socket.timeout:
            pass
        outcome["data"] = data.hex()
        outcome["elapsed"] = time.monotonic() - started
        s.close()
        outcomes.append(outcome)
    print(json.dumps(outcomes))
    """#

    /// Runs the connections one after the other and returns what each saw.
    static func run(
        port: Int,
        certificate: String? = "sandbox",
        certificateDirectory: String = Fixtures.certificateDirectory,
        connections: [Connection],
        minimumVersion: String? = nil,
        maximumVersion: String? = nil,
        timeout: Double = 5,
        readyFile: String? = nil
    ) throws -> [Outcome] {
        let script = Script(
            port: port, ca: Fixtures.caPath, certificate: certificate,
            certificateDirectory: certificateDirectory,
            maximumVersion: maximumVersion, minimumVersion: minimumVersion,
            timeout: timeout, readyFile: readyFile, connections: connections
        )
        let input = try JSONEncoder().encode(script)
        let result = try ProcessRunner.run("python3", ["-c", program], input: input, timeout: timeout * Double(connections.count) + 20)
        guard result.status == 0, let output = result.stdout.split(separator: "\n").last else {
            throw LegacyClientFailure(stderr: result.stderr)
        }
        return try JSONDecoder().decode([Outcome].self, from: Data(output.utf8))
    }

    /// One connection that sends `bytes` and reads until the server closes.
    static func exchange(
        port: Int, certificate: String? = "sandbox", certificateDirectory: String = Fixtures.certificateDirectory, send bytes: [UInt8],
        timeout: Double = 5
    ) throws -> Outcome {
        let outcomes = try run(
            port: port, certificate: certificate, certificateDirectory: certificateDirectory, connections: [Connection(send: bytes)],
            timeout: timeout)
        guard let outcome = outcomes.first else { throw LegacyClientFailure(stderr: "no outcome") }
        return outcome
    }

    static func bytes(fromHex hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            if let byte = UInt8(hex[index..<next], radix: 16) { bytes.append(byte) }
            index = next
        }
        return bytes
    }
}

struct LegacyClientFailure: Error, CustomStringConvertible {
    let stderr: String
    var description: String { "the Python legacy client failed: \(stderr)" }
}
