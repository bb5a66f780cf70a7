import MockAPNsWire
import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest

/// The journal against real clients: what it records must be what went over the wire.
final class JournalFrameTests: XCTestCase {
    /// One frame header as `nghttp -v` prints it: `send SETTINGS frame <length=12, flags=0x00, stream_id=0>`.
    private struct FrameLine: Equatable, CustomStringConvertible {
        var type: String
        var length: Int
        var flags: Int
        var stream: Int
        var description: String { "\(type) len=\(length) flags=0x\(String(flags, radix: 16)) stream=\(stream)" }
    }

    private static func frames(in output: String, verb: String) -> [FrameLine] {
        let pattern = try? NSRegularExpression(
            pattern: "\\] \(verb) ([A-Z_]+) frame <length=(\\d+), flags=0x([0-9a-f]+), stream_id=(\\d+)>")
        let text = output as NSString
        return (pattern?.matches(in: output, range: NSRange(location: 0, length: text.length)) ?? []).map { match in
            FrameLine(
                type: text.substring(with: match.range(at: 1)),
                length: Int(text.substring(with: match.range(at: 2))) ?? -1,
                flags: Int(text.substring(with: match.range(at: 3)), radix: 16) ?? -1,
                stream: Int(text.substring(with: match.range(at: 4))) ?? -1
            )
        }
    }

    private static func line(_ event: JournalEvent) -> FrameLine? {
        guard case .http2Frame(let frame) = event.kind else { return nil }
        return FrameLine(type: frame.type.description, length: frame.length, flags: Int(frame.flags), stream: Int(event.streamID ?? -1))
    }

