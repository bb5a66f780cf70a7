import XCTest
@testable import MockAPNsCore
@testable import MockAPNsLegacy

/// Byte-exact frames written by hand from Apple's tables, and every status the codec reports.
final class LegacyFrameDecoderTests: XCTestCase {
    let tokenBytes = "deadbeef deadbeef deadbeef deadbeef deadbeef deadbeef deadbeef deadbeef"
    let payloadBytes = "7b 22 61 70 73 22 3a 7b 7d 7d" // {"aps":{}}

    // MARK: Known vectors

    func testCommand0SimpleFormat() throws {
        let wire = legacyBytes("00  0020 \(tokenBytes)  000a \(payloadBytes)")
        let events = legacyDecodeAll(wire)
        XCTAssertEqual(events.count, 1)
        let notification = try XCTUnwrap(events.notifications.first)
        XCTAssertEqual(notification.command, .simple)
        XCTAssertNil(notification.identifier)
        XCTAssertNil(notification.expiry)
        XCTAssertEqual(notification.token, LegacyFixtures.token)
        XCTAssertEqual(notification.payload.array, LegacyFixtures.payload)
        XCTAssertNil(notification.priority)
        XCTAssertEqual(notification.frameLength, 47)
        XCTAssertEqual(LegacyNotification(command: .simple, token: LegacyFixtures.token, payload: LegacyFixtures.payload).encoded(), wire)

        let request = notification.pushRequest()
        XCTAssertEqual(request.transport, .legacy)
        XCTAssertEqual(request.deviceToken, LegacyFixtures.tokenHex)
        XCTAssertNil(request.legacyIdentifier)
        XCTAssertNil(request.expiration)
        XCTAssertNil(request.priority, "command 0 means Apple's default priority, 10")
        XCTAssertNil(request.topic)
        XCTAssertEqual(request.payload.array, LegacyFixtures.payload)
    }

    /// Notifications to the device of the one before share its hex token string, in every
    /// command's format; another device's token is its own text.
    func testARepeatedTokenSharesThePreviousNotificationsString() throws {
        func storage(_ text: String) -> UnsafeRawPointer? {
            var text = text
            return text.withUTF8 { UnsafeRawPointer($0.baseAddress) }
        }
        let other = [UInt8](repeating: 0xAB, count: 32)
        let wire = LegacyFixtures.frame(identifier: 1) + LegacyFixtures.enhanced(identifier: 2) + LegacyFixtures.frame(identifier: 3)
            + LegacyFixtures.frame(identifier: 4, token: other) + LegacyFixtures.frame(identifier: 5)
        let tokens = legacyDecodeAll(wire).notifications.map(\.deviceToken)
        XCTAssertEqual(tokens, [LegacyFixtures.tokenHex, LegacyFixtures.tokenHex, LegacyFixtures.tokenHex,
                                String(repeating: "ab", count: 32), LegacyFixtures.tokenHex])
        XCTAssertEqual(storage(tokens[1]), storage(tokens[0]), "command 1 after command 2: the same string")
        XCTAssertEqual(storage(tokens[2]), storage(tokens[0]))
        XCTAssertNotEqual(storage(tokens[4]), storage(tokens[0]), "after another device, a new string")
        // Bytes that only look alike: the same length, one nibble apart.
        var near = LegacyFixtures.token
        near[31] ^= 0x01
        XCTAssertEqual(near.withUnsafeBytes { lowercaseHex($0, reusing: LegacyFixtures.tokenHex) }.suffix(2), "ee")
    }

    func testCommand1EnhancedFormat() throws {
        // identifier 12345, expiry 1600000000 (0x5f5e1000)
        let wire = legacyBytes("01  00003039  5f5e1000  0020 \(tokenBytes)  000a \(payloadBytes)")
        let notification = try XCTUnwrap(legacyDecodeAll(wire).notifications.first)
        XCTAssertEqual(notification.command, .enhanced)
        XCTAssertEqual(notification.identifier, 12345)
        XCTAssertEqual(notification.expiry, 1_600_000_000)
        XCTAssertEqual(notification.frameLength, 55)
        XCTAssertEqual(
            LegacyNotification(command: .enhanced, identifier: 12345, expiry: 1_600_000_000,
                               token: LegacyFixtures.token, payload: LegacyFixtures.payload).encoded(),
            wire)

        let request = notification.pushRequest()
        XCTAssertEqual(request.legacyIdentifier, 12345)
        XCTAssertEqual(request.expiration, 1_600_000_000)
        XCTAssertNil(request.priority)
        XCTAssertEqual(request.deviceToken, LegacyFixtures.tokenHex)
    }

