import MockAPNsCore
import XCTest

final class CertificateTopicListTests: XCTestCase {
    /// The DER of pushy's fixture, written out by hand from the shape Apple lists, so the
    /// encoder is checked against bytes and not only against the decoder.
    private let pushyShape: [UInt8] =
        [0x30, 0x46]
        + [0x0c, 0x05] + Array("com.x".utf8) + [0x30, 0x05, 0x0c, 0x03] + Array("app".utf8)
        + [0x0c, 0x0a] + Array("com.x.voip".utf8) + [0x30, 0x06, 0x0c, 0x04] + Array("voip".utf8)
        + [0x0c, 0x12] + Array("com.x.complication".utf8) + [0x30, 0x0e, 0x0c, 0x0c] + Array("complication".utf8)

    private let pushyTopics = [
        CertificateTopic(topic: "com.x", kinds: ["app"]),
        CertificateTopic(topic: "com.x.voip", kinds: ["voip"]),
        CertificateTopic(topic: "com.x.complication", kinds: ["complication"]),
    ]

    func testEncodesApplesShapeByteForByte() throws {
        XCTAssertEqual(pushyShape.count, 0x46 + 2, "fixture length byte must match its content")
        XCTAssertEqual(try CertificateTopicList.encode(pushyTopics), pushyShape)
    }

    func testDecodesApplesShape() throws {
        XCTAssertEqual(try CertificateTopicList.decode(pushyShape[...]), pushyTopics)
    }

    func testRoundTripsSeveralKindsAndEmptyLists() throws {
        let topics = [
            CertificateTopic(topic: "com.y", kinds: ["app", "watch"]),
            CertificateTopic(topic: "com.y.other", kinds: []),
        ]
        XCTAssertEqual(try CertificateTopicList.decode(CertificateTopicList.encode(topics)[...]), topics)
        XCTAssertEqual(try CertificateTopicList.decode(CertificateTopicList.encode([])[...]), [])
    }

    func testAcceptsATopicWithoutKinds() throws {
        let bytes: [UInt8] = [0x30, 0x07, 0x0c, 0x05] + Array("com.z".utf8)
        XCTAssertEqual(try CertificateTopicList.decode(bytes[...]), [CertificateTopic(topic: "com.z", kinds: [])])
    }

    func testRejectsMalformedValues() {
        let cases: [(String, [UInt8])] = [
            ("empty", []),
            ("not a sequence", [0x0c, 0x01, 0x61]),
            ("kinds before any topic", [0x30, 0x07, 0x30, 0x05, 0x0c, 0x03] + Array("app".utf8)),
            ("an integer as topic", [0x30, 0x03, 0x02, 0x01, 0x01]),
            ("truncated", Array(pushyShape.dropLast(3))),
            ("trailing bytes", pushyShape + [0x00]),
        ]
        for (name, bytes) in cases {
            XCTAssertThrowsError(try CertificateTopicList.decode(bytes[...]), name)
        }
    }
}
