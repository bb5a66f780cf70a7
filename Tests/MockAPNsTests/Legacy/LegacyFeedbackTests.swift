import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest
import MockAPNsLegacy

/// The legacy feedback service over real TLS: tuples for the certificate's app, then close.
final class LegacyFeedbackTests: XCTestCase {
    func testAnEmptyQueueGivesZeroBytesThenEOF() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.feedback), send: [])
        XCTAssertTrue(outcome.handshakeSucceeded, outcome.handshake)
        XCTAssertEqual(outcome.received, [])
        XCTAssertTrue(outcome.closed, "the server closes at once")
        XCTAssertNil(outcome.error, "with close_notify, not a reset")
        try await server.shutdown()
    }

    func testEveryUnregisteredTokenComesOnceInOrderWithItsTime() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let tokens = [Legacy.token(0x01), Legacy.token(0x02), [UInt8](repeating: 0x03, count: 100)]
        for (index, token) in tokens.enumerated() {
            server.registry.markUnregistered(Legacy.hex(token), since: 1_600_000_000_000 + Int64(index) * 1000)
        }
        let first = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.feedback), send: [])
        let tuples = try FeedbackTupleDecoder.decodeAll(first.received)
        XCTAssertEqual(tuples.map(\.token), tokens)
        XCTAssertEqual(tuples.map(\.timestamp), [1_600_000_000, 1_600_000_001, 1_600_000_002])
        XCTAssertEqual(first.received.count, 3 * 6 + 32 + 32 + 100)

        let second = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.feedback), send: [])
        XCTAssertEqual(second.received, [])
        try await server.shutdown()
    }

    /// An entry whose time a tuple's 32-bit seconds cannot carry (after 2106) is not sent, and
    /// the journal says why, instead of it vanishing without a trace.
    func testAnEntryBeyondThirtyTwoBitSecondsIsSkippedWithAReason() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        server.registry.markUnregistered(Legacy.hex(Legacy.token(0x0C)), since: 5_000_000_000_000)
        server.registry.markUnregistered(Legacy.hex(Legacy.token(0x0D)), since: 1_600_000_000_000)
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.feedback), send: [])
        XCTAssertEqual(try FeedbackTupleDecoder.decodeAll(outcome.received).map(\.token), [Legacy.token(0x0D)])
        let skipped = await server.journal.waitForEvents(count: 1, timeout: .seconds(10)) { event in
            if case .diagnosis(let code, let message, _) = event.kind {
                return code == .feedbackTupleSkipped && message.contains("5000000000000") && message.contains("32-bit")
            }
            return false
        }
        XCTAssertEqual(skipped.count, 1)
        try await server.shutdown()
    }

    func testACertificateCollectsOnlyItsOwnAppsFeedback() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        server.registry.markUnregistered(Legacy.hex(Legacy.token(0x0A)), since: 1_600_000_000_000, topic: "com.example.other")
        server.registry.markUnregistered(Legacy.hex(Legacy.token(0x0B)), since: 1_600_000_000_000, topic: "com.example.app")
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.feedback), send: [])
        XCTAssertEqual(try FeedbackTupleDecoder.decodeAll(outcome.received).map(\.token), [Legacy.token(0x0B)])
        XCTAssertEqual(server.registry.pendingFeedback.map(\.topic), ["com.example.other"], "the other app's entry waits for its own certificate")
        try await server.shutdown()
    }

    func testATokenTheGatewayRefusedIsReportedOnceByFeedback() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let token = Legacy.token(0x5E)
        server.registry.markUnregistered(Legacy.hex(token), since: 1_650_000_000_000)
        // The gateway refuses it too (status 8); the feedback service still reports it once.
        let gateway = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: Legacy.frame(identifier: 77, token: token))
        XCTAssertEqual(gateway.received, [8, 8, 0, 0, 0, 77])
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.feedback), send: [])
        XCTAssertEqual(try FeedbackTupleDecoder.decodeAll(outcome.received).map(\.token), [token])
        try await server.shutdown()
    }

    func testFeedbackRequiresAClientCertificate() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        server.registry.markUnregistered(Legacy.hex(Legacy.token(0x01)), since: 1_600_000_000_000)
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.feedback), certificate: nil, send: [])
        XCTAssertFalse(outcome.handshakeSucceeded)
        XCTAssertEqual(server.registry.pendingFeedback.count, 1, "nothing was handed out")
        try await server.shutdown()
    }

    func testACertificateOfTheOtherEnvironmentGetsNothing() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        server.registry.markUnregistered(Legacy.hex(Legacy.token(0x01)), since: 1_600_000_000_000)
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.feedback), certificate: "production", send: [])
        XCTAssertTrue(outcome.handshakeSucceeded)
        XCTAssertEqual(outcome.received, [])
        XCTAssertTrue(outcome.closed)
        XCTAssertEqual(server.registry.pendingFeedback.count, 1, "the sandbox entry stays for a sandbox certificate")
        try await server.shutdown()
    }
}
