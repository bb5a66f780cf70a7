import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest
import MockAPNsLegacy

/// The journal of the legacy gateway and feedback service, driven by a real TLS client.
final class LegacyJournalTests: XCTestCase {
    func testGatewayNotificationsAreRecordedWithStatusAndTheDroppedOnes() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        server.registry.markUnregistered(Legacy.hex(Legacy.token(2)), since: 1_700_000_000_000)
        let bytes = Legacy.frame(identifier: 1, token: Legacy.token(1))
            + Legacy.frame(identifier: 2, token: Legacy.token(2))
            + Legacy.frame(identifier: 3, token: Legacy.token(3))
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: bytes)
        XCTAssertTrue(outcome.handshakeSucceeded)

        let records = try await server.waitForNotifications(count: 3, matching: NotificationFilter(transport: .legacy), timeout: .seconds(10))
        XCTAssertEqual(records.map(\.legacyIdentifier), [1, 2, 3])
        XCTAssertEqual(records.map(\.accepted), [true, false, false])
        XCTAssertEqual(records[0].deviceToken, Legacy.hex(Legacy.token(1)))
        XCTAssertEqual(records[0].topic, "com.example.app")
        XCTAssertEqual(records[1].reason, .unregistered)
        XCTAssertEqual(records[1].legacyStatus, .invalidToken)
        XCTAssertTrue(records[2].dropped)

        let frames = server.journal.events(matching: JournalEventFilter(kinds: ["legacyFrame"], transport: .legacy))
        XCTAssertEqual(frames.count, 3)
        if case .legacyFrame(let first)? = frames.first?.kind {
            XCTAssertEqual(first.command, 2)
            XCTAssertEqual(first.payloadLength, Legacy.payload.count)
        }
        try await server.shutdown()
    }

    /// A frame dropped after the connection's failure keeps what it said of its delivery, as
    /// an examined one's record does: its expiry and priority.
    func testADroppedFrameKeepsItsExpirationAndPriority() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        server.registry.markUnregistered(Legacy.hex(Legacy.token(2)), since: 1_700_000_000_000)
        let expiry: UInt32 = 1_900_000_000
        func frame(_ identifier: UInt32, _ token: [UInt8]) -> [UInt8] {
            LegacyNotification(command: .frame, identifier: identifier, expiry: expiry, token: token, payload: Legacy.payload,
                               priority: .powerAware).encoded()
        }
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: frame(1, Legacy.token(2)) + frame(2, Legacy.token(3)))
        XCTAssertEqual(outcome.received, [8, 8, 0, 0, 0, 1])
        let records = try await server.waitForNotifications(count: 2, matching: NotificationFilter(transport: .legacy), timeout: .seconds(10))
        XCTAssertEqual(records.map(\.dropped), [false, true])
        XCTAssertEqual(records.map(\.expiration), [Int64(expiry), Int64(expiry)])
        XCTAssertEqual(records.map(\.priority), [5, 5])
    }

    func testUnparseableFrameKeepsItsRawBytes() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        _ = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: [0x07, 0xDE, 0xAD, 0xBE, 0xEF])
        let refused = await server.journal.waitForEvents(count: 1, timeout: .seconds(10)) { event in
            if case .legacyFrame(let frame) = event.kind { return frame.problem != nil }
            return false
        }
        guard case .legacyFrame(let frame)? = refused.first?.kind else { return XCTFail("no refused frame recorded") }
        XCTAssertEqual(frame.command, 7)
        XCTAssertEqual(frame.rawBytes?.first, 0x07, "the bytes the codec read before giving up")
        XCTAssertTrue(frame.problem?.contains("unknown command 7") ?? false, frame.problem ?? "")
        try await server.shutdown()
    }

    func testFeedbackTuplesSentAreRecorded() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let token = Legacy.hex(Legacy.token(9))
        server.registry.markUnregistered(token, since: 1_700_000_000_000)
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.feedback), send: [])
        XCTAssertEqual(outcome.received.count, 38)
        let tuples = await server.journal.waitForEvents(count: 1, timeout: .seconds(10)) { event in
            if case .feedbackTuple = event.kind { return true }
            return false
        }
        XCTAssertEqual(tuples.first?.kind, .feedbackTuple(deviceToken: token, timestampMilliseconds: 1_700_000_000_000))
        let opened = server.journal.events(matching: JournalEventFilter(kinds: ["connectionOpened"], transport: .feedback))
        XCTAssertEqual(opened.count, 1)
        try await server.shutdown()
    }
}

extension LegacyJournalTests {
    func testLegacyShutdownRecordsTheServerClosingAndWhy() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let gateway = try XCTUnwrap(ports.gateway)
        // The client sends one good notification and keeps reading until the server closes.
        let client = Task.detached {
            try LegacyTLSClient.exchange(port: gateway, send: Legacy.frame(identifier: 7, token: Legacy.token(1)), timeout: 10)
        }
        _ = try await server.waitForNotifications(count: 1, matching: NotificationFilter(transport: .legacy), timeout: .seconds(10))
        await server.legacyShutdown()
        let outcome = try await client.value
        XCTAssertEqual(outcome.received, [8, 10, 0, 0, 0, 7], "status 10 naming the last accepted notification")
        let closed = server.journal.events(matching: JournalEventFilter(kinds: ["connectionClosed"], transport: .legacy))
        guard case .connectionClosed(_, let side, let reason)? = closed.first?.kind else { return XCTFail("no close recorded") }
        XCTAssertEqual(side, .server)
        XCTAssertEqual(reason, "server shutdown (status 10)")
        try await server.shutdown()
    }
}
