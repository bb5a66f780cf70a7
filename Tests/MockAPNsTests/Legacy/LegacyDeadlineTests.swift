import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import MockAPNsTestSupport
import XCTest

/// The legacy ports' deadlines after the handshake: a connection that receives nothing for
/// `timeouts.legacyIdleSeconds`, and a gateway frame not complete within
/// `timeouts.legacyFrameSeconds` of its first byte, are closed and journaled as `timeout.*`.
final class LegacyDeadlineTests: XCTestCase {
    private var server: MockAPNsServer?

    override func tearDown() async throws {
        try await server?.shutdown()
    }

    private func start(idle: Double = 30, frame: Double = 30) async throws -> BoundPorts {
        let (server, ports) = try await TestServer.start { configuration in
            configuration.timeouts.legacyIdleSeconds = idle
            configuration.timeouts.legacyFrameSeconds = frame
        }
        self.server = server
        return ports
    }

    /// The `timeout.*` diagnoses recorded, as code and message.
    private func timeouts() throws -> [(code: String, message: String, figures: [String: Int64])] {
        try XCTUnwrap(server).journal.events(matching: JournalEventFilter(kinds: ["diagnosis"])).compactMap { event in
            guard case .diagnosis(let code, let message, let figures) = event.kind, code.rawValue.hasPrefix("timeout.") else { return nil }
            return (code.rawValue, message, Dictionary(uniqueKeysWithValues: figures.map { ($0.name, $0.value) }))
        }
    }

