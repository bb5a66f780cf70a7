import MockAPNsTestSupport
import Foundation

/// A raw TLS client (Python's `ssl` module, an independent TLS stack) that sends arbitrary
/// bytes after the handshake and returns everything the server sent until it closed.
enum RawTLSClient {
    struct Exchange {
        /// Bytes received after the handshake, until EOF.
        var received: [UInt8]
        /// Whether the server closed the connection (EOF) within the timeout.
        var closedByServer: Bool
        var negotiatedALPN: String?
    }

    /// - certificate: the certs-dev client certificate to present (`client-<name>.pem`), if any.
    static func exchange(port: Int, alpn: [String] = ["h2"], certificate: String? = nil, send bytes: [UInt8], timeout: Double = 5) throws -> Exchange {
        let script = """
        import socket, ssl, sys
        ctx = ssl.create_default_context(cafile=sys.argv[1])
        if sys.argv[3]:
            ctx.set_alpn_protocols(sys.argv[3].split(","))
        if sys.argv[6]:
            ctx.load_cert_chain(sys.argv[6] + ".pem", sys.argv[6] + "-key.pem")
        raw = socket.create_connection(("127.0.0.1", int(sys.argv[2])))
        s = ctx.wrap_socket(raw, server_hostname="localhost")
        print("alpn", s.selected_alpn_protocol())
        s.sendall(bytes.fromhex(sys.argv[4]))
        s.settimeout(float(sys.argv[5]))
        data = b""
        closed = False
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    closed = True
                    break
                data += chunk
        except (ConnectionResetError, ssl.SSLError):
            closed = True
        except socket.timeout:
            pass
        print("closed", closed)
        print("data", data.hex())
        """
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let result = try ProcessRunner.run("python3", ["-c", script, Fixtures.caPath, String(port), alpn.joined(separator: ","), hex, String(timeout),
                                                                 certificate.map { Fixtures.certificateDirectory + "/client-" + $0 } ?? ""],
                                           timeout: timeout + 10)
        var exchange = Exchange(received: [], closedByServer: false, negotiatedALPN: nil)
        for line in result.stdout.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "alpn": exchange.negotiatedALPN = parts[1] == "None" ? nil : parts[1]
            case "closed": exchange.closedByServer = parts[1] == "True"
            case "data": exchange.received = hexBytes(parts[1])
            default: break
            }
        }
        if result.status != 0 {
            throw CurlFailure(status: result.status, stderr: result.stderr)
        }
        return exchange
    }

    private static func hexBytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            if let byte = UInt8(hex[index..<next], radix: 16) { bytes.append(byte) }
            index = next
        }
        return bytes
    }
}
