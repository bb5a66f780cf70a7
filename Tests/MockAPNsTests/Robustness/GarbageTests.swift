import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest

/// Thousands of malformed inputs on every port (random bytes before and after TLS, lying
/// length fields, invalid HPACK, 1 MB header values, legacy command bytes 3-255, zero-length
/// tokens, broken HTTP/1.1), from a seeded generator so a failure replays exactly. Afterwards
/// the server still answers, every descriptor is back, and memory stayed bounded.
final class GarbageTests: XCTestCase {
    /// Change to replay another run; a failure message names the seed used.
    static let seed = 20_261_123
    static let inputsPerPort = 2000

    func testEveryPortSurvivesGarbageAndLeaksNothing() async throws {
        let (server, ports) = try await TestServer.start { configuration in
            configuration.controlPort = 0
            configuration.timeouts.tlsHandshakeSeconds = 2
            configuration.timeouts.http2PrefaceSeconds = 2
            configuration.timeouts.controlRequestHeaderSeconds = 2
        }
        let control = try XCTUnwrap(ports.control)
        XCTAssertEqual(try ProcessRunner.run("curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(control)/v1/health"]).stdout, "200")
        // The health check's connection closes asynchronously: start from the listeners alone.
        try await OpenDescriptors.waitForOnlyListeners(on: ports.all, timeout: .seconds(30))
        let listeners = OpenDescriptors.serverSockets(on: ports.all).count
        let memoryBefore = OpenDescriptors.residentBytes
        let client = Fixtures.certificateDirectory + "/client-sandbox"
        let targets: [(kind: String, port: Int?, certificate: String)] = [
            ("http2", ports.http2, ""),
            ("legacy", ports.gateway, client),
            ("feedback", ports.feedback, client),
            ("control", ports.control, ""),
        ]
        for (index, target) in targets.enumerated() {
            let port = try XCTUnwrap(target.port)
            let seed = Self.seed + index
            let result = try ProcessRunner.run("python3", [
                RobustnessClient.script, "garbage", target.kind, String(port), Fixtures.caPath, target.certificate,
                String(Self.inputsPerPort), String(seed),
            ], timeout: 120)
            XCTAssertEqual(result.status, 0, "\(target.kind), seed \(seed): \(result.stderr)")
            XCTAssertTrue(result.stdout.hasPrefix("inputs \(Self.inputsPerPort) "), "\(target.kind), seed \(seed): \(result.stdout)")
        }

        // Still serving, on every port.
        let push = try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        XCTAssertEqual(push.status, 200)
        XCTAssertEqual(try ProcessRunner.run("curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(control)/v1/health"]).stdout, "200")
        let mark = server.journal.statistics.lastSequence
        let legacyFrame = Self.commandTwoFrame(token: Fixtures.token)
        _ = try RawTLSClient.exchange(port: try XCTUnwrap(ports.gateway), alpn: [], certificate: "sandbox", send: legacyFrame, timeout: 1)
        let legacy = try await server.waitForNotifications(
            count: 1, matching: NotificationFilter(transport: .legacy, accepted: true, afterSequence: mark), timeout: .seconds(30))
        XCTAssertEqual(legacy.count, 1, "the gateway still accepts a good notification")

        // Thousands of connections close asynchronously, later still on a busy machine: wait
        // for the last of them (a leak never closes, and the wait names it), not a count taken once.
        try await OpenDescriptors.waitForOnlyListeners(on: ports.all, timeout: .seconds(120))
        XCTAssertEqual(OpenDescriptors.serverSockets(on: ports.all).count, listeners, "every listener is still open, and nothing else")
        let grown = OpenDescriptors.residentBytes - memoryBefore
        XCTAssertLessThan(grown, 256 * 1024 * 1024, "resident memory grew by \(grown) bytes")
        try await server.shutdown()
    }

    /// A well-formed command-2 frame with one notification for `token`.
    static func commandTwoFrame(token: String) -> [UInt8] {
        var tokenBytes: [UInt8] = []
        var characters = Array(token.utf8)[...]
        while characters.count >= 2 {
            tokenBytes.append(UInt8(String(decoding: characters.prefix(2), as: UTF8.self), radix: 16) ?? 0)
            characters = characters.dropFirst(2)
        }
        let payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        var items: [UInt8] = [1] + UInt16(tokenBytes.count).bigEndianBytes + tokenBytes
        items += [2] + UInt16(payload.count).bigEndianBytes + payload
        items += [3, 0, 4, 0, 0, 0, 7]
        return [2] + UInt32(items.count).bigEndianBytes + items
    }
}

extension FixedWidthInteger {
    fileprivate var bigEndianBytes: [UInt8] {
        withUnsafeBytes(of: self.bigEndian) { Array($0) }
    }
}