    func testCommand2FrameFormatWithAllFiveItems() throws {
        // 35 + 13 + 7 + 7 + 4 = 66 = 0x42 bytes of items.
        let wire = legacyBytes("""
            02 00000042
            01 0020 \(tokenBytes)
            02 000a \(payloadBytes)
            03 0004 0badf00d
            04 0004 00000000
            05 0001 05
            """)
        let notification = try XCTUnwrap(legacyDecodeAll(wire).notifications.first)
        XCTAssertEqual(notification.command, .frame)
        XCTAssertEqual(notification.identifier, 0x0BAD_F00D)
        XCTAssertEqual(notification.expiry, 0)
        XCTAssertEqual(notification.priority, .powerAware)
        XCTAssertEqual(notification.frameLength, 71)
        XCTAssertEqual(
            LegacyNotification(command: .frame, identifier: 0x0BAD_F00D, expiry: 0, token: LegacyFixtures.token,
                               payload: LegacyFixtures.payload, priority: .powerAware).encoded(),
            wire)

        let request = notification.pushRequest()
        XCTAssertEqual(request.priority, .powerAware)
        XCTAssertEqual(request.expiration, 0)
        XCTAssertEqual(request.legacyIdentifier, 0x0BAD_F00D)
    }

    func testCommand2ItemsInAnyOrderAndOnlyTokenAndPayloadRequired() throws {
        let wire = legacyBytes("""
            02 00000034
            05 0001 0a
            02 000a \(payloadBytes)
            01 0020 \(tokenBytes)
            """)
        let notification = try XCTUnwrap(legacyDecodeAll(wire).notifications.first)
        XCTAssertNil(notification.identifier)
        XCTAssertNil(notification.expiry)
        XCTAssertEqual(notification.priority, .immediate)
        XCTAssertEqual(notification.pushRequest().priority, .immediate)
    }

    func testTokenIsHexEncodedLowercase() {
        let token: [UInt8] = (0..<32).map { UInt8($0 * 8) }
        let request = LegacyNotification(command: .enhanced, identifier: 1, token: token, payload: LegacyFixtures.payload).pushRequest()
        XCTAssertEqual(request.deviceToken, "0008101820283038404850586068707880889098a0a8b0b8c0c8d0d8e0e8f0f8")
    }

    /// A notification keeps its token as hex only; the bytes read back from it are the bytes
    /// sent, for every byte value, in a frame parsed off the wire as in one made by hand.
    func testTokenBytesReadBackFromTheHexAreTheBytesSent() throws {
        for start in stride(from: 0, to: 256, by: 32) {
            let token = (start..<start + 32).map { UInt8($0) }
            let made = LegacyNotification(command: .frame, identifier: 1, token: token, payload: LegacyFixtures.payload)
            XCTAssertEqual(made.token, token)
            let parsed = try XCTUnwrap(legacyDecodeAll(made.encoded()).notifications.first)
            XCTAssertEqual(parsed.token, token)
            XCTAssertEqual(parsed.deviceToken, token.map { String(format: "%02x", $0) }.joined())
        }
    }

    // MARK: Statuses

    func testZeroLengthTokenIsStatus2() throws {
        let error = try XCTUnwrap(legacyDecodeAll(legacyBytes("01 00000007 00000000 0000 000a \(payloadBytes)")).errors.first)
        XCTAssertEqual(error.problem, .missingDeviceToken)
        XCTAssertEqual(error.status, .missingDeviceToken)
        XCTAssertEqual(error.identifier, 7)
        XCTAssertFalse(error.endsStream)
    }

