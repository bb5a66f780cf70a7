import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A `LogOutput`'s queue and the one thread that writes it out.
///
/// Callers append whole batches of lines to `pending` under `mutex`, held only to copy bytes
/// and count; the writer thread takes the whole of `pending` at once and writes it with the
/// mutex released, so a caller never waits behind a `write(2)`. Batches are numbered as they
/// are queued; the writer says how far it has written (`written`), which is what a waiting
/// caller or `flush` waits for.
package final class LogWriter: @unchecked Sendable {
    private let descriptor: Int32
    private let capacity: Int

    // A pthread mutex and two condition variables, since `Mutex` has no way to wait:
    // `work` wakes the writer, `progress` wakes callers waiting for their lines.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let work: UnsafeMutablePointer<pthread_cond_t>
    private let progress: UnsafeMutablePointer<pthread_cond_t>

    // Guarded by `mutex`.
    /// Lines queued and not yet taken by the writer.
    private var pending: [UInt8] = []
    /// Bytes queued and not yet written: `pending` and the batch being written.
    private var queuedBytes = 0
    /// How many batches were queued, and how many of them are written.
    private var queued: UInt64 = 0
    private var written: UInt64 = 0
    /// Lines dropped since the last notice about them, and their format.
    private var droppedLines = 0
    private var droppedFormat = LogFormat.text
    private var thread = ThreadState.notStarted
    private var closing = false
    /// `flush() async` callers, each with the batch it waits for.
    private var suspended: [(batch: UInt64, continuation: CheckedContinuation<Void, Never>)] = []

    private enum ThreadState {
        case notStarted
        /// Parked on `work`.
        case idle
        /// Writing, or woken and about to look at the queue.
        case busy
    }

    package init(descriptor: Int32, capacity: Int) {
        self.descriptor = descriptor
        self.capacity = capacity
        mutex = .allocate(capacity: 1)
        work = .allocate(capacity: 1)
        progress = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(work, nil)
        pthread_cond_init(progress, nil)
    }

    deinit {
        pthread_cond_destroy(progress)
        pthread_cond_destroy(work)
        pthread_mutex_destroy(mutex)
        progress.deallocate()
        work.deallocate()
        mutex.deallocate()
    }

    /// Queues `bytes` (whole lines); when `waits`, returns once they are written, and never
    /// drops them. Otherwise a batch that does not fit under `capacity` is dropped and counted.
    package func enqueue(_ bytes: [UInt8], format: LogFormat, waits: Bool) {
        pthread_mutex_lock(mutex)
        if !waits, queuedBytes + bytes.count > capacity {
            droppedLines += Self.lineCount(bytes)
            droppedFormat = format
            pthread_mutex_unlock(mutex)
            return
        }
        // The notice goes where the dropped lines would have been: after everything queued
        // before them, before this batch.
        appendDropNoticeIfAny()
        pending.append(contentsOf: bytes)
        queuedBytes += bytes.count
        queued += 1
        let batch = queued
        let wake = takeWakeUp()
        pthread_mutex_unlock(mutex)
        wake?()
        guard waits else { return }
        wait(for: batch)
    }

    /// Waits until every batch queued so far is written.
    package func flush() {
        pthread_mutex_lock(mutex)
        appendDropNoticeIfAny()
        let batch = queued
        let wake = takeWakeUp()
        pthread_mutex_unlock(mutex)
        wake?()
        wait(for: batch)
    }

    /// Suspends until every batch queued so far is written.
    package func flushed() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            pthread_mutex_lock(mutex)
            appendDropNoticeIfAny()
            let batch = queued
            guard written < batch else {
                pthread_mutex_unlock(mutex)
                continuation.resume()
                return
            }
            suspended.append((batch, continuation))
            let wake = takeWakeUp()
            pthread_mutex_unlock(mutex)
            wake?()
        }
    }

    /// Lets the writer thread end once the queue is written.
    package func close() {
        pthread_mutex_lock(mutex)
        closing = true
        let idle = thread == .idle
        pthread_mutex_unlock(mutex)
        if idle { pthread_cond_signal(work) }
    }

    private func wait(for batch: UInt64) {
        pthread_mutex_lock(mutex)
        while written < batch {
            pthread_cond_wait(progress, mutex)
        }
        pthread_mutex_unlock(mutex)
    }

    /// Under `mutex`: what wakes the writer for newly queued work, if it needs waking, to be
    /// done after the mutex is released (starting a thread or signalling it is a system call).
    private func takeWakeUp() -> (() -> Void)? {
        switch thread {
        case .busy:
            return nil
        case .idle:
            thread = .busy
            return { [work] in _ = pthread_cond_signal(work) }
        case .notStarted:
            thread = .busy
            return { [self] in
                let writerThread = Thread { self.run() }
                writerThread.name = "mockapns-log"
                writerThread.start()
            }
        }
    }

    /// Under `mutex`: queues the line saying how many lines were dropped, if any were.
    private func appendDropNoticeIfAny() {
        guard droppedLines > 0 else { return }
        let message = "log output fell behind: \(droppedLines) lines dropped"
        let line = LogLine(time: LogLine.now(), level: Logger.Level.warning.rawValue, message: message,
                           fields: ["droppedLines": .stringConvertible(droppedLines)])
        let text = droppedFormat == .json ? line.json(label: "mockapns.log") : line.text
        pending.append(contentsOf: text.utf8)
        pending.append(UInt8(ascii: "\n"))
        queuedBytes += text.utf8.count + 1
        queued += 1
        droppedLines = 0
    }

    /// The writer thread: takes everything queued, writes it, says so, and parks when the
    /// queue is empty.
    private func run() {
        var batch: [UInt8] = []
        pthread_mutex_lock(mutex)
        while true {
            while pending.isEmpty, droppedLines == 0, !closing {
                thread = .idle
                pthread_cond_wait(work, mutex)
            }
            thread = .busy
            appendDropNoticeIfAny()
            if pending.isEmpty, closing { break }
            swap(&batch, &pending)
            let through = queued
            pthread_mutex_unlock(mutex)

            Self.writeAll(batch, to: descriptor)
            let count = batch.count
            batch.removeAll(keepingCapacity: true)

            pthread_mutex_lock(mutex)
            queuedBytes -= count
            written = through
            var resumed: [CheckedContinuation<Void, Never>] = []
            suspended.removeAll { waiter in
                guard waiter.batch <= through else { return false }
                resumed.append(waiter.continuation)
                return true
            }
            pthread_mutex_unlock(mutex)
            pthread_cond_broadcast(progress)
            for continuation in resumed { continuation.resume() }
            pthread_mutex_lock(mutex)
        }
        pthread_mutex_unlock(mutex)
    }

    /// Writes all of `bytes`, retrying short and interrupted writes and waiting for a
    /// non-blocking descriptor to take more; gives up on any other error (a closed pipe, a
    /// full disk), as there is nowhere to report it.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let written = writeDescriptor(descriptor, base + offset, bytes.count - offset)
                if written >= 0 {
                    offset += written
                    continue
                }
                switch errno {
                case EINTR:
                    continue
                case EAGAIN, EWOULDBLOCK:
                    var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, -1)
                default:
                    return
                }
            }
        }
    }

    /// Lines in a batch: its newlines (a batch is whole lines), at least one.
    private static func lineCount(_ bytes: [UInt8]) -> Int {
        max(1, bytes.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) })
    }
}
