@testable import MockAPNs
import Foundation
import MockAPNsCore
import MockAPNsTestSupport
import XCTest

/// The JSONL file's buffer is bounded: events beyond it are left out of the file, which says
/// where and how many with a gap line, and `mockapns journal` shows the gap.
final class JSONLFileSinkTests: XCTestCase {
    private func event(_ number: Int) -> JournalEvent {
        let sequence = UInt64(number)
        return JournalEvent(sequence: sequence, wallTimeMilliseconds: 1_767_225_600_000, monotonicNanoseconds: sequence,
                     connectionID: 1, streamID: nil, kind: .fault(description: "event \(sequence)"))
    }

    private func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    func testEventsBeyondTheBufferBecomeOneGapLineAndWritingGoesOn() async throws {
        let path = Fixtures.temporaryPath("gap.jsonl")
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        // The writer's own batches are an hour apart: here the test says when a batch is written.
        let sink = try JSONLFileSink(path: path, bufferLimit: 10, batchInterval: .seconds(3_600))
        // Ten fit, fifteen are left out.
        for sequence in 1...25 { sink.receive(event(sequence)) }
        sink.writeBuffered()
        XCTAssertEqual(try lines(path).count, 11)
        for sequence in 26...28 { sink.receive(event(sequence)) }
        await sink.close()

        let lines = try lines(path)
        XCTAssertEqual(lines.count, 14)
        let written = try lines.compactMap { line -> UInt64? in
            JournalFileGap(line: line) == nil ? try JournalJSON.decode(line).sequence : nil
        }
        XCTAssertEqual(written, Array(1...10) + [26, 27, 28])
        XCTAssertEqual(JournalFileGap(line: lines[10]), JournalFileGap(missed: 15, firstSequence: 11, lastSequence: 25))

        let timeline = try ProcessRunner.run(Fixtures.executable, ["journal", "--file", path])
        XCTAssertEqual(timeline.status, 0, timeline.stderr)
        XCTAssertTrue(timeline.stdout.contains("#11-#25  15 event(s) not in this file: writing it fell behind"), timeline.stdout)
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
}