    func testWrongTokenLengthIsStatus5() throws {
        let short = Array(LegacyFixtures.token.prefix(31))
        let error = try XCTUnwrap(legacyDecodeAll(LegacyFixtures.enhanced(identifier: 9, token: short)).errors.first)
        XCTAssertEqual(error.problem, .invalidTokenSize(length: 31))
        XCTAssertEqual(error.status, .invalidTokenSize)
        XCTAssertEqual(error.identifier, 9)
    }

    func testTokenOverTheLimitIsStatus5WhenUpTo100IsAllowed() {
        let limits = LegacyLimits(tokenLength: .atMost(100))
        let eighty = [UInt8](repeating: 0xAB, count: 80)
        XCTAssertEqual(legacyDecodeAll(LegacyFixtures.frame(token: eighty), limits: limits).notifications.first?.token, eighty)
        let tooLong = [UInt8](repeating: 0xAB, count: 101)
        XCTAssertEqual(legacyDecodeAll(LegacyFixtures.frame(token: tooLong), limits: limits).errors.first?.status, .invalidTokenSize)
    }

    func testZeroLengthPayloadIsStatus4() {
        let error = legacyDecodeAll(LegacyFixtures.enhanced(identifier: 3, payload: [])).errors.first
        XCTAssertEqual(error?.problem, .missingPayload)
        XCTAssertEqual(error?.status, .missingPayload)
        XCTAssertEqual(error?.identifier, 3)
    }

