import MockAPNsConnections
import XCTest

/// The chunk sizes of a chunked body are read as they come: one declared over the limit is
/// refused at its size line; a body within it ends where its trailer section ends.
final class ChunkedBodyScannerTests: XCTestCase {
    func testAHugeChunkSizeIsRefusedBeforeItsLineEnds() {
        var scanner = ChunkedBodyScanner(limit: 4096)
        XCTAssertEqual(scanner.scan(Array("80".utf8)), .needsMore)
        XCTAssertEqual(scanner.scan(Array("00".utf8)), .tooLarge(declared: 0x8000))
        var overflowing = ChunkedBodyScanner(limit: .max)
        XCTAssertEqual(overflowing.scan(Array("ffffffffffffffffff\r\n".utf8)), .tooLarge(declared: .max))
    }

    func testChunksAddingUpToMoreThanTheLimitAreRefused() {
        var scanner = ChunkedBodyScanner(limit: 4096)
        XCTAssertEqual(scanner.scan(Array(("800\r\n" + String(repeating: "a", count: 2048) + "\r\n").utf8)), .needsMore)
        XCTAssertEqual(scanner.scan(Array("801\r\n".utf8)), .tooLarge(declared: 4097))
    }

    func testABodyWithinTheLimitEndsAfterItsTrailers() {
        let body = "5;ext=1\r\nhello\r\n3\r\nabc\r\n0\r\nX-Trailer: yes\r\n\r\n"
        let next = "POST / HTTP/1.1\r\n"
        var scanner = ChunkedBodyScanner(limit: 4096)
        XCTAssertEqual(scanner.scan(Array((body + next).utf8)), .ended(consumed: body.utf8.count))
        // Byte by byte, the same.
        var slow = ChunkedBodyScanner(limit: 4096)
        let bytes = Array(body.utf8)
        for byte in bytes.dropLast() { XCTAssertEqual(slow.scan([byte]), .needsMore) }
        XCTAssertEqual(slow.scan([bytes[bytes.count - 1]]), .ended(consumed: 1))
        // A chunk's data is skipped whatever bytes it holds, even CRLFs.
        var data = ChunkedBodyScanner(limit: 4096)
        XCTAssertEqual(data.scan(Array("4\r\n\r\n\r\n\r\n0\r\n\r\n".utf8)), .ended(consumed: 14))
    }

    func testASizeLineItCannotFollowIsLeftToNIOsParser() {
        var scanner = ChunkedBodyScanner(limit: 4096)
        XCTAssertEqual(scanner.scan(Array("zz\r\n".utf8)), .untracked)
        var empty = ChunkedBodyScanner(limit: 4096)
        XCTAssertEqual(empty.scan(Array("\r\n".utf8)), .untracked)
    }
}
