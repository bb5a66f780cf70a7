import MockAPNsWire
@testable import MockAPNsHTTP2
import MockAPNsTestSupport
import MockAPNsCore
import XCTest

/// The second HPACK decoder that lets refused streams be reported with their headers: it
/// must follow the connection's frames however they are split, padded or continued, and
/// survive any bytes.
final class HeaderBlockShadowTests: XCTestCase {
    private func decode(_ bytes: [UInt8], chunk: Int) -> (blocks: [(Int32, [HTTPHeader])], failed: Bool) {
        var shadow = HeaderBlockShadow(tableSize: 4096)
        var blocks: [(Int32, [HTTPHeader])] = []
        var index = 0
        while index < bytes.count {
            let end = min(bytes.count, index + chunk)
            Array(bytes[index..<end]).withUnsafeBytes { part in
                shadow.feed(part) { blocks.append(($0, $1)) }
            }
            index = end
        }
        let failed = shadow.failed
        shadow.close()
        return (blocks, failed)
    }

    func testPaddedPrioritizedAndContinuedBlocksDecodeWithTheDynamicTableInOrder() {
        // Stream 1: static-table pseudo-headers, then `apns-topic` added to the dynamic table;
        // HEADERS padded and with priority fields, the block continued in a CONTINUATION.
        let first = ClientBytes.requestHeaderBlock + [0x40, 10] + Array("apns-topic".utf8) + [15] + Array("com.example.app".utf8)
        let split = 4
        let headersPayload = [3] + [0, 0, 0, 0, 16] + Array(first[..<split]) + [0, 0, 0]
        let stream1 = ClientBytes.frame(type: 0x1, flags: 0x8 | 0x20 | 0x1, streamID: 1, payload: headersPayload)
            + ClientBytes.frame(type: 0x9, flags: 0x4, streamID: 1, payload: Array(first[split...]))
        // Stream 3 refers to the dynamic entry (index 62); a DATA frame sits in between.
        let stream3 = ClientBytes.data(streamID: 1, Array("{}".utf8), endStream: true)
            + ClientBytes.frame(type: 0x1, flags: 0x5, streamID: 3, payload: ClientBytes.requestHeaderBlock + [0x80 | 62])
        let bytes = ClientBytes.opening() + stream1 + stream3
        let expected1 = [":method: POST", ":scheme: http", ":path: /", ":authority: localhost", "apns-topic: com.example.app"]
        for chunk in [1, 7, 4096] {
            let (blocks, failed) = decode(bytes, chunk: chunk)
            XCTAssertFalse(failed, "chunk \(chunk)")
            XCTAssertEqual(blocks.map(\.0), [1, 3], "chunk \(chunk)")
            XCTAssertEqual(blocks.first?.1.map(\.description), expected1, "chunk \(chunk)")
            XCTAssertEqual(blocks.last?.1.map(\.description), expected1, "chunk \(chunk)")
        }
    }

    func testAnyBytesNeverCrashAndBadHPACKStopsDecoding() {
        // An index beyond both tables is an HPACK error: decoding stops for good.
        let bad = ClientBytes.opening() + ClientBytes.frame(type: 0x1, flags: 0x5, streamID: 1, payload: [0xFF, 0x7F])
        XCTAssertTrue(decode(bad, chunk: 3).failed)
        // A header frame too large to reassemble also stops it, without buffering it.
        let huge = ClientBytes.preface + [0x10, 0x00, 0x01, 0x1, 0x0, 0, 0, 0, 1]
        XCTAssertTrue(decode(huge, chunk: 100).failed)
        // Seeded noise after a valid opening.
        var random = SeededRandom(seed: 0x9E37_79B9_7F4A_7C15)
        for _ in 0..<300 {
            let noise = (0..<200).map { _ in UInt8.random(in: .min ... .max, using: &random) }
            _ = decode(ClientBytes.opening() + noise, chunk: Int.random(in: 1...17, using: &random))
        }
    }
}
