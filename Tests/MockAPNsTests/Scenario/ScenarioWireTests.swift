import MockAPNsWire
import MockAPNsTestSupport
import Foundation
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest
import MockAPNsScenario
import MockAPNsLegacy

/// Scenarios over real sockets: each action observed from the client's side.
final class ScenarioWireTests: XCTestCase {
    private let token = Fixtures.token
    private let headers = [("apns-topic", "com.example.app"), ("apns-push-type", "alert")]

    private func start(_ scenario: Scenario) async throws -> (MockAPNsServer, BoundPorts) {
        try await TestServer.start { $0.scenario = scenario }
    }

    private func example(_ name: String) throws -> Scenario {
        let url = URL(fileURLWithPath: Fixtures.root).appendingPathComponent("scenarios/\(name).json")
        return try Scenario.decode(jsonText: String(contentsOf: url, encoding: .utf8))
    }

    private func push(_ port: Int, token: String? = nil, body: String = #"{"aps":{"alert":"hello"}}"#) throws -> CurlResponse {
        try CurlClient(port: port).send(path: "/3/device/\(token ?? self.token)", headers: headers, body: body)
    }

    private func rule(_ action: ScenarioAction?, match: ScenarioMatch = ScenarioMatch(), delay: ScenarioDelay? = nil) -> Scenario {
        Scenario(name: "test", rules: [ScenarioRule(name: "rule", match: match, action: action, delay: delay)])
    }

    // MARK: One rule, each protocol's answer

    /// "This token is unregistered", written once: 410 with the time on HTTP/2, status 8 and a
    /// close on the legacy gateway, one tuple from the feedback service.
    func testUnregisteredTokenOnEveryProtocol() async throws {
        let (server, ports) = try await start(try example("unregistered-with-feedback"))
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }

