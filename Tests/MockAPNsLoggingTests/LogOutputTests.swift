import MockAPNsLogging
import Foundation
import NIOCore
import NIOPosix
import XCTest

/// `LogOutput` over real pipes: an event loop that logs into an output nobody reads keeps
/// running, and every line arrives whole and in order, or is counted as dropped; a write off
/// the loops and `flush()` return only once the lines are in the pipe.
final class LogOutputTests: XCTestCase {
    private var group: MultiThreadedEventLoopGroup?

    override func tearDown() {
        try? group?.syncShutdownGracefully()
        group = nil
        super.tearDown()
    }

    private func makeLoop() -> any EventLoop {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.group = group
        return group.next()
    }

    /// `line 00042 xxxx…` (length varies with the number), newline included.
    private static func line(_ number: Int, writer: Int = 0, padding: Int = 40) -> String {
        let digits = String(number)
        return "writer \(writer) line \(String(repeating: "0", count: max(0, 5 - digits.count)))\(digits) "
            + String(repeating: "x", count: padding + number % 23) + "\n"
    }

    func testAnEventLoopKeepsRunningWhileItsOutputIsStalled() throws {
        let pipe = try TestPipe(size: 4096)
        defer { pipe.closeBoth() }
        // Nobody reads: the pipe is full before the first line, so the writer blocks at once.
        let filler = try pipe.fill()
        let capacity = 64 * 1024
        let output = LogOutput(descriptor: pipe.writeEnd, capacity: capacity)
        let loop = makeLoop()
        let count = 10_000

        let logged = expectation(description: "the loop logged every line")
        let ranAfter = expectation(description: "the loop ran the next task")
        loop.submit {
            for number in 0..<count { output.write(Self.line(number), format: .text) }
        }.whenSuccess { logged.fulfill() }
        loop.submit { 42 }.whenSuccess { value in
            XCTAssertEqual(value, 42)
            ranAfter.fulfill()
        }
        // A loop stuck in write(2) would never get here; the pipe is read only afterwards.
        wait(for: [logged, ranAfter], timeout: 30, enforceOrder: true)

        let reader = PipeReader(descriptor: pipe.readEnd)
        output.flush()
        try pipe.detachWriteEnd()
        let bytes = reader.bytes()
        XCTAssertEqual(bytes.prefix(filler), ArraySlice(repeating: UInt8(ascii: "f"), count: filler))
        let text = String(decoding: bytes.dropFirst(filler), as: UTF8.self)
        XCTAssertTrue(text.hasSuffix("\n"))

        // Lines come in order; each gap is exactly the count of the notice(s) in its place.
        var next = 0
        var noticed = 0
        var totalDropped = 0
        var written = 0
        for line in text.split(separator: "\n") {
            if let dropped = Self.droppedCount(line) {
                noticed += dropped
                totalDropped += dropped
                continue
            }
            guard let number = Self.number(of: line) else {
                XCTFail("not a whole line: \(line.prefix(80))")
                continue
            }
            XCTAssertEqual(line + "\n", Substring(Self.line(number)), "line \(number) is not whole")
            XCTAssertEqual(number - next, noticed, "lines \(next)..<\(number) missing, \(noticed) counted as dropped")
            next = number + 1
            noticed = 0
            written += 1
        }
        XCTAssertEqual(count - next, noticed, "the last \(count - next) lines missing, \(noticed) counted as dropped")
        XCTAssertEqual(written + totalDropped, count)
        // 10,000 lines of about 70 bytes against 64 KiB queued and a full pipe: most dropped.
        XCTAssertGreaterThan(totalDropped, count / 2)
        XCTAssertGreaterThan(written, 0)
        XCTAssertLessThanOrEqual(written * 60, capacity + 4096)
    }

