import XCTest
@testable import MockAPNsCore
@testable import MockAPNsLegacy

/// Each diagnosis, triggered the way real provider code gets it wrong.
final class LegacyDiagnosisTests: XCTestCase {
    /// An enhanced frame whose payload length field says `declaredLength`, followed by the
    /// payload bytes actually written.
    func enhanced(identifier: UInt32, declaredLength: Int, payload: [UInt8]) -> [UInt8] {
        legacyBytes("01") + LegacyFixtures.bigEndian(identifier) + legacyBytes("00000000 0020") + LegacyFixtures.token
            + [UInt8(declaredLength >> 8), UInt8(declaredLength & 0xFF)] + payload
    }

    func testLengthCountedInCharactersInsteadOfUTF8Bytes() throws {
        let json = #"{"aps":{"alert":"Grüße aus Köln"}}"#
        let payload = Array(json.utf8)
        XCTAssertEqual(payload.count - json.count, 3)
        // The provider wrote `json.count` (characters) as the length.
        let stream = enhanced(identifier: 8, declaredLength: json.count, payload: payload) + LegacyFixtures.enhanced(identifier: 9)
        let events = legacyDecodeAll(stream)

        XCTAssertEqual(events.diagnoses.first, .payloadLengthTooShort(identifier: 8, declared: json.count, jsonLength: payload.count, multiByteExtra: 3))
        XCTAssertTrue(try XCTUnwrap(events.diagnoses.first).message.contains("counted in characters"))
        // The JSON's tail `"}}` is then read as a command byte.
        XCTAssertEqual(events.errors.first?.problem, .unknownCommand(UInt8(ascii: "\"")))
    }