    func testASilentGatewayConnectionIsClosedAtTheIdleDeadline() async throws {
        let ports = try await start(idle: 0.5)
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: [], timeout: 10)
        XCTAssertTrue(outcome.handshakeSucceeded, outcome.handshake)
        XCTAssertTrue(outcome.closed, "the server closed the silent connection")
        XCTAssertEqual(outcome.received, [], "no packet: nothing was sent to answer")
        XCTAssertGreaterThanOrEqual(outcome.elapsed, 0.4)
        let recorded = try timeouts()
        XCTAssertEqual(recorded.map(\.code), ["timeout.legacyIdle"])
        XCTAssertTrue(recorded.first?.message.contains("nothing received after the TLS handshake for 500 ms") == true, "\(recorded)")
    }

    /// Idle counts from the last bytes: a notification, then silence.
    func testTheIdleDeadlineRunsFromTheLastBytes() async throws {
        let ports = try await start(idle: 0.5)
        let token = Legacy.token(0x21)
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: Legacy.frame(identifier: 1, token: token), timeout: 10)
        XCTAssertTrue(outcome.closed)
        XCTAssertEqual(outcome.received, [])
        let server = try XCTUnwrap(server)
        XCTAssertEqual(server.journal.notifications(matching: NotificationFilter(deviceToken: Legacy.hex(token))).map(\.accepted), [true])
        let recorded = try timeouts()
        XCTAssertEqual(recorded.map(\.code), ["timeout.legacyIdle"])
        XCTAssertTrue(recorded.first?.message.contains("nothing received after its last bytes") == true, "\(recorded)")
    }

    /// Command 2 whose payload item declares 65,535 bytes, of which 10 come: no answer can
    /// be given, so the connection is closed at the frame deadline, without a packet.
    func testAFrameThatNeverCompletesIsClosedAtTheFrameDeadline() async throws {
        let ports = try await start(frame: 0.5)
        // Command 2, frame length 65,538, item 2 (the payload) of 65,535 bytes.
        let declared: [UInt8] = [2, 0x00, 0x01, 0x00, 0x02, 2, 0xFF, 0xFF] + [UInt8](repeating: 0x7B, count: 65_535)
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: Array(declared.prefix(10)), timeout: 10)
        XCTAssertTrue(outcome.closed)
        XCTAssertEqual(outcome.received, [])
        XCTAssertGreaterThanOrEqual(outcome.elapsed, 0.4)
        let recorded = try timeouts()
        XCTAssertEqual(recorded.map(\.code), ["timeout.legacyFrame"])
        XCTAssertEqual(recorded.first?.figures, ["command": 2, "receivedBytes": 10, "awaitedBytes": 65_543])
        XCTAssertTrue(recorded.first?.message.contains("a command-2 frame stopped at 10 of the 65543 bytes it needs") == true, "\(recorded)")
        let reports = try await Legacy.reports(try XCTUnwrap(server))
        XCTAssertEqual(reports.first?.closedSilently, true)
    }

    /// A client trickling a frame keeps the idle deadline away but not the frame deadline.
    func testATrickledFrameMeetsTheFrameDeadlineNotTheIdleOne() async throws {
        let ports = try await start(idle: 0.6, frame: 0.8)
        let frame = Legacy.frame(identifier: 7, token: Legacy.token(0x22))
        let outcomes = try LegacyTLSClient.run(
            port: try XCTUnwrap(ports.gateway),
            connections: [LegacyTLSClient.Connection(send: frame, trickleInterval: 0.1)], timeout: 10
        )
        let outcome = try XCTUnwrap(outcomes.first)
        XCTAssertTrue(outcome.closed)
        XCTAssertLessThan(outcome.sent, frame.count, "closed before the frame was whole")
        let recorded = try timeouts()
        XCTAssertEqual(recorded.map(\.code), ["timeout.legacyFrame"], "\(recorded)")
        let received = try XCTUnwrap(recorded.first?.figures["receivedBytes"])
        XCTAssertGreaterThan(received, 1)
        XCTAssertEqual(recorded.first?.figures["awaitedBytes"], Int64(frame.count))
    }

    /// A client that completes each frame in time is served however long it takes between them.
    func testFramesCompletedInTimeAreServed() async throws {
        let ports = try await start(idle: 5, frame: 0.5)
        let tokens = (1...3).map { Legacy.token(UInt8(0x30 + $0)) }
        let connections = [LegacyTLSClient.Connection(send: tokens.enumerated().flatMap { Legacy.frame(identifier: UInt32($0.offset), token: $0.element) })]
        _ = try LegacyTLSClient.run(port: try XCTUnwrap(ports.gateway), connections: connections, timeout: 1)
        let server = try XCTUnwrap(server)
        for token in tokens {
            XCTAssertEqual(server.journal.notifications(matching: NotificationFilter(deviceToken: Legacy.hex(token))).map(\.accepted), [true])
        }
        XCTAssertEqual(try timeouts().map(\.code), [])
    }

    /// The feedback service never waits on its client: it writes what is queued and closes,
    /// so a silent client cannot hold it even with a long idle deadline.
    func testTheFeedbackServiceClosesASilentClientAtOnce() async throws {
        let ports = try await start(idle: 30)
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.feedback), send: [], timeout: 10)
        XCTAssertTrue(outcome.closed)
        XCTAssertLessThan(outcome.elapsed, 5)
        XCTAssertEqual(try timeouts().map(\.code), [])
    }

    func testTheDeadlinesAreConfigurable() throws {
        let configuration = try MockAPNsConfiguration.parse(json: #"{"timeouts": {"legacyIdleSeconds": 60, "legacyFrameSeconds": 2.5}}"#)
        XCTAssertEqual(configuration.timeouts.legacyIdleSeconds, 60)
        XCTAssertEqual(configuration.timeouts.legacyFrameSeconds, 2.5)
        XCTAssertEqual(MockAPNsConfiguration().timeouts.legacyIdleSeconds, 300)
        XCTAssertEqual(MockAPNsConfiguration().timeouts.legacyFrameSeconds, 10)
        XCTAssertThrowsError(try MockAPNsConfiguration.parse(json: #"{"timeouts": {"legacyFrameSeconds": 0}}"#)) { error in
            XCTAssertEqual((error as? JSONFileError)?.path, "$.timeouts.legacyFrameSeconds")
        }
        let refused = try ProcessRunner.run(Fixtures.executable, ["serve", "--legacy-idle-timeout", "0"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("--legacy-idle-timeout must be from"), refused.stderr)
    }
}
