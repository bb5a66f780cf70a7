@testable import MockAPNs
import MockAPNsObservation
import Foundation
import MockAPNsCore
import MockAPNsJournal
import MockAPNsTestSupport
import Synchronization
import XCTest

/// The JSONL file is complete: past its buffer's high-water mark the server's read gate
/// closes until the writer catches up (`wait`, the default); under `gap`, events past the
/// buffer are read back from the memory journal, and only those it no longer holds become a
/// gap line, which `mockapns journal` shows.
final class JSONLFileSinkTests: XCTestCase {
    private func event(_ number: Int) -> JournalEvent {
        let sequence = UInt64(number)
        return JournalEvent(sequence: sequence, wallTimeMilliseconds: 1_767_225_600_000, monotonicNanoseconds: sequence,
                     connectionID: 1, streamID: nil, kind: .fault(description: "event \(sequence)"))
    }

    private func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// A memory journal holding `sequences`, as the sink reads events back from it.
    private func memory(holding sequences: ClosedRange<Int>) -> @Sendable (UInt64, Int) -> [JournalEvent] {
        let held = sequences.map(event)
        return { after, limit in Array(held.filter { $0.sequence > after }.prefix(limit)) }
    }

    func testPastTheBufferTheGateClosesAndTheWriterWritesAtOnceThenOpensIt() async throws {
        let path = Fixtures.temporaryPath("wait.jsonl")
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        let gate = JournalReadGate()
        // The writer's own turns are an hour apart: only the full buffer can make it write.
        let sink = try JSONLFileSink(path: path, bufferLimit: 10, batchInterval: .seconds(3_600), policy: .wait, gate: gate)
        for sequence in 1...9 { sink.receive(event(sequence)) }
        XCTAssertEqual(gate.closedCount, 0, "below the high-water mark connections read on")
        sink.receive(event(10))
        XCTAssertEqual(gate.closedCount, 1, "at the mark reading stops")
        try await waitUntil("the full buffer written without waiting for the writer's turn") {
            (try? self.lines(path).count) == 10 && gate.isOpen
        }
        // Events already read when the gate closed still arrive, and are kept.
        for sequence in 11...25 { sink.receive(event(sequence)) }
        await sink.close()
        XCTAssertEqual(try lines(path).map { try JournalJSON.decode($0).sequence }, Array(1...25))
    }

    func testAClosedGateCallsBackEveryConnectionThatWaitedWhenItOpens() {
        let gate = JournalReadGate()
        let resumed = Atomic<Int>(0)
        XCTAssertFalse(gate.wait(1) { resumed.add(1, ordering: .relaxed) }, "an open gate lets a read through at once")
        gate.close()
        XCTAssertTrue(gate.wait(1) { resumed.add(1, ordering: .relaxed) })
        XCTAssertTrue(gate.wait(2) { resumed.add(1, ordering: .relaxed) })
        XCTAssertTrue(gate.wait(3) { resumed.add(1, ordering: .relaxed) })
        gate.forget(3)  // a connection that closed while it waited
        gate.open()
        XCTAssertEqual(resumed.load(ordering: .relaxed), 2)
        gate.open()
        XCTAssertEqual(resumed.load(ordering: .relaxed), 2, "each wait is called back once")
    }

    func testUnderGapEventsPastTheBufferAreReadBackFromMemory() async throws {
        let path = Fixtures.temporaryPath("backfill.jsonl")
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        let sink = try JSONLFileSink(
            path: path, bufferLimit: 10, batchInterval: .seconds(3_600), policy: .gap, backfill: memory(holding: 1...28)
        )
        for sequence in 1...25 { sink.receive(event(sequence)) }
        sink.writeBuffered()
        XCTAssertEqual(try lines(path).count, 25, "the fifteen left out of the buffer came back from memory")
        for sequence in 26...28 { sink.receive(event(sequence)) }
        await sink.close()
        XCTAssertEqual(try lines(path).map { try JournalJSON.decode($0).sequence }, Array(1...28))
    }