        let http2 = try push(ports.http2)
        XCTAssertEqual(http2.status, 410)
        XCTAssertEqual(http2.body, #"{"reason":"Unregistered","timestamp":1767225600000}"#)

        let tokenBytes = LegacyTLSClient.bytes(fromHex: token)
        let legacy = try LegacyTLSClient.exchange(
            port: try XCTUnwrap(ports.gateway),
            send: Legacy.frame(identifier: 1, token: Legacy.token(0x11)) + Legacy.frame(identifier: 2, token: tokenBytes)
        )
        XCTAssertEqual(legacy.received, [8, 8, 0, 0, 0, 2], "status 8 for notification 2")
        XCTAssertTrue(legacy.closed)

        let feedback = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.feedback), send: [])
        let tuples = try FeedbackTupleDecoder.decodeAll(feedback.received)
        XCTAssertEqual(tuples.map(\.token), [tokenBytes])
        XCTAssertEqual(tuples.first?.timestamp, 1_767_225_600)
    }

    /// A rule (not registry state) that rejects a token: Apple's 400 on HTTP/2, the matching
    /// status byte on the gateway.
    func testARejectRuleAnswersInEachProtocolsTerms() async throws {
        let scenario = try example("invalid-token")
        let badToken = try XCTUnwrap(scenario.rules.first?.match.tokens?.first)
        let (server, ports) = try await start(scenario)
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }

        XCTAssertEqual(try push(ports.http2).status, 200, "other tokens are delivered")
        let refused = try push(ports.http2, token: badToken)
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(refused.body, #"{"reason":"BadDeviceToken"}"#)
        XCTAssertNotNil(refused.header("apns-id"))

        let legacy = try LegacyTLSClient.exchange(
            port: try XCTUnwrap(ports.gateway),
            send: Legacy.frame(identifier: 7, token: LegacyTLSClient.bytes(fromHex: badToken))
        )
        XCTAssertEqual(legacy.received, [8, 8, 0, 0, 0, 7])
    }

    func testFlakyExampleAnswers503TwiceThen200() async throws {
        let (server, ports) = try await start(try example("flaky-503-then-ok"))
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let answers = try (0..<4).map { _ in try push(ports.http2) }
        XCTAssertEqual(answers.map(\.status), [503, 503, 200, 200])
        XCTAssertEqual(answers[0].body, #"{"reason":"ServiceUnavailable"}"#)
    }

    func testTooManyRequestsAndPayloadTooLargeExamples() async throws {
        let (server, ports) = try await start(try example("too-many-requests"))
        XCTAssertEqual(try (0..<3).map { _ in try push(ports.http2).status }, [200, 200, 429])
        XCTAssertEqual(try push(ports.http2, token: String(repeating: "ee", count: 32)).status, 200, "another token has its own count")
        try await server.shutdown(gracePeriod: .zero)

        let (small, smallPorts) = try await start(try example("payload-too-large"))
        addTeardownBlock { try await small.shutdown(gracePeriod: .zero) }
        let big = #"{"aps":{"alert":""# + String(repeating: "x", count: 300) + #""}}"#
        XCTAssertEqual(try push(smallPorts.http2, body: big).body, #"{"reason":"PayloadTooLarge"}"#)
        XCTAssertEqual(try push(smallPorts.http2).status, 200)
    }

    func testArbitraryResponse() async throws {
        let response = ScenarioResponse(status: 418, headers: [HTTPHeader(name: "x-mock", value: "teapot")], body: "short and stout")
        let (server, ports) = try await start(rule(.respond(response)))
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let answer = try push(ports.http2)
        XCTAssertEqual(answer.status, 418)
        XCTAssertEqual(answer.header("x-mock"), "teapot")
        XCTAssertEqual(answer.body, "short and stout")
    }

    // MARK: Delays

    func testDelayIsMeasuredWithinBounds() async throws {
        let (server, ports) = try await start(rule(nil, delay: .fixed(milliseconds: 600)))
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let started = Date()
        let answer = try push(ports.http2)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(answer.status, 200, "a delay alone keeps the core's verdict")
        XCTAssertGreaterThanOrEqual(elapsed, 0.6)
        XCTAssertLessThan(elapsed, 3)
    }

    /// A replacement never changes a decision already made: a delayed 503 still arrives as a
    /// 503 after the scenario that decided it is gone.
    func testReplacingTheScenarioKeepsInFlightDecisions() async throws {
        let slowFailure = rule(.reject(.serviceUnavailable, timestamp: nil), delay: .fixed(milliseconds: 800))
        let (server, ports) = try await start(slowFailure)
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let port = ports.http2
        let inFlight = Task.detached { [headers, token] in
            try CurlClient(port: port).send(path: "/3/device/\(token)", headers: headers)
        }
        // The request ended its stream, so it was decided in that read (its frames are
        // recorded when the read is over): the decision and its delay are under way.
        let ended = await server.journal.waitForEvents(count: 1, timeout: .seconds(10)) { event in
            guard case .http2Frame(let frame) = event.kind else { return false }
            return frame.direction == .inbound && frame.streamID == 1 && frame.flags & 0x1 != 0
                && (frame.type == .data || frame.type == .headers)
        }
        XCTAssertEqual(ended.count, 1)
        try server.replaceScenario(jsonText: #"{"name": "calm"}"#)
        XCTAssertEqual(server.currentScenario.name, "calm")
        let delayed = try await inFlight.value
        XCTAssertEqual(delayed.status, 503)
        XCTAssertEqual(try push(port).status, 200)
        XCTAssertThrowsError(try server.replaceScenario(jsonText: #"{"nam": "x"}"#))
        XCTAssertEqual(server.currentScenario.name, "calm", "a broken file changes nothing")
    }

    // MARK: Connection faults

    func testGoAwayMidBatchNamesTheLastStreamAndCarriesTheReason() async throws {
        let (server, ports) = try await start(try example("goaway-shutdown-mid-batch"))
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let outcome = try RawHTTP2Client.push(port: ports.http2, tokens: Array(repeating: token, count: 8))
        XCTAssertTrue(outcome.handshakeSucceeded, outcome.handshake)
        let goAway = try XCTUnwrap(outcome.frames.first { $0.type == RawHTTP2Frame.goAway })
        XCTAssertEqual(goAway.goAwayErrorCode, 0)
        XCTAssertEqual(goAway.goAwayLastStreamID, 9, "the fifth request's stream")
        XCTAssertEqual(goAway.goAwayDebugText, #"{"reason":"Shutdown"}"#)
        XCTAssertEqual(outcome.answeredStreams, [1, 3, 5, 7, 9], "streams after the last one are not answered")
        XCTAssertEqual(outcome.ending, "eof")
    }

    func testResetStreamCarriesItsCodeAndTheConnectionLivesOn() async throws {
        let scenario = rule(.fault(.resetStream(errorCode: 7)), match: ScenarioMatch(requestIndex: RequestIndexMatch(scope: .connection, range: .exactly(1))))
        let (server, ports) = try await start(scenario)
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let outcome = try RawHTTP2Client.push(port: ports.http2, tokens: [token, token])
        let reset = try XCTUnwrap(outcome.frames.first { $0.type == RawHTTP2Frame.rstStream })
        XCTAssertEqual(reset.streamID, 1)
        XCTAssertEqual(reset.rstStreamErrorCode, 7, "REFUSED_STREAM")
        XCTAssertEqual(outcome.answeredStreams, [3])
        XCTAssertEqual(outcome.ending, "timeout", "the connection stays open")
    }

    func testCloseIsAFinAndResetIsAnRst() async throws {
        let (server, ports) = try await start(try example("dropped-connection"))
        let dropped = try RawHTTP2Client.push(port: ports.http2, tokens: Array(repeating: token, count: 3))
        XCTAssertEqual(dropped.ending, "eof")
        XCTAssertEqual(dropped.answeredStreams, [1, 3], "the third request is never answered")
        try await server.shutdown(gracePeriod: .zero)

        let (resetting, resettingPorts) = try await start(rule(.fault(.resetConnection)))
        addTeardownBlock { try await resetting.shutdown(gracePeriod: .zero) }
        let reset = try RawHTTP2Client.push(port: resettingPorts.http2, tokens: [token])
        XCTAssertEqual(reset.ending, "reset")
    }

    func testInjectedFaultsAreJournaled() async throws {
        let (server, ports) = try await start(try example("goaway-shutdown-mid-batch"))
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        _ = try RawHTTP2Client.push(port: ports.http2, tokens: Array(repeating: token, count: 6))
        let faults = server.journal.events().compactMap { event -> (Int32?, String)? in
            guard case .fault(let description) = event.kind else { return nil }
            return (event.streamID, description)
        }
        XCTAssertEqual(faults.count, 1, "\(faults)")
        XCTAssertEqual(faults.first?.0, 9)
        XCTAssertEqual(faults.first?.1,
                       #"scenario rule "shutdown after the fifth": GOAWAY NO_ERROR, last stream this request's, debug data {"reason":"Shutdown"}"#)
    }

    func testStallNeverAnswers() async throws {
        let (server, ports) = try await start(rule(.fault(.stall)))
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let outcome = try RawHTTP2Client.push(port: ports.http2, tokens: [token], timeout: 1)
        XCTAssertEqual(outcome.answeredStreams, [])
        XCTAssertEqual(outcome.ending, "timeout")
    }

    func testLowerMaxConcurrentStreamsSendsNewSettings() async throws {
        let (server, ports) = try await start(rule(.fault(.lowerMaxConcurrentStreams(1))))
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let outcome = try RawHTTP2Client.push(port: ports.http2, tokens: [token], timeout: 1)
        XCTAssertEqual(outcome.answeredStreams, [1])
        let limits = outcome.frames.flatMap(\.settingsValues).filter { $0.0 == 0x3 }.map(\.1)
        XCTAssertEqual(limits.last, 1, "SETTINGS_MAX_CONCURRENT_STREAMS lowered to 1 (\(limits))")
    }

    func testRefusedHandshakeSendsTheChosenAlert() async throws {
        let scenario = Scenario(name: "refuse", rules: [
            ScenarioRule(name: "no TLS", match: ScenarioMatch(protocols: [.http2]), action: .refuseHandshake(TLSAlert(code: 40))),
        ])
        let (server, ports) = try await start(scenario)
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let outcome = try RawHTTP2Client.push(port: ports.http2, tokens: [token])
        XCTAssertFalse(outcome.handshakeSucceeded)
        XCTAssertTrue(outcome.handshake.uppercased().contains("HANDSHAKE_FAILURE"), outcome.handshake)
    }

    func testGarbageOnTheSocketBreaksTheClientsTLS() async throws {
        let (server, ports) = try await start(rule(.fault(.sendGarbage(ScenarioGarbage(bytes: Array("not TLS at all".utf8))))))
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let outcome = try RawHTTP2Client.push(port: ports.http2, tokens: [token])
        XCTAssertTrue(outcome.ending.hasPrefix("error"), outcome.ending)
        XCTAssertEqual(outcome.answeredStreams, [])
    }

    func testGarbageInsideTLSReachesTheClientsHTTP2Parser() async throws {
        let garbage: [UInt8] = [0xde, 0xad, 0xbe, 0xef, 0x00, 0x01]
        let (server, ports) = try await start(rule(.fault(.sendGarbage(ScenarioGarbage(bytes: garbage, insideTLS: true)))))
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let outcome = try RawHTTP2Client.push(port: ports.http2, tokens: [token])
        XCTAssertTrue(outcome.data.hasSuffix("deadbeef0001"), "decrypted, after the server's SETTINGS: \(outcome.data)")
        XCTAssertEqual(outcome.ending, "eof")
    }

    func testCloseAfterBytesCutsTheAnswer() async throws {
        let (server, ports) = try await start(rule(.fault(.closeAfterBytes(3))))
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let outcome = try RawHTTP2Client.push(port: ports.http2, tokens: [token])
        XCTAssertEqual(outcome.answeredStreams, [], "three bytes of a TLS record decrypt to nothing")
        XCTAssertNotEqual(outcome.ending, "timeout", "closed: \(outcome.ending)")
    }

    /// The first `connectionClosed` event of `server`'s journal.
    private func closing(_ server: MockAPNsServer) async -> (ClosingSide, String?)? {
        let closed = await server.journal.waitForEvents(count: 1, timeout: .seconds(10)) { event in
            if case .connectionClosed = event.kind { return true }
            return false
        }
        guard case .connectionClosed(_, let side, let reason)? = closed.first?.kind else { return nil }
        return (side, reason)
    }

    /// A reset or a byte budget acts below the journal's handler; the close is still the
    /// server's, as the client saw (ECONNRESET, or EOF mid-answer).
    func testResetAndCutConnectionsAreClosedByTheServer() async throws {
        let cases: [(String, ScenarioAction, Bool)] = [
            ("HTTP/2 reset", .fault(.resetConnection), false),
            ("legacy reset", .fault(.resetConnection), true),
            ("HTTP/2 closeAfterBytes", .fault(.closeAfterBytes(20)), false),
        ]
        for (label, action, legacy) in cases {
            let (server, ports) = try await start(rule(action))
            if legacy {
                let outcome = try RawHTTP2Client.send(port: try XCTUnwrap(ports.gateway), bytes: Legacy.frame(identifier: 1, token: Legacy.token(0x11)))
                XCTAssertEqual(outcome.ending, "reset", label)
            } else {
                let outcome = try RawHTTP2Client.push(port: ports.http2, tokens: [token])
                XCTAssertNotEqual(outcome.ending, "timeout", label)
            }
            let closed = await closing(server)
            XCTAssertEqual(closed?.0, .server, label)
            XCTAssertTrue(closed?.1?.contains("scenario") == true, "\(label): \(String(describing: closed?.1))")
            try await server.shutdown(gracePeriod: .zero)
        }
    }

    /// What a cut connection never delivered is not recorded as sent: the client read only
    /// `bytes` bytes of the answer's HEADERS frame, so the record holds no status, no outbound
    /// HEADERS frame and no delivery. With a budget the answer fits in, it is recorded as sent.
    func testCloseAfterBytesRecordsOnlyWhatTheClientRead() async throws {
        let (server, ports) = try await start(rule(.fault(.closeAfterBytes(20))))
        let outcome = try RawHTTP2Client.push(port: ports.http2, tokens: [token])
        XCTAssertEqual(outcome.answeredStreams, [], "the HEADERS frame was cut")
        XCTAssertEqual(outcome.ending, "eof")
        let received = LegacyTLSClient.bytes(fromHex: outcome.data)
        let whole = outcome.frames.reduce(0) { $0 + 9 + $1.payload.count }
        XCTAssertEqual(received.count - whole, 20, "exactly the budget of the answer, after the frames before it")
        let records = try await server.waitForNotifications(count: 1)
        let record = try XCTUnwrap(records.first)
        XCTAssertNil(record.status)
        XCTAssertFalse(record.accepted)
        XCTAssertEqual(record.answer.fault, .closeAfterBytes(20))
        XCTAssertTrue(record.answer.undelivered?.contains("HEADERS") == true, "\(String(describing: record.answer.undelivered))")
        _ = await closing(server)
        let events = server.journal.events()
        let sentHeaders = events.filter { event in
            guard case .http2Frame(let frame) = event.kind else { return false }
            return frame.direction == .outbound && frame.type == .headers
        }
        XCTAssertEqual(sentHeaders.count, 0, "no HEADERS frame is recorded as sent")
        let recordedOut = events.compactMap { event -> Int? in
            guard case .http2Frame(let frame) = event.kind, frame.direction == .outbound else { return nil }
            return 9 + frame.length
        }.reduce(0, +)
        XCTAssertEqual(recordedOut, whole, "the outbound frames recorded are the ones the client read whole")
        XCTAssertFalse(events.contains { if case .delivery = $0.kind { return true } else { return false } }, "nothing was delivered")
        try await server.shutdown(gracePeriod: .zero)

        let (roomy, roomyPorts) = try await start(rule(.fault(.closeAfterBytes(100_000))))
        addTeardownBlock { try await roomy.shutdown(gracePeriod: .zero) }
        let whole200 = try RawHTTP2Client.push(port: roomyPorts.http2, tokens: [token])
        XCTAssertEqual(whole200.answeredStreams, [1])
        XCTAssertEqual(whole200.ending, "eof")
        let answeredRecords = try await roomy.waitForNotifications(count: 1)
        let answered = try XCTUnwrap(answeredRecords.first)
        XCTAssertEqual(answered.status, 200)
        XCTAssertEqual(answered.answer.fault, .closeAfterBytes(100_000))
    }

    /// On the gateway the budget counts from the error packet's first byte: the client reads
    /// that many bytes of it, and a packet cut short is recorded as no answer.
    func testLegacyCloseAfterBytesCutsTheErrorPacket() async throws {
        let match = ScenarioMatch(tokens: [Legacy.hex(Legacy.token(0x22))])
        let (server, ports) = try await start(rule(.fault(.closeAfterBytes(3)), match: match))
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        // The rule's notification is accepted; the next one's payload is over the limit: the
        // usual answer is status 7 naming notification 8, of which three bytes go out.
        let oversized = LegacyNotification(
            command: .enhanced, identifier: 8, expiry: 0, token: Legacy.token(0x11), payload: [UInt8](repeating: 0x20, count: 5000)
        ).encoded()
        let outcome = try LegacyTLSClient.exchange(
            port: try XCTUnwrap(ports.gateway), send: Legacy.enhanced(identifier: 7, token: Legacy.token(0x22)) + oversized)
        XCTAssertEqual(outcome.received, [8, 7, 0], "three bytes of the packet 08 07 00000008")
        XCTAssertTrue(outcome.closed)
        let records = try await server.waitForNotifications(count: 2)
        XCTAssertEqual(records.first?.answer.fault, .closeAfterBytes(3))
        let record = try XCTUnwrap(records.last)
        XCTAssertNil(record.answer.legacyPacket, "a cut packet is no answer")
        XCTAssertTrue(record.answer.undelivered?.contains("3 of the error packet's 6 bytes") == true,
                      "\(String(describing: record.answer.undelivered))")
        let closed = await closing(server)
        XCTAssertEqual(closed?.0, .server)
    }

    /// The connection setting: GOAWAY Shutdown after n requests on HTTP/2, status 10 after n
    /// notifications on the gateway.
    func testGoAwayAfterRequestsOnBothProtocols() async throws {
        let scenario = Scenario(name: "short connections", connection: ScenarioConnectionSettings(goAwayAfterRequests: 2))
        let (server, ports) = try await start(scenario)
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let http2 = try RawHTTP2Client.push(port: ports.http2, tokens: [token, token])
        let goAway = try XCTUnwrap(http2.frames.first { $0.type == RawHTTP2Frame.goAway })
        XCTAssertEqual(goAway.goAwayErrorCode, 0)
        XCTAssertEqual(goAway.goAwayDebugText, #"{"reason":"Shutdown"}"#)
        XCTAssertEqual(http2.answeredStreams, [1, 3])
        XCTAssertEqual(http2.ending, "eof", "closed once its streams are done")

        let frames = (UInt32(1)...4).flatMap { Legacy.frame(identifier: $0, token: Legacy.token(0x11)) }
        let legacy = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: frames)
        XCTAssertEqual(legacy.received, [8, 10, 0, 0, 0, 2])
    }

    func testFeedbackHandshakeRefusal() async throws {
        let scenario = Scenario(name: "refuse feedback", rules: [
            ScenarioRule(name: "no feedback", match: ScenarioMatch(protocols: [.feedback]), action: .refuseHandshake(TLSAlert(code: 45))),
        ])
        let (server, ports) = try await start(scenario)
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let refused = try RawHTTP2Client.send(port: try XCTUnwrap(ports.feedback), bytes: [])
        XCTAssertTrue(refused.handshake.uppercased().contains("CERTIFICATE_EXPIRED"), refused.handshake)
        XCTAssertEqual(try push(ports.http2).status, 200, "other listeners are untouched")
    }

    // MARK: Legacy gateway

    func testLegacyShutdownAfterThreeNotifications() async throws {
        let (server, ports) = try await start(try example("legacy-shutdown"))
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let frames = (UInt32(1)...6).flatMap { Legacy.frame(identifier: $0, token: Legacy.token(0x11)) }
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: frames)
        XCTAssertEqual(outcome.received, [8, 10, 0, 0, 0, 3], "status 10 naming the last accepted notification")
        XCTAssertTrue(outcome.closed)
        XCTAssertEqual(try push(ports.http2).status, 200, "HTTP/2 is untouched")
    }

    /// Success is silent on the gateway, so a delay shows in the error packet's arrival.
    func testLegacyDelayHoldsTheErrorPacket() async throws {
        let (server, ports) = try await start(rule(.reject(.unregistered, timestamp: nil), delay: .fixed(milliseconds: 700)))
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let started = Date()
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: Legacy.frame(identifier: 5, token: Legacy.token(0x11)))
        XCTAssertEqual(outcome.received, [8, 8, 0, 0, 0, 5])
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.7)
    }

    func testScenarioStreamLimitIsAnnouncedToNewConnections() async throws {
        let (server, ports) = try await start(Scenario(name: "narrow", connection: ScenarioConnectionSettings(maxConcurrentStreams: 7)))
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let outcome = try RawHTTP2Client.push(port: ports.http2, tokens: [token], timeout: 1)
        let limits = outcome.frames.flatMap(\.settingsValues).filter { $0.0 == 0x3 }.map(\.1)
        XCTAssertEqual(limits.first, 7, "the first SETTINGS")
        XCTAssertEqual(outcome.answeredStreams, [1])
    }

    func testLegacyArbitraryStatusAndReset() async throws {
        let (server, ports) = try await start(rule(.respond(ScenarioResponse(status: 500, legacyStatus: .missingTopic))))
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: Legacy.frame(identifier: 9, token: Legacy.token(0x11)))
        XCTAssertEqual(outcome.received, [8, 3, 0, 0, 0, 9])
        try await server.shutdown(gracePeriod: .zero)

        let (resetting, resettingPorts) = try await start(rule(.fault(.resetConnection)))
        addTeardownBlock { try await resetting.shutdown(gracePeriod: .zero) }
        let reset = try RawHTTP2Client.send(port: try XCTUnwrap(resettingPorts.gateway), bytes: Legacy.frame(identifier: 1, token: Legacy.token(0x11)))
        XCTAssertEqual(reset.ending, "reset")
        XCTAssertEqual(reset.data, "")
    }

    // MARK: Seeds

    /// Two servers, one seed: the same requests meet the same fates.
    func testTheSameSeedGivesTheSameSequenceOverTheWire() async throws {
        var scenario = rule(.reject(.internalServerError, timestamp: nil), match: ScenarioMatch(probability: 0.4))
        scenario.seed = 11
        func statuses() async throws -> [Int] {
            let (server, ports) = try await start(scenario)
            addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
            return try (0..<12).map { _ in try push(ports.http2).status }
        }
        let first = try await statuses()
        let second = try await statuses()
        XCTAssertEqual(second, first)
        XCTAssertTrue(first.contains(200) && first.contains(500), "\(first)")
    }
}

/// The provider-token example, with a real ES256 token: the key the rule names is refused,
/// a certificate connection is not.
final class ScenarioAuthenticationTests: XCTestCase {
    func testExpiredProviderTokenExampleMatchesTheKey() async throws {
        let url = URL(fileURLWithPath: Fixtures.root).appendingPathComponent("scenarios/expired-provider-token.json")
        let scenario = try Scenario.decode(jsonText: String(contentsOf: url, encoding: .utf8))
        let (server, ports) = try await TestServer.start { $0.scenario = scenario }
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let pem = try String(contentsOfFile: Fixtures.certificateDirectory + "/AuthKey_SANDBOX001.p8", encoding: .utf8)
        let jwt = try ProviderTokenSigner(keyID: "SANDBOX001", teamID: "TEAM00000A", privateKeyPEM: pem)
            .token(issuedAt: Int64(Date().timeIntervalSince1970))
        let headers = [("apns-topic", "com.example.app"), ("apns-push-type", "alert"), ("authorization", "bearer \(jwt)")]
        let refused = try CurlClient(port: ports.http2, certificate: nil).send(path: "/3/device/\(Fixtures.token)", headers: headers)
        XCTAssertEqual(refused.status, 403)
        XCTAssertEqual(refused.body, #"{"reason":"ExpiredProviderToken"}"#)
        let certificate = try CurlClient(port: ports.http2).send(path: "/3/device/\(Fixtures.token)", headers: Array(headers.prefix(2)))
        XCTAssertEqual(certificate.status, 200)
    }
}
