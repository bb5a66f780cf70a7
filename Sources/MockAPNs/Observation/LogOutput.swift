import Logging
import MockAPNsCore
import MockAPNsJournal
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How log lines are written: for people, or one JSON object per line for CI logs.
public enum LogFormat: String, Sendable, CaseIterable {
    /// `2026-01-01T09:14:03.112Z info message key=value ...`
    case text
    /// `{"time":"2026-01-01T09:14:03.112Z","level":"info","message":"...",...}`
    case json
}

/// One place log lines go (standard error by default): the server's log handler and its
/// access log write whole batches of lines through it, one write at a time, so their lines
/// never interleave.
public final class LogOutput: Sendable {
    private let descriptor: Int32
    private let writing = Mutex(())

    /// Lines to standard error.
    public static let standardError = LogOutput(descriptor: 2)
    /// Lines to standard output.
    public static let standardOutput = LogOutput(descriptor: 1)

    /// Lines to an open file descriptor, which stays open (the caller owns it).
    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Writes `text` (whole lines) in one go, retrying short writes.
    func write(_ text: String) {
        write(Array(text.utf8))
    }

    /// Writes `bytes` (whole lines) in one go, retrying short writes.
    func write(_ bytes: [UInt8]) {
        writing.withLock { _ in
            bytes.withUnsafeBufferPointer { bytes in
                guard let base = bytes.baseAddress else { return }
                var offset = 0
                while offset < bytes.count {
                    let written = systemWrite(descriptor, base + offset, bytes.count - offset)
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

private func systemWrite(_ descriptor: Int32, _ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int {
    #if canImport(Darwin)
    Darwin.write(descriptor, bytes, count)
    #elseif canImport(Musl)
    Musl.write(descriptor, bytes, count)
    #else
    Glibc.write(descriptor, bytes, count)
    #endif
}

/// A swift-log handler writing MockAPNs' own formats, text or JSON, to a `LogOutput`: the
/// same shapes as the access log's lines, so one stream reads as one log.
public struct MockAPNsLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public let format: LogFormat
    private let label: String
    private let output: LogOutput

    public init(label: String, format: LogFormat, level: Logger.Level = .info, output: LogOutput = .standardError) {
        self.label = label
        self.format = format
        self.logLevel = level
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata {
            merged.merge(extra) { _, new in new }
        }
        let line = LogLine(time: LogLine.now(), level: event.level.rawValue, message: "\(event.message)", fields: merged)
        output.write(format == .json ? line.json(label: label) + "\n" : line.text + "\n")
    }
}

/// One log line of the log handler before it is written.
struct LogLine {
    var time: String
    var level: String
    var message: String
    var fields: Logger.Metadata

    var text: String {
        var line = "\(time) \(level) \(message)"
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(value)"
        }
        return line
    }

    func json(label: String) -> String {
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
    static func now() -> String {
        format(millisecondsSince1970: clocks().realMilliseconds)
    }

    /// Real time in milliseconds since 1970 and the monotonic clock the journal stamps
    /// events with, read together.
    static func clocks() -> (realMilliseconds: Int64, monotonicNanoseconds: UInt64) {
        var real = timespec()
        var monotonic = timespec()
        clock_gettime(CLOCK_REALTIME, &real)
        clock_gettime(CLOCK_MONOTONIC, &monotonic)
        return (Int64(real.tv_sec) * 1000 + Int64(real.tv_nsec) / 1_000_000,
                UInt64(monotonic.tv_sec) * 1_000_000_000 + UInt64(monotonic.tv_nsec))
    }

    static func format(millisecondsSince1970 value: Int64) -> String {
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
