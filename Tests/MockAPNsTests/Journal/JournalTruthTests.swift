import MockAPNsTestSupport
import Foundation
import Logging
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import XCTest
import MockAPNsLegacy
import MockAPNsLogging
import MockAPNsObservation

/// The journal tells the whole truth: every notification (accepted, refused by the core,
/// refused by the codec, dropped, refused by HTTP/2 flow control), with the topic and push
/// type the decision used, every provider mistake as a `diagnosis`, and no provider token
/// in anything printed when redaction is on. Real clients over real TLS on 127.0.0.1.
final class JournalTruthTests: XCTestCase {
    // MARK: Helpers

    /// A record as JSON without what a run cannot predict (journal position, time,
    /// connection, stream, generated `apns-id`): the rest must match exactly.
    private func stable(_ record: NotificationRecord) -> String {
        var record = record
        record.sequence = 0
        record.wallTimeMilliseconds = 0
        record.connectionID = nil
        record.streamID = nil
        record.responseAPNsID = nil
        record.answer.uniqueID = nil
        record.handlingMicroseconds = nil
        return JournalJSON.encode(record)
    }

    /// An event as JSON without its position, times and connection.
    private func stable(_ event: JournalEvent) -> String {
        var event = event
        event.sequence = 0
        event.wallTimeMilliseconds = 0
        event.monotonicNanoseconds = 0
        event.connectionID = nil
        return JournalJSON.encode(event)
    }

    private func diagnoses(_ server: MockAPNsServer, code: DiagnosisCode, count: Int = 1) async -> [JournalEvent] {
        await server.journal.waitForEvents(count: count, timeout: .seconds(10)) { event in
            if case .diagnosis(let found, _, _) = event.kind { return found == code }
            return false
        }
    }

    private func jwt(_ keyID: String = "SANDBOX001", issuedAt: Int64 = Int64(Date().timeIntervalSince1970)) throws -> String {
        let pem = try String(contentsOfFile: Fixtures.certificateDirectory + "/AuthKey_\(keyID).p8", encoding: .utf8)
        return try ProviderTokenSigner(keyID: keyID, teamID: "TEAM00000A", privateKeyPEM: pem)
            .token(issuedAt: issuedAt)
    }

    private let token = Fixtures.token

    // MARK: 0. The true size of what was sent

