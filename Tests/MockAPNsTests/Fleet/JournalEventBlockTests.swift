@testable import MockAPNsCore
@testable import MockAPNsJournal
import MockAPNsFleet
import MockAPNsJSON
import MockAPNsTestSupport
import XCTest

/// A block of packed events (what a fleet replica ships) reads back exactly as packed, every
/// kind included, and a damaged block is refused whole, never half read.
final class JournalEventBlockTests: XCTestCase {
    private func events() -> [JournalEvent] {
        // Sequences with gaps (the frames a replica leaves out), times before and after the
        // first event's, absent and extreme connections and streams.
        let shapes: [(wall: Int64, monotonic: UInt64, connection: UInt64?, stream: Int32?)] = [
            (1_767_225_600_123, 5_000, 4, 1), (0, 0, nil, nil), (-86_400_000, UInt64.max, UInt64.max, Int32.max),
            (Int64.max, 1, 0, Int32.min), (Int64.min, 7, 1, 0),
        ]
        return JournalEventSamples.samples.enumerated().map { index, kind in
            let shape = shapes[index % shapes.count]
            return JournalEvent(
                sequence: UInt64(10 + 3 * index), wallTimeMilliseconds: shape.wall, monotonicNanoseconds: shape.monotonic,
                connectionID: shape.connection, streamID: shape.stream, kind: kind
            )
        }
    }

    private static func json(_ event: JournalEvent) -> String {
        var writer = JSONWriter()
        JournalJSON.write(event, into: &writer)
        return writer.text
    }

    func testEveryKindReadsBackAsPacked() throws {
        let events = events()
        let read = try XCTUnwrap(JournalEventBlock.unpack(JournalEventBlock.pack(events)))
        XCTAssertEqual(read.count, events.count)
        for (got, want) in zip(read, events) {
            if JournalPacking.isKeptAsValue(want.kind.type) {
                // Carried as their JSON: what the journal's JSON says of them is what comes back.
                XCTAssertEqual(Self.json(got), Self.json(want), want.kind.name)
            } else {
                XCTAssertEqual(got, want, want.kind.name)
            }
        }
        XCTAssertEqual(JournalEventBlock.unpack(JournalEventBlock.pack([])), [])
    }

    func testADamagedBlockIsRefusedWhole() {
        let block = JournalEventBlock.pack(events())
        XCTAssertNil(JournalEventBlock.unpack([]), "no version byte")
        XCTAssertNil(JournalEventBlock.unpack([99] + block.dropFirst()), "another version")
        for cut in stride(from: 1, to: block.count - 1, by: max(1, block.count / 40)) {
            if let read = JournalEventBlock.unpack(Array(block[..<cut])) {
                XCTAssertLessThan(read.count, events().count, "cut at \(cut) read as whole")
            }
        }
    }
}
