import Foundation
@testable import MockAPNsFleet
import MockAPNsJournal
import MockAPNsTestSupport
import XCTest

/// The outbox of a fleet replica's records: it keeps every event but the frames, writes them
/// to its spool as one block with its head, and holds the server's reads while its backlog is
/// past the high-water mark, as the JSONL file does.
final class FleetRecordOutboxTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "fleet-outbox-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func events() -> [JournalEvent] {
        JournalEventSamples.samples.enumerated().map { index, kind in
            JournalEvent(
                sequence: UInt64(index + 1), wallTimeMilliseconds: 1_767_225_600_000 + Int64(index % 7) * 10,
                monotonicNanoseconds: UInt64(index), connectionID: 4, streamID: 1, kind: kind
            )
        }
    }

    func testTheSpoolHoldsEveryEventButTheFramesInOneBlockWithItsHead() throws {
        let path = folder + "/spool"
        let outbox = try FleetRecordOutbox(path: path, gate: nil)
        let events = events()
        outbox.read(Array(events[..<10]))
        outbox.read(Array(events[10...]))
        XCTAssertEqual(try outbox.drain(), events.filter { !$0.kind.type.isPerFrame }.count)
        XCTAssertEqual(try outbox.drain(), 0, "nothing is written twice")

        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: path)).map { $0 }
        let head = try XCTUnwrap(FleetSpoolHead(bytes[...]))
        let kept = events.filter { !$0.kind.type.isPerFrame }
        XCTAssertEqual(head.length, UInt64(bytes.count - FleetSpoolHead.size))
        XCTAssertEqual(head.events, UInt64(kept.count))
        XCTAssertEqual(head.firstSequence, kept.first?.sequence)
        XCTAssertEqual(head.lastSequence, kept.last?.sequence)
        XCTAssertEqual(head.earliest, kept.map(\.wallTimeMilliseconds).min())
        XCTAssertEqual(head.latest, kept.map(\.wallTimeMilliseconds).max())
        let block = try XCTUnwrap(JournalEventBlock.unpack(Array(bytes[FleetSpoolHead.size...])))
        XCTAssertEqual(block.map(\.sequence), kept.map(\.sequence))
    }

    func testABacklogPastTheHighWaterMarkHoldsReadsUntilItIsWritten() throws {
        let gate = JournalReadGate()
        let outbox = try FleetRecordOutbox(path: folder + "/spool", gate: gate)
        let notification = try XCTUnwrap(events().first { $0.kind.type == .notification })
        outbox.read(Array(repeating: notification, count: FleetRecordOutbox.highWater - 1))
        XCTAssertTrue(gate.isOpen)
        outbox.read([notification])
        XCTAssertFalse(gate.isOpen, "the backlog reached the mark")
        XCTAssertEqual(outbox.pendingCount, FleetRecordOutbox.highWater)
        try outbox.drain()
        XCTAssertTrue(gate.isOpen, "written: reads go on")
        XCTAssertEqual(outbox.pendingCount, 0)
    }

    func testASpoolThatCannotBeMadeIsRefusedWithItsPath() {
        XCTAssertThrowsError(try FleetRecordOutbox(path: folder + "/missing/spool", gate: nil)) { error in
            XCTAssertTrue("\(error)".contains(folder + "/missing/spool"), "\(error)")
        }
    }
}
