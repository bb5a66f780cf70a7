import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest
import MockAPNsVerdicts
import MockAPNsLegacy

/// The provider verdicts of a running server: judged from the journal off the event loops,
/// recorded as `verdict` events, returned by the embedding API and `GET /v1/report` alike, and
/// recomputed the same from the server's JSONL file, where the stop records what was lost.
final class ProviderVerdictsTests: XCTestCase {
    private let headers = [("apns-topic", "com.example.app"), ("apns-push-type", "alert")]

    func testALiveServerJudgesRecordsReportsAndLeavesTheSameVerdictsInItsFile() async throws {
        let file = Fixtures.temporaryPath("verdicts.jsonl")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (server, ports) = try await TestServer.start { configuration in
            configuration.controlPort = 0
            configuration.journalFile = file
            // curl reconnects within milliseconds or, on a loaded machine, a little more:
            // any retry it makes is too soon by this threshold.
            configuration.verdicts.minimumRetryDelayMilliseconds = 60_000
        }
        let flaky = try String(contentsOfFile: Fixtures.root + "/scenarios/flaky-503-then-ok.json", encoding: .utf8)
        try server.replaceScenario(jsonText: flaky)
        let curl = CurlClient(port: ports.http2)
        let statuses = try (0..<3).map { _ in try curl.send(path: "/3/device/\(Fixtures.token)", headers: headers).status }
        XCTAssertEqual(statuses, [503, 503, 200])
        // Once curl's connections are closed nothing more is recorded, so the reports below,
        // taken moments apart, judge the same events.
        let closed = await server.journal.waitForEvents(count: 3, timeout: .seconds(10)) { event in
            if case .connectionClosed = event.kind { return true }
            return false
        }
        XCTAssertEqual(closed.count, 3)

        let judged = await server.verdictReport()
        let report = try XCTUnwrap(judged)
        let provider = try XCTUnwrap(report.providers.first)
        XCTAssertEqual(report.providers.count, 1)
        guard case .certificate(let subject) = provider.provider else { return XCTFail("\(provider.provider)") }
        XCTAssertTrue(subject.contains("com.example.app"), subject)
        XCTAssertEqual(provider.connections, 3)
        XCTAssertEqual(provider.notifications, NotificationTally(acceptedAfterRetries: 1))
        XCTAssertEqual(provider.retryDelays.count, 2)
        XCTAssertEqual(provider.rule(.noBackoff).findings, 2)
        XCTAssertEqual(provider.rule(.noBackoff).examples.map(\.check), [.retriedTooSoon, .retriedTooSoon])
        XCTAssertEqual(report.brokenRules, [.noBackoff])

        // Each finding is a journal event naming the notifications it rests on.
        let events = server.journal.events(matching: JournalEventFilter(kinds: ["verdict"]))
        let recorded = events.compactMap { event -> ProviderVerdict? in
            if case .verdict(let verdict) = event.kind { return verdict }
            return nil
        }
        XCTAssertEqual(recorded, provider.rule(.noBackoff).examples)
        let pushes = server.notifications()
        XCTAssertEqual(recorded.map { $0.notifications }, [[pushes[0].sequence, pushes[1].sequence], [pushes[1].sequence, pushes[2].sequence]])

        // The control API answers the same report.
        let control = try XCTUnwrap(ports.control)
        let answer = try ProcessRunner.run("curl", ["-sS", "http://127.0.0.1:\(control)/v1/report"])
        // The same judgments; how far the journal had got by then may differ (the findings
        // are recorded as events of their own in the meantime).
        var answered = try VerdictJSON.decodeReport(answer.stdout)
        XCTAssertGreaterThanOrEqual(answered.lastSequence, report.lastSequence)
        answered.lastSequence = report.lastSequence
        XCTAssertEqual(answered, report)

        // A 500 never retried is lost; stopping records it, and the file judges the same.
        try server.replaceScenario(jsonText: #"{"name":"broken","rules":[{"action":{"type":"reject","reason":"InternalServerError"}}]}"#)
        let lostToken = String(repeating: "0f", count: 32)
        XCTAssertEqual(try curl.send(path: "/3/device/\(lostToken)", headers: headers).status, 500)
        let judgedBefore = await server.verdictReport()
        let before = try XCTUnwrap(judgedBefore)
        XCTAssertEqual(before.totals, NotificationTally(acceptedAfterRetries: 1, lost: 1))
        XCTAssertEqual(before.brokenRules, [.noBackoff, .lost])
        try await server.shutdown()

        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init)
        var judge = ProviderJudge(settings: server.configuration.verdicts)
        var lost: [ProviderVerdict] = []
        for line in lines {
            let event = try JournalJSON.decode(line)
            if case .verdict(let verdict) = event.kind, verdict.check == .lostNotification { lost.append(verdict) }
            _ = judge.consume(event)
        }
        XCTAssertEqual(lost.map(\.deviceToken), [lostToken])
        let fromFile = judge.report()
        XCTAssertEqual(fromFile.providers.map(\.notifications), before.providers.map(\.notifications))
        XCTAssertEqual(fromFile.providers.map { $0.rules.map(\.findings) }, before.providers.map { $0.rules.map(\.findings) })
        XCTAssertEqual(fromFile.providers.first?.rule(.noBackoff).examples, provider.rule(.noBackoff).examples)
    }

