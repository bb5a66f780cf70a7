import XCTest
@testable import MockAPNsCore

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
        let frame = LegacyFixtures.frame(identifier: 4, payload: LegacyFixtures.payload + [0])
        XCTAssertEqual(legacyDecodeAll(frame).diagnoses, [.payloadNULTerminated(identifier: 4)])
        // A fixed 256-byte buffer sent whole.
        let padded = LegacyFixtures.payload + [UInt8](repeating: 0, count: 256 - LegacyFixtures.payload.count)
        XCTAssertEqual(legacyDecodeAll(LegacyFixtures.frame(identifier: 5, payload: padded)).diagnoses, [.payloadNULTerminated(identifier: 5)])
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
        let output = session.receive(LegacyFixtures.frame(identifier: 12, token: Array(LegacyFixtures.tokenHex.utf8))) { _ in nil }
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
