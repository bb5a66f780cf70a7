import Logging
import MockAPNsCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes every journal event to a JSON Lines file, one object per line.
///
/// The journal hands events over in order (outside its lock), which only appends them to a buffer here;
/// a background task encodes and writes the buffer in batches, off the event loops. `close()`
/// writes whatever is still buffered, so a shutdown (SIGTERM included) loses nothing.
///
/// The buffer is bounded: when the disk (or the encoder) cannot keep up, events beyond
/// `bufferLimit` are left out of the file, and where they would have been the file gets one
/// gap line (`JournalFileGap`); the in-memory journal still has them while its capacity
/// lasts. The log says so once.
final class JSONLFileSink: JournalSink {
    /// How long events may wait in the buffer before a batch is written.
    static let defaultBatchInterval = Duration.milliseconds(50)
    /// Events the buffer holds at most: about a quarter of a second of the busiest load
    /// measured (every frame journaled), a few tens of megabytes.
    static let defaultBufferLimit = 65_536

    let path: String
    private let descriptor: Int32
    private let bufferLimit: Int
    private let pending = Mutex<Pending>(Pending())
    /// Serializes writing: the background task and `close()` never write at once.
    private let writing = Mutex<Bool>(false)
    private let loop = Mutex<Task<Void, Never>?>(nil)
    private let logger: Logger?

    /// What waits to be written: events, then the run of events left out after them.
    private struct Pending {
        var events: [JournalEvent] = []
        var missed: JournalFileGap?
        /// Whether the log has said that the file falls behind.
        var warned = false
    }

    /// Creates (or truncates) the file at `path`.
    init(
        path: String, bufferLimit: Int = defaultBufferLimit, batchInterval: Duration = defaultBatchInterval,
        logger: Logger? = nil
    ) throws(JournalFileError) {
        self.path = path
        self.bufferLimit = max(1, bufferLimit)
        self.logger = logger
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw JournalFileError(path: path, message: String(cString: strerror(errno)))
        }
        self.descriptor = descriptor
        let task = Task.detached { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: batchInterval)
                self?.writeBuffered()
            }
        }
        loop.withLock { $0 = task }
    }

    func receive(_ event: JournalEvent) {
        let firstMiss = pending.withLock { pending -> Bool in
            // Once a gap has begun, later events join it until the writer takes the batch, so
            // the file never holds an event that came after one it left out.
            if pending.events.count < bufferLimit, pending.missed == nil {
                pending.events.append(event)
                return false
            }
            if var gap = pending.missed {
                gap.missed += 1
                gap.lastSequence = event.sequence
                pending.missed = gap
            } else {
                pending.missed = JournalFileGap(missed: 1, firstSequence: event.sequence, lastSequence: event.sequence)
            }
            defer { pending.warned = true }
            return !pending.warned
        }
        if firstMiss {
            logger?.warning(
                "the journal file cannot keep up: events are left out of it, each run marked by a gap line (the in-memory journal keeps them)",
                metadata: ["file": "\(path)", "buffered": "\(bufferLimit)"]
            )
        }
    }

    /// Stops the background writer, writes everything buffered, and closes the file.
    func close() async {
        let task = loop.withLock { task in
            defer { task = nil }
            return task
        }
        task?.cancel()
        await task?.value
        writeBuffered()
        writing.withLock { closed in
            guard !closed else { return }
            closed = true
            fsync(descriptor)
            closeDescriptor(descriptor)
        }
    }

    /// Encodes and writes the events buffered so far, and the gap after them (the background
    /// task's batch; tests call it to write at a moment of their choosing).
    func writeBuffered() {
        let (batch, gap) = pending.withLock { pending in
            defer {
                pending.events.removeAll(keepingCapacity: true)
                pending.missed = nil
            }
            return (pending.events, pending.missed)
        }
        guard !batch.isEmpty || gap != nil else { return }
        var text = ""
        text.reserveCapacity(batch.count * 200)
        for event in batch {
            text += JournalJSON.encode(event)
            text += "\n"
        }
        if let gap { text += gap.line + "\n" }
        writing.withLock { closed in
            guard !closed else { return }
            var text = text
            text.withUTF8 { raw in
                guard let base = raw.baseAddress else { return }
                var offset = 0
                while offset < raw.count {
                    let written = write(descriptor, base + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return
                    }
                    offset += written
                }
            }
        }
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
public struct JournalFileError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String
    public var description: String { "cannot write the journal file \(path): \(message)" }
}
