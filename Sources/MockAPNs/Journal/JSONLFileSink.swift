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
final class JSONLFileSink: JournalSink {
    /// How long events may wait in the buffer before a batch is written.
    static let batchInterval = Duration.milliseconds(50)

    let path: String
    private let descriptor: Int32
    private let pending = Mutex<[JournalEvent]>([])
    /// Serializes writing: the background task and `close()` never write at once.
    private let writing = Mutex<Bool>(false)
    private let loop = Mutex<Task<Void, Never>?>(nil)

    /// Creates (or truncates) the file at `path`.
    init(path: String) throws(JournalFileError) {
        self.path = path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw JournalFileError(path: path, message: String(cString: strerror(errno)))
        }
        self.descriptor = descriptor
        let task = Task.detached { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.batchInterval)
                self?.writeBuffered()
            }
        }
        loop.withLock { $0 = task }
    }

    func receive(_ event: JournalEvent) {
        pending.withLock { $0.append(event) }
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

    /// Encodes and writes the events buffered so far.
    private func writeBuffered() {
        let batch = pending.withLock { events in
            defer { events.removeAll(keepingCapacity: true) }
            return events
        }
        guard !batch.isEmpty else { return }
        var text = ""
        text.reserveCapacity(batch.count * 200)
        for event in batch {
            text += JournalJSON.encode(event)
            text += "\n"
        }
        writing.withLock { closed in
            guard !closed else { return }
            let bytes = Array(text.utf8)
            bytes.withUnsafeBytes { raw in
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