    /// A refusal counts even when the notification equals one accepted earlier: the same
    /// body pushed again after the token was unregistered is a push to an unregistered token.
    func testPushingTheSameBodyAgainAfterA410IsAPushToAnUnregisteredToken() async throws {
        let (server, ports) = try await TestServer.start()
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let curl = CurlClient(port: ports.http2)
        let path = "/3/device/\(Fixtures.token)"
        let body = #"{"aps":{"alert":"first"}}"#
        XCTAssertEqual(try curl.send(path: path, headers: headers, body: body).status, 200)
        server.registry.markUnregistered(Fixtures.token, since: 1_767_225_600_000)
        XCTAssertEqual(try curl.send(path: path, headers: headers, body: body).status, 410)
        XCTAssertEqual(try curl.send(path: path, headers: headers, body: body).status, 410)

        let judged = await server.verdictReport()
        let report = try XCTUnwrap(judged)
        XCTAssertEqual(report.brokenRules, [.unregisteredToken])
        let provider = try XCTUnwrap(report.providers.first)
        XCTAssertEqual(provider.notifications, NotificationTally(acceptedAtOnce: 1, refused: 1))
        let pushes = server.notifications()
        XCTAssertEqual(pushes.map(\.answer.status), [200, 410, 410])
        XCTAssertEqual(provider.rule(.unregisteredToken).examples.map(\.notifications), [Array(pushes.dropFirst().map(\.sequence))])
    }

    /// One push over a connection the client ends with GOAWAY(NO_ERROR), as HTTP/2 clients
    /// close; the token unregistered; the same payload pushed three times with curl. Each 410
    /// reached the provider: one refusal, and two pushes after it.
    func testPushesAfterA410AreFoundWhenTheAcceptanceCameOnAConnectionTheClientEndedCleanly() async throws {
        let (server, ports) = try await TestServer.start()
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let body = #"{"aps":{"alert":"hello"}}"#
        let block = ClientBytes.literal(":method", "POST") + ClientBytes.literal(":scheme", "https")
            + ClientBytes.literal(":authority", "localhost") + ClientBytes.literal(":path", "/3/device/\(Fixtures.token)")
            + ClientBytes.literal("apns-topic", "com.example.app") + ClientBytes.literal("apns-push-type", "alert")
        let goAwayNoError = ClientBytes.frame(type: 0x7, streamID: 0, payload: [0, 0, 0, 0, 0, 0, 0, 0])
        let bytes = ClientBytes.opening() + ClientBytes.frame(type: 0x1, flags: 0x4, streamID: 1, payload: block)
            + ClientBytes.data(streamID: 1, Array(body.utf8), endStream: true) + goAwayNoError
        let first = try RawHTTP2Client.sendHTTP2(port: ports.http2, bytes: bytes, timeout: 5)
        XCTAssertEqual(first.answeredStreams, [1])
        _ = await server.journal.waitForEvents(count: 1, timeout: .seconds(10)) {
            if case .connectionClosed = $0.kind { return true }
            return false
        }
        server.registry.markUnregistered(Fixtures.token, since: 1_767_225_600_000)
        let curl = CurlClient(port: ports.http2)
        let statuses = try (0..<3).map { _ in try curl.send(path: "/3/device/\(Fixtures.token)", headers: headers, body: body).status }
        XCTAssertEqual(statuses, [410, 410, 410])

        let judged = await server.verdictReport()
        let report = try XCTUnwrap(judged)
        XCTAssertEqual(report.brokenRules, [.unregisteredToken])
        let provider = try XCTUnwrap(report.providers.first)
        XCTAssertEqual(provider.notifications, NotificationTally(acceptedAtOnce: 1, refused: 1))
        XCTAssertEqual(provider.rule(.unregisteredToken).findings, 2)
    }

