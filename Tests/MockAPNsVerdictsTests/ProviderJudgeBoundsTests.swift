import XCTest
@testable import MockAPNsCore
@testable import MockAPNsVerdicts
@testable import MockAPNsJournal

/// The judge's memory stays within its bounds however many requests are refused: a provider
/// whose every stream is reset, one pushing to a new bad token each time, one opening a new
/// connection for every refused push.
final class ProviderJudgeBoundsTests: XCTestCase {
    private var sequence: UInt64 = 0
    private var monotonic: UInt64 = 5_000_000_000

    private func event(_ kind: JournalEventKind, connection: UInt64, stream: Int32? = nil) -> JournalEvent {
        sequence += 1
        monotonic += 1_000_000
        return JournalEvent(
            sequence: sequence, wallTimeMilliseconds: 1_767_225_600_000 + Int64(sequence), monotonicNanoseconds: monotonic,
            connectionID: connection, streamID: stream, kind: kind
        )
    }

    private func opened(_ connection: UInt64) -> JournalEvent {
        event(.connectionOpened(transport: .http2, peer: "127.0.0.1:40000"), connection: connection)
    }

    /// A stream nghttp2 reset over a forbidden header value (`authorization: bearer `), as the
    /// listener records it: credentials never checked, nothing answered.
    private func resetStream(_ connection: UInt64, token: String = "a1b2c3d4" + String(repeating: "0", count: 56)) -> JournalEvent {
        let record = NotificationRecord(
            transport: .http2, deviceToken: token, topic: "com.example.app", pushType: "alert", payload: [],
            authentication: JournalAuthentication(kind: "unverified"),
            answer: .nothing(undelivered: "the stream was reset (PROTOCOL_ERROR) before the request was read"), dropped: true
        )
        return event(.notification(record), connection: connection, stream: 1)
    }

    private func refused(_ connection: UInt64, token: String, reason: Reason) -> JournalEvent {
        let record = NotificationRecord(
            transport: .http2, deviceToken: token, topic: "com.example.app", pushType: "alert",
            payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8),
            authentication: JournalAuthentication(kind: "providerToken", teamID: "TEAM00000A", keyID: "SANDBOX001", issuedAt: 1_767_225_000),
            answer: SentAnswer(status: reason.httpStatus, reason: reason, accepted: false)
        )
        return event(.notification(record), connection: connection, stream: 1)
    }

    func testResetStreamsWithoutEndOnOneConnectionKeepBoundedState() {
        let settings = VerdictSettings()
        var judge = ProviderJudge(settings: settings)
        _ = judge.consume(opened(1))
        var findings = 0
        for _ in 0..<30_000 { findings += judge.consume(resetStream(1)).count }
        let counts = judge.stateCounts
        // One notification sent again and again: one chain, a bounded record of its delays,
        // and findings waiting for the connection's provider kept as examples, the rest counted.
        XCTAssertEqual(counts.chains, 1)
        XCTAssertLessThanOrEqual(counts.chainDelays, 10_000 + settings.backoffRunLength)
        XCTAssertLessThanOrEqual(counts.pendingFindings, VerdictRule.allCases.count * (settings.examplesPerRule + 1))
        XCTAssertEqual(findings, 0, "the provider is not known until the connection closes")
        // Once it is, every finding is counted, though only the examples were kept whole.
        let closing = judge.consume(event(.connectionClosed(transport: .http2, closedBy: .client, reason: nil), connection: 1))
        XCTAssertLessThanOrEqual(closing.count, VerdictRule.allCases.count * settings.examplesPerRule)
        // 29,999 retries, each too soon but the first after a drop, and one flat backoff.
        XCTAssertEqual(judge.report().provider(.unidentified)?.rule(.noBackoff).findings, 29_999)
    }

    func testRefusalsOfEverNewTokensKeepAtMostTheBoundOfNotifications() {
        var judge = ProviderJudge()
        _ = judge.consume(opened(1))
        let pushes = ProviderJudge.StateBounds.notifications + 10_000
        for index in 0..<pushes {
            let token = String(format: "%064x", index)
            _ = judge.consume(refused(1, token: token, reason: index % 2 == 0 ? .badDeviceToken : .unregistered))
        }
        let counts = judge.stateCounts
        XCTAssertLessThanOrEqual(counts.chains, ProviderJudge.StateBounds.notifications)
        XCTAssertLessThanOrEqual(counts.chainsByAPNsID, counts.chains)
        XCTAssertLessThanOrEqual(counts.goneTokens, ProviderJudge.StateBounds.notifications)
        XCTAssertGreaterThanOrEqual(judge.forgottenChains, pushes - ProviderJudge.StateBounds.notifications)
    }

    /// Junk on the gateway: hundreds of connections a second, each failing its handshake and
    /// closed by the server. Each is a drop, and every connection opened within a second after
    /// one is a reconnection after it: kept whole, that is quadratic in the rate.
    func testJunkConnectionsAtHundredsASecondKeepBoundedDrops() {
        var judge = ProviderJudge()
        var storms = 0
        for connection in UInt64(1)...20_000 {
            monotonic += 1_000_000  // 2 ms apart with the event's own millisecond: 500 a second
            let events = [
                event(.connectionOpened(transport: .legacy, peer: "127.0.0.1:1"), connection: connection),
                event(.tlsFailed(JournalTLSFailure(
                    reason: "not TLS", alertSent: "unexpected_message", alertReceived: nil, serverName: nil, offeredALPN: nil,
                    offeredVersions: [], offeredCipherSuites: []
                )), connection: connection),
                event(.connectionClosed(transport: .legacy, closedBy: .server, reason: "handshake failed"), connection: connection),
            ]
            for event in events {
                let found = judge.consume(event).filter { $0.check == .reconnectStorm }
                storms += found.count
                XCTAssertTrue(found.allSatisfy { $0.connections.count <= 51 }, "the evidence is the first 50 reconnections")
            }
        }
        let counts = judge.stateCounts
        XCTAssertLessThanOrEqual(counts.drops, ProviderJudge.StateBounds.dropsPerProvider)
        XCTAssertLessThanOrEqual(counts.dropReconnections, ProviderJudge.StateBounds.dropsPerProvider * 50)
        XCTAssertLessThanOrEqual(counts.connections, 1)
        XCTAssertGreaterThan(storms, 0, "the storm is still found")
    }

    func testAConnectionPerRefusedPushKeepsAtMostTheBoundOfClosedConnections() {
        var judge = ProviderJudge()
        let connections = UInt64(ProviderJudge.StateBounds.connectionsOwningChains + 2_000)
        for connection in 1...connections {
            _ = judge.consume(opened(connection))
            _ = judge.consume(resetStream(connection, token: String(format: "%064x", connection)))
            _ = judge.consume(event(.connectionClosed(transport: .http2, closedBy: .server, reason: nil), connection: connection))
        }
        let counts = judge.stateCounts
        XCTAssertLessThanOrEqual(counts.connectionsOwningChains, ProviderJudge.StateBounds.connectionsOwningChains)
        XCTAssertLessThanOrEqual(counts.connections, ProviderJudge.StateBounds.connectionsOwningChains + 1)
    }
}
