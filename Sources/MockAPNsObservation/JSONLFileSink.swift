import Foundation
import Logging
import MockAPNsCore
import MockAPNsJournal
import MockAPNsLogging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the journal's file does when its writer falls behind the server.
package enum JournalFileBehindPolicy: String, Sendable, Equatable, CaseIterable {
    /// The file stays complete: past the buffer's high-water mark the server stops reading
    /// from provider connections until the writer catches up (the default).
    case wait
    /// The server never slows down: events beyond the buffer are read back from the memory
    /// journal once the writer catches up, and only those the memory journal no longer holds
    /// become a gap line.
    case gap
}

/// Writes every journal event to a JSON Lines file, one object per line.
///
/// The journal hands events over in order (outside its lock), which only appends them to a
/// buffer here; a thread of the sink's own encodes and writes the buffer in batches, off the
/// event loops and off Swift's cooperative pool (a writer that blocked the pool's threads
/// under load once held back the task that hears SIGTERM for 15 seconds). `close(within:)`
/// writes what is still buffered within a bound, and says how far it got.
///
/// The buffer has a high-water mark. Under `JournalFileBehindPolicy.wait` (the default), the
/// writer closes the server's read gate there (`JournalReadGate`): provider connections stop
/// reading until the batch is written, so the file is complete at any load. Under `.gap`,
/// events beyond the mark are not buffered; the writer reads them back from the memory
/// journal when it gets there, and marks with a gap line (`JournalFileGap`) only those the
/// memory journal had already dropped. Either way the log says so once.
package final class JSONLFileSink: JournalReader {
    /// How long events may wait in the buffer before a batch is written.
    package static let defaultBatchInterval = Duration.milliseconds(50)
    /// Events the buffer holds before the policy applies: about a quarter of a second of the
    /// busiest load measured (every frame journaled), a few tens of megabytes.
    package static let defaultBufferLimit = 65_536
    /// Events read back from the memory journal per look, so its lock is held briefly.
    package static let backfillBatch = 4096

    package let path: String
    private let descriptor: Int32
    private let bufferLimit: Int
    private let policy: JournalFileBehindPolicy
    private let gate: JournalReadGate?
    /// Reads events after a sequence back from the memory journal (`.gap`).
    private let backfill: @Sendable (_ after: UInt64, _ limit: Int) -> [JournalEvent]
    private let pending = Mutex<Pending>(Pending())
    /// One batch at a time, so batches reach the file in the order they were taken: the
    /// background task, a write the full buffer asks for, and `close()` take turns.
    private let batches = Mutex<Void>(())
    /// The file's state; held only while bytes are written.
    private let writing = Mutex<WriterState>(WriterState())
    /// Paces the writer thread: wakes it early (a full buffer, the close) and tells the close
    /// it has stopped.
    private let writer = WriterPace()
    private let batchInterval: Duration
    private let logger: Logger?

    /// What waits to be written: events, then the run of events left out after them.
    private struct Pending {
        var events: [JournalEvent] = []
        var missed: JournalFileGap?
        /// Whether the log has said that the file falls behind.
        var warned = false
    }

    private struct WriterState {
        var closed = false
        /// A write failed (a full disk): the file is incomplete from then on, and the gate
        /// stays open, since waiting for the file would stop the server for good.
        var failed = false
    }

    /// Creates (or truncates) the file at `path`.
    package init(
        path: String, bufferLimit: Int = defaultBufferLimit, batchInterval: Duration = defaultBatchInterval,
        policy: JournalFileBehindPolicy = .wait, gate: JournalReadGate? = nil,
        backfill: @escaping @Sendable (_ after: UInt64, _ limit: Int) -> [JournalEvent] = { _, _ in [] },
        logger: Logger? = nil
    ) throws(JournalFileError) {
        self.path = path
        self.bufferLimit = max(1, bufferLimit)
        self.policy = policy
        self.gate = gate
        self.backfill = backfill
        self.logger = logger
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw JournalFileError(path: path, message: String(cString: strerror(errno)))
        }
        self.descriptor = descriptor
        self.batchInterval = batchInterval
        // Weak between turns: a sink nobody closes (a test's) lets its thread end with it.
        let thread = Thread { [weak self] in
            while let sink = self, sink.writerTurn() {}
        }
        thread.name = "mockapns-journal-file"
        thread.start()
    }

    /// One turn of the writer thread: a batch after `batchInterval`, or at once when woken.
    /// Returns false once the close asked the thread to stop (and says it has).
    private func writerTurn() -> Bool {
        guard writer.awaitTurn(seconds: Double(batchInterval.components.seconds) + Double(batchInterval.components.attoseconds) / 1e18)
        else { return false }
        writeBuffered()
        return true
    }

    /// The file holds every event.
    package let wantedKinds = JournalEventKind.allBits

    /// A batch, one event at a time: the policy (wait or gap) is decided per event.
    package func read(_ batch: [JournalEvent]) {
        for event in batch { receive(event) }
    }

    package func receive(_ event: JournalEvent) {
        enum Passed { case kept, keptAndFull, missed(first: Bool) }
        let passed = pending.withLock { pending -> Passed in
            switch policy {
            case .wait:
                pending.events.append(event)
                return pending.events.count == bufferLimit ? .keptAndFull : .kept
            case .gap:
                // Once a gap has begun, later events join it until the writer takes the
                // batch, so the file never holds an event that came after one it left out.
                if pending.events.count < bufferLimit, pending.missed == nil {
                    pending.events.append(event)
                    return .kept
                }
                if var gap = pending.missed {
                    gap.missed += 1
                    gap.lastSequence = event.sequence
                    pending.missed = gap
                } else {
                    pending.missed = JournalFileGap(missed: 1, firstSequence: event.sequence, lastSequence: event.sequence)
                }
                defer { pending.warned = true }
                return .missed(first: !pending.warned)
            }
        }
        switch passed {
        case .kept:
            break
        case .keptAndFull:
            // Reading from provider connections waits until this batch is written, which
            // starts now rather than at the writer's next turn.
            guard writing.withLock({ !$0.failed }) else { break }
            gate?.close()
            writer.wake()
            if pending.withLock({ state in defer { state.warned = true }; return !state.warned }) {
                logger?.notice(
                    "the journal file is behind: provider connections are read more slowly until it catches up (journal.fileWhenBehind \"wait\")",
                    metadata: ["file": "\(path)", "buffered": "\(bufferLimit)"]
                )
            }
        case .missed(let first):
            if first {
                logger?.warning(
                    "the journal file is behind: events past its buffer are read back from the memory journal when it catches up; those the memory journal no longer holds become gap lines (journal.fileWhenBehind \"gap\")",
                    metadata: ["file": "\(path)", "buffered": "\(bufferLimit)"]
                )
            }
        }
    }

    /// How long `close` may take to write what is still buffered by default: with the
    /// server's 5-second grace for open connections, a SIGTERM ends the process well inside
    /// the 10 seconds a container runtime waits before it kills.
    package static let defaultCloseBound = Duration.seconds(3)

    /// Stops the writer thread, writes what is still buffered (and, under `.gap`, the events
    /// left out that the memory journal still holds) until `bound` has passed, and closes the
    /// file. Events not written by then become one gap line, and the log says how far the
    /// file got either way.
    package func close(within bound: Duration = defaultCloseBound) async {
        let started = ContinuousClock.now
        let deadline = started.advanced(by: bound)
        if !writer.askToStop() {
            // The thread finishes the batch it is writing, if any; waiting for it takes a
            // thread of its own, not one of the cooperative pool's.
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let writer = self.writer
                let waiter = Thread {
                    writer.awaitStopped()
                    continuation.resume()
                }
                waiter.start()
            }
        }
        let outcome = writeBuffered(until: deadline)
        writing.withLock { state in
            guard !state.closed else { return }
            state.closed = true
            fsync(descriptor)
            closeDescriptor(descriptor)
        }
        gate?.open()
        let elapsed = ContinuousClock.now - started
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        if let left = outcome.leftOut {
            logger?.warning(
                "the journal file is incomplete: \(outcome.written) events written at shutdown, then the bound of \(bound) passed; \(left.missed) events (sequences \(left.firstSequence)-\(left.lastSequence)) are left out, marked by a gap line",
                metadata: ["file": "\(path)"]
            )
        } else {
            logger?.info(
                "the journal file is complete: \(outcome.written) events written at shutdown in \(milliseconds) ms",
                metadata: ["file": "\(path)"]
            )
        }
    }

    /// Writes what is buffered in runs, until `deadline` (`nil`: all of it): the events
    /// written, and those left out (written as a gap line) when the deadline came first.
    @discardableResult
    private func writeBuffered(until deadline: ContinuousClock.Instant?) -> (written: Int, leftOut: JournalFileGap?) {
        batches.withLock { _ in
            let (batch, gap) = pending.withLock { pending in
                defer {
                    // A running writer keeps its buffer for the next batch; the close does not.
                    pending.events.removeAll(keepingCapacity: deadline == nil)
                    pending.missed = nil
                }
                return (pending.events, pending.missed)
            }
            var written = 0
            var start = batch.startIndex
            while start < batch.endIndex {
                if let deadline, ContinuousClock.now >= deadline {
                    // Whatever the `.gap` policy had left out after the batch is left out too.
                    let last = gap?.lastSequence ?? batch[batch.endIndex - 1].sequence
                    let missed = last - batch[start].sequence + 1
                    let left = JournalFileGap(missed: missed, firstSequence: batch[start].sequence, lastSequence: last)
                    write(left.line + "\n")
                    return (written, left)
                }
                let end = min(start + Self.backfillBatch, batch.endIndex)
                write(Self.lines(batch[start..<end]))
                written += end - start
                start = end
            }
            if let gap { writeBackfilled(gap) }
            return (written, nil)
        }
    }

    /// `events` as lines of the file, after `prefix`.
    private static func lines(_ events: some Collection<JournalEvent>, after prefix: String = "") -> String {
        var text = prefix
        text.reserveCapacity(prefix.utf8.count + events.count * 200)
        for event in events {
            text += JournalJSON.encode(event)
            text += "\n"
        }
        return text
    }

    /// Encodes and writes the events buffered so far, and the ones left out after them (the
    /// writer thread's batch; tests call it to write at a moment of their choosing).
    package func writeBuffered() {
        writeBuffered(until: nil)
        gate?.open()
    }

    /// Writes the events of `gap` that the memory journal still holds, and a gap line for
    /// those it no longer does.
    private func writeBackfilled(_ gap: JournalFileGap) {
        // Every event up to `written` is in the file.
        var written = gap.firstSequence - 1
        while written < gap.lastSequence {
            let events = backfill(written, Self.backfillBatch).prefix { $0.sequence <= gap.lastSequence }
            guard let first = events.first, let last = events.last else {
                // The memory journal no longer holds the rest.
                let lost = JournalFileGap(missed: gap.lastSequence - written, firstSequence: written + 1, lastSequence: gap.lastSequence)
                write(lost.line + "\n")
                return
            }
            var lost = ""
            if first.sequence > written + 1 {
                // It dropped the oldest of them already (its sequences run on without holes).
                lost = JournalFileGap(missed: first.sequence - written - 1, firstSequence: written + 1, lastSequence: first.sequence - 1).line + "\n"
            }
            write(Self.lines(events, after: lost))
            written = last.sequence
        }
    }

    private func write(_ text: String) {
        writing.withLock { state in
            guard !state.closed, !state.failed else { return }
            var text = text
            let failure: Int32? = text.withUTF8 { raw -> Int32? in
                guard let base = raw.baseAddress else { return nil }
                var offset = 0
                while offset < raw.count {
                    let written = writeDescriptor(descriptor, base + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return errno
                    }
                    offset += written
                }
                return nil
            }
            if let failure {
                state.failed = true
                logger?.error(
                    "cannot write the journal file: \(String(cString: strerror(failure))); it is incomplete from here on, and the server no longer waits for it",
                    metadata: ["file": "\(path)"]
                )
            }
        }
        if writing.withLock({ $0.failed }) { gate?.open() }
    }
}

