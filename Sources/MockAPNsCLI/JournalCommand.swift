import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MockAPNs

/// `mockapns serve` options for the journal and the control API.
struct ObservationOptions: ParsableArguments {
    /// The control API's port when neither the configuration nor a flag says otherwise.
    static let defaultControlPort = 2198

    @Option(name: .customLong("journal"), help: "Write every journal event to this JSON Lines file (flushed on shutdown).")
    var journalFile: String?

    @Option(name: .customLong("journal-capacity"), help: "Events kept in memory; the oldest go first (default 100000).")
    var journalCapacity: Int?

    @Option(name: .customLong("journal-frames"), help: "Record every HTTP/2 frame: on (default) or off (for benchmarks). Notifications are always recorded.")
    var journalFrames: Switch?

    @Flag(name: .customLong("redact-tokens"), help: "Record authorization header values as <redacted>.")
    var redactTokens = false

    @Option(name: .customLong("control-port"), help: "The control API port (default 2198; 0 picks a free port).")
    var controlPort: Int?

    @Flag(name: .customLong("no-control"), help: "Run without the control API.")
    var noControl = false

    @Option(name: .customLong("control-host"), help: "The control API address (default 127.0.0.1; others need --control-allow-remote).")
    var controlHost: String?

    @Flag(name: .customLong("control-allow-remote"), help: "Allow the control API, which has no authentication, to bind a non-loopback address.")
    var controlAllowRemote = false

    /// `on` or `off` (`true` and `false` are read the same way).
    enum Switch: String, ExpressibleByArgument {
        case on, off

        init?(argument: String) {
            switch argument {
            case "on", "true": self = .on
            case "off", "false": self = .off
            default: return nil
            }
        }
    }

    /// Starts a server. When the control API's port was not chosen on the command line and
    /// is taken (another server on this machine), the server runs without it and says so,
    /// rather than not running at all.
    func startServer(_ configuration: MockAPNsConfiguration) async throws -> (MockAPNsServer, BoundPorts) {
        var configuration = configuration
        while true {
            let server = MockAPNsServer(configuration: configuration)
            do {
                return (server, try await server.start())
            } catch let refused as ControlBindFailed where controlPort == nil {
                try? await server.shutdown(gracePeriod: .zero)
                FileHandle.standardError.write(Data("mockapns: \(refused); running without the control API\n".utf8))
                configuration.control.port = nil
            } catch {
                try? await server.shutdown(gracePeriod: .zero)
                throw ServeError("could not start: \(error)")
            }
        }
    }

    /// Applies the flags over the configuration file's values.
    func apply(to configuration: inout MockAPNsConfiguration) throws {
        if let journalFile { configuration.journal.file = journalFile }
        if let journalCapacity {
            guard journalCapacity >= 1 else { throw ValidationError("--journal-capacity must be at least 1") }
            configuration.journal.capacity = journalCapacity
        }
        if let journalFrames { configuration.journal.recordsFrames = journalFrames == .on }
        if redactTokens { configuration.journal.redactsTokens = true }
        if let controlPort {
            guard (0...65535).contains(controlPort) else { throw ValidationError("--control-port must be 0-65535") }
            configuration.control.port = controlPort
        }
        if noControl { configuration.control.port = nil }
        if let controlHost { configuration.control.host = controlHost }
        if controlAllowRemote { configuration.control.allowsNonLoopbackHost = true }
        if configuration.control.port != nil {
            do {
                try configuration.control.checkHost()
            } catch {
                throw ServeError(error.description)
            }
        }
    }
}

/// `mockapns journal`: prints a server's journal as a readable timeline, from the control
/// API of a running server or from a JSONL file, and with `--follow` keeps printing.
struct JournalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal",
        abstract: "Print the journal of a server (control API) or of a JSONL file as a timeline."
    )

    @Option(name: .long, help: "The control API to read (default http://127.0.0.1:2198).")
    var control: String?

    @Option(name: .long, help: "A JSON Lines journal file (--journal of serve) to read instead.")
    var file: String?

    @Flag(name: .long, help: "Keep printing events as they arrive.")
    var follow = false

    @Option(name: .long, help: "Only these event types, comma-separated (notification,http2Frame,...).")
    var type: String?

    @Option(name: .long, help: "Only events after this sequence number.")
    var after: UInt64?

    @Flag(name: .long, help: "Print the events as JSON lines instead of a timeline.")
    var json = false

    func validate() throws {
        if control != nil, file != nil { throw ValidationError("give --control or --file, not both") }
    }

    func run() async throws {
        let printer = TimelinePrinter(json: json, types: type.map { Set($0.split(separator: ",").map(String.init)) })
        if let file {
            try await FileJournalReader(path: file).read(follow: follow, after: after ?? 0, printer: printer)
        } else {
            let base = control ?? "http://127.0.0.1:\(ObservationOptions.defaultControlPort)"
            try await ControlJournalReader(base: base, types: type).read(follow: follow, after: after ?? 0, printer: printer)
        }
    }
}