    func testPayloadOverTheLimitIsStatus7() {
        let big = Array(#"{"aps":{"alert":"\#(String(repeating: "x", count: 2046))"}}"#.utf8)
        XCTAssertEqual(big.count, 2066)
        let frameError = legacyDecodeAll(LegacyFixtures.frame(identifier: 44, payload: big)).errors.first
        XCTAssertEqual(frameError?.problem, .invalidPayloadSize(length: 2066))
        XCTAssertEqual(frameError?.status, .invalidPayloadSize)
        XCTAssertEqual(frameError?.identifier, 44, "item 3 comes after the payload and is still reported")

        let enhancedError = legacyDecodeAll(LegacyFixtures.enhanced(identifier: 45, payload: big)).errors.first
        XCTAssertEqual(enhancedError?.status, .invalidPayloadSize)
        XCTAssertEqual(enhancedError?.identifier, 45)
    }

    func testIOS7LimitsAllow256BytePayloadsOnly() {
        func payload(_ size: Int) -> [UInt8] {
            Array(#"{"aps":{"alert":"\#(String(repeating: "y", count: size - 20))"}}"#.utf8)
        }
        XCTAssertEqual(payload(257).count, 257)
        XCTAssertEqual(legacyDecodeAll(LegacyFixtures.frame(payload: payload(256)), limits: .iOS7).notifications.count, 1)
        XCTAssertEqual(legacyDecodeAll(LegacyFixtures.frame(payload: payload(257)), limits: .iOS7).errors.first?.status, .invalidPayloadSize)
        XCTAssertEqual(legacyDecodeAll(LegacyFixtures.frame(payload: payload(257)), limits: .standard).notifications.count, 1)
    }

    func testEnhancedPayloadOverTheLimitIsReportedBeforeThePayloadArrives() {
        var decoder = LegacyFrameDecoder()
        // identifier 5, token, then a payload length of 4000 and no payload bytes yet.
        let header = legacyBytes("01 00000005 00000000 0020 \(tokenBytes) 0fa0")
        let events = decoder.feed(header)
        XCTAssertEqual(events.errors.first?.problem, .invalidPayloadSize(length: 4000))
        XCTAssertEqual(events.errors.first?.identifier, 5)
        XCTAssertEqual(decoder.bufferedByteCount, 0)
        // The 4000 payload bytes are passed over, and the next frame is read normally.
        XCTAssertEqual(decoder.feed([UInt8](repeating: 0x20, count: 4000) + LegacyFixtures.enhanced(identifier: 6)).notifications.map(\.identifier), [6])
        XCTAssertEqual(decoder.discardedByteCount, 4000)
    }

    func testFrameWithoutTokenOrPayloadItem() {
        let noToken = LegacyFixtures.rawFrame([(2, LegacyFixtures.payload), (3, LegacyFixtures.bigEndian(21))])
        XCTAssertEqual(legacyDecodeAll(noToken).errors.first?.problem, .missingDeviceToken)
        XCTAssertEqual(legacyDecodeAll(noToken).errors.first?.identifier, 21)

        let emptyToken = LegacyFixtures.rawFrame([(1, []), (2, LegacyFixtures.payload), (3, LegacyFixtures.bigEndian(22))])
        XCTAssertEqual(legacyDecodeAll(emptyToken).errors.first?.status, .missingDeviceToken)

        let noPayload = LegacyFixtures.rawFrame([(1, LegacyFixtures.token), (3, LegacyFixtures.bigEndian(23))])
        XCTAssertEqual(legacyDecodeAll(noPayload).errors.first?.problem, .missingPayload)
        XCTAssertEqual(legacyDecodeAll(noPayload).errors.first?.identifier, 23)
    }

    func testPriorityOtherThan5Or10IsStatus255() {
        for value: UInt8 in [0, 1, 6, 11, 255] {
            let frame = LegacyFixtures.rawFrame([(1, LegacyFixtures.token), (2, LegacyFixtures.payload), (3, LegacyFixtures.bigEndian(8)), (5, [value])])
            let error = legacyDecodeAll(frame).errors.first
            XCTAssertEqual(error?.problem, .invalidPriority(value))
            XCTAssertEqual(error?.status, .unknown)
            XCTAssertEqual(error?.identifier, 8)
        }
    }

    func testUnknownDuplicateAndMisSizedItemsAreStatus255() {
        let unknown = LegacyFixtures.rawFrame([(1, LegacyFixtures.token), (2, LegacyFixtures.payload), (6, [1]), (3, LegacyFixtures.bigEndian(30))])
        XCTAssertEqual(legacyDecodeAll(unknown).errors.first?.problem, .unknownItem(id: 6))
        XCTAssertEqual(legacyDecodeAll(unknown).errors.first?.identifier, 30)

        let duplicate = LegacyFixtures.rawFrame([(1, LegacyFixtures.token), (1, LegacyFixtures.token), (2, LegacyFixtures.payload), (3, LegacyFixtures.bigEndian(31))])
        XCTAssertEqual(legacyDecodeAll(duplicate).errors.first?.problem, .duplicateItem(id: 1))

        let shortIdentifier = LegacyFixtures.rawFrame([(1, LegacyFixtures.token), (2, LegacyFixtures.payload), (3, [0, 0, 1])])
        XCTAssertEqual(legacyDecodeAll(shortIdentifier).errors.first?.problem, .invalidItemLength(id: 3, length: 3))

        let widePriority = LegacyFixtures.rawFrame([(1, LegacyFixtures.token), (2, LegacyFixtures.payload), (5, [0, 10])])
        XCTAssertEqual(legacyDecodeAll(widePriority).errors.first?.problem, .invalidItemLength(id: 5, length: 2))

        for frame in [unknown, duplicate, shortIdentifier, widePriority] {
            XCTAssertEqual(legacyDecodeAll(frame).errors.first?.status, .unknown)
        }
    }

    func testEmptyFrameIsStatus255AndTheStreamGoesOn() {
        let events = legacyDecodeAll(legacyBytes("02 00000000") + LegacyFixtures.frame(identifier: 2))
        XCTAssertEqual(events.errors.first?.problem, .emptyFrame)
        XCTAssertEqual(events.errors.first?.status, .unknown)
        XCTAssertEqual(events.notifications.map(\.identifier), [2])
    }

    func testItemsRunningPastTheFrameAreUnparseableButFramingContinues() {
        // The token item claims 32 bytes but the frame holds only 4 more.
        let broken = legacyBytes("02 00000007  01 0020 deadbeef")
        let events = legacyDecodeAll(broken + LegacyFixtures.frame(identifier: 3))
        XCTAssertEqual(events.errors.first?.problem, .malformedItems)
        XCTAssertNil(events.errors.first?.status, "unparseable: the connection's policy decides")
        XCTAssertEqual(events.errors.first?.endsStream, false)
        XCTAssertEqual(events.notifications.map(\.identifier), [3])
    }

    func testUnknownCommandEndsTheStream() {
        var decoder = LegacyFrameDecoder()
        let events = decoder.feed([0x03] + LegacyFixtures.frame())
        XCTAssertEqual(events.count, 1)
        XCTAssertEqual(events.errors.first?.problem, .unknownCommand(3))
        XCTAssertEqual(events.errors.first?.endsStream, true)
        XCTAssertNil(events.errors.first?.status)
        XCTAssertTrue(decoder.hasStopped)
        XCTAssertEqual(decoder.feed(LegacyFixtures.frame()), [])
        XCTAssertEqual(decoder.discardedByteCount, 2 * LegacyFixtures.frame().count)
    }

    // MARK: Declared lengths no client can mean

    func testHugeFrameLengthIsRejectedAsSoonAsTheHeaderIsRead() {
        var decoder = LegacyFrameDecoder()
        XCTAssertEqual(decoder.feed(legacyBytes("02 ffff")), [])
        let events = decoder.feed(legacyBytes("ffff"))
        XCTAssertEqual(events.errors.first?.problem, .frameTooLong(declared: 0xFFFF_FFFF, maximum: LegacyLimits.maximumFrameLength))
        XCTAssertEqual(events.errors.first?.endsStream, true)
        XCTAssertEqual(decoder.bufferedByteCount, 0)
        // Whatever follows is counted, never kept.
        _ = decoder.feed([UInt8](repeating: 0, count: 1 << 20))
        XCTAssertEqual(decoder.bufferedByteCount, 0)
        XCTAssertEqual(decoder.discardedByteCount, 1 << 20)
    }

    func testLargestReadableFrameLengthIsWaitedFor() {
        var decoder = LegacyFrameDecoder()
        let declared = UInt32(LegacyLimits.maximumFrameLength)
        XCTAssertEqual(decoder.feed([2] + LegacyFixtures.bigEndian(declared)), [])
        XCTAssertEqual(decoder.bufferedByteCount, 5)
        let justOver = legacyDecodeAll([2] + LegacyFixtures.bigEndian(declared + 1))
        XCTAssertEqual(justOver.errors.first?.endsStream, true)
    }

    func testHugeTokenLengthIsRejectedAtOnceWithTheIdentifier() {
        var decoder = LegacyFrameDecoder()
        let events = decoder.feed(legacyBytes("01 00000063 00000000 ffff"))
        XCTAssertEqual(events.errors.first?.problem, .invalidTokenSize(length: 0xFFFF))
        XCTAssertEqual(events.errors.first?.status, .invalidTokenSize)
        XCTAssertEqual(events.errors.first?.identifier, 99)
        XCTAssertEqual(events.errors.first?.endsStream, true)
        XCTAssertEqual(decoder.bufferedByteCount, 0)
    }

    func testMaximumPayloadLengthOnCommand0IsSkippedNotBuffered() {
        var decoder = LegacyFrameDecoder()
        let events = decoder.feed(legacyBytes("00 0020 \(tokenBytes) ffff"))
        XCTAssertEqual(events.errors.first?.problem, .invalidPayloadSize(length: 0xFFFF))
        XCTAssertEqual(decoder.bufferedByteCount, 0)
        _ = decoder.feed([UInt8](repeating: 0x41, count: 0xFFFF))
        XCTAssertEqual(decoder.bufferedByteCount, 0)
        XCTAssertEqual(decoder.feed(LegacyFixtures.frame(identifier: 12)).notifications.map(\.identifier), [12])
    }

    func testLimitsAreClamped() {
        XCTAssertEqual(LegacyLimits(tokenLength: .exactly(500)).tokenLength, .exactly(100))
        XCTAssertEqual(LegacyLimits(tokenLength: .atMost(0)).tokenLength, .atMost(1))
        XCTAssertEqual(LegacyLimits(maximumPayloadLength: 1 << 20).maximumPayloadLength, 65535)
        XCTAssertEqual(LegacyLimits.standard.maximumPayloadLength, 2048)
        XCTAssertEqual(LegacyLimits.standard.tokenLength, .exactly(32))
        XCTAssertEqual(LegacyLimits.iOS7.maximumPayloadLength, 256)
    }
}
