import MockAPNsWire
import XCTest

/// A connection's arena copies each payload once and hands out shared views of it: the views
/// read what was copied whatever the arena does next, compare by their bytes, and a full block
/// is used again only once nothing names it.
final class SharedBytesTests: XCTestCase {
    private func copy(_ bytes: [UInt8], into arena: inout ByteArena) -> SharedBytes {
        bytes.withUnsafeBytes { arena.copy($0) }
    }

    func testACopyReadsWhatWasCopiedAndComparesByItsBytes() {
        var arena = ByteArena()
        var source: [UInt8] = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        let shared = copy(source, into: &arena)
        source[0] = UInt8(ascii: "x")
        XCTAssertTrue(shared.isInArena)
        XCTAssertEqual(shared.array, Array(#"{"aps":{"alert":"hi"}}"#.utf8), "a copy, not a view of the caller's bytes")
        XCTAssertEqual(shared, SharedBytes(Array(#"{"aps":{"alert":"hi"}}"#.utf8)), "equal to an array of the same bytes")
        XCTAssertNotEqual(shared, SharedBytes(Array(#"{"aps":{"alert":"ho"}}"#.utf8)))
        XCTAssertEqual(shared.count, 22)
        XCTAssertEqual(shared[7], UInt8(ascii: "{"))
        XCTAssertEqual(Array(shared.prefix(3)), Array(#"{"a"#.utf8))
    }

    func testCopiesStayReadableAfterTheArenaMovesOnToOtherBlocks() {
        var arena = ByteArena()
        let rows: [(index: Int, bytes: [UInt8])] = (0..<200).map { index in
            (index, [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 1000 + index))
        }
        // 200 copies of about 1.1 KB fill several 64 KiB blocks.
        let copies = rows.map { copy($0.bytes, into: &arena) }
        for (row, shared) in zip(rows, copies) {
            XCTAssertEqual(shared.array, row.bytes, "copy \(row.index)")
        }
    }

    func testAFullBlockIsUsedAgainOnlyWhenNothingNamesIt() {
        var arena = ByteArena()
        let chunk = [UInt8](repeating: 7, count: ByteArena.blockSize / 4)
        // Warm up to the largest blocks, dropping every copy.
        for _ in 0..<40 { _ = copy(chunk, into: &arena) }
        let warmed = arena.blocksAllocated
        // A copy kept names its block: when the arena comes back round to that block, it
        // makes a new one instead, and the kept copy reads the same.
        let kept = copy(chunk, into: &arena)
        for _ in 0..<12 { _ = copy(chunk, into: &arena) }
        XCTAssertGreaterThan(arena.blocksAllocated, warmed, "the held block was not used again")
        XCTAssertEqual(kept.array, chunk)
        // Once dropped, the blocks go round again with nothing new made.
        let settled = arena.blocksAllocated
        for _ in 0..<40 { _ = copy(chunk, into: &arena) }
        XCTAssertEqual(arena.blocksAllocated, settled)
    }

    func testUnderSteadyLoadTheArenaGoesRoundItsBlocks() {
        var arena = ByteArena()
        let payload = [UInt8](repeating: 9, count: 200)
        // Each copy dropped once read, as the journal's readers drop a record's payload.
        for _ in 0..<2_000 { _ = copy(payload, into: &arena) }
        let warmed = arena.blocksAllocated
        XCTAssertLessThanOrEqual(warmed, 6, "blocks of 4, 8, 16, 32 and 64 KiB, and one more of the largest")
        // A million more bytes: two blocks take turns.
        for _ in 0..<5_000 {
            let shared = copy(payload, into: &arena)
            XCTAssertEqual(shared.count, 200)
        }
        XCTAssertEqual(arena.blocksAllocated, warmed)
        XCTAssertEqual(arena.bytesHeld, 2 * ByteArena.blockSize)
    }

    func testAConnectionThatSendsLittleHoldsLittle() {
        var arena = ByteArena()
        _ = copy([UInt8](repeating: 1, count: 300), into: &arena)
        XCTAssertEqual(arena.bytesHeld, ByteArena.firstBlockSize)
    }

    func testBytesLongerThanAQuarterBlockAndEmptyOnesTakeNoRoomInTheArena() {
        var arena = ByteArena()
        let long = [UInt8](repeating: 1, count: ByteArena.blockSize / 4 + 1)
        let shared = copy(long, into: &arena)
        XCTAssertFalse(shared.isInArena, "a long payload does not pin a block")
        XCTAssertEqual(shared.array, long)
        let empty = copy([], into: &arena)
        XCTAssertTrue(empty.isEmpty)
        XCTAssertFalse(empty.isInArena)
    }
}