/// Reads events from a control API page by page; following, it long-polls for the next ones.
struct ControlJournalReader {
    var base: String
    var types: String?

    func read(follow: Bool, after: UInt64, printer: TimelinePrinter) async throws {
        var after = after
        while true {
            var query = "after=\(after)&limit=1000"
            if let types { query += "&type=\(types)" }
            if follow { query += "&wait=25000" }
            guard let url = URL(string: base + "/v1/events?" + query) else {
                throw ValidationError("--control must be a URL like http://127.0.0.1:2198, not \(base)")
            }
            let data: Data
            let response: URLResponse
            do {
                (data, response) = try await URLSession.shared.data(from: url)
            } catch let error as URLError {
                throw JournalReadError(message: "cannot reach the control API at \(base): \(Self.words(error)); is `mockapns serve` running there? (--control URL)")
            }
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            guard (response as? HTTPURLResponse)?.statusCode == 200, let events = object?["events"] as? [[String: Any]] else {
                throw JournalReadError(message: "\(url): \(String(decoding: data, as: UTF8.self))")
            }
            for event in events {
                printer.print(event)
                if let sequence = event["seq"] as? NSNumber { after = max(after, sequence.uint64Value) }
            }
            if events.count < 1000 && !follow { return }
        }
    }
}

extension ControlJournalReader {
    /// A network failure in a few words, instead of Foundation's error dump.
    static func words(_ error: URLError) -> String {
        switch error.code {
        case .cannotConnectToHost: "connection refused"
        case .cannotFindHost, .dnsLookupFailed: "unknown host"
        case .timedOut: "timed out"
        case .networkConnectionLost: "the connection was lost"
        case .notConnectedToInternet: "no network"
        case .badURL, .unsupportedURL: "not a URL it can use"
        default: "network error \(error.code.rawValue)"
        }
    }
}

/// Reads a JSONL journal file; following, it waits for the file to grow.
struct FileJournalReader {
    var path: String

    func read(follow: Bool, after: UInt64, printer: TimelinePrinter) async throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw JournalReadError(message: "cannot open \(path)")
        }
        defer { try? handle.close() }
        var pending = Data()
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty {
                guard follow else { break }
                try await Task.sleep(for: .milliseconds(200))
                continue
            }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = pending[pending.startIndex..<newline]
                pending = Data(pending[pending.index(after: newline)...])
                guard let event = try? JSONSerialization.jsonObject(with: line) as? [String: Any] else { continue }
                if let sequence = event["seq"] as? NSNumber, sequence.uint64Value <= after { continue }
                printer.print(event)
            }
        }
    }
}

struct JournalReadError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Prints one event per line: sequence, time, connection and stream, then what happened.
struct TimelinePrinter {
    var json: Bool
    var types: Set<String>?

    func print(_ event: [String: Any]) {
        let type = event["type"] as? String ?? "?"
        if let types, !types.contains(type) { return }
        if json {
            if let data = try? JSONSerialization.data(withJSONObject: event, options: [.sortedKeys]) {
                say(String(decoding: data, as: UTF8.self))
            }
            return
        }
        var line = "#\(number(event["seq"]))"
        line += " " + Self.time(event["time"])
        if let connection = event["connection"] { line += " c\(number(connection))" }
        if let stream = event["stream"] { line += "/s\(number(stream))" }
        line += "  " + Self.describe(type: type, event)
        say(line)
    }

    private func number(_ value: Any?) -> String {
        (value as? NSNumber)?.stringValue ?? "?"
    }

    /// `HH:MM:SS.mmm` UTC.
    static func time(_ value: Any?) -> String {
        guard let milliseconds = (value as? NSNumber)?.int64Value else { return "--:--:--.---" }
        let dayMilliseconds = ((milliseconds % 86_400_000) + 86_400_000) % 86_400_000
        let hours = dayMilliseconds / 3_600_000
        let minutes = dayMilliseconds / 60_000 % 60
        let seconds = dayMilliseconds / 1000 % 60
        return String(format: "%02lld:%02lld:%02lld.%03lld", hours, minutes, seconds, dayMilliseconds % 1000)
    }

