import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest
import MockAPNsLegacy

/// The legacy binary gateway over real TLS on 127.0.0.1, driven by Python's `ssl` module with
/// the certs-dev client certificates.
final class LegacyGatewayTests: XCTestCase {
    /// The "done when" case: 1,000 command-2 notifications in one write, number 500 to an
    /// unregistered token. Exactly one packet comes back (status 8, identifier 500); the 499
    /// before were accepted, the 500 after dropped; the token then shows up in feedback once.
    func testOneBadTokenAmongAThousandGetsOnePacketAndFeedsFeedbackOnce() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let badToken = Legacy.token(0xBD)
        let unregisteredAt: Int64 = 1_700_000_000_123
        server.registry.markUnregistered(Legacy.hex(badToken), since: unregisteredAt)

        var stream: [UInt8] = []
        for identifier in UInt32(1)...1000 {
            stream += Legacy.frame(identifier: identifier, token: identifier == 500 ? badToken : Legacy.token(0x11))
        }
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: stream)
        XCTAssertTrue(outcome.handshakeSucceeded, outcome.handshake)
        XCTAssertEqual(outcome.version, "TLSv1.2")
        XCTAssertEqual(outcome.received, [8, 8, 0, 0, 0x01, 0xF4], "one packet: status 8, identifier 500")
        XCTAssertTrue(outcome.closed, "the server closes after the packet")
        XCTAssertNil(outcome.error, "a clean close, not a reset that could destroy the packet")

        let report = try await Legacy.reports(server)[0]
        XCTAssertEqual(report.accepted, 499)
        XCTAssertEqual(report.dropped, 500)
        XCTAssertEqual(report.lastAcceptedIdentifier, 499)
        XCTAssertEqual(report.errorResponse, LegacyErrorResponse(status: .invalidToken, identifier: 500))
        XCTAssertEqual(report.certificateSubject?.contains("UID=com.example.app"), true)

        let feedbackPort = try XCTUnwrap(ports.feedback)
        let first = try LegacyTLSClient.exchange(port: feedbackPort, send: [])
        XCTAssertTrue(first.closed)
        let tuples = try FeedbackTupleDecoder.decodeAll(first.received)
        XCTAssertEqual(tuples.map(\.token), [badToken])
        XCTAssertEqual(tuples.first?.timestamp, UInt32(unregisteredAt / 1000))

        let second = try LegacyTLSClient.exchange(port: feedbackPort, send: [])
        XCTAssertTrue(second.closed)
        XCTAssertEqual(second.received, [], "feedback is cleared once read")
        try await server.shutdown()
    }

    func testCommandZeroFailureClosesWithoutAPacket() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let badToken = Legacy.token(0xBD)
        server.registry.markUnregistered(Legacy.hex(badToken), since: 1_700_000_000_000)
        let stream = Legacy.simple(token: Legacy.token(0x11)) + Legacy.simple(token: badToken) + Legacy.simple(token: Legacy.token(0x22))
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: stream)
        XCTAssertEqual(outcome.received, [], "command 0 has no identifier: Apple closes without a word")
        XCTAssertTrue(outcome.closed)

        let report = try await Legacy.reports(server)[0]
        XCTAssertEqual(report.accepted, 1)
        XCTAssertEqual(report.dropped, 1)
        XCTAssertTrue(report.closedSilently)
        XCTAssertNil(report.errorResponse)
        try await server.shutdown()
    }

    func testParseErrorClosesSilentlyByDefault() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let stream = Legacy.frame(identifier: 1, token: Legacy.token(0x11)) + [0x07, 0, 0, 0, 0, 0, 0]
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: stream)
        XCTAssertEqual(outcome.received, [], "TN2265: an invalid command byte closes with zero bytes")
        XCTAssertTrue(outcome.closed)
        let report = try await Legacy.reports(server)[0]
        XCTAssertEqual(report.accepted, 1)
        XCTAssertEqual(report.failure?.contains("unknown command 7"), true, report.failure ?? "")
        try await server.shutdown()
    }

    func testParseErrorSendsStatus128UnderTheStatusPacketPolicy() async throws {
        let (server, ports) = try await LegacyTestServer.start { $0.legacy.parseErrorPolicy = .statusPacket }
        let stream = Legacy.frame(identifier: 1, token: Legacy.token(0x11)) + [0x07, 0, 0, 0, 0, 0, 0]
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: stream)
        XCTAssertEqual(outcome.received, [8, 128, 0, 0, 0, 0], "status 128 (protocol error); no identifier was read")
        XCTAssertTrue(outcome.closed)
        try await server.shutdown()
    }

    func testPayloadLimitFollowsTheConfiguredEra() async throws {
        let (server, ports) = try await LegacyTestServer.start { $0.legacy.maximumPayloadLength = 256 }
        let big = Array(("{\"aps\":{\"alert\":\"" + String(repeating: "x", count: 300) + "\"}}").utf8)
        let frame = LegacyNotification(command: .enhanced, identifier: 42, expiry: 0, token: Legacy.token(0x11), payload: big).encoded()
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: frame)
        XCTAssertEqual(outcome.received, [8, 7, 0, 0, 0, 42], "status 7: payload over the iOS 7 limit of 256 bytes")
        try await server.shutdown()
    }

    func testTokenLengthIsConfigurable() async throws {
        let (server, ports) = try await LegacyTestServer.start {
            $0.legacy.tokenLength = 100
            $0.legacy.variableTokenLength = true
        }
        let long = [UInt8](repeating: 0x33, count: 80)
        let stream = Legacy.enhanced(identifier: 1, token: long) + Legacy.enhanced(identifier: 2, token: [UInt8](repeating: 0x44, count: 101))
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: stream)
        XCTAssertEqual(outcome.received, [8, 5, 0, 0, 0, 2], "80 bytes accepted; 101 bytes is status 5 (invalid token size)")
        try await server.shutdown()
    }

    func testAClientWithoutCertificateIsRefusedAtTheHandshake() async throws {
        let logs = CapturedLogs()
        let (server, ports) = try await LegacyTestServer.start(logger: logs.logger())
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), certificate: nil, send: Legacy.frame(identifier: 1, token: Legacy.token(1)))
        XCTAssertFalse(outcome.handshakeSucceeded, "the gateway requires a client certificate")
        try await server.shutdown()
        XCTAssertTrue(logs.messages.contains { $0.contains("legacy gateway: TLS handshake refused: client presented no certificate") && $0.contains("the client offered [") },
                      logs.messages.joined(separator: "\n"))
    }

    func testAnExpiredCertificateIsRefusedAtTheHandshake() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), certificate: "expired", send: [])
        XCTAssertFalse(outcome.handshakeSucceeded)
        XCTAssertTrue(outcome.handshake.lowercased().contains("certificate expired"), outcome.handshake)
        try await server.shutdown()
    }

    func testAnUntrustedCertificateIsRefusedAtTheHandshake() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), certificate: "untrusted", send: [])
        XCTAssertFalse(outcome.handshakeSucceeded)
        XCTAssertTrue(outcome.handshake.lowercased().contains("unknown ca"), outcome.handshake)
        try await server.shutdown()
    }

    /// Apple's binary gateway refused a certificate of the other environment (providers saw
    /// the alert certificate_unknown). Our TLS layer has verified the chain by then, so the
    /// mock completes the handshake and closes without reading: the client sees EOF with
    /// zero bytes, and the log says why.
    func testAProductionCertificateOnASandboxServerIsClosedUnread() async throws {
        let logs = CapturedLogs()
        let (server, ports) = try await LegacyTestServer.start(logger: logs.logger())
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), certificate: "production",
                                                   send: Legacy.frame(identifier: 1, token: Legacy.token(0x11)))
        XCTAssertTrue(outcome.handshakeSucceeded)
        XCTAssertEqual(outcome.received, [])
        XCTAssertTrue(outcome.closed)
        XCTAssertNil(outcome.error, "drained first, so the close is clean")
        let report = try await Legacy.reports(server)[0]
        XCTAssertEqual(report.accepted, 0)
        XCTAssertTrue(report.closedSilently)
        try await server.shutdown()
        XCTAssertTrue(logs.messages.contains { $0.contains("is for production, but this server plays sandbox") }, logs.messages.joined(separator: "\n"))
    }

    func testAUniversalCertificateWorksInProduction() async throws {
        let (server, ports) = try await LegacyTestServer.start { $0.environment = .production }
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), certificate: "universal",
                                                   send: Legacy.frame(identifier: 1, token: Legacy.token(0x11)), timeout: 0.5)
        XCTAssertTrue(outcome.handshakeSucceeded)
        XCTAssertEqual(outcome.received, [], "nothing is sent for a success")
        XCTAssertFalse(outcome.closed, "the connection stays open")
        try await server.shutdown()
        let report = try await Legacy.reports(server)[0]
        XCTAssertEqual(report.accepted, 1)
    }

    func testOpenSSLClientReadsTheErrorPacketOfACommandOneFrame() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let badToken = Legacy.token(0xBD)
        server.registry.markUnregistered(Legacy.hex(badToken), since: 1_700_000_000_000)
        let frame = Legacy.enhanced(identifier: 0x0102_0304, token: badToken)
        let directory = Fixtures.certificateDirectory
        let command = "openssl s_client -connect 127.0.0.1:\(try XCTUnwrap(ports.gateway)) -servername localhost"
            + " -CAfile \(directory)/ca.pem -cert \(directory)/client-sandbox.pem -key \(directory)/client-sandbox-key.pem"
            + " -quiet 2>/dev/null | od -An -v -tx1"
        let result = try ProcessRunner.run("sh", ["-c", command], input: Data(frame), timeout: 20)
        let hex = result.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined()
        XCTAssertEqual(hex, "080801020304", "status 8 with the identifier exactly as sent")
        try await server.shutdown()
    }

    func testLegacyShutdownSendsStatus10WithTheLastAcceptedIdentifier() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let gateway = try XCTUnwrap(ports.gateway)
        let ready = NSTemporaryDirectory() + "legacy-ready-\(UUID().uuidString)"
        let stream = [UInt32(7), 8, 9].flatMap { Legacy.frame(identifier: $0, token: Legacy.token(0x11)) }
        let client = Task.detached {
            try LegacyTLSClient.run(port: gateway, connections: [.init(send: stream)], timeout: 10, readyFile: ready)
        }
        try await waitForFile(ready)
        try await waitUntil("three accepted notifications") {
            server.notifications(matching: NotificationFilter(accepted: true)).count == 3
        }
        await server.legacyShutdown()
        let outcome = try await client.value[0]
        XCTAssertEqual(outcome.received, [8, 10, 0, 0, 0, 9], "status 10 names the last accepted notification")
        XCTAssertTrue(outcome.closed)
        let report = try await Legacy.reports(server)[0]
        XCTAssertEqual(report.accepted, 3)
        XCTAssertEqual(report.errorResponse, LegacyErrorResponse(status: .shutdown, identifier: 9))

        // The listener stays up: a new connection works.
        let again = try LegacyTLSClient.exchange(port: gateway, send: Legacy.frame(identifier: 1, token: Legacy.token(0x11)), timeout: 0.5)
        XCTAssertTrue(again.handshakeSucceeded)
        XCTAssertFalse(again.closed)
        try await server.shutdown()
    }

    func testServerShutdownSendsStatus10() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let gateway = try XCTUnwrap(ports.gateway)
        let ready = NSTemporaryDirectory() + "legacy-ready-\(UUID().uuidString)"
        let client = Task.detached {
            try LegacyTLSClient.run(port: gateway, connections: [.init(send: [])], timeout: 10, readyFile: ready)
        }
        try await waitForFile(ready)
        try await waitUntil("the server's side of the handshake") {
            server.journal.events(matching: JournalEventFilter()).contains { event in
                if case .tlsEstablished = event.kind { return true }
                return false
            }
        }
        try await server.shutdown(gracePeriod: .seconds(1))
        let outcome = try await client.value[0]
        XCTAssertEqual(outcome.received, [8, 10, 0, 0, 0, 0], "nothing accepted yet: identifier 0")
        XCTAssertTrue(outcome.closed)
    }

    func testAClientThatClosesWithoutReadingThePacketIsDiagnosed() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let badToken = Legacy.token(0xBD)
        server.registry.markUnregistered(Legacy.hex(badToken), since: 1_700_000_000_000)
        let stream = Legacy.frame(identifier: 1, token: Legacy.token(0x11)) + Legacy.frame(identifier: 2, token: badToken)
        _ = try LegacyTLSClient.run(port: try XCTUnwrap(ports.gateway),
                                    connections: [.init(send: stream, closeWithoutReadingAfter: 0.05)])
        let report = try await Legacy.reports(server)[0]
        XCTAssertEqual(report.errorResponse, LegacyErrorResponse(status: .invalidToken, identifier: 2))
        XCTAssertTrue(report.diagnoses.contains(.closedWithoutReadingError(status: .invalidToken, identifier: 2)), "\(report.diagnoses)")
        try await server.shutdown()
    }

    func testAClientThatReadsThePacketIsNotDiagnosed() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let badToken = Legacy.token(0xBD)
        server.registry.markUnregistered(Legacy.hex(badToken), since: 1_700_000_000_000)
        _ = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: Legacy.frame(identifier: 2, token: badToken))
        let report = try await Legacy.reports(server)[0]
        XCTAssertEqual(report.diagnoses, [])
        try await server.shutdown()
    }

    func testFrameMistakesAreDiagnosed() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        // The token sent as 64 ASCII hex digits instead of 32 bytes: status 5, and the reason.
        let hexToken = Array(String(repeating: "ab", count: 32).utf8)
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: Legacy.enhanced(identifier: 3, token: hexToken))
        XCTAssertEqual(outcome.received, [8, 5, 0, 0, 0, 3])
        let report = try await Legacy.reports(server)[0]
        XCTAssertTrue(report.diagnoses.contains(.asciiHexToken(identifier: 3, length: 64)), "\(report.diagnoses)")
        try await server.shutdown()
    }

    func testManyOneNotificationConnectionsAreReportedAsChurnOnce() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let connections = (1...12).map { LegacyTLSClient.Connection(send: Legacy.frame(identifier: UInt32($0), token: Legacy.token(0x11)),
                                                                     closeWithoutReadingAfter: 0) }
        _ = try LegacyTLSClient.run(port: try XCTUnwrap(ports.gateway), connections: connections)
        _ = try await Legacy.reports(server, count: 12)
        let churn = server.legacyActivity.diagnoses.filter { $0.code == .legacyConnectionChurn }
        XCTAssertEqual(churn.count, 1, "one diagnosis per window, not one per connection")
        if case .connectionChurn(let count, let seconds, let perConnection) = churn.first {
            XCTAssertEqual(count, 10)
            XCTAssertEqual(seconds, 10)
            XCTAssertEqual(perConnection, 1)
        }
        try await server.shutdown()
    }

    /// `POST /v1/reset` starts the churn window over: a burst right after it is diagnosed,
    /// though one was diagnosed just before (the window would otherwise keep quiet for 10 s).
    func testAResetStartsTheChurnWindowOver() async throws {
        let (server, ports) = try await LegacyTestServer.start { $0.controlPort = 0 }
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let gateway = try XCTUnwrap(ports.gateway)
        func burst() throws {
            let connections = (1...10).map { LegacyTLSClient.Connection(send: Legacy.frame(identifier: UInt32($0), token: Legacy.token(0x11)),
                                                                         closeWithoutReadingAfter: 0) }
            _ = try LegacyTLSClient.run(port: gateway, connections: connections)
        }
        func churnRecorded() async -> Bool {
            let found = await server.journal.waitForEvents(count: 1, timeout: .seconds(10)) { event in
                if case .diagnosis(.legacyConnectionChurn, _, _) = event.kind { return true }
                return false
            }
            return !found.isEmpty
        }
        try burst()
        _ = try await Legacy.reports(server, count: 10)
        let diagnosedBefore = await churnRecorded()
        XCTAssertTrue(diagnosedBefore)

        let reset = try ControlClient(port: try XCTUnwrap(ports.control)).call("POST", "/v1/reset")
        XCTAssertEqual(reset.status, 200, reset.text)
        try burst()
        _ = try await Legacy.reports(server, count: 20)
        let diagnosedAfter = await churnRecorded()
        XCTAssertTrue(diagnosedAfter, "the burst after the reset is churn of its own")
        XCTAssertEqual(server.legacyActivity.diagnoses.filter { $0.code == .legacyConnectionChurn }.count, 2)
    }

    func testOldTLSIsRefusedByDefaultAndAcceptedWhenAllowed() async throws {
        let logs = CapturedLogs()
        let (strict, strictPorts) = try await LegacyTestServer.start(logger: logs.logger())
        let refused = try LegacyTLSClient.run(port: try XCTUnwrap(strictPorts.gateway), connections: [.init(send: [])],
                                              minimumVersion: "TLSv1", maximumVersion: "TLSv1")
        XCTAssertFalse(refused[0].handshakeSucceeded)
        try await strict.shutdown()
        XCTAssertTrue(logs.messages.contains { $0.contains("TLS handshake refused") && $0.contains("offered [TLSv1]") },
                      logs.messages.joined(separator: "\n"))
        // The refusal names the setting that allows the client's version.
        XCTAssertTrue(logs.messages.contains { $0.contains("offered only [TLSv1]") && $0.contains("--legacy-allow-old-tls (legacy.allowOldTLS)") },
                      logs.messages.joined(separator: "\n"))

        let (lenient, lenientPorts) = try await LegacyTestServer.start { $0.legacy.allowOldTLS = true }
        let accepted = try LegacyTLSClient.run(port: try XCTUnwrap(lenientPorts.gateway), connections: [.init(send: [], closeWithoutReadingAfter: 0)],
                                               minimumVersion: "TLSv1", maximumVersion: "TLSv1")
        XCTAssertTrue(accepted[0].handshakeSucceeded, accepted[0].handshake)
        XCTAssertEqual(accepted[0].version, "TLSv1")
        try await lenient.shutdown()
    }

    /// An SSLv3-only provider (from before 2014) is refused, and told that no setting helps:
    /// `--legacy-allow-old-tls` goes down to TLS 1.0 only, so naming it would send the
    /// developer after a flag that changes nothing. Checked with and without that flag, in
    /// the log, the journal and the connection's report.
    func testAnSSLv3OnlyClientIsToldSSLv3IsNeverAcceptedNotToSetTheOldTLSFlag() async throws {
        for allowOldTLS in [false, true] {
            let logs = CapturedLogs()
            let (server, ports) = try await LegacyTestServer.start(logger: logs.logger()) { $0.legacy.allowOldTLS = allowOldTLS }
            // A bare SSLv3 ClientHello (record and client version 3.0, no extensions), as
            // providers from before 2014 sent; this machine's openssl has no -ssl3 to send one.
            let result = try ProcessRunner.run("python3", ["-c", """
                import os, socket
                body = bytes([3, 0]) + os.urandom(32) + bytes([0, 0, 4, 0, 0x2f, 0, 0x35, 1, 0])
                hello = bytes([1]) + len(body).to_bytes(3, "big") + body
                s = socket.create_connection(("127.0.0.1", \(try XCTUnwrap(ports.gateway))))
                s.sendall(bytes([0x16, 3, 0]) + len(hello).to_bytes(2, "big") + hello)
                s.settimeout(5)
                reply = b""
                while True:
                    chunk = s.recv(100)
                    if not chunk:
                        break
                    reply += chunk
                print(reply.hex())
                """])
            XCTAssertTrue(result.stdout.hasPrefix("15"), "a TLS alert record, then close: \(result.stdout) \(result.stderr)")
            let report = try await Legacy.reports(server)[0]
            XCTAssertNil(report.tlsVersion)
            let failures = await server.journal.waitForEvents(count: 1, timeout: .seconds(5)) { event in
                if case .tlsFailed = event.kind { return true }
                return false
            }
            guard case .tlsFailed(let failure)? = failures.first?.kind else { return XCTFail("no tlsFailed event") }
            try await server.shutdown()
            XCTAssertEqual(failure.offeredVersions, ["SSLv3"])
            let refusal = try XCTUnwrap(logs.messages.first { $0.contains("legacy gateway: TLS handshake refused") }, logs.messages.joined(separator: "\n"))
            XCTAssertTrue(refusal.contains("offered [SSLv3]"), refusal)
            for text in [failure.reason, report.failure ?? "", refusal] {
                XCTAssertTrue(text.contains("client offered only [SSLv3]"), text)
                XCTAssertTrue(text.contains("SSLv3 is never accepted, whatever the settings: it is insecure (POODLE, CVE-2014-3566)"), text)
                XCTAssertTrue(text.contains("OpenSSL 3, which serves TLS here, has no SSLv3 at all"), text)
                XCTAssertTrue(text.contains("Apple's gateway and feedback service have refused it since October 2014"), text)
                XCTAssertTrue(text.contains("let the client offer TLS 1.2"), text)
                XCTAssertFalse(text.contains("--legacy-allow-old-tls"), "allowOldTLS \(allowOldTLS): \(text)")
                XCTAssertFalse(text.contains("nothing older than TLS 1.0"), "allowOldTLS \(allowOldTLS): \(text)")
            }
        }
    }

    func testTLS13IsNotOffered() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let outcome = try LegacyTLSClient.run(port: try XCTUnwrap(ports.gateway), connections: [.init(send: [])], minimumVersion: "TLSv1_3")
        XCTAssertFalse(outcome[0].handshakeSucceeded, "the legacy ports speak TLS 1.2 at most")
        try await server.shutdown()
    }

    private func waitForFile(_ path: String, timeout: Double = 10) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !FileManager.default.fileExists(atPath: path) {
            guard Date() < deadline else { return XCTFail("the client never got to send") }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Whatever bytes arrive, the gateway answers at most once, closes, and keeps serving.
final class LegacyGatewayRobustnessTests: XCTestCase {
    func testRandomAndMutatedStreamsGetAtMostOnePacketAndAClose() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let gateway = try XCTUnwrap(ports.gateway)
        var generator = SystemRandomNumberGenerator()
        var connections: [LegacyTLSClient.Connection] = []
        for index in 0..<16 {
            var stream: [UInt8]
            if index % 2 == 0 {
                stream = (0..<Int.random(in: 1...3000, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            } else {
                // Valid frames with a few bytes flipped.
                stream = (1...20).flatMap { Legacy.frame(identifier: UInt32($0), token: Legacy.token(0x11)) }
                for _ in 0..<3 {
                    stream[Int.random(in: 0..<stream.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
            }
            connections.append(.init(send: stream))
        }
        let outcomes = try LegacyTLSClient.run(port: gateway, connections: connections, timeout: 1)
        for (index, outcome) in outcomes.enumerated() {
            XCTAssertTrue(outcome.handshakeSucceeded, "\(index): \(outcome.handshake)")
            XCTAssertTrue(outcome.received.count == 0 || outcome.received.count == 6, "\(index): \(outcome.data)")
            if outcome.received.count == 6 {
                XCTAssertEqual(outcome.received[0], 8, "\(index): an error-response packet")
            }
        }
        // Streams that happen to stay valid leave the connection open until the client's
        // timeout; every other one was closed by the server.
        _ = try await Legacy.reports(server, count: outcomes.count)
        let after = try LegacyTLSClient.exchange(port: gateway, send: Legacy.frame(identifier: 1, token: Legacy.token(0x11)), timeout: 0.5)
        XCTAssertTrue(after.handshakeSucceeded, "the server still serves")
        XCTAssertEqual(after.received, [])
        try await server.shutdown()
    }

    func testPlainTextIsRefusedAndTheListenerKeepsServing() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let gateway = try XCTUnwrap(ports.gateway)
        let result = try ProcessRunner.run("python3", ["-c", """
            import socket
            s = socket.create_connection(("127.0.0.1", \(gateway)))
            s.sendall(b"GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
            s.settimeout(5)
            while s.recv(100):
                pass
            print("eof")
            """])
        XCTAssertEqual(result.stdout, "eof\n", "the server closes a connection that does not speak TLS: \(result.stderr)")
        let after = try LegacyTLSClient.exchange(port: gateway, send: [], timeout: 0.3)
        XCTAssertTrue(after.handshakeSucceeded)
        try await server.shutdown()
    }
}
