import Crypto
import Foundation
@testable import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import MockAPNsWebPush
import XCTest

/// The web push listener over HTTP/1.1 against clients that are slow or break the framing, on
/// real TLS sockets: every request is bounded in time (idle, header, body) and in declared
/// size, every low-level 400 closes the socket it says it closes, and the Host checks of RFC
/// 9112 hold. The deadlines are short here; each test waits for the server's close, not for a
/// fixed time.
final class WebPushHTTP1LimitsTests: XCTestCase {
    /// A server whose web push deadlines are short (`seconds`), or long enough that they cannot
    /// be what closes a connection (`nil`).
    static func start(deadlines seconds: Double?) async throws -> (MockAPNsServer, Int) {
        let (server, ports) = try await TestServer.start { configuration in
            configuration.webPush.port = 0
            let seconds = seconds ?? 120
            configuration.timeouts.webPushIdleSeconds = seconds
            configuration.timeouts.webPushHeaderSeconds = seconds
            configuration.timeouts.webPushBodySeconds = seconds
        }
        guard let port = ports.webPush else {
            try await server.shutdown()
            throw XCTSkip("the web push listener did not report its port")
        }
        return (server, port)
    }

    static func subscription(_ server: MockAPNsServer) throws -> WebPushSubscriptionInfo {
        let key = P256.Signing.PrivateKey()
        return try server.subscribeWebPush(applicationServerKey: WebPushWireTests.base64URL(Array(key.publicKey.x963Representation)))
    }

    /// The codes of the diagnoses journaled so far.
    static func diagnosisCodes(_ server: MockAPNsServer) -> [DiagnosisCode] {
        server.journal.events(matching: JournalEventFilter(kinds: ["diagnosis"])).compactMap { event in
            guard case .diagnosis(let code, _, _) = event.kind else { return nil }
            return code
        }
    }

    func waitForDiagnosis(_ code: DiagnosisCode, on server: MockAPNsServer) async -> String? {
        let events = await server.journal.waitForEvents(count: 1, timeout: .seconds(10)) { event in
            if case .diagnosis(let found, _, _) = event.kind { return found == code }
            return false
        }
        return events.first?.json
    }

    // MARK: Deadlines (idle, header, body)

    func testASilentConnectionIsClosedAtTheIdleLimitWithoutAnAnswer() async throws {
        let (server, port) = try await Self.start(deadlines: 0.5)
        defer { Task { try? await server.shutdown() } }
        let outcome = try HTTP1WireClient(port: port).exchange([], readFor: 6)
        XCTAssertTrue(outcome.closed, "\(outcome)")
        XCTAssertEqual(outcome.received, "")
        let diagnosis = await waitForDiagnosis(.timeoutHTTP1Idle, on: server)
        XCTAssertTrue(diagnosis?.contains("no request within 500 ms") == true, diagnosis ?? "none")
    }