    func testUnderGapWhatMemoryNoLongerHoldsBecomesOneGapLine() async throws {
        let path = Fixtures.temporaryPath("gap.jsonl")
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        // The memory journal has already dropped events 11 to 20 of the fifteen left out.
        let sink = try JSONLFileSink(
            path: path, bufferLimit: 10, batchInterval: .seconds(3_600), policy: .gap, backfill: memory(holding: 21...28)
        )
        for sequence in 1...25 { sink.receive(event(sequence)) }
        sink.writeBuffered()
        for sequence in 26...28 { sink.receive(event(sequence)) }
        await sink.close()

        let lines = try lines(path)
        XCTAssertEqual(lines.count, 19)
        let written = try lines.compactMap { line -> UInt64? in
            JournalFileGap(line: line) == nil ? try JournalJSON.decode(line).sequence : nil
        }
        XCTAssertEqual(written, Array(1...10) + Array(21...28))
        XCTAssertEqual(JournalFileGap(line: lines[10]), JournalFileGap(missed: 10, firstSequence: 11, lastSequence: 20))

        let timeline = try ProcessRunner.run(Fixtures.executable, ["journal", "--file", path])
        XCTAssertEqual(timeline.status, 0, timeline.stderr)
        XCTAssertTrue(timeline.stdout.contains("#11-#20  10 event(s) not in this file: writing it fell behind"), timeline.stdout)
        XCTAssertTrue(timeline.stdout.contains("FAULT event 26"), timeline.stdout)
        XCTAssertEqual(timeline.stderr, "", "a gap line is not an unreadable line")
        let json = try ProcessRunner.run(Fixtures.executable, ["journal", "--file", path, "--json"])
        XCTAssertTrue(json.stdout.contains(lines[10]), json.stdout)
    }

    func testABufferThatKeepsUpWritesEveryEvent() async throws {
        let path = Fixtures.temporaryPath("nogap.jsonl")
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        // The background writer's 10 ms batches keep up with ten events at a time.
        let sink = try JSONLFileSink(path: path, bufferLimit: 10, batchInterval: .milliseconds(10))
        for sequence in 1...30 {
            sink.receive(event(sequence))
            if sequence % 10 == 0 {
                try await waitUntil("batch written") { (try? self.lines(path).count) == sequence }
            }
        }
        await sink.close()
        XCTAssertEqual(try lines(path).map { try JournalJSON.decode($0).sequence }, Array(1...30))
    }

    /// At shutdown the file is finished within a bound: what the bound leaves unwritten is one
    /// gap line naming its sequences, and the log says how far the file got; within the bound
    /// the file is whole and the log says so.
    func testTheCloseFinishesTheFileWithinItsBoundAndSaysHowFarItGot() async throws {
        for (bound, whole) in [(Duration.zero, false), (Duration.seconds(30), true)] {
            let path = Fixtures.temporaryPath("close-bound.jsonl")
            addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
            let logs = CapturedLogs()
            // The writer's own turns are an hour apart: everything is still buffered at the close.
            let sink = try JSONLFileSink(path: path, bufferLimit: 100_000, batchInterval: .seconds(3_600), logger: logs.logger(level: .info))
            for sequence in 1...20_000 { sink.receive(event(sequence)) }
            await sink.close(within: bound)
            let written = try lines(path)
            let logged = logs.messages.joined(separator: "\n")
            if whole {
                XCTAssertEqual(written.count, 20_000)
                XCTAssertTrue(logged.contains("the journal file is complete: 20000 events written at shutdown"), logged)
            } else {
                XCTAssertEqual(written, [#"{"type":"gap","missed":20000,"firstSeq":1,"lastSeq":20000}"#])
                XCTAssertTrue(logged.contains("0 events written at shutdown, then the bound of 0.0 seconds passed; 20000 events (sequences 1-20000) are left out"), logged)
            }
        }
    }
}
