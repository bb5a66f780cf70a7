import Foundation
import MockAPNs
import MockAPNsJournal
import MockAPNsTestSupport
import XCTest

/// A running server's journal as a pcapng capture, from Swift and from the control API: an
/// nghttp exchange comes back as TCP on the HTTP/2 listener's port, the client's bytes
/// opening with the connection preface and carrying its header block's fields, the server's
/// with its SETTINGS frame.
final class JournalCaptureServerTests: XCTestCase {
    /// The TCP payloads of a capture's packets, in file order, with their ports.
    private static func segments(_ file: [UInt8]) -> [(source: Int, destination: Int, payload: [UInt8])] {
        func u32le(_ at: Int) -> Int { Int(file[at]) | Int(file[at + 1]) << 8 | Int(file[at + 2]) << 16 | Int(file[at + 3]) << 24 }
        var segments: [(Int, Int, [UInt8])] = []
        var offset = 0
        while offset + 12 <= file.count {
            let length = u32le(offset + 4)
            guard length >= 12, offset + length <= file.count else { break }
            if u32le(offset) == 6 {  // an Enhanced Packet Block
                let captured = u32le(offset + 20)
                let ip = Array(file[(offset + 28)..<(offset + 28 + captured)])
                let ipHeaderLength = Int(ip[0] & 0x0f) * 4
                let tcp = Array(ip[ipHeaderLength...])
                let tcpHeaderLength = Int(tcp[12] >> 4) * 4
                let payload = Array(tcp[tcpHeaderLength...])
                let source = Int(tcp[0]) << 8 | Int(tcp[1])
                let destination = Int(tcp[2]) << 8 | Int(tcp[3])
                segments.append((source, destination, payload))
            }
            offset += length
        }
        return segments
    }

    func testAnNghttpExchangeIsTCPOnTheListenersPortFromSwiftAndTheControlAPI() async throws {
        let (server, ports) = try await TestServer.start { $0.controlPort = 0 }
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let body = FileManager.default.temporaryDirectory.appendingPathComponent("mockapns-capture-body-\(UUID().uuidString)").path
        try #"{"aps":{"alert":"capture"}}"#.write(toFile: body, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: body) }
        let base = Fixtures.certificateDirectory + "/client-sandbox"
        let result = try ProcessRunner.run("nghttp", [
            "-n", "--cert", base + ".pem", "--key", base + "-key.pem",
            "-H", "apns-topic: com.example.app", "-H", "apns-push-type: alert", "-d", body,
            "https://127.0.0.1:\(ports.http2)/3/device/\(Fixtures.token)",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        let closed = await server.journal.waitForEvents(count: 1, timeout: .seconds(10)) {
            if case .connectionClosed = $0.kind { return true }
            return false
        }
        XCTAssertEqual(closed.count, 1)

        let capture = server.journalCapture()
        let segments = Self.segments(capture)
        let sent = segments.filter { $0.destination == ports.http2 }.flatMap(\.payload)
        let received = segments.filter { $0.source == ports.http2 }.flatMap(\.payload)
        XCTAssertEqual(Array(sent.prefix(24)), Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8))
        // The client's SETTINGS come right after the preface.
        XCTAssertEqual(sent.count > 27 ? sent[27] : nil, 0x4)
        // The :path field as a literal without indexing, new name, no Huffman coding.
        let path = "/3/device/\(Fixtures.token)"
        let field: [UInt8] = [0x00, 5] + Array(":path".utf8) + [UInt8(path.utf8.count)] + Array(path.utf8)
        XCTAssertNotNil(sent.firstRange(of: field), "the request's :path field")
        XCTAssertNotNil(sent.firstRange(of: Array(#"{"aps":{"alert":"capture"}}"#.utf8)), "the request's payload in DATA")
        XCTAssertEqual(received.count > 3 ? received[3] : nil, 0x4, "the server opens with SETTINGS")
        let status: [UInt8] = [0x00, 7] + Array(":status".utf8) + [3] + Array("200".utf8)
        XCTAssertNotNil(received.firstRange(of: status), "the answer's :status")

        let control = try XCTUnwrap(ports.control)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mockapns-capture-\(UUID().uuidString).pcapng").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let download = try ProcessRunner.run("curl", [
            "-sS", "-o", file, "-w", "%{http_code} %{content_type}", "http://127.0.0.1:\(control)/v1/journal/capture.pcapng",
        ])
        XCTAssertEqual(download.stdout, "200 application/vnd.tcpdump.pcap")
        XCTAssertEqual(FileManager.default.contents(atPath: file).map { Array($0) }, capture)
    }
}