    static func describe(type: String, _ event: [String: Any]) -> String {
        func text(_ key: String) -> String { event[key].map { "\($0)" } ?? "" }
        func list(_ key: String) -> String { (event[key] as? [Any])?.map { "\($0)" }.joined(separator: ",") ?? "" }
        switch type {
        case "connectionOpened":
            return "\(text("transport")) connection opened from \(text("peer"))"
        case "connectionClosed":
            let reason = event["reason"].map { ": \($0)" } ?? ""
            return "\(text("transport")) connection closed by \(text("closedBy"))\(reason)"
        case "tlsEstablished":
            var line = "TLS \(text("version")) \(text("cipher"))"
            if event["alpn"] != nil { line += " ALPN \(text("alpn"))" }
            if event["offeredALPN"] != nil { line += " (offered \(list("offeredALPN")))" }
            if event["serverName"] != nil { line += " SNI \(text("serverName"))" }
            if event["clientCertificateSubject"] != nil { line += " client \(text("clientCertificateSubject"))" }
            return line
        case "tlsFailed":
            var line = "TLS failed: \(text("reason"))"
            if event["alertSent"] != nil { line += " (sent \(text("alertSent")))" }
            if event["alertReceived"] != nil { line += " (received \(text("alertReceived")))" }
            return line
        case "http2Frame":
            let arrow = text("direction") == "inbound" ? "<-" : "->"
            var line = "\(arrow) \(text("frameType")) flags=0x\(String((event["flags"] as? NSNumber)?.intValue ?? 0, radix: 16)) length=\(text("length"))"
            if let headers = event["headers"] as? [[String]] {
                line += " " + headers.map { $0.joined(separator: ": ") }.joined(separator: ", ")
            }
            if let settings = event["settings"] as? [String: Any] {
                line += " " + settings.keys.sorted().map { "\($0)=\(settings[$0].map { "\($0)" } ?? "")" }.joined(separator: " ")
            }
            if event["errorCode"] != nil { line += " error=\(text("errorCode"))" }
            if event["lastStreamID"] != nil { line += " lastStream=\(text("lastStreamID"))" }
            if event["debugData"] != nil { line += " debug=\(text("debugData"))" }
            if event["increment"] != nil { line += " increment=\(text("increment"))" }
            return line
        case "legacyFrame":
            var line = "legacy command \(text("command"))"
            if event["identifier"] != nil { line += " id=\(text("identifier"))" }
            if event["deviceToken"] != nil { line += " token=\(text("deviceToken"))" }
            if event["payloadLength"] != nil { line += " payload=\(text("payloadLength"))B" }
            if event["problem"] != nil { line += " REFUSED: \(text("problem"))" }
            if event["rawHex"] != nil { line += " bytes=\(text("rawHex"))" }
            if event["dropped"] != nil { line += " (dropped)" }
            return line
        case "notification":
            guard let push = event["notification"] as? [String: Any] else { return "notification" }
            func field(_ key: String) -> String { push[key].map { "\($0)" } ?? "" }
            var line = "push \(field("transport")) token=\(field("deviceToken"))"
            if push["topic"] != nil { line += " topic=\(field("topic"))" }
            if push["pushType"] != nil { line += " type=\(field("pushType"))" }
            line += " => "
            if push["status"] != nil { line += field("status") + " " }
            if push["legacyStatus"] != nil { line += "status \(field("legacyStatus")) " }
            line += (push["accepted"] as? Bool) == true ? "accepted" : field("reason")
            if push["responseApnsId"] != nil { line += " apns-id=\(field("responseApnsId"))" }
            if push["dropped"] != nil { line += " (dropped)" }
            if push["problem"] != nil { line += ": \(field("problem"))" }
            return line
        case "fault":
            return "FAULT \(text("description"))"
        case "feedbackTuple":
            return "feedback tuple token=\(text("deviceToken")) time=\(text("timestamp"))"
        case "diagnosis":
            var line = "diagnosis \(text("code")): \(text("message"))"
            if let figures = event["figures"] as? [String: Any], !figures.isEmpty {
                line += " [" + figures.keys.sorted().map { "\($0)=\(figures[$0].map { "\($0)" } ?? "")" }.joined(separator: " ") + "]"
            }
            return line
        case "broadcast":
            guard let sent = event["broadcast"] as? [String: Any] else { return "broadcast" }
            func field(_ key: String) -> String { sent[key].map { "\($0)" } ?? "" }
            var line = "broadcast \(field("bundleId")) channel=\(field("channelId")) => \(field("status")) "
            line += (sent["accepted"] as? Bool) == true ? "accepted" : field("reason")
            if sent["responseApnsId"] != nil { line += " apns-id=\(field("responseApnsId"))" }
            return line
        case "channelOperation":
            guard let operation = event["channelOperation"] as? [String: Any] else { return "channelOperation" }
            func field(_ key: String) -> String { operation[key].map { "\($0)" } ?? "" }
            var line = "channel \(field("operation")) \(field("bundleId"))"
            if operation["channelId"] != nil { line += " channel=\(field("channelId"))" }
            line += " => \(field("status"))"
            if operation["reason"] != nil { line += " \(field("reason"))" }
            return line
        default:
            return type
        }
    }
}