    func testFramesRecordedForAnNghttpExchangeMatchWhatTheClientSentAndReceived() async throws {
        let (server, ports) = try await TestServer.start()
        let body = FileManager.default.temporaryDirectory.appendingPathComponent("mockapns-journal-body-\(UUID().uuidString)").path
        try #"{"aps":{"alert":"hello"}}"#.write(toFile: body, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: body) }
        let base = Fixtures.certificateDirectory + "/client-sandbox"
        let result = try ProcessRunner.run("nghttp", [
            "-v", "-n", "--cert", base + ".pem", "--key", base + "-key.pem",
            "-H", "apns-topic: com.example.app", "-H", "apns-push-type: alert", "-d", body,
            "https://127.0.0.1:\(ports.http2)/3/device/\(Fixtures.token)",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        // The connection's last event is its close; wait for it so every frame is in.
        let closed = await server.journal.waitForEvents(count: 1, timeout: .seconds(10)) {
            if case .connectionClosed = $0.kind { return true }
            return false
        }
        XCTAssertEqual(closed.count, 1)

        let events = server.journal.events(matching: JournalEventFilter(kinds: ["http2Frame"]))
        let inbound = events.filter { if case .http2Frame(let f) = $0.kind { f.direction == .inbound } else { false } }
        let outbound = events.filter { if case .http2Frame(let f) = $0.kind { f.direction == .outbound } else { false } }
        XCTAssertEqual(inbound.compactMap(Self.line), Self.frames(in: result.stdout, verb: "send"), "what nghttp sent")
        XCTAssertEqual(outbound.compactMap(Self.line), Self.frames(in: result.stdout, verb: "recv"), "what nghttp received")

        // The server's SETTINGS say what Apple's say; the client's GOAWAY closes cleanly.
        let settings = outbound.compactMap { event -> [HTTP2Setting]? in
            if case .http2Frame(let frame) = event.kind, case .settings(let values) = frame.details, !values.isEmpty { return values }
            return nil
        }.first
        XCTAssertEqual(settings?.first { $0.name == "MAX_CONCURRENT_STREAMS" }?.value, 1000)
        XCTAssertEqual(settings?.first { $0.name == "MAX_HEADER_LIST_SIZE" }?.value, 8000)
        let goaway = inbound.compactMap { event -> (UInt32, Int32)? in
            if case .http2Frame(let frame) = event.kind, case .goaway(let code, let last, _) = frame.details { return (code, last) }
            return nil
        }
        XCTAssertEqual(goaway.first?.0, 0, "NO_ERROR")
        // The request's decoded headers are in its HEADERS frame.
        let requestHeaders = inbound.compactMap { event -> [HTTPHeader]? in
            if case .http2Frame(let frame) = event.kind, case .headers(let headers) = frame.details { return headers }
            return nil
        }.first
        XCTAssertTrue(requestHeaders?.contains(HTTPHeader(name: ":path", value: "/3/device/\(Fixtures.token)")) ?? false)
        XCTAssertTrue(requestHeaders?.contains(HTTPHeader(name: "apns-topic", value: "com.example.app")) ?? false)

        // And the notification, with its verdict, between them.
        let pushes = server.notifications()
        XCTAssertEqual(pushes.count, 1)
        XCTAssertEqual(pushes.first?.status, 200)
        XCTAssertEqual(pushes.first?.payloadText, #"{"aps":{"alert":"hello"}}"#)
        XCTAssertEqual(pushes.first?.authentication.kind, "certificate")
        try await server.shutdown()
    }

    func testServerGoawayForABadPrefaceIsRecordedWithItsErrorCodeAndADiagnosis() async throws {
        let (server, ports) = try await TestServer.start()
        _ = try RawTLSClient.exchange(port: ports.http2, certificate: "sandbox", send: Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        _ = await server.journal.waitForEvents(count: 1, timeout: .seconds(10)) {
            if case .connectionClosed = $0.kind { return true }
            return false
        }
        let goaway = server.journal.events(matching: JournalEventFilter(kinds: ["http2Frame"])).compactMap { event -> UInt32? in
            if case .http2Frame(let frame) = event.kind, frame.direction == .outbound, case .goaway(let code, _, _) = frame.details { return code }
            return nil
        }
        XCTAssertEqual(goaway, [1], "PROTOCOL_ERROR")
        let diagnoses = server.journal.events(matching: JournalEventFilter(kinds: ["diagnosis"]))
        XCTAssertFalse(diagnoses.isEmpty)
        let closed = server.journal.events(matching: JournalEventFilter(kinds: ["connectionClosed"]))
        if case .connectionClosed(_, let side, _)? = closed.first?.kind {
            XCTAssertEqual(side, .server)
        } else {
            XCTFail("no close recorded")
        }
        try await server.shutdown()
    }

    /// An HTTP/2 client that closes as clients do, with GOAWAY(NO_ERROR) after its last answer:
    /// the server closes the socket once nghttp2 is done, but the close is the client's, and
    /// the record says so (the verdicts take a connection the server closed as dropped).
    func testAClientThatEndsItsConnectionWithGoAwayIsRecordedAsClosingIt() async throws {
        let (server, ports) = try await TestServer.start()
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let block = ClientBytes.literal(":method", "POST") + ClientBytes.literal(":scheme", "https")
            + ClientBytes.literal(":authority", "localhost") + ClientBytes.literal(":path", "/3/device/\(Fixtures.token)")
            + ClientBytes.literal("apns-topic", "com.example.app")
        let goAwayNoError = ClientBytes.frame(type: 0x7, streamID: 0, payload: [0, 0, 0, 0, 0, 0, 0, 0])
        let bytes = ClientBytes.opening() + ClientBytes.frame(type: 0x1, flags: 0x4, streamID: 1, payload: block)
            + ClientBytes.data(streamID: 1, Array(#"{"aps":{"alert":"hi"}}"#.utf8), endStream: true) + goAwayNoError
        let outcome = try RawHTTP2Client.sendHTTP2(port: ports.http2, bytes: bytes, timeout: 5)
        XCTAssertEqual(outcome.answeredStreams, [1])
        XCTAssertEqual(outcome.ending, "eof", "the server closes once the last answer is out")
        let closed = await server.journal.waitForEvents(count: 1, timeout: .seconds(10)) {
            if case .connectionClosed = $0.kind { return true }
            return false
        }
        guard case .connectionClosed(_, let side, let reason)? = closed.first?.kind else { return XCTFail("no close recorded") }
        XCTAssertEqual(side, .client)
        XCTAssertEqual(reason, "client GOAWAY NO_ERROR")
    }

    func testRefusedHandshakeIsRecordedWithWhatTheClientOffered() async throws {
        let (server, ports) = try await TestServer.start()
        XCTAssertThrowsError(try CurlClient(port: ports.http2, extraArguments: ["--http1.1"]).send(path: "/3/device/\(Fixtures.token)"))
        let failed = await server.journal.waitForEvents(count: 1, timeout: .seconds(10)) {
            if case .tlsFailed = $0.kind { return true }
            return false
        }
        guard case .tlsFailed(let failure)? = failed.first?.kind else { return XCTFail("no TLS failure recorded") }
        XCTAssertEqual(failure.offeredALPN, ["http/1.1"])
        XCTAssertEqual(failure.alertSent, "no_application_protocol")
        XCTAssertFalse(failure.offeredVersions.isEmpty)
        try await server.shutdown()
    }

    func testFrameRecordingOffKeepsNotificationsOnly() async throws {
        let (server, ports) = try await TestServer.start { $0.recordsFrames = false }
        _ = try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app")])
        let pushes = try await server.waitForNotifications(count: 1, timeout: .seconds(10))
        XCTAssertEqual(pushes.count, 1)
        XCTAssertTrue(server.journal.events(matching: JournalEventFilter(kinds: ["http2Frame"])).isEmpty)
        try await server.shutdown()
    }

    func testByDefaultAProviderTokenIsRecordedWithoutItsSignature() async throws {
        let (server, ports) = try await TestServer.start()
        let jwt = "eyJhbGciOiJFUzI1NiIsImtpZCI6IlNBTkRCT1gwMDEifQ.eyJpc3MiOiJURUFNMDAwMDBBIiwiaWF0IjoxfQ.c2lnbmF0dXJlLWJ5dGVz"
        var curl = CurlClient(port: ports.http2)
        curl.certificate = nil
        _ = try curl.send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app"), ("authorization", "bearer \(jwt)")])
        _ = try await server.waitForNotifications(count: 1, timeout: .seconds(10))
        let values = server.journal.events(matching: JournalEventFilter(kinds: ["http2Frame"])).flatMap { event -> [String] in
            if case .http2Frame(let frame) = event.kind, case .headers(let headers) = frame.details {
                return headers.filter { $0.name == "authorization" }.map(\.value)
            }
            return []
        }
        XCTAssertEqual(values, ["bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IlNBTkRCT1gwMDEifQ.eyJpc3MiOiJURUFNMDAwMDBBIiwiaWF0IjoxfQ.<signature removed>"])
        XCTAssertFalse(server.journal.events().map(JournalJSON.encode).joined().contains("c2lnbmF0dXJlLWJ5dGVz"))
        try await server.shutdown()

        // Asked for, whole tokens are kept.
        let (whole, wholePorts) = try await TestServer.start { $0.journal.providerTokens = .whole }
        var wholeCurl = CurlClient(port: wholePorts.http2)
        wholeCurl.certificate = nil
        _ = try wholeCurl.send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app"), ("authorization", "bearer \(jwt)")])
        _ = try await whole.waitForNotifications(count: 1, timeout: .seconds(10))
        XCTAssertTrue(whole.journal.events().map(JournalJSON.encode).joined().contains("bearer \(jwt)"))
        try await whole.shutdown()
    }

    func testRedactionHidesAuthorizationValues() async throws {
        let (server, ports) = try await TestServer.start { $0.journal.redactsTokens = true }
        var curl = CurlClient(port: ports.http2)
        curl.certificate = nil
        _ = try curl.send(path: "/3/device/\(Fixtures.token)", headers: [("apns-topic", "com.example.app"), ("authorization", "bearer secret.jwt.value")])
        _ = try await server.waitForNotifications(count: 1, timeout: .seconds(10))
        let values = server.journal.events(matching: JournalEventFilter(kinds: ["http2Frame"])).flatMap { event -> [String] in
            if case .http2Frame(let frame) = event.kind, case .headers(let headers) = frame.details {
                return headers.filter { $0.name == "authorization" }.map(\.value)
            }
            return []
        }
        XCTAssertEqual(values, ["<redacted>"])
        XCTAssertFalse(server.journal.events().map(JournalJSON.encode).joined().contains("secret"))
        try await server.shutdown()
    }
}
