@testable import MockAPNsHTTP2
import XCTest

/// The frames a client sends after nghttp2 stopped reading are told by their headers alone,
/// however the bytes are split.
final class IgnoredFrameWalkerTests: XCTestCase {
    private func frame(type: UInt8, stream: UInt32, payload: Int) -> [UInt8] {
        [UInt8(payload >> 16 & 0xFF), UInt8(payload >> 8 & 0xFF), UInt8(payload & 0xFF), type, 0x5,
         UInt8(stream >> 24 & 0x7F), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF)]
            + Array(repeating: 0xAB, count: payload)
    }

    func testEveryFrameIsToldWhateverTheSplit() {
        let bytes = frame(type: 0x1, stream: 3, payload: 40) + frame(type: 0x0, stream: 3, payload: 300)
            + frame(type: 0x8, stream: 0, payload: 4) + frame(type: 0x1, stream: 5, payload: 0)
        let expected: [(UInt8, Int32)] = [(0x1, 3), (0x0, 3), (0x8, 0), (0x1, 5)]
        for chunk in [1, 2, 7, 9, 10, 64, bytes.count] {
            var walker = IgnoredFrameWalker()
            var seen: [(UInt8, Int32)] = []
            var start = 0
            while start < bytes.count {
                let end = min(start + chunk, bytes.count)
                Array(bytes[start..<end]).withUnsafeBytes { walker.walk($0) { seen.append(($0, $1)) } }
                start = end
            }
            XCTAssertEqual(seen.map(\.0), expected.map(\.0), "chunk \(chunk)")
            XCTAssertEqual(seen.map(\.1), expected.map(\.1), "chunk \(chunk)")
        }
    }
}