    /// HTTP/1.1 has no connection preface: the HTTP/2 preface deadline (which the listener's
    /// HTTP/2 connections keep) does not close a fresh HTTP/1.1 connection; the idle limit bounds it.
    func testTheFirstRequestIsBoundedByTheIdleLimitNotByTheHTTP2Preface() async throws {
        let (server, ports) = try await TestServer.start { configuration in
            configuration.webPush.port = 0
            configuration.timeouts.http2PrefaceSeconds = 0.2
            configuration.timeouts.webPushIdleSeconds = 120
        }
        defer { Task { try? await server.shutdown() } }
        let request = Array("POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nTTL: 60\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        // The client takes a second before its first request (five times the preface deadline).
        let outcome = try HTTP1WireClient(port: try XCTUnwrap(ports.webPush)).exchange([([], 1), (request, 0)])
        XCTAssertEqual(outcome.statuses, [400], "\(outcome)")
        XCTAssertTrue(outcome.closed, "\(outcome)")
        XCTAssertFalse(Self.diagnosisCodes(server).contains(.timeoutHTTP2Preface))
    }

    func testAStalledRequestLineIsAnswered408AndClosed() async throws {
        let (server, port) = try await Self.start(deadlines: 0.5)
        defer { Task { try? await server.shutdown() } }
        let outcome = try HTTP1WireClient(port: port).exchange("POST /x HT", readFor: 6)
        XCTAssertTrue(outcome.closed, "\(outcome)")
        XCTAssertEqual(outcome.statuses, [408], "\(outcome)")
        XCTAssertTrue(outcome.hasHeader("connection", "close"), "\(outcome)")
        let diagnosis = await waitForDiagnosis(.timeoutHTTP1RequestHeader, on: server)
        XCTAssertNotNil(diagnosis)
    }

    /// A slowloris client: a header byte every 0.1 s would keep the header coming for 20 s; the
    /// deadline runs from the request's first byte, so the drip does not move it.
    func testAHeaderDrippedAByteAtATimeIsAnswered408WithinTheDeadline() async throws {
        let (server, port) = try await Self.start(deadlines: 0.5)
        defer { Task { try? await server.shutdown() } }
        let start = Array("POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8)
        let drip = Array(("X-Slow: " + String(repeating: "a", count: 192) + "\r\n").utf8)
        let outcome = try HTTP1WireClient(port: port).exchange([(start, 0)], drip: drip, dripInterval: 0.1, readFor: 6)
        XCTAssertTrue(outcome.closed, "\(outcome)")
        XCTAssertEqual(outcome.statuses, [408], "\(outcome)")
        XCTAssertLessThan(try XCTUnwrap(outcome.closedAfter), 10, "closed long before the drip would have ended (20 s)")
        let diagnosis = await waitForDiagnosis(.timeoutHTTP1RequestHeader, on: server)
        XCTAssertNotNil(diagnosis)
    }

    func testABodyShorterThanItsContentLengthIsAnswered408AndClosed() async throws {
        let (server, port) = try await Self.start(deadlines: 0.5)
        defer { Task { try? await server.shutdown() } }
        let outcome = try HTTP1WireClient(port: port).exchange(
            "POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n0123456789", readFor: 6)
        XCTAssertTrue(outcome.closed, "\(outcome)")
        XCTAssertEqual(outcome.statuses, [408], "\(outcome)")
        let diagnosis = await waitForDiagnosis(.timeoutHTTP1RequestBody, on: server)
        XCTAssertNotNil(diagnosis)
    }

    /// Between requests of a keep-alive connection only the idle limit runs, and a request
    /// that is answered resets it: two requests 0.3 s apart on one connection are both answered
    /// with a 0.5 s limit, then the silence closes the connection.
    func testAKeepAliveConnectionServesRequestsThenClosesWhenIdle() async throws {
        let (server, port) = try await Self.start(deadlines: 0.5)
        defer { Task { try? await server.shutdown() } }
        let request = Array("POST /unknown-subscription HTTP/1.1\r\nHost: 127.0.0.1\r\nTTL: 60\r\nContent-Length: 0\r\n\r\n".utf8)
        let outcome = try HTTP1WireClient(port: port).exchange([(request, 0.3), (request, 0)], readFor: 6)
        XCTAssertEqual(outcome.statuses, [400, 400], "\(outcome)")
        XCTAssertTrue(outcome.closed, "\(outcome)")
        let diagnosis = await waitForDiagnosis(.timeoutHTTP1Idle, on: server)
        XCTAssertNotNil(diagnosis)
    }

    // MARK: Declared size

    func testAContentLengthOverTheLimitIsAnswered413AtOnceAndRecorded() async throws {
        let (server, port) = try await Self.start(deadlines: nil)
        defer { Task { try? await server.shutdown() } }
        let subscription = try Self.subscription(server)
        let outcome = try HTTP1WireClient(port: port).exchange(
            "POST /\(subscription.id) HTTP/1.1\r\nHost: 127.0.0.1\r\nTTL: 60\r\nContent-Encoding: aes128gcm\r\nContent-Length: 10000000\r\n\r\n",
            readFor: 6)
        XCTAssertEqual(outcome.statuses, [413], "\(outcome)")
        XCTAssertTrue(outcome.received.hasSuffix(#"{"reason":"PayloadTooLarge"}"#), "\(outcome)")
        XCTAssertTrue(outcome.hasHeader("connection", "close"), "\(outcome)")
        XCTAssertTrue(outcome.closed, "\(outcome)")
        let records = try await server.waitForNotifications(count: 1, matching: NotificationFilter(deviceToken: subscription.id))
        let record = try XCTUnwrap(records.first)
        XCTAssertEqual(record.status, 413)
        XCTAssertEqual(record.reason, .payloadTooLarge)
        XCTAssertEqual(record.payloadLength, 10_000_000)
        let diagnosis = await waitForDiagnosis(.webPushPayloadTooLarge, on: server)
        XCTAssertTrue(diagnosis?.contains("Content-Length") == true, diagnosis ?? "none")
    }

    func testAChunkSizeOverTheLimitIsAnswered413AtOnce() async throws {
        let (server, port) = try await Self.start(deadlines: nil)
        defer { Task { try? await server.shutdown() } }
        let subscription = try Self.subscription(server)
        let head = "POST /\(subscription.id) HTTP/1.1\r\nHost: 127.0.0.1\r\nTTL: 60\r\nTransfer-Encoding: chunked\r\n\r\n"
        for chunks in ["8000000000000000\r\n", "800\r\n" + String(repeating: "a", count: 2048) + "\r\n900\r\n"] {
            let outcome = try HTTP1WireClient(port: port).exchange(head + chunks, readFor: 6)
            XCTAssertEqual(outcome.statuses, [413], "\(outcome)")
            XCTAssertTrue(outcome.closed, "\(outcome)")
        }
        let records = try await server.waitForNotifications(count: 2, matching: NotificationFilter(deviceToken: subscription.id))
        XCTAssertEqual(records.map(\.status), [413, 413])
    }

    /// The guard hands NIO's decoder one message at a time: a chunked body within the limit and
    /// pipelined requests (with and without bodies, in one write) are all answered, in order.
    func testChunkedAndPipelinedRequestsWithinTheLimitsAreAnswered() async throws {
        let (server, port) = try await Self.start(deadlines: nil)
        defer { Task { try? await server.shutdown() } }
        let chunked = "POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nTTL: 60\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n3\r\nabc\r\n0\r\nX-Trailer: yes\r\n\r\n"
        let sized = "POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nTTL: 60\r\nContent-Length: 4\r\n\r\nbody"
        let bodiless = "GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let last = chunked.replacingOccurrences(of: "TTL: 60\r\n", with: "TTL: 60\r\nConnection: close\r\n")
        let outcome = try HTTP1WireClient(port: port).exchange(
            [(Array((chunked + sized + bodiless + last).utf8), 0)], readFor: 10)
        // POST to a subscription never made: 400 BadDeviceToken from the core; GET: 405. The
        // last asks to close, and the connection closes after its answer, not before.
        XCTAssertEqual(outcome.statuses, [400, 400, 405, 400], "\(outcome)")
        XCTAssertTrue(outcome.closed, "\(outcome)")
    }

    // MARK: Low-level 400s close the socket

    func testEveryLowLevel400SaysConnectionCloseAndClosesTheSocket() async throws {
        let (server, port) = try await Self.start(deadlines: nil)
        defer { Task { try? await server.shutdown() } }
        let head = "POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        let cases: [(String, String)] = [
            ("Transfer-Encoding with Content-Length", head + "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n"),
            ("two Content-Lengths", head + "Content-Length: 1\r\nContent-Length: 2\r\n\r\nab"),
            ("a bad chunk size", head + "Transfer-Encoding: chunked\r\n\r\nzz\r\n"),
            ("a folded header line", head + "X-Folded: one\r\n  two\r\nContent-Length: 0\r\n\r\n"),
            ("a NUL", head + "X-Nul: a\u{0}b\r\nContent-Length: 0\r\n\r\n"),
            ("two Host lines", "POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nContent-Length: 0\r\n\r\n"),
            ("no Host line", "POST /x HTTP/1.1\r\nContent-Length: 0\r\n\r\n"),
        ]
        for (name, request) in cases {
            let outcome = try HTTP1WireClient(port: port).exchange(request, readFor: 6)
            XCTAssertEqual(outcome.statuses, [400], "\(name): \(outcome)")
            XCTAssertTrue(outcome.hasHeader("connection", "close"), "\(name): \(outcome)")
            XCTAssertTrue(outcome.closed, "\(name): the socket stayed open after Connection: close; \(outcome)")
        }
        XCTAssertEqual(Self.diagnosisCodes(server).filter { $0 == .webPushMalformedHTTP1 }.count, cases.count)
        XCTAssertEqual(server.notifications(matching: NotificationFilter()).count, 0, "none of them is a push")
    }

    // MARK: Host and the request target

    func testAnAbsoluteFormTargetNamingAnotherHostIsAnswered421AndOneNamingThisEndpointIsServed() async throws {
        let (server, port) = try await Self.start(deadlines: nil)
        defer { Task { try? await server.shutdown() } }
        let subscription = try Self.subscription(server)
        let host = "Host: 127.0.0.1:\(port)\r\n"
        for target in ["https://evil.example/\(subscription.id)", "http://127.0.0.1:\(port)/\(subscription.id)",
                       "https://127.0.0.1:\(port + 1)/\(subscription.id)"] {
            let outcome = try HTTP1WireClient(port: port).exchange(
                "POST \(target) HTTP/1.1\r\n\(host)TTL: 60\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            XCTAssertEqual(outcome.statuses, [421], "\(target): \(outcome)")
            XCTAssertTrue(outcome.closed, "\(target): \(outcome)")
        }
        XCTAssertEqual(Self.diagnosisCodes(server).filter { $0 == .webPushMisdirected }.count, 3)
        // Naming the endpoint itself, the target's path is read: the subscription is found and
        // the missing VAPID token is what is wrong (not 404 BadPath).
        let served = try HTTP1WireClient(port: port).exchange(
            "POST \(subscription.endpoint) HTTP/1.1\r\n\(host)TTL: 60\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(served.statuses, [403], "\(served)")
        XCTAssertTrue(served.received.hasSuffix(#"{"reason":"BadJwtToken"}"#), "\(served)")
    }
}