    func testCutShortPayloadWithoutTheRestInSightIsReportedAsNotJSON() {
        let payload = Array(#"{"aps":{"alert":"hello"}}"#.utf8)
        let events = legacyDecodeAll(enhanced(identifier: 2, declaredLength: payload.count - 2, payload: Array(payload.dropLast(2))))
        XCTAssertEqual(events.diagnoses, [.payloadNotJSON(identifier: 2, offset: nil)])
    }

    func testLengthTooLongSwallowsTheNextFrame() {
        let payload = LegacyFixtures.payload
        // The length is 5 too many: the next frame's command byte and identifier are swallowed.
        let stream = enhanced(identifier: 1, declaredLength: payload.count + 5, payload: payload) + LegacyFixtures.enhanced(identifier: 2)
        let diagnosis = legacyDecodeAll(stream).diagnoses.first
        XCTAssertEqual(diagnosis, .payloadLengthTooLong(identifier: 1, declared: payload.count + 5, jsonLength: payload.count, tailLooksLikeFrame: true))
        XCTAssertEqual(diagnosis?.code, .legacyPayloadLengthTooLong)
        XCTAssertTrue(diagnosis?.message.contains("swallowed") ?? false)
    }

    func testNULTerminatedPayload() {
        // The terminator makes the payload something other than JSON: both are said.
        let end = LegacyFixtures.payload.count
        let frame = LegacyFixtures.frame(identifier: 4, payload: LegacyFixtures.payload + [0])
        XCTAssertEqual(legacyDecodeAll(frame).diagnoses, [.payloadNULTerminated(identifier: 4), .payloadNotJSON(identifier: 4, offset: end)])
        // A fixed 256-byte buffer sent whole.
        let padded = LegacyFixtures.payload + [UInt8](repeating: 0, count: 256 - LegacyFixtures.payload.count)
        XCTAssertEqual(legacyDecodeAll(LegacyFixtures.frame(identifier: 5, payload: padded)).diagnoses,
                       [.payloadNULTerminated(identifier: 5), .payloadNotJSON(identifier: 5, offset: end)])
    }

    func testPayloadThatIsNotJSON() {
        // A Python dict's repr instead of json.dumps.
        let frame = LegacyFixtures.frame(identifier: 6, payload: Array("{'aps': {'alert': 'hi'}}".utf8))
        let events = legacyDecodeAll(frame)
        XCTAssertEqual(events.diagnoses, [.payloadNotJSON(identifier: 6, offset: 1)])
        XCTAssertEqual(events.notifications.count, 1, "the codec does not judge JSON; the decision core does")
    }

    func testValidPayloadsProduceNoDiagnosis() {
        let payloads = [#"{"aps":{"alert":{"title":"Hi","body":"\u00e9 \"q\""},"badge":-1.5e3,"sound":null}}"#, " {} ", "[true,false]"]
        for payload in payloads {
            XCTAssertEqual(legacyDecodeAll(LegacyFixtures.frame(payload: Array(payload.utf8))).diagnoses, [], payload)
        }
    }

    func testHexTokenSentAsASCII() {
        let asciiToken = Array(LegacyFixtures.tokenHex.utf8)
        XCTAssertEqual(asciiToken.count, 64)
        let events = legacyDecodeAll(LegacyFixtures.frame(identifier: 12, token: asciiToken))
        XCTAssertEqual(events.diagnoses, [.asciiHexToken(identifier: 12, length: 64)])
        XCTAssertEqual(events.errors.first?.status, .invalidTokenSize)
        XCTAssertTrue(events.diagnoses.first?.message.contains("32 binary bytes") ?? false)
    }

    func testBinaryTokenIsNotMistakenForHex() {
        XCTAssertEqual(legacyDecodeAll(LegacyFixtures.frame(identifier: 1)).diagnoses, [])
    }

    func testLittleEndianTokenLength() {
        // 32 written in host order on a little-endian machine: 20 00, read as 8192.
        let frame = legacyBytes("01 00000001 00000000 2000") + LegacyFixtures.token
        let events = legacyDecodeAll(frame)
        XCTAssertEqual(events.diagnoses, [.littleEndianLength(field: .tokenLength, declared: 8192, swapped: 32)])
        XCTAssertEqual(events.errors.first?.status, .invalidTokenSize)
        XCTAssertEqual(events.errors.first?.identifier, 1)
    }

    func testLittleEndianFrameLength() {
        let frame = LegacyFixtures.frame(identifier: 1)
        let length = UInt32(frame.count - 5)
        let swapped = [2] + LegacyFixtures.bigEndian(length.byteSwapped) + frame.dropFirst(5)
        XCTAssertEqual(legacyDecodeAll(swapped).diagnoses, [.littleEndianLength(field: .frameLength, declared: length.byteSwapped, swapped: length)])
    }

    func testLittleEndianPayloadLength() {
        let payload = LegacyFixtures.payload
        let frame = legacyBytes("01 00000001 00000000 0020") + LegacyFixtures.token + [UInt8(payload.count), 0] + payload
        let events = legacyDecodeAll(frame)
        XCTAssertEqual(events.diagnoses, [.littleEndianLength(field: .payloadLength, declared: 2560, swapped: 10)])
        XCTAssertEqual(events.errors.first?.status, .invalidPayloadSize)
    }

    func testHTTP2ClientOnTheBinaryPort() {
        let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
        let events = legacyDecodeAll(preface)
        XCTAssertEqual(events.diagnoses, [.notBinaryProtocol(preview: "PRI * HTTP/2.0")])
        XCTAssertEqual(events.errors.first?.problem, .unknownCommand(UInt8(ascii: "P")))
    }

    func testDiagnosesReachTheSessionBeforeTheFailure() {
        var session = LegacyConnectionSession()
        let output = session.receive(LegacyFixtures.frame(identifier: 12, token: Array(LegacyFixtures.tokenHex.utf8))) { _, _ in nil }
        guard output.events.count == 2, case .diagnosis(.asciiHexToken) = output.events[0], case .failed = output.events[1] else {
            return XCTFail("\(output.events)")
        }
    }

    func testDiagnosesCanBeSwitchedOff() {
        var decoder = LegacyFrameDecoder(detectsMistakes: false)
        XCTAssertEqual(decoder.feed(LegacyFixtures.frame(payload: Array("not json".utf8))).diagnoses, [])
    }

    func testConnectionLevelDiagnosesHaveMessages() {
        let churn = LegacyDiagnosis.connectionChurn(connections: 120, seconds: 60, notificationsPerConnection: 1.04)
        XCTAssertEqual(churn.code, .legacyConnectionChurn)
        XCTAssertTrue(churn.message.contains("120 connections in 60 s"))
        XCTAssertTrue(churn.message.contains("1.0 notifications each"))

        let unread = LegacyDiagnosis.closedWithoutReadingError(status: .invalidToken, identifier: 7)
        XCTAssertEqual(unread.code, .legacyClosedWithoutReadingError)
        XCTAssertTrue(unread.message.contains("status 8"))
        XCTAssertTrue(unread.message.contains("identifier 7"))
    }
}

/// The diagnoses that name what really happened instead of the symptom.
final class LegacyMisleadingSymptomTests: XCTestCase {
    func testShortTokenFieldIsNotCalledAnOversizedPayload() throws {
        let json = Array(#"{"aps":{"alert":"hello world"}}"#.utf8)
        for command: UInt8 in [0, 1] {
            let header: [UInt8] = command == 0 ? [0] : [1] + LegacyFixtures.bigEndian(9) + [0, 0, 0, 0]
            let stream = header + [0, 32] + [UInt8](repeating: 0xAB, count: 20) + [0, UInt8(json.count)] + json
            let events = legacyDecodeAll(stream)
            let misread = Int(json[10]) << 8 | Int(json[11])
            XCTAssertEqual(events.errors.first?.problem, .invalidPayloadSize(length: misread), "the codec's verdict is unchanged")
            XCTAssertEqual(events.diagnoses, [.tokenShorterThanItsLength(
                identifier: command == 0 ? nil : 9, declaredTokenLength: 32, tokenLength: 20, payloadLength: json.count,
                misreadBytes: Array(json[10..<12]), misreadLength: misread
            )])
        }
        // The token left out entirely: the token length field, then at once the payload length
        // and the JSON. The payload length and 30 JSON bytes become the "token"; two JSON bytes
        // become a payload length (the issue's report: "payload too large (30561 bytes)").
        let long = Array(#"{"aps":{"alert":"the token was left out of this frame"}}"#.utf8)
        for command: UInt8 in [0, 1] {
            let header: [UInt8] = command == 0 ? [0] : [1] + LegacyFixtures.bigEndian(9) + [0, 0, 0, 0]
            let events = legacyDecodeAll(header + [0, 32] + [0, UInt8(long.count)] + long)
            let misread = Int(long[30]) << 8 | Int(long[31])
            // The refusal names the cause the diagnosis found; its status stays what Apple's
            // gateway answered the same bytes with.
            let error = try XCTUnwrap(events.errors.first)
            XCTAssertEqual(error.status, .invalidPayloadSize)
            XCTAssertEqual(error.problem.reason, .missingDeviceToken)
            XCTAssertTrue(error.problem.description.hasPrefix("token left out"), error.problem.description)
            XCTAssertTrue(error.problem.description.contains("payload length of \(misread)"), error.problem.description)
            XCTAssertFalse(error.problem.description.contains("too large"), error.problem.description)
            XCTAssertNil(error.token, "what was read as the token is the payload length and the start of the JSON")
            XCTAssertEqual(error.payloadLength, long.count)
            let diagnosis = try XCTUnwrap(events.diagnoses.first)
            XCTAssertEqual(diagnosis, .tokenShorterThanItsLength(
                identifier: command == 0 ? nil : 9, declaredTokenLength: 32, tokenLength: 0, payloadLength: long.count,
                misreadBytes: Array(long[30..<32]), misreadLength: misread
            ))
            XCTAssertEqual(diagnosis.code, .legacyTokenLeftOut)
            XCTAssertTrue(diagnosis.message.contains("no token follows"), diagnosis.message)
            XCTAssertFalse(diagnosis.message.contains("too large"), diagnosis.message)
        }
        // A genuinely oversized payload gets no such story.
        let big = LegacyNotification(command: .enhanced, identifier: 1, expiry: 0, token: LegacyFixtures.token,
                                     payload: Array(("{\"a\":\"" + String(repeating: "x", count: 3000) + "\"}").utf8)).encoded()
        XCTAssertEqual(legacyDecodeAll(big).diagnoses, [])
    }

    func testByteSwappedIdentifiersAreHintedOnce() {
        let stream = LegacyFixtures.enhanced(identifier: 16_777_216) + LegacyFixtures.enhanced(identifier: 33_554_432)
            + LegacyFixtures.enhanced(identifier: 3)
        XCTAssertEqual(legacyDecodeAll(stream).diagnoses, [.byteSwappedIdentifier(identifier: 16_777_216, swapped: 1)])
        XCTAssertEqual(legacyDecodeAll(LegacyFixtures.enhanced(identifier: 0x0100_0001)).diagnoses, [], "low bytes set: a real number")
        XCTAssertEqual(legacyDecodeAll(LegacyFixtures.enhanced(identifier: 65_536)).diagnoses, [], "small identifiers are normal")
    }
}

/// Every payload that is not exactly one JSON value is `payloadNotJSON`, the pieces of a
/// mis-framed frame included, whether the codec accepts them or not.
final class LegacyMisframedPieceTests: XCTestCase {
    func testBothPiecesOfACutPayloadAreNotJSON() {
        // The length field is 10 short: the first frame ends inside the JSON, and its last 10
        // bytes are read as a command-0 frame whose token and payload are what follows.
        let json = Array(#"{"aps":{"alert":"hello"}}"#.utf8)
        let cut = json.count - 10
        let stream = legacyBytes("01") + LegacyFixtures.bigEndian(3) + legacyBytes("00000000 0020") + LegacyFixtures.token
            + [0, UInt8(cut)] + json
        let events = legacyDecodeAll(stream)
        XCTAssertEqual(events.notifications.first?.payload.array, Array(json.prefix(cut)), "the first piece is accepted by the codec")
        XCTAssertTrue(events.diagnoses.contains(.payloadNotJSON(identifier: 3, offset: nil)), "\(events.diagnoses)")
        XCTAssertTrue(events.diagnoses.contains { if case .payloadLengthTooShort = $0 { true } else { false } }, "\(events.diagnoses)")
    }

    func testAPieceFramedByChanceIsNotJSON() {
        // A command-0 frame whose payload is the tail of someone's JSON: accepted by the codec,
        // diagnosed all the same.
        let tail = Array(#"alert":"hi"}}"#.utf8)
        let stream: [UInt8] = [0, 0, 32] + LegacyFixtures.token + [0, UInt8(tail.count)] + tail
        let events = legacyDecodeAll(stream)
        XCTAssertEqual(events.notifications.count, 1)
        XCTAssertEqual(events.diagnoses, [.payloadNotJSON(identifier: nil, offset: 0)])
    }
}

/// `legacy.invalidJSONPayload`: accepted by default, or refused as configured.
final class LegacyInvalidJSONPolicyTests: XCTestCase {
    private let notJSON = LegacyNotification(command: .enhanced, identifier: 7, expiry: 0, token: LegacyFixtures.token,
                                             payload: Array("{'aps': {}}".utf8)).encoded()
    private let simple = LegacyNotification(command: .simple, identifier: nil, expiry: nil, token: LegacyFixtures.token,
                                            payload: Array("not json".utf8)).encoded()

    private func run(_ policy: LegacyInvalidJSONPolicy, _ bytes: [UInt8]) -> LegacySessionOutput {
        var session = LegacyConnectionSession(options: LegacySessionOptions(invalidJSONPayload: policy))
        return session.receive(bytes + LegacyFixtures.enhanced(identifier: 8)) { _, _ in nil }
    }

    func testTheDefaultAcceptsAndKeepsTheConnectionOpen() {
        let output = run(.accept, notJSON)
        XCTAssertNil(output.action)
        XCTAssertEqual(output.events.filter { if case .accepted = $0 { true } else { false } }.count, 2)
        XCTAssertTrue(output.events.contains(.diagnosis(.payloadNotJSON(identifier: 7, offset: 1))))
    }

    func testRefusedWithTheConfiguredStatusAndTheRestDropped() throws {
        for status in [LegacyStatus.processingError, .unknown, .invalidPayloadSize] {
            let output = run(.refuse(status), notJSON)
            XCTAssertEqual(output.action, .sendErrorAndClose(LegacyErrorResponse(status: status, identifier: 7)))
            guard case .failed(.frame(let error), _)? = output.events.first(where: { if case .failed = $0 { true } else { false } }) else {
                return XCTFail("\(output.events)")
            }
            XCTAssertEqual(error.problem, .payloadNotJSON(offset: 1))
            XCTAssertTrue(error.problem.description.contains("not valid JSON"))
            XCTAssertTrue(output.events.contains { if case .dropped = $0 { true } else { false } }, "the next notification is dropped")
        }
        // Command 0 has no identifier to name: closed without a packet, as for every command-0 failure.
        XCTAssertEqual(run(.refuse(.processingError), simple).action, .closeSilently)
    }

    func testSilentClose() {
        XCTAssertEqual(run(.closeSilently, notJSON).action, .closeSilently)
    }

    func testValidJSONIsNeverRefused() {
        XCTAssertNil(run(.refuse(.processingError), LegacyFixtures.enhanced(identifier: 5)).action)
    }
}