    /// `apns-topic` sent twice (400 DuplicateHeaders), then once (200): the record of the
    /// refusal names the repeated header, and the second request is a fix, not the same
    /// request sent again.
    func testARequestSentAgainWithoutItsRepeatedHeaderIsAFix() async throws {
        let (server, ports) = try await TestServer.start()
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let body = #"{"aps":{"alert":"hello"}}"#
        let block = ClientBytes.literal(":method", "POST") + ClientBytes.literal(":scheme", "https")
            + ClientBytes.literal(":authority", "localhost") + ClientBytes.literal(":path", "/3/device/\(Fixtures.token)")
            + ClientBytes.literal("apns-topic", "com.example.app") + ClientBytes.literal("apns-topic", "com.example.app")
            + ClientBytes.literal("apns-push-type", "alert")
        let bytes = ClientBytes.opening() + ClientBytes.frame(type: 0x1, flags: 0x4, streamID: 1, payload: block)
            + ClientBytes.data(streamID: 1, Array(body.utf8), endStream: true)
        let twice = try RawHTTP2Client.sendHTTP2(port: ports.http2, bytes: bytes, timeout: 1)
        XCTAssertEqual(twice.answeredStreams, [1])
        let refused = try await server.waitForNotifications(count: 1)
        XCTAssertEqual(refused.first?.reason, .duplicateHeaders)
        XCTAssertEqual(refused.first?.problem, "apns-topic sent 2 times")
        XCTAssertEqual(try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: headers, body: body).status, 200)

