import XCTest
@testable import MockAPNsCore
@testable import MockAPNsLegacy

/// The error-response packet and feedback tuples, byte for byte.
final class LegacyPacketTests: XCTestCase {
    func testErrorResponseBytes() {
        XCTAssertEqual(LegacyErrorResponse(status: .invalidToken, identifier: 0x0102_0304).bytes, legacyBytes("08 08 01020304"))
        XCTAssertEqual(LegacyErrorResponse(status: .shutdown, identifier: 99).bytes, legacyBytes("08 0a 00000063"))
        XCTAssertEqual(LegacyErrorResponse(status: .protocolError, identifier: 0).bytes, legacyBytes("08 80 00000000"))
        XCTAssertEqual(LegacyErrorResponse(status: .unknown, identifier: 0xFFFF_FFFF).bytes, legacyBytes("08 ff ffffffff"))
    }

    func testIdentifierGoesBackExactlyAsReceived() throws {
        let identifierBytes = legacyBytes("fe dc ba 98")
        let frame = legacyBytes("01") + identifierBytes + legacyBytes("00000000 0000 000a 7b22617073223a7b7d7d")
        var session = LegacyConnectionSession()
        let action = try XCTUnwrap(session.receive(frame) { _, _ in nil }.action)
        XCTAssertEqual(action.bytes, legacyBytes("08 02") + identifierBytes)
    }

    func testErrorResponseParsesBack() {
        for status in LegacyStatus.allCases {
            let response = LegacyErrorResponse(status: status, identifier: 0xA1B2_C3D4)
            XCTAssertEqual(LegacyErrorResponse(bytes: response.bytes), response)
        }
        XCTAssertNil(LegacyErrorResponse(bytes: legacyBytes("09 08 00000001")))
        XCTAssertNil(LegacyErrorResponse(bytes: legacyBytes("08 09 00000001")), "no status 9")
        XCTAssertNil(LegacyErrorResponse(bytes: legacyBytes("08 08 000000")))
    }

    func testFeedbackTupleBytes() throws {
        // 2015-06-08T00:00:00Z = 1433721600 = 0x5574db00
        let tuple = try XCTUnwrap(FeedbackTuple(secondsSince1970: 1_433_721_600, token: LegacyFixtures.token))
        XCTAssertEqual(tuple.bytes, legacyBytes("5574db00 0020") + LegacyFixtures.token)
    }

    func testFeedbackTuplesRoundTripThroughAnySplit() throws {
        var random = SeededRandom(seed: 5)
        var tuples: [FeedbackTuple] = []
        var stream: [UInt8] = []
        for index in 0..<100 {
            let token = (0..<(index % 3 == 0 ? 100 : 32)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let tuple = try XCTUnwrap(FeedbackTuple(secondsSince1970: 1_400_000_000 + Int64(index), token: token))
            tuples.append(tuple)
            tuple.encode(into: &stream)
        }
        XCTAssertEqual(try FeedbackTupleDecoder.decodeAll(stream), tuples)

        var decoder = FeedbackTupleDecoder()
        var decoded: [FeedbackTuple] = []
        var start = 0
        while start < stream.count {
            let end = min(stream.count, start + Int.random(in: 1...50, using: &random))
            decoded += decoder.feed(Array(stream[start..<end]))
            start = end
        }
        XCTAssertNoThrow(try decoder.finish())
        XCTAssertEqual(decoded, tuples)
    }

    func testTruncatedFeedbackStreamIsReported() {
        XCTAssertThrowsError(try FeedbackTupleDecoder.decodeAll(legacyBytes("5574db00 0020 dead"))) { error in
            XCTAssertEqual(error as? FeedbackTupleDecoder.TruncatedStream, .init(leftoverBytes: 8))
        }
        XCTAssertEqual(try FeedbackTupleDecoder.decodeAll([]), [])
    }

    func testFeedbackTupleRefusesWhatTheWireCannotSay() {
        XCTAssertNil(FeedbackTuple(secondsSince1970: -1, token: LegacyFixtures.token))
        XCTAssertNil(FeedbackTuple(secondsSince1970: 1 << 32, token: LegacyFixtures.token))
        XCTAssertNil(FeedbackTuple(secondsSince1970: 0, token: [UInt8](repeating: 0, count: 65536)))
    }
}