/// The writer thread's turns: a condition variable and the state it guards.
private final class WriterPace: @unchecked Sendable {
    private enum State {
        case running
        /// A full buffer asked for a batch now.
        case woken
        case stopping
        case stopped
    }

    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var state = State.running

    /// Waits up to `seconds`, or until woken; false when the thread is to stop (it is then
    /// marked stopped).
    package func awaitTurn(seconds: Double) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if state == .running { _ = condition.wait(until: Date(timeIntervalSinceNow: seconds)) }
        switch state {
        case .running:
            return true
        case .woken:
            state = .running
            return true
        case .stopping, .stopped:
            state = .stopped
            condition.broadcast()
            return false
        }
    }

    package func wake() {
        condition.lock()
        if state == .running { state = .woken }
        condition.broadcast()
        condition.unlock()
    }

    /// Asks the thread to stop; true when it already had.
    package func askToStop() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard state != .stopped else { return true }
        state = .stopping
        condition.broadcast()
        return false
    }

    package func awaitStopped() {
        condition.lock()
        while state != .stopped { condition.wait() }
        condition.unlock()
    }
}

/// `close(2)`, which the sink's own `close()` hides by name.
private func closeDescriptor(_ descriptor: Int32) {
    #if canImport(Darwin)
    _ = Darwin.close(descriptor)
    #elseif canImport(Musl)
    _ = Musl.close(descriptor)
    #else
    _ = Glibc.close(descriptor)
    #endif
}

/// The journal file could not be opened.
package struct JournalFileError: Error, Sendable, CustomStringConvertible {
    package var path: String
    package var message: String
    package var description: String { "cannot write the journal file \(path): \(message)" }
}