    func testATenMegabyteBodyIsRecordedWithItsTrueLength() async throws {
        let (server, ports) = try await TestServer.start()
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let size = 10 * 1024 * 1024
        let file = Fixtures.temporaryPath("ten-megabytes.json")
        addTeardownBlock { try? FileManager.default.removeItem(atPath: file) }
        try Data(repeating: UInt8(ascii: "a"), count: size).write(to: URL(fileURLWithPath: file))
        let answer = try CurlClient(port: ports.http2, certificate: "sandbox").send(path: "/3/device/\(token)", body: "@" + file)
        XCTAssertEqual(answer.status, 413)
        let records = try await server.waitForNotifications(count: 1, timeout: .seconds(10))
        let record = try XCTUnwrap(records.first)
        XCTAssertEqual(record.reason, .payloadTooLarge)
        XCTAssertEqual(record.payloadLength, size, "the record says how much was sent, not how much was kept")
        XCTAssertEqual(record.payload.count, NotificationRecord.payloadLimit)
        XCTAssertTrue(JournalJSON.encode(record).contains(#""payloadLength":\#(size)"#))
        XCTAssertTrue(JournalJSON.encode(record).contains(#""payloadTruncated":true"#))
    }

    // MARK: 1. The topic and push type the decision used

    func testTopicFromASingleTopicCertificateIsWhatTheRecordTheFilterAndTheRulesSee() async throws {
        let (server, ports) = try await TestServer.start()
        let curl = CurlClient(port: ports.http2, certificate: "sandbox")
        let accepted = try curl.send(path: "/3/device/\(token)", headers: [("apns-push-type", "alert")])
        XCTAssertEqual(accepted.status, 200)

        let found = server.notifications(matching: NotificationFilter(topic: "com.example.app"))
        XCTAssertEqual(found.count, 1, "?topic= finds the push that named no topic")
        XCTAssertEqual(stable(try XCTUnwrap(found.first)), #"{"seq":0,"time":0,"transport":"http2","deviceToken":"\#(token)","topic":"com.example.app","pushType":"alert","payloadLength":25,"payload":"{\"aps\":{\"alert\":\"hello\"}}","authentication":{"kind":"certificate"},"accepted":true,"status":200,"environment":"sandbox"}"#)

        try server.replaceScenario(jsonText: #"""
        {"name": "topic rule", "rules": [{"match": {"topics": ["com.example.app"]}, "action": {"type": "reject", "reason": "TooManyRequests"}}]}
        """#)
        let refused = try curl.send(path: "/3/device/\(token)", headers: [("apns-push-type", "alert")])
        XCTAssertEqual(refused.status, 429, "a rule matching the certificate's topic fires")
        XCTAssertEqual(server.notifications(matching: NotificationFilter(topic: "com.example.app")).count, 2)
        try await server.shutdown()
    }

    func testPushTypeImpliedByTheTopicSuffixIsRecordedAndMatched() async throws {
        let (server, ports) = try await TestServer.start()
        let curl = CurlClient(port: ports.http2, certificate: nil)
        let issuedAt = Int64(Date().timeIntervalSince1970) - 5
        let headers = [("apns-topic", "com.example.app.voip"), ("authorization", "bearer \(try jwt(issuedAt: issuedAt))")]
        XCTAssertEqual(try curl.send(path: "/3/device/\(token)", headers: headers).status, 200)
        let record = try XCTUnwrap(server.notifications(matching: NotificationFilter(topic: "com.example.app.voip")).first)
        XCTAssertEqual(stable(record), #"{"seq":0,"time":0,"transport":"http2","deviceToken":"\#(token)","topic":"com.example.app.voip","pushType":"voip","payloadLength":25,"payload":"{\"aps\":{\"alert\":\"hello\"}}","authentication":{"kind":"providerToken","teamId":"TEAM00000A","keyId":"SANDBOX001","issuedAt":\#(issuedAt)},"accepted":true,"status":200,"environment":"sandbox"}"#)

        try server.replaceScenario(jsonText: #"""
        {"name": "voip rule", "rules": [{"match": {"pushTypes": ["voip"]}, "action": {"type": "reject", "reason": "ServiceUnavailable"}}]}
        """#)
        XCTAssertEqual(try curl.send(path: "/3/device/\(token)", headers: headers).status, 503)
        try await server.shutdown()
    }

    // MARK: 2. Every legacy refusal is a notification

    func testEveryLegacyRefusalAndEveryDroppedFrameIsANotificationRecord() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let oversized = LegacyNotification(
            command: .enhanced, identifier: 2, expiry: 0, token: Legacy.token(2), payload: [UInt8](repeating: 0x20, count: 2049)
        ).encoded()
        let bytes = Legacy.frame(identifier: 1, token: Legacy.token(1)) + oversized
            + Legacy.frame(identifier: 3, token: Legacy.token(3)) + Legacy.enhanced(identifier: 4, token: Legacy.token(4))
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: bytes)
        XCTAssertEqual(outcome.received, [8, 7, 0, 0, 0, 2])

        let records = try await server.waitForNotifications(count: 4, matching: NotificationFilter(transport: .legacy), timeout: .seconds(10))
        let hex = { (seed: UInt8) in Legacy.hex(Legacy.token(seed)) }
        XCTAssertEqual(records.map(stable), [
            #"{"seq":0,"time":0,"transport":"legacy","deviceToken":"\#(hex(1))","topic":"com.example.app","priority":10,"expiration":0,"identifier":1,"command":2,"payloadLength":22,"payload":"{\"aps\":{\"alert\":\"hi\"}}","authentication":{"kind":"certificate"},"accepted":true,"environment":"sandbox"}"#,
            #"{"seq":0,"time":0,"transport":"legacy","deviceToken":"\#(hex(2))","topic":"com.example.app","identifier":2,"command":1,"payloadLength":2049,"payload":"","payloadTruncated":true,"authentication":{"kind":"certificate"},"accepted":false,"reason":"PayloadTooLarge","legacyStatus":7,"legacyPacketIdentifier":2,"problem":"payload too large (2049 bytes)","environment":"sandbox"}"#,
            #"{"seq":0,"time":0,"transport":"legacy","deviceToken":"\#(hex(3))","topic":"com.example.app","priority":10,"expiration":0,"identifier":3,"command":2,"payloadLength":22,"payload":"{\"aps\":{\"alert\":\"hi\"}}","authentication":{"kind":"certificate"},"accepted":false,"dropped":true,"environment":"sandbox"}"#,
            #"{"seq":0,"time":0,"transport":"legacy","deviceToken":"\#(hex(4))","topic":"com.example.app","expiration":0,"identifier":4,"command":1,"payloadLength":22,"payload":"{\"aps\":{\"alert\":\"hi\"}}","authentication":{"kind":"certificate"},"accepted":false,"dropped":true,"environment":"sandbox"}"#,
        ])
        let waited = try await server.waitForNotifications(
            count: 1, matching: NotificationFilter(transport: .legacy, reason: .payloadTooLarge), timeout: .seconds(1))
        XCTAssertEqual(waited.map(\.legacyIdentifier), [2], "waiting for the payload-too-large refusal returns it")

        let frames = server.journal.events(matching: JournalEventFilter(kinds: ["legacyFrame"], transport: .legacy))
        XCTAssertEqual(frames.suffix(2).map(stable), [
            #"{"seq":0,"time":0,"mono":0,"type":"legacyFrame","command":2,"identifier":3,"deviceToken":"\#(hex(3))","payloadLength":22,"frameLength":\#(Legacy.frame(identifier: 3, token: Legacy.token(3)).count),"dropped":true}"#,
            #"{"seq":0,"time":0,"mono":0,"type":"legacyFrame","command":1,"identifier":4,"deviceToken":"\#(hex(4))","payloadLength":22,"frameLength":\#(Legacy.enhanced(identifier: 4, token: Legacy.token(4)).count),"dropped":true}"#,
        ])
        try await server.shutdown()
    }

    func testCodecRefusalsOfEveryKindAreNotificationsWithStatusAndReason() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        // A well-formed command-2 frame with an unknown item 6 appended (and its length grown).
        var unknownItem = LegacyNotification(command: .frame, identifier: 7, token: Legacy.token(7), payload: Legacy.payload).encoded()
        unknownItem += [6, 0, 1, 0xFF]
        let length = UInt32(unknownItem.count - 5)
        unknownItem[1...4] = [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        let cases: [(bytes: [UInt8], reason: Reason?, status: LegacyStatus?, problem: String)] = [
            (LegacyNotification(command: .frame, identifier: 5, token: Legacy.token(5), payload: []).encoded(),
             .payloadEmpty, .missingPayload, "missing payload"),
            (LegacyNotification(command: .enhanced, identifier: 6, expiry: 0, token: [1, 2, 3], payload: Legacy.payload).encoded(),
             .badDeviceToken, .invalidTokenSize, "invalid token size (3 bytes)"),
            (unknownItem, nil, .unknown, "unknown item id 6"),
            // Unparseable: closed without a packet, so no status.
            ([0x09, 0x00, 0x00], nil, nil, "unknown command 9"),
        ]
        for (index, (bytes, reason, status, problem)) in cases.enumerated() {
            let before = server.journal.statistics.lastSequence
            _ = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: bytes)
            let records = try await server.waitForNotifications(
                count: 1, matching: NotificationFilter(transport: .legacy, afterSequence: before), timeout: .seconds(10))
            let record = try XCTUnwrap(records.first, "case \(index)")
            XCTAssertFalse(record.accepted)
            XCTAssertFalse(record.dropped)
            XCTAssertEqual(record.reason, reason, "case \(index)")
            XCTAssertEqual(record.legacyStatus, status, "case \(index)")
            XCTAssertEqual(record.problem, problem, "case \(index)")
            XCTAssertEqual(record.legacyCommand, bytes[0], "case \(index)")
        }
        try await server.shutdown()
    }

    /// A command-0 frame whose token was left out: its `legacy.tokenLeftOut` diagnosis comes
    /// first, and since command 0 gets no error packet its record names no reason (the codec's
    /// misread "payload too large" was never told to the client) and the notice no status.
    func testACommandZeroFrameWithoutItsTokenIsRecordedAsTheClientSawIt() async throws {
        let logs = CapturedLogs()
        let (server, ports) = try await LegacyTestServer.start(logger: logs.logger(level: .info))
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let json = Array(#"{"aps":{"alert":"the token was left out of this frame"}}"#.utf8)
        let outcome = try LegacyTLSClient.exchange(
            port: try XCTUnwrap(ports.gateway), send: [0, 0, 32, 0, UInt8(json.count)] + json)
        XCTAssertEqual(outcome.received, [], "command 0 gets no packet")
        let records = try await server.waitForNotifications(count: 1, matching: NotificationFilter(transport: .legacy), timeout: .seconds(10))
        let record = try XCTUnwrap(records.first)
        XCTAssertNil(record.reason, "no reason was named to the client")
        XCTAssertNil(record.answer.legacyPacket)
        let events = server.journal.events()
        let leftOut = try XCTUnwrap(events.first { event in
            if case .diagnosis(.legacyTokenLeftOut, _, _) = event.kind { return true }
            return false
        })
        XCTAssertLessThan(leftOut.sequence, record.sequence, "the diagnosis comes before the record")
        let notices = logs.messages.filter { $0.contains("refused") }
        XCTAssertFalse(notices.isEmpty)
        XCTAssertFalse(notices.contains { $0.contains("status 7") }, "\(notices)")
        // The cause, not the codec's misreading: the token was left out, and the bytes read as
        // one (the payload length and the JSON's start) are no token.
        XCTAssertTrue(record.problem?.hasPrefix("token left out") == true, record.problem ?? "no problem")
        XCTAssertEqual(record.deviceToken, "")
        XCTAssertEqual(record.payloadLength, json.count)
        XCTAssertTrue(notices.allSatisfy { $0.contains("token left out") && !$0.contains("payload too large") }, "\(notices)")
    }

    /// The same mistake in a command-1 frame: status 7 goes out, as Apple's gateway read the
    /// bytes the same way, but the record's reason, its problem, the notice and the access log
    /// name the cause, a token left out, not a payload too large.
    func testACommandOneFrameWithoutItsTokenNamesTheCauseBehindItsStatus7() async throws {
        let logs = CapturedLogs()
        let path = Fixtures.temporaryPath("access.log")
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        addTeardownBlock { close(descriptor); unlink(path) }
        let (server, ports) = try await LegacyTestServer.start(logger: logs.logger(level: .info)) {
            $0.accessLog = MockAPNsConfiguration.AccessLogSettings(format: .text, output: LogOutput(descriptor: descriptor))
        }
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let json = Array(#"{"aps":{"alert":"the token was left out of this frame"}}"#.utf8)
        let frame: [UInt8] = [1, 0, 0, 0, 9, 0, 0, 0, 0, 0, 32, 0, UInt8(json.count)] + json
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: frame)
        XCTAssertEqual(outcome.received, [8, 7, 0, 0, 0, 9], "status 7, as Apple's gateway answered the same bytes")
        let records = try await server.waitForNotifications(count: 1, matching: NotificationFilter(transport: .legacy), timeout: .seconds(10))
        let record = try XCTUnwrap(records.first)
        XCTAssertEqual(record.legacyStatus, .invalidPayloadSize)
        XCTAssertEqual(record.reason, .missingDeviceToken)
        XCTAssertTrue(record.problem?.hasPrefix("token left out") == true, record.problem ?? "no problem")
        XCTAssertEqual(record.deviceToken, "")
        let frames = server.journal.events(matching: JournalEventFilter(kinds: ["legacyFrame"], transport: .legacy))
        guard case .legacyFrame(let recordedFrame)? = frames.first?.kind else { return XCTFail("no frame recorded") }
        XCTAssertNil(recordedFrame.deviceToken)
        let notices = logs.messages.filter { $0.contains("refused") }
        XCTAssertFalse(notices.isEmpty)
        XCTAssertTrue(notices.allSatisfy { $0.contains("token left out") && !$0.contains("payload too large") }, "\(notices)")

        _ = await server.journal.waitForEvents(count: 1, timeout: .seconds(10)) {
            if case .connectionClosed(.legacy, _, _) = $0.kind { return true }
            return false
        }
        _ = await server.metricsText()  // the access log has read every event recorded so far
        let line = try XCTUnwrap(String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").first { $0.contains("push c") })
        XCTAssertTrue(line.contains("status 7 MissingDeviceToken") && line.contains(": token left out"), String(line))
        XCTAssertFalse(line.contains("PayloadTooLarge") || line.contains("payload too large"), String(line))
    }

    /// A frame refused for a payload that is not JSON arrived whole: its record holds the
    /// payload as sent, not an empty one marked truncated.
    func testAFrameRefusedForInvalidJSONKeepsItsPayload() async throws {
        let (server, ports) = try await LegacyTestServer.start { $0.legacy.invalidJSONPayload = .refuse(.processingError) }
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let payload = Array(#"{"aps":{"alert":"unterminated"#.utf8)
        let frame = LegacyNotification(command: .enhanced, identifier: 3, expiry: 0, token: Legacy.token(3), payload: payload).encoded()
        let outcome = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: frame)
        XCTAssertEqual(outcome.received, [8, 1, 0, 0, 0, 3])
        let records = try await server.waitForNotifications(count: 1, matching: NotificationFilter(transport: .legacy), timeout: .seconds(10))
        let record = try XCTUnwrap(records.first)
        XCTAssertEqual(record.payload, payload)
        XCTAssertEqual(record.payloadLength, payload.count)
        XCTAssertFalse(JournalJSON.encode(record).contains("payloadTruncated"))
    }

    // MARK: 3. Redaction

    func testRedactionHidesTheJWTInLibraryErrorsDiagnosesFramesAndLogs() async throws {
        let logs = CapturedLogs()
        let (server, ports) = try await LegacyTestServer.start(logger: logs.logger(level: .info)) { $0.journal.redactsTokens = true }
        let jwt = try jwt()
        // A control character after the JWT makes nghttp2 reject the field, quoting its value.
        let response = try? CurlClient(port: ports.http2, certificate: nil).send(
            path: "/3/device/\(token)",
            headers: [("apns-topic", "com.example.app"), ("authorization", "bearer \(jwt)\u{01}")]
        )
        XCTAssertNotEqual(response?.status, 200)
        let errors = await diagnoses(server, code: .http2StreamError)
        let message = try XCTUnwrap(errors.first.map { JournalJSON.encode($0) })
        XCTAssertTrue(message.contains("bearer <redacted>"), message)
        // A valid request too: its HEADERS frame carries the header, redacted.
        _ = try CurlClient(port: ports.http2, certificate: nil).send(
            path: "/3/device/\(token)", headers: [("apns-topic", "com.example.app"), ("authorization", "bearer \(jwt)")])
        _ = try await server.waitForNotifications(count: 1, timeout: .seconds(10))

        let everything = server.journal.events().map { JournalJSON.encode($0) }.joined(separator: "\n")
        let signature = String(jwt.split(separator: ".").last ?? "")
        XCTAssertFalse(everything.contains("eyJ"), "no JWT in the journal")
        XCTAssertFalse(everything.contains(signature))
        XCTAssertTrue(everything.contains(#"["authorization","<redacted>"]"#))
        let logged = logs.messages.joined(separator: "\n")
        XCTAssertTrue(logged.contains("HTTP/2 stream 1 reset") && logged.contains("<redacted>"), logged)
        XCTAssertFalse(logged.contains("eyJ"), logged)
        try await server.shutdown()
    }

    /// A token the server accepts is never journaled whole, whatever its spelling: two spaces
    /// or a tab after `bearer`, a header JSON with spaces (`eyAi…`), no scheme, another
    /// scheme. What the journal holds cannot be replayed.
    func testNoSpellingOfAProviderTokenIsJournaledWhole() async throws {
        let (server, ports) = try await TestServer.start()
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let pem = try String(contentsOfFile: Fixtures.certificateDirectory + "/AuthKey_SANDBOX001.p8", encoding: .utf8)
        let spaced = try ProviderTokenSigner(keyID: "SANDBOX001", teamID: "TEAM00000A", privateKeyPEM: pem)
            .token(issuedAt: Int64(Date().timeIntervalSince1970), headerJSON: #"{ "alg": "ES256", "kid": "SANDBOX001" }"#)
        XCTAssertTrue(spaced.hasPrefix("eyAi"), spaced)
        let plain = try jwt()
        let client = CurlClient(port: ports.http2, certificate: nil)
        let sends: [(authorization: String, status: Int)] = [
            ("bearer  \(spaced)", 200), ("bearer\t\(plain)", 200), (spaced, 403), ("Token \(plain)", 403),
        ]
        for send in sends {
            let response = try client.send(
                path: "/3/device/\(token)", headers: [("apns-topic", "com.example.app"), ("authorization", send.authorization)])
            XCTAssertEqual(response.status, send.status, send.authorization)
        }
        let records = try await server.waitForNotifications(count: sends.count, timeout: .seconds(10))
        XCTAssertEqual(records.count, sends.count)
        let everything = server.journal.events().map { JournalJSON.encode($0) }.joined(separator: "\n")
        for signature in [spaced, plain].compactMap({ $0.split(separator: ".").last }) {
            XCTAssertFalse(everything.contains(signature), "a signature is journaled whole")
        }
        // The journaled value, sent again, is refused: it holds nothing that can be replayed.
        let journaled = try XCTUnwrap(server.journal.events().lazy.compactMap { event -> String? in
            guard case .http2Frame(let frame) = event.kind, case .headers(let headers) = frame.details else { return nil }
            return headers.first { $0.name == "authorization" && $0.value.contains("eyAi") }?.value
        }.first)
        XCTAssertTrue(journaled.contains(ProviderTokenRedaction.signaturePlaceholder), journaled)
        let replay = try client.send(
            path: "/3/device/\(token)", headers: [("apns-topic", "com.example.app"), ("authorization", journaled)])
        XCTAssertEqual(replay.status, 403)
    }

    /// A token sent where none belongs (`apns-collapse-id`, `apns-id`, the path), the bare
    /// signature after `bearer`, and a signature split by a blank: the journal keeps no piece
    /// of a signature, in frames, notifications or diagnoses, and the JWS's header and claims
    /// stay readable.
    func testATokenInAnyFieldOrInPiecesIsNeverJournaled() async throws {
        let (server, ports) = try await TestServer.start()
        addTeardownBlock { try await server.shutdown(gracePeriod: .zero) }
        let jwt = try jwt()
        let signature = String(jwt.split(separator: ".").last ?? "")
        let headerAndClaims = String(jwt.dropLast(signature.count + 1))
        let half = signature.count / 2
        let client = CurlClient(port: ports.http2, certificate: nil)
        let sends: [(path: String, headers: [(String, String)], status: Int)] = [
            ("/3/device/\(token)", [("authorization", "bearer \(jwt)"), ("apns-collapse-id", jwt)], 400),
            ("/3/device/\(token)", [("authorization", "bearer \(jwt)"), ("apns-id", jwt)], 400),
            ("/3/device/\(jwt)", [("authorization", "bearer \(jwt)")], 400),
            ("/3/device/\(token)", [("authorization", "bearer \(signature)")], 403),
            ("/3/device/\(token)", [("authorization", "bearer \(headerAndClaims).\(signature.prefix(half)) \(signature.dropFirst(half))")], 403),
        ]
        for send in sends {
            let response = try client.send(path: send.path, headers: [("apns-topic", "com.example.app")] + send.headers)
            XCTAssertEqual(response.status, send.status, "\(send.headers)")
        }
        let records = try await server.waitForNotifications(count: sends.count, timeout: .seconds(10))
        XCTAssertEqual(records.count, sends.count)
        let everything = server.journal.events().map { JournalJSON.encode($0) }.joined(separator: "\n")
        for piece in [signature, String(signature.prefix(half)), String(signature.dropFirst(half))] {
            XCTAssertFalse(everything.contains(piece), "a piece of the signature is journaled: \(piece)")
        }
        XCTAssertEqual(records[0].collapseID, headerAndClaims + "." + ProviderTokenRedaction.signaturePlaceholder)
        XCTAssertEqual(records[1].requestAPNsID, headerAndClaims + "." + ProviderTokenRedaction.signaturePlaceholder)
        XCTAssertEqual(records[2].deviceToken, headerAndClaims + "." + ProviderTokenRedaction.signaturePlaceholder)
    }

    func testRedactionFindsTokensWhereverTextQuotesThem() {
        let jwt = "eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQyJ9.eyJpc3MiOiJUIiwiaWF0IjoxfQ.c2ln-_x"
        let cases: [(String, String)] = [
            ("Invalid HTTP header field was received: frame type: 1, stream: 1, name: [authorization], value: [bearer \(jwt)\u{01}]",
             "Invalid HTTP header field was received: frame type: 1, stream: 1, name: [authorization], value: [bearer <redacted>\u{01}]"),
            ("Bearer \(jwt)", "Bearer <redacted>"),
            ("token=\(jwt); next", "token=<redacted>; next"),
            ("bearer not-a-jwt-but-secret", "bearer <redacted>"),
            ("device a1b2c3d4 and keyeyJ stays", "device a1b2c3d4 and keyeyJ stays"),
            ("nothing here", "nothing here"),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(ProviderTokenRedaction.redact(text), expected)
        }
    }

    // MARK: 4. Feedback queue

    func testFeedbackIsQueuedExplicitlyOncePerDeliveryAndReactivationRemovesIt() async throws {
        let (server, ports) = try await TestServer.start { $0.controlPort = 0 }
        let control = "http://127.0.0.1:\(try XCTUnwrap(ports.control))"
        let feedback = try XCTUnwrap(ports.feedback)
        let token = Legacy.token(0x42)
        let body = #"{"deviceToken":"\#(Legacy.hex(token))","timestamp":1700000000000}"#
        func post(_ path: String, _ body: String = "{}") throws {
            let result = try ProcessRunner.run("curl", ["-sS", "-f", "-X", "POST", "-H", "content-type: application/json",
                                                        "--data-binary", body, control + path])
            XCTAssertEqual(result.status, 0, result.stderr)
        }

        try post("/v1/feedback", body)
        try post("/v1/feedback", body)
        XCTAssertEqual(server.registry.pendingFeedback.count, 1, "queueing is idempotent while a tuple waits")
        let first = try LegacyTLSClient.exchange(port: feedback, send: [])
        XCTAssertEqual(try FeedbackTupleDecoder.decodeAll(first.received).map(\.token), [token])

        // Delivered once; queueing it again queues a new tuple (before: 200 and nothing).
        try post("/v1/feedback", body)
        let second = try LegacyTLSClient.exchange(port: feedback, send: [])
        XCTAssertEqual(try FeedbackTupleDecoder.decodeAll(second.received).map(\.token), [token])

        let tuples = server.journal.events(matching: JournalEventFilter(kinds: ["feedbackTuple"]))
        XCTAssertEqual(tuples.map(stable), Array(repeating:
            #"{"seq":0,"time":0,"mono":0,"type":"feedbackTuple","deviceToken":"\#(Legacy.hex(token))","timestamp":1700000000000}"#, count: 2))

        // A reactivated token is not handed out.
        try post("/v1/feedback", body)
        try post("/v1/registry/\(Legacy.hex(token))/reactivate")
        XCTAssertEqual(server.registry.pendingFeedback, [])
        let third = try LegacyTLSClient.exchange(port: feedback, send: [])
        XCTAssertEqual(third.received, [])
        try await server.shutdown()
    }

    // MARK: 5. Connection churn

    func testLegacyChurnIsAJournalDiagnosisEvenWhenEachFrameIsMisframed() async throws {
        let logs = CapturedLogs()
        let (server, ports) = try await LegacyTestServer.start(logger: logs.logger())
        // Each connection carries one command-1 notification whose payload length counts
        // characters, not UTF-8 bytes: its tail is read as a second, unparseable "frame".
        let json = Array(#"{"aps":{"alert":"café"}}"#.utf8)
        var frame = LegacyNotification(command: .enhanced, identifier: 1, expiry: 0, token: Legacy.token(1), payload: json).encoded()
        let lengthIndex = 1 + 4 + 4 + 2 + 32
        frame[lengthIndex + 1] -= 1  // one character fewer than bytes
        let connections = (0..<10).map { _ in LegacyTLSClient.Connection(send: frame) }
        _ = try LegacyTLSClient.run(port: try XCTUnwrap(ports.gateway), connections: connections)

        let churn = await diagnoses(server, code: .legacyConnectionChurn)
        XCTAssertEqual(churn.map(stable), [
            #"{"seq":0,"time":0,"mono":0,"type":"diagnosis","code":"legacy.connectionChurn","message":"10 connections in 10 s carrying about 1.0 notifications each. Apple treats rapid connect/disconnect as a denial-of-service attempt: keep one connection open and stream notifications over it.","figures":{"connections":10,"windowSeconds":10,"notifications":10}}"#,
        ])
        XCTAssertTrue(logs.messages.contains { $0.contains("legacy gateway: 10 connections in 10 s") }, "\(logs.messages)")
        try await server.shutdown()
    }

    func testHTTP2ChurnIsDiagnosedForConnectionsLeftOpenAndForConnectionsClosed() async throws {
        let logs = CapturedLogs()
        let (server, ports) = try await LegacyTestServer.start(logger: logs.logger())
        // A provider that opens a TLS connection per request and never closes them: when
        // the eleventh opens, ten sit idle after their only request.
        let script = #"""
        import socket, ssl, sys, time
        ctx = ssl.create_default_context(cafile=sys.argv[1])
        ctx.set_alpn_protocols(["h2"])
        ctx.load_cert_chain(sys.argv[3] + ".pem", sys.argv[3] + "-key.pem")
        request = bytes.fromhex(sys.argv[4])
        kept = []
        for _ in range(11):
            s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[2]))), server_hostname="localhost")
            s.sendall(request)
            s.settimeout(5)
            seen = b""
            while b"\x01\x04\x00\x00\x00\x01" not in seen and b"\x01\x05\x00\x00\x00\x01" not in seen:
                seen += s.recv(65536)
            kept.append(s)
        print("sent", len(kept))
        sys.stdout.flush()
        time.sleep(float(sys.argv[5]))
        """#
        let request = HTTP2Bytes.preface + HTTP2Bytes.settings() + HTTP2Bytes.headers(streamID: 1, fields: [
            (":method", "POST"), (":scheme", "https"), (":path", "/3/device/\(token)"), (":authority", "127.0.0.1"),
            ("apns-topic", "com.example.app"),
        ], indexed: [])
        let hex = request.map { String(format: "%02x", $0) }.joined()
        let keeper = Process()
        keeper.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        keeper.arguments = ["python3", "-c", script, Fixtures.caPath, String(ports.http2),
                            Fixtures.certificateDirectory + "/client-universal", hex, "3"]
        let output = Pipe()
        keeper.standardOutput = output
        try keeper.run()
        let churn = await diagnoses(server, code: .http2ConnectionChurn)
        XCTAssertTrue(keeper.isRunning, "diagnosed while the provider still holds its connections open")
        keeper.waitUntilExit()
        XCTAssertEqual(keeper.terminationStatus, 0)
        XCTAssertEqual(churn.map(stable), [
            #"{"seq":0,"time":0,"mono":0,"type":"diagnosis","code":"http2.connectionChurn","message":"10 connections in 10 s each carried a single request (10 of them left open and idle instead of being reused). Apple treats a new connection per notification as connection churn and may throttle it: keep one connection (or a few) open and send every notification over it.","figures":{"connections":10,"windowSeconds":10,"requests":10,"stillOpen":10}}"#,
        ])
        XCTAssertTrue(logs.messages.contains { $0.contains("HTTP/2: 10 connections in 10 s each carried a single request") }, "\(logs.messages)")
        try await server.shutdown()
    }

    func testHTTP2ChurnOfClosedConnectionsAndNoneForAReusedOne() async throws {
        let (server, ports) = try await TestServer.start()
        // One connection carrying twelve requests is how it should be done: no diagnosis.
        let twelve = Array(repeating: "https://127.0.0.1:\(ports.http2)/3/device/\(token)", count: 12)
        let reused = try ProcessRunner.run("curl", ["--http2", "-sS", "-o", "/dev/null", "--cacert", Fixtures.caPath,
                                                    "--cert", Fixtures.certificateDirectory + "/client-universal.pem",
                                                    "--key", Fixtures.certificateDirectory + "/client-universal-key.pem",
                                                    "-H", "apns-topic: com.example.app", "-d", "{}"] + twelve)
        XCTAssertEqual(reused.status, 0, reused.stderr)
        XCTAssertEqual(server.notifications().count, 12)
        XCTAssertEqual(server.journal.events(matching: JournalEventFilter(kinds: ["diagnosis"])).count, 0)
        // Ten processes, a connection each, closed after one request.
        for _ in 0..<10 {
            XCTAssertEqual(try CurlClient(port: ports.http2).send(path: "/3/device/\(token)", headers: [("apns-topic", "com.example.app")]).status, 200)
        }
        let churn = await diagnoses(server, code: .http2ConnectionChurn)
        XCTAssertEqual(churn.map(stable).first?.contains(#""figures":{"connections":10,"windowSeconds":10,"requests":10,"stillOpen":0}"#), true)
        try await server.shutdown()
    }

    // MARK: 6. Diagnoses that name the mistake

    func testAShortTokenFieldIsExplainedRatherThanCalledAnOversizedPayload() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        // Command 0 announcing a 32-byte token but carrying 20 bytes, then the payload.
        let json = Array(#"{"aps":{"alert":"hello world"}}"#.utf8)
        let bytes: [UInt8] = [0, 0, 32] + [UInt8](repeating: 0xAB, count: 20) + [0, UInt8(json.count)] + json
        _ = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: bytes)
        let found = await diagnoses(server, code: .legacyTokenShorterThanItsLength)
        // The 32 "token" bytes end 10 bytes into the JSON; the next two are read as the length.
        let misread = Array(json[10..<12])
        let misreadLength = Int(misread[0]) << 8 | Int(misread[1])
        XCTAssertEqual(found.map(stable), [
            #"{"seq":0,"time":0,"mono":0,"type":"diagnosis","code":"legacy.tokenShorterThanItsLength","message":"A notification without identifier: the token length field says 32 bytes but the token is only 20: the real payload length and the start of the JSON were read as the rest of the token, and the bytes 6c 65 (\"le\") inside the JSON were read as a payload length of \#(misreadLength). Read with a 20-byte token, the frame is a 31-byte JSON payload. Send the whole token (32 bytes), or a token length field that matches it.","figures":{"declaredTokenLength":32,"tokenLength":20,"payloadLength":31,"misreadPayloadLength":\#(misreadLength)}}"#,
        ])
        try await server.shutdown()
    }

    func testATLSAlertBeforeAnyClientHelloIsNamed() async throws {
        let (server, ports) = try await TestServer.start()
        // A client that refused the server (say, its certificate) on an earlier attempt and
        // now sends a fatal bad_certificate alert instead of a ClientHello.
        let script = """
        import socket, sys, time
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        s.sendall(bytes.fromhex("15030100020230"))
        s.settimeout(3)
        try:
            s.recv(100)
        except Exception:
            pass
        """
        _ = try ProcessRunner.run("python3", ["-c", script, String(ports.http2)])
        let failed = await server.journal.waitForEvents(count: 1, timeout: .seconds(10)) { event in
            if case .tlsFailed = event.kind { return true }
            return false
        }
        XCTAssertEqual(failed.map(stable), [
            #"{"seq":0,"time":0,"mono":0,"type":"tlsFailed","reason":"client sent a fatal TLS alert unknown_ca (48) before any ClientHello: its own TLS library stopped before offering anything, without having seen this server (no certificate or version was exchanged). That happens when the client is set to protocol versions its library refuses, such as SSLv3 or TLS 1.0 only on a system that allows TLS 1.2 and later; let the client offer TLS 1.2","alertSent":"unexpected_message","alertReceived":"unknown_ca","offeredVersions":[],"offeredCipherSuites":[]}"#,
        ])
        try await server.shutdown()
    }

    func testByteSwappedIdentifiersGetAHintOncePerConnection() async throws {
        let (server, ports) = try await LegacyTestServer.start()
        let bytes = Legacy.frame(identifier: 16_777_216, token: Legacy.token(1)) + Legacy.frame(identifier: 33_554_432, token: Legacy.token(1))
        // Both are accepted, so the gateway stays silent and open: the client gives up after 1 s.
        _ = try LegacyTLSClient.exchange(port: try XCTUnwrap(ports.gateway), send: bytes, timeout: 1)
        _ = try await server.waitForNotifications(count: 2, timeout: .seconds(10))
        let found = await diagnoses(server, code: .legacyByteSwappedIdentifier)
        XCTAssertEqual(found.map(stable), [
            #"{"seq":0,"time":0,"mono":0,"type":"diagnosis","code":"legacy.byteSwappedIdentifier","message":"Notification identifier 16777216 is 1 byte-swapped: it was written in host (little-endian) byte order. The gateway reads and echoes identifiers big-endian (network order), so an error packet will name 16777216, not 1.","figures":{"identifier":16777216,"swapped":1}}"#,
        ])
        XCTAssertEqual(server.journal.events(matching: JournalEventFilter(kinds: ["diagnosis"])).count, 1, "once per connection")
        try await server.shutdown()
    }

    // MARK: 7. Refused HTTP/2 streams

    func testStreamsRefusedBeforeTheClientReadSettingsAreRecordedWithTheirHeaders() async throws {
        let (server, ports) = try await TestServer.start()
        // A token connection starts with one stream. This client sends three requests
        // before reading the server's SETTINGS; HPACK's dynamic table carries the topic
        // from the first request to the others, so their headers decode only in order.
        let path = { (seed: String) in "/3/device/\(String(repeating: seed, count: 64))" }
        let base: [(String, String)] = [(":method", "POST"), (":scheme", "https"), (":authority", "127.0.0.1")]
        let bytes = HTTP2Bytes.preface + HTTP2Bytes.settings()
            + HTTP2Bytes.headers(streamID: 1, fields: base + [(":path", path("1")), ("apns-topic", "com.example.app")], indexed: ["apns-topic"])
            + HTTP2Bytes.headers(streamID: 3, fields: base + [(":path", path("3"))], reusing: 62)
            + HTTP2Bytes.headers(streamID: 5, fields: base + [(":path", path("5")), ("apns-id", "2F3B4C5D-0000-4000-8000-000000000005")], reusing: 62)
        let exchange = try RawTLSClient.exchange(port: ports.http2, send: bytes, timeout: 1)
        let resets = RawHTTP2Frame.parse(exchange.received).filter { $0.type == 0x3 }
        XCTAssertEqual(resets.map(\.streamID), [3, 5])

        // Stream 1 is answered (403 MissingProviderToken: no token was sent); 3 and 5 were refused.
        let refused = try await server.waitForNotifications(count: 3, matching: NotificationFilter(accepted: false), timeout: .seconds(10))
            .filter(\.dropped)
        let problem = { (stream: Int) in
            "Stream refused: the client opened stream \(stream) while 1 stream was open; the server had announced SETTINGS_MAX_CONCURRENT_STREAMS = 1 and the client had not yet acknowledged it (it sent the stream before reading the server's SETTINGS). RST_STREAM REFUSED_STREAM (7): the server did not process the request at all, so it is safe to send it again, on this connection once a stream is free or on another."
        }
        XCTAssertEqual(refused.map(stable), [
            #"{"seq":0,"time":0,"transport":"http2","deviceToken":"\#(String(repeating: "3", count: 64))","topic":"com.example.app","payloadLength":0,"payload":"","authentication":{"kind":"unverified"},"accepted":false,"problem":"\#(problem(3))","dropped":true}"#,
            #"{"seq":0,"time":0,"transport":"http2","deviceToken":"\#(String(repeating: "5", count: 64))","topic":"com.example.app","apnsId":"2F3B4C5D-0000-4000-8000-000000000005","payloadLength":0,"payload":"","authentication":{"kind":"unverified"},"accepted":false,"problem":"\#(problem(5))","dropped":true}"#,
        ])
        // The stream error says the same, next to the RST_STREAM that carried it.
        let resetReasons = await diagnoses(server, code: .http2StreamError, count: 2)
        XCTAssertEqual(resetReasons.map(\.streamID), [3, 5])
        XCTAssertEqual(resetReasons.first.map(stable), #"{"seq":0,"time":0,"mono":0,"stream":3,"type":"diagnosis","code":"http2.streamError","message":"stream 3 REFUSED_STREAM: \#(problem(3).dropFirst("Stream refused: ".count).dropLast())"}"#)
        let headers = server.journal.events(matching: JournalEventFilter(kinds: ["http2Frame"], streamID: 3))
            .map(stable).first { $0.contains(#""frameType":"HEADERS""#) }
        XCTAssertEqual(headers, #"{"seq":0,"time":0,"mono":0,"stream":3,"type":"http2Frame","direction":"inbound","frameType":"HEADERS","flags":5,"length":\#(HTTP2Bytes.headerBlock(fields: base + [(":path", path("3"))], reusing: 62).count),"headers":[[":method","POST"],[":scheme","https"],[":authority","127.0.0.1"],[":path","\#(path("3"))"],["apns-topic","com.example.app"]]}"#)
        try await server.shutdown()
    }

    // MARK: 8. Invalid JSON on HTTP/2

    func testInvalidJSONOnHTTP2IsDiagnosedWithTheOffsetAndTheAnswerStaysConfigurable() async throws {
        let logs = CapturedLogs()
        let (server, ports) = try await LegacyTestServer.start(logger: logs.logger())
        let curl = CurlClient(port: ports.http2)
        let accepted = try curl.send(path: "/3/device/\(token)", headers: [("apns-topic", "com.example.app")], body: #"{"aps":{"alert":hi}}"#)
        XCTAssertEqual(accepted.status, 200, "APNs' answer is kept (validation.nonObjectPayload: accept)")
        let found = await diagnoses(server, code: .http2PayloadNotJSON)
        XCTAssertEqual(found.map(stable), [
            #"{"seq":0,"time":0,"mono":0,"stream":1,"type":"diagnosis","code":"http2.payloadNotJSON","message":"Stream 1: the payload is not valid JSON (first bad byte at offset 16). The answer follows validation.nonObjectPayload (accepted)."}"#,
        ])
        XCTAssertTrue(logs.messages.contains("notice: HTTP/2: Stream 1: the payload is not valid JSON (first bad byte at offset 16). The answer follows validation.nonObjectPayload (accepted)."), "\(logs.messages)")
        try await server.shutdown()

        let (strict, strictPorts) = try await TestServer.start { $0.validation.nonObjectPayload = .reject(.payloadEmpty) }
        let refused = try CurlClient(port: strictPorts.http2).send(path: "/3/device/\(token)", headers: [("apns-topic", "com.example.app")], body: "{\"aps\":")
        XCTAssertEqual(refused.status, 400)
        let strictFound = await diagnoses(strict, code: .http2PayloadNotJSON)
        XCTAssertEqual(strictFound.first.map { stable($0) }?.contains("it stops before the JSON is complete. The answer follows validation.nonObjectPayload (refused: PayloadEmpty)."), true)
        try await strict.shutdown()
    }
}

/// Raw HTTP/2 bytes for clients that misbehave on purpose: HPACK literals without Huffman,
/// optionally added to the dynamic table, and indexed references to it.
enum HTTP2Bytes {
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    static func frame(type: UInt8, flags: UInt8, streamID: UInt32, payload: [UInt8]) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type, flags,
                UInt8(streamID >> 24 & 0x7F), UInt8(streamID >> 16 & 0xFF), UInt8(streamID >> 8 & 0xFF), UInt8(streamID & 0xFF)]
            + payload
    }

    static func settings() -> [UInt8] { frame(type: 0x4, flags: 0, streamID: 0, payload: []) }

    /// A header block: each field a literal (with incremental indexing when its name is in
    /// `indexed`), then, if `reusing` is set, an indexed reference to that table entry.
    static func headerBlock(fields: [(String, String)], indexed: Set<String> = [], reusing: Int? = nil) -> [UInt8] {
        var block: [UInt8] = []
        for (name, value) in fields {
            block.append(indexed.contains(name) ? 0x40 : 0x00)
            block.append(UInt8(name.utf8.count))
            block += Array(name.utf8)
            block.append(UInt8(value.utf8.count))
            block += Array(value.utf8)
        }
        if let reusing { block.append(0x80 | UInt8(reusing)) }
        return block
    }

    /// HEADERS with END_STREAM and END_HEADERS.
    static func headers(streamID: UInt32, fields: [(String, String)], indexed: Set<String> = [], reusing: Int? = nil) -> [UInt8] {
        frame(type: 0x1, flags: 0x5, streamID: streamID, payload: headerBlock(fields: fields, indexed: indexed, reusing: reusing))
    }
}
