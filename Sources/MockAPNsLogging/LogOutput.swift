import Logging
import MockAPNsJSON
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How log lines are written: for people, or one JSON object per line for CI logs.
package enum LogFormat: String, Sendable, CaseIterable {
    /// `2026-01-01T09:14:03.112Z info message key=value ...`
    case text
    /// `{"time":"2026-01-01T09:14:03.112Z","level":"info","message":"...",...}`
    case json
}

/// One place log lines go (standard error by default): the server's log handler and its
/// access log write whole batches of lines through it, and their lines never interleave.
///
/// Nothing that logs waits for the output. One writer thread per output, started by the first
/// write, does every `write(2)`; a caller only appends its lines to a queue under a lock held
/// for the copy, never across a system call:
/// - on an event loop the call returns at once. The queue holds at most `capacity` bytes
///   (4 MiB by default) not yet written; a batch that does not fit is dropped, since a loop may
///   neither wait nor grow memory without bound behind a stalled reader, and the writer then
///   writes one `warning` line, in the dropped lines' format, saying how many lines were
///   dropped, in their place in the stream (MockAPNs' choice: losing lines of a stalled
///   output beats stalling the server it logs for);
/// - anywhere else (start-up, the access log's reader, the command line, shutdown) the call
///   waits until the writer has written its lines, after every line queued before them, so
///   a message written before the process exits is on the output, and such lines are never
///   dropped.
///
/// `flush()` waits until everything queued so far is written: call it before exiting.
package final class LogOutput: Sendable {
    /// How many bytes may wait for the writer before lines from event loops are dropped.
    package static let defaultCapacity = 4 << 20

    private let writer: LogWriter

    /// Lines to standard error.
    package static let standardError = LogOutput(descriptor: 2)
    /// Lines to standard output.
    package static let standardOutput = LogOutput(descriptor: 1)

    /// Lines to an open file descriptor, which stays open (the caller owns it).
    package convenience init(descriptor: Int32) {
        self.init(descriptor: descriptor, capacity: Self.defaultCapacity)
    }

    /// Lines to `descriptor`, with at most `capacity` bytes waiting for the writer.
    package init(descriptor: Int32, capacity: Int) {
        writer = LogWriter(descriptor: descriptor, capacity: capacity)
    }

    deinit {
        // The writer thread writes what is queued, then ends.
        writer.close()
    }

    /// Queues `text` (whole lines in `format`), written after every earlier line.
    package func write(_ text: String, format: LogFormat) {
        write(Array(text.utf8), format: format)
    }

    /// Queues `bytes` (whole lines in `format`), written after every earlier line; off an
    /// event loop, returns once they are written.
    package func write(_ bytes: [UInt8], format: LogFormat) {
        guard !bytes.isEmpty else { return }
        writer.enqueue(bytes, format: format, waits: !Self.onEventLoop)
    }

    /// Waits until every line queued so far is written (with the count of any dropped
    /// lines). On an event loop, which must never wait, it returns at once: await
    /// `flush() async` there.
    package func flush() {
        guard !Self.onEventLoop else { return }
        writer.flush()
    }

    /// Suspends until every line queued so far is written (with the count of any dropped
    /// lines), without holding a thread.
    package func flush() async {
        await writer.flushed()
    }

    /// Whether this thread is one of NIO's event loops.
    private static var onEventLoop: Bool {
        MultiThreadedEventLoopGroup.currentEventLoop != nil
    }
}

/// A swift-log handler writing MockAPNs' own formats, text or JSON, to a `LogOutput`: the
/// same shapes as the access log's lines, so one stream reads as one log.
package struct MockAPNsLogHandler: LogHandler {
    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]
    package let format: LogFormat
    private let label: String
    private let output: LogOutput

    package init(label: String, format: LogFormat, level: Logger.Level = .info, output: LogOutput = .standardError) {
        self.label = label
        self.format = format
        self.logLevel = level
        self.output = output
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata {
            merged.merge(extra) { _, new in new }
        }
        let line = LogLine(time: LogLine.now(), level: event.level.rawValue, message: "\(event.message)", fields: merged)
        output.write(format == .json ? line.json(label: label) + "\n" : line.text + "\n", format: format)
    }
}

/// One log line of the log handler before it is written.
package struct LogLine {
    package var time: String
    package var level: String
    package var message: String
    package var fields: Logger.Metadata

    package var text: String {
        var line = "\(time) \(level) \(message)"
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(value)"
        }
        return line
    }

    package func json(label: String) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.string("time", time)
        writer.string("level", level)
        writer.string("label", label)
        writer.string("message", message)
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) where !["time", "level", "label", "message"].contains(key) {
            Self.write(value, key: key, into: &writer)
        }
        writer.endObject()
        return writer.text
    }

    private static func write(_ value: Logger.MetadataValue, key: String?, into writer: inout JSONWriter) {
        switch value {
        case .string(let text):
            writer.string(key, text)
        case .stringConvertible(let value):
            switch value {
            case let number as Int: writer.integer(key, number)
            case let number as Int64: writer.integer(key, number)
            case let number as UInt64: writer.integer(key, number)
            case let number as Int32: writer.integer(key, number)
            case let flag as Bool: writer.bool(key, flag)
            default: writer.string(key, value.description)
            }
        case .array(let values):
            writer.beginArray(key)
            for element in values { write(element, key: nil, into: &writer) }
            writer.endArray()
        case .dictionary(let values):
            writer.beginObject(key)
            for (name, element) in values.sorted(by: { $0.key < $1.key }) { write(element, key: name, into: &writer) }
            writer.endObject()
        }
    }

    /// The current UTC time as ISO 8601 with milliseconds: `2026-01-01T09:14:03.112Z`.
    package static func now() -> String {
        format(millisecondsSince1970: clocks().realMilliseconds)
    }

    /// Real time in milliseconds since 1970 and the monotonic clock the journal stamps
    /// events with, read together.
    package static func clocks() -> (realMilliseconds: Int64, monotonicNanoseconds: UInt64) {
        var real = timespec()
        var monotonic = timespec()
        clock_gettime(CLOCK_REALTIME, &real)
        clock_gettime(CLOCK_MONOTONIC, &monotonic)
        return (Int64(real.tv_sec) * 1000 + Int64(real.tv_nsec) / 1_000_000,
                UInt64(monotonic.tv_sec) * 1_000_000_000 + UInt64(monotonic.tv_nsec))
    }

    package static func format(millisecondsSince1970 value: Int64) -> String {
        let seconds = Int(value / 1000)
        let milliseconds = Int(value % 1000)
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(millis)Z"
    }
}