    func testTheDropNoticeOfJSONLinesIsJSON() throws {
        let pipe = try TestPipe(size: 4096)
        defer { pipe.closeBoth() }
        let filler = try pipe.fill()
        let output = LogOutput(descriptor: pipe.writeEnd, capacity: 1024)
        let loop = makeLoop()
        let count = 200
        let logged = expectation(description: "the loop logged every line")
        loop.submit {
            for number in 0..<count { output.write("{\"n\":\(number)}\n", format: .json) }
        }.whenSuccess { logged.fulfill() }
        wait(for: [logged], timeout: 30)
        let reader = PipeReader(descriptor: pipe.readEnd)
        output.flush()
        try pipe.detachWriteEnd()
        var next = 0
        var dropped = 0
        for line in reader.bytes().dropFirst(filler).split(separator: UInt8(ascii: "\n")) {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            if let number = object["n"] as? Int {
                XCTAssertEqual(number - next, dropped, "lines \(next)..<\(number) missing, \(dropped) counted as dropped")
                next = number + 1
                dropped = 0
            } else {
                XCTAssertEqual(object["level"] as? String, "warning")
                XCTAssertEqual(object["label"] as? String, "mockapns.log")
                let count = try XCTUnwrap(object["droppedLines"] as? Int)
                XCTAssertEqual(object["message"] as? String, "log output fell behind: \(count) lines dropped")
                dropped += count
            }
        }
        XCTAssertEqual(count - next, dropped)
        XCTAssertLessThan(next, count, "lines were dropped")
    }

    func testAWriteOffTheLoopsIsInThePipeWhenItReturns() async throws {
        try await checkLinesWritten(after: { output in Self.writeOffTheLoops(output) },
                                    expectedAfterQueued: "written off the loops\n")
    }

    func testFlushWaitsForEveryQueuedLine() async throws {
        try await checkLinesWritten(after: { output in Self.flushWaiting(output) }, expectedAfterQueued: "")
    }

    func testAsyncFlushWaitsForEveryQueuedLine() async throws {
        try await checkLinesWritten(after: { output in await output.flush() }, expectedAfterQueued: "")
    }

    private static func writeOffTheLoops(_ output: LogOutput) {
        output.write("written off the loops\n", format: .text)
    }

    /// The blocking `flush()`, which an async context would not pick.
    private static func flushWaiting(_ output: LogOutput) {
        output.flush()
    }

    /// Queues lines from a loop while the pipe is full (far more than the pipe holds), then
    /// does `call` off the loops and at once points the output's descriptor at /dev/null: the
    /// pipe holds exactly what was written before `call` returned, which must be every queued
    /// line, then `expectedAfterQueued`.
    private func checkLinesWritten(after call: (LogOutput) async -> Void, expectedAfterQueued: String) async throws {
        let pipe = try TestPipe(size: 64 * 1024)
        defer { pipe.closeBoth() }
        let filler = try pipe.fill()
        let output = LogOutput(descriptor: pipe.writeEnd)
        let loop = makeLoop()
        // About 1.4 MB, under the 4 MiB the queue holds, read in small pieces: the writer
        // needs a while after `call` is made.
        let count = 20_000
        let queued = expectation(description: "the loop queued every line")
        loop.submit {
            for number in 0..<count { output.write(Self.line(number), format: .text) }
        }.whenSuccess { queued.fulfill() }
        // Read only afterwards: the pipe stays full while the loop logs.
        await fulfillment(of: [queued], timeout: 30)
        let reader = PipeReader(descriptor: pipe.readEnd, chunk: 1024)
        await call(output)
        try pipe.detachWriteEnd()
        let bytes = reader.bytes()
        XCTAssertEqual(bytes.prefix(filler), ArraySlice(repeating: UInt8(ascii: "f"), count: filler))
        let text = String(decoding: bytes.dropFirst(filler), as: UTF8.self)
        let expected = (0..<count).map { Self.line($0) }.joined() + expectedAfterQueued
        XCTAssertEqual(text.utf8.count, expected.utf8.count)
        XCTAssertTrue(text == expected, "every queued line, in order, then \(expectedAfterQueued.debugDescription)")
    }