        let judged = await server.verdictReport()
        let report = try XCTUnwrap(judged)
        XCTAssertEqual(report.brokenRules, [])
        XCTAssertEqual(report.totals, NotificationTally(acceptedAfterRetries: 1))
    }

    /// A token unregistered, then sent twice back to back on the gateway: the second frame was
    /// written before the error packet could be read, and the close dropped it. It is neither
    /// a push after the refusal nor a notification lost.
    func testALegacyFrameInFlightWhenTheErrorWentOutIsNeitherAPushAfterItNorLost() async throws {
        let (server, ports) = try await TestServer.start()
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let token = Legacy.token(0xBD)
        server.registry.markUnregistered(Legacy.hex(token), since: 1_767_225_600_000)
        let frames = Legacy.enhanced(identifier: 1, token: token) + Legacy.enhanced(identifier: 2, token: token)
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: frames)
        XCTAssertEqual(outcome.received, [8, 8, 0, 0, 0, 1])
        let records = try await server.waitForNotifications(count: 2, matching: NotificationFilter(transport: .legacy), timeout: .seconds(10))
        XCTAssertEqual(records.map(\.dropped), [false, true])
        _ = await server.journal.waitForEvents(count: 1, timeout: .seconds(10)) {
            if case .connectionClosed(.legacy, _, _) = $0.kind { return true }
            return false
        }

        let judged = await server.verdictReport()
        let report = try XCTUnwrap(judged)
        XCTAssertEqual(report.brokenRules, [])
        XCTAssertEqual(report.totals, NotificationTally(refused: 1))
    }

    /// Legacy connections that each carry one notification whose payload length counts
    /// characters, not UTF-8 bytes, are churn for the verdicts as for the server's own
    /// diagnosis: the tail read as a second, unparseable "frame" is no notification.
    func testLegacyChurnIsFoundWhenEachNotificationIsMisframed() async throws {
        let (server, ports) = try await TestServer.start()
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let json = Array(#"{"aps":{"alert":"café"}}"#.utf8)
        let lengthIndex = 1 + 4 + 4 + 2 + 32
        let connections = (1...10).map { seed in
            var frame = LegacyNotification(
                command: .enhanced, identifier: 1, expiry: 0, token: Legacy.token(UInt8(seed)), payload: json
            ).encoded()
            frame[lengthIndex + 1] -= 1  // one character fewer than bytes
            return LegacyTLSClient.Connection(send: frame)
        }
        _ = try LegacyTLSClient.run(port: try XCTUnwrap(ports.gateway), connections: connections)
        let closed = await server.journal.waitForEvents(count: 10, timeout: .seconds(10)) { event in
            if case .connectionClosed(.legacy, _, _) = event.kind { return true }
            return false
        }
        XCTAssertEqual(closed.count, 10)
        // Each connection's record of its tail: no token, the byte read as a command.
        let tails = server.notifications().filter { $0.deviceToken.isEmpty }
        XCTAssertEqual(tails.map(\.legacyCommand), Array(repeating: UInt8(ascii: "}"), count: 10))

        let judged = await server.verdictReport()
        let report = try XCTUnwrap(judged)
        let provider = try XCTUnwrap(report.providers.first)
        XCTAssertEqual(provider.provider.kind, "certificate")
        XCTAssertEqual(provider.connections, 10)
        XCTAssertEqual(provider.notifications, NotificationTally(acceptedAtOnce: 10))
        // The gateway closed each connection after its tail, so quick reconnections may be a
        // storm as well; the churn is what this is about.
        let churn = provider.rule(.connectionMisuse).examples.filter { $0.check == .connectionChurn }
        XCTAssertEqual(churn.map { $0.figure("connections") }, [10])
    }

    func testAResetStartsTheVerdictsOver() async throws {
        let (server, ports) = try await TestServer.start()
        try server.replaceScenario(jsonText: #"{"name":"broken","rules":[{"action":{"type":"reject","reason":"ServiceUnavailable"}}]}"#)
        let curl = CurlClient(port: ports.http2)
        XCTAssertEqual(try curl.send(path: "/3/device/\(Fixtures.token)", headers: headers).status, 503)
        let lostBefore = await server.verdictReport()?.totals.lost
        XCTAssertEqual(lostBefore, 1)
        server.reset()
        let judgedCleared = await server.verdictReport()
        let cleared = try XCTUnwrap(judgedCleared)
        XCTAssertEqual(cleared.providers, [])
        // The same notification again (the scenario starts over too): without the reset it
        // would be a retry of the first; after it, it is a notification of its own.
        XCTAssertEqual(try curl.send(path: "/3/device/\(Fixtures.token)", headers: headers).status, 503)
        let judgedAfter = await server.verdictReport()
        let after = try XCTUnwrap(judgedAfter)
        XCTAssertEqual(after.totals, NotificationTally(lost: 1))
        XCTAssertEqual(after.providers.first?.connections, 1)
        XCTAssertEqual(after.providers.first?.retryDelays.count, 0)
        try await server.shutdown()
    }

    func testVerdictsCanBeTurnedOff() async throws {
        let (server, ports) = try await TestServer.start { configuration in
            configuration.controlPort = 0
            configuration.judgesProviders = false
        }
        let none = await server.verdictReport()
        XCTAssertNil(none)
        let answer = try ProcessRunner.run("curl", ["-sS", "-w", "\n%{http_code}", "http://127.0.0.1:\(ports.control ?? 0)/v1/report"])
        XCTAssertTrue(answer.stdout.hasSuffix("\n404"), answer.stdout)
        XCTAssertTrue(answer.stdout.contains("verdicts are off"), answer.stdout)
        try await server.shutdown()
    }
}