    func testConcurrentWritersNeverInterleaveInsideALine() throws {
        let pipe = try TestPipe(size: 4096)
        defer { pipe.closeBoth() }
        let output = LogOutput(descriptor: pipe.writeEnd)
        let reader = PipeReader(descriptor: pipe.readEnd)
        let loop = makeLoop()
        let threads = 4, perWriter = 500
        // Writer 0 logs from the event loop (queues), the others from their own threads (wait).
        let fromLoop = loop.submit {
            for number in 0..<perWriter { output.write(Self.longLine(number, writer: 0), format: .text) }
        }
        DispatchQueue.concurrentPerform(iterations: threads) { index in
            for number in 0..<perWriter { output.write(Self.longLine(number, writer: index + 1), format: .text) }
        }
        try fromLoop.wait()
        output.flush()
        try pipe.detachWriteEnd()

        let text = String(decoding: reader.bytes(), as: UTF8.self)
        var next = [Int](repeating: 0, count: threads + 1)
        for received in text.split(separator: "\n") {
            let words = received.split(separator: " ", maxSplits: 4)
            guard words.count == 5, words[0] == "writer", let writer = Int(words[1]), next.indices.contains(writer),
                  let number = Int(words[3]) else {
                XCTFail("not a whole line: \(received.prefix(80))")
                continue
            }
            XCTAssertEqual(number, next[writer], "writer \(writer)'s lines in order")
            XCTAssertEqual(received + "\n", Substring(Self.longLine(number, writer: writer)), "writer \(writer) line \(number) whole")
            next[writer] = number + 1
        }
        XCTAssertEqual(next, [Int](repeating: perWriter, count: threads + 1), "every line of every writer")
    }

    /// Every seventh line 6 KiB, longer than PIPE_BUF: two write(2)s at once could interleave.
    private static func longLine(_ number: Int, writer: Int) -> String {
        line(number, writer: writer, padding: number % 7 == 0 ? 6000 : 100)
    }

    /// `n` from the notice `… warning log output fell behind: n lines dropped droppedLines=n`.
    private static func droppedCount(_ line: Substring) -> Int? {
        guard let range = line.range(of: " warning log output fell behind: ") else { return nil }
        let words = line[range.upperBound...].split(separator: " ")
        guard words.count == 4, words[1] == "lines", words[2] == "dropped", let count = Int(words[0]),
              words[3] == "droppedLines=\(count)" else { return nil }
        return count
    }

    private static func number(of line: Substring) -> Int? {
        let words = line.split(separator: " ")
        guard words.count == 5, words[0] == "writer", words[2] == "line" else { return nil }
        return Int(words[3])
    }
}

/// A pipe(2), shrunk where the system allows it (Linux), closed by the test.
private final class TestPipe: @unchecked Sendable {
    let readEnd: Int32
    let writeEnd: Int32

    init(size: Int32) throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        readEnd = ends[0]
        writeEnd = ends[1]
        #if os(Linux)
        // F_SETPIPE_SZ (1031), which Glibc's module does not export: a small pipe fills fast.
        _ = fcntl(writeEnd, 1031, size)
        #endif
    }

    /// Fills the pipe with `f` until a write would block; returns how many bytes it took.
    func fill() throws -> Int {
        let flags = fcntl(writeEnd, F_GETFL)
        _ = fcntl(writeEnd, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(writeEnd, F_SETFL, flags) }
        let chunk = [UInt8](repeating: UInt8(ascii: "f"), count: 1024)
        var total = 0
        while true {
            let written = chunk.withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
            if written > 0 {
                total += written
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                return total
            } else if errno != EINTR {
                throw POSIXError(.init(rawValue: errno) ?? .EIO)
            }
        }
    }

    /// Everything in the pipe now, without waiting.
    func readAvailable() -> [UInt8] {
        let flags = fcntl(readEnd, F_GETFL)
        _ = fcntl(readEnd, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(readEnd, F_SETFL, flags) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            guard count > 0 else { return bytes }
            bytes += chunk[0..<count]
        }
    }

    /// Closes the pipe's write end (its reader then sees the end) while the descriptor number
    /// stays open, on /dev/null, so a late write goes nowhere rather than to a reused number.
    func detachWriteEnd() throws {
        let null = open("/dev/null", O_WRONLY)
        guard null >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(null) }
        guard dup2(null, writeEnd) == writeEnd else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    }

    func closeBoth() {
        close(writeEnd)
        close(readEnd)
    }
}

/// Reads a pipe on a thread of its own, `chunk` bytes at a time, to its end.
private final class PipeReader: @unchecked Sendable {
    private var received: [UInt8] = []
    private let done = DispatchSemaphore(value: 0)

    init(descriptor: Int32, chunk size: Int = 65536) {
        let thread = Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: size)
            while true {
                let got = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { break }
                received += chunk[0..<got]
            }
            done.signal()
        }
        thread.start()
    }

    /// What was read, once the reading is over.
    func bytes() -> [UInt8] {
        done.wait()
        return received
    }
}
