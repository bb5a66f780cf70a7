import MockAPNsCapture
import MockAPNsControl
import MockAPNsObservation
import ArgumentParser
import Foundation
import Logging
import MockAPNs
import MockAPNsCore
import MockAPNsJournal

/// `mockapns serve` options for the journal and the control API.
struct ObservationOptions: ParsableArguments {
    /// The control API's port when neither the configuration nor a flag says otherwise.
    static let defaultControlPort = 2198

    @Option(name: .customLong("journal"), help: ArgumentHelp("Write every journal event to this JSON Lines file (flushed on shutdown).", valueName: "file"))
    var journalFile: String?

    @Option(name: .customLong("journal-capacity"), help: ArgumentHelp("Events kept in memory, at least 1; the oldest go first (default 100000).", valueName: "events"))
    var journalCapacity: Int?

    @Option(name: .customLong("journal-capacity-bytes"), help: ArgumentHelp("Bytes the events kept in memory may take, at least 1M; the oldest go first when this or --journal-capacity is reached (default 1K an event of --journal-capacity, at least 128M). A number of bytes, or with K, M or G (powers of 1024).", valueName: "bytes"))
    var journalCapacityBytes: ByteCount?

    @Option(name: .customLong("journal-file-when-behind"), help: ArgumentHelp("When the --journal file falls behind: wait (default: read provider connections more slowly, the file stays complete) or gap (never slow down; events the memory journal has dropped become gap lines).", valueName: "wait|gap"))
    var journalFileWhenBehind: JournalFileBehindPolicy?

    @Option(name: .customLong("journal-frames"), help: ArgumentHelp("Record every HTTP/2 frame: on (default) or off (for benchmarks). Notifications are always recorded.", valueName: "on|off"))
    var journalFrames: Switch?

    @Option(name: .customLong("journal-provider-tokens"), help: ArgumentHelp("How provider tokens are recorded and logged: withoutSignature (default: header and claims, the signature removed, so they cannot be replayed), whole, or redacted (--redact-tokens, an older spelling of redacted, is accepted too).", valueName: "withoutSignature|whole|redacted"))
    var providerTokens: ProviderTokenRecording?

    /// `--journal-provider-tokens redacted` under its older spelling, still accepted (not listed).
    @Flag(name: .customLong("redact-tokens"), help: .hidden)
    var redactTokens = false

    @Flag(name: .customLong("no-control"), help: "Run without the control API.")
    var noControl = false

    @Option(name: .customLong("control-host"), help: ArgumentHelp("The control API address (default 127.0.0.1; others need --control-allow-remote).", valueName: "address"))
    var controlHost: String?

    @Flag(name: .customLong("control-allow-remote"), help: "Allow the control API to bind a non-loopback address; requests from other machines must then send the bearer token (--control-token, or one generated and printed at start).")
    var controlAllowRemote = false

    @Option(name: .customLong("control-allowed-host"), help: ArgumentHelp("A name (or address) the control API and dashboard answer to besides loopback names and the address they listen on; repeatable.", valueName: "name"))
    var controlAllowedHosts: [String] = []

    @Option(name: .customLong("control-allowed-origin"), help: ArgumentHelp("An origin (http://localhost:3000) whose pages may call the control API besides its own; repeatable.", valueName: "origin"))
    var controlAllowedOrigins: [String] = []

    @Option(name: .customLong("control-token"), help: ArgumentHelp("The bearer token requests from other machines must send (with --control-allow-remote; default: generated and printed). The environment variable MOCKAPNS_CONTROL_TOKEN keeps it out of the process list.", valueName: "token"))
    var controlToken: String?

    /// A number of bytes: `134217728`, or with a suffix K, M or G (KiB, MiB, GiB: `128M`).
    struct ByteCount: ExpressibleByArgument {
        var bytes: Int
        var text: String

        init?(argument: String) {
            let units: [Character: Int] = ["K": 1 << 10, "k": 1 << 10, "M": 1 << 20, "m": 1 << 20, "G": 1 << 30, "g": 1 << 30]
            var digits = Substring(argument)
            var unit = 1
            if let last = digits.last, let multiplier = units[last] {
                unit = multiplier
                digits = digits.dropLast()
            }
            guard let number = Int(digits), number >= 0 else { return nil }
            let (bytes, overflow) = number.multipliedReportingOverflow(by: unit)
            guard !overflow else { return nil }
            self.bytes = bytes
            self.text = argument
        }
    }

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
    /// `controlPortChosen`: whether `--control-port` was given.
    func startServer(_ configuration: MockAPNsConfiguration, logger: Logger, controlPortChosen: Bool) async throws -> (MockAPNsServer, BoundPorts) {
        var configuration = configuration
        while true {
            let server = MockAPNsServer(configuration: configuration, logger: logger)
            do {
                return (server, try await server.start())
            } catch let refused as ControlBindFailed where !controlPortChosen {
                try? await server.shutdown(gracePeriod: .zero)
                FileHandle.standardError.write(Data("mockapns: \(refused); running without the control API\n".utf8))
                configuration.controlPort = nil
            } catch {
                try? await server.shutdown(gracePeriod: .zero)
                throw ServeError("could not start: \(error)")
            }
        }
    }

    /// Checks the flags' values before anything runs (with `serve`'s usage on a mistake).
    func validate() throws {
        if let journalCapacity, journalCapacity < 1 { throw ValidationError("--journal-capacity must be at least 1, not \(journalCapacity)") }
        if let journalCapacityBytes, journalCapacityBytes.bytes < JournalOptions.minimumCapacityBytes {
            throw ValidationError("--journal-capacity-bytes must be at least 1M (\(JournalOptions.minimumCapacityBytes) bytes), not \(journalCapacityBytes.text)")
        }
    }

    /// Applies the flags (checked by `validate`) over the configuration file's values.
    /// `controlPort`: `--control-port`, which `serve --help` lists among the everyday flags.
    func apply(to configuration: inout MockAPNsConfiguration, controlPort: Int?) throws {
        if let journalFile { configuration.journalFile = journalFile }
        if let journalCapacity { configuration.journalCapacity = journalCapacity }
        if let journalCapacityBytes { configuration.journalCapacityBytes = journalCapacityBytes.bytes }
        if let journalFrames { configuration.recordsFrames = journalFrames == .on }
        if let journalFileWhenBehind { configuration.journal.fileWhenBehind = journalFileWhenBehind }
        if redactTokens { configuration.journal.redactsTokens = true }
        if let providerTokens { configuration.journal.providerTokens = providerTokens }
        if let controlPort { configuration.controlPort = controlPort }
        if noControl { configuration.controlPort = nil }
        if let controlHost { configuration.controlHost = controlHost }
        if controlAllowRemote { configuration.control.allowsNonLoopbackHost = true }
        for name in controlAllowedHosts {
            guard let host = HostHeader(name), host.port == nil else {
                throw ValidationError("--control-allowed-host takes a host name or address without a port, like mockapns.local, not \"\(name)\"")
            }
            configuration.control.allowedHosts.append(name)
        }
        for text in controlAllowedOrigins {
            guard let origin = WebOrigin(text) else {
                throw ValidationError("--control-allowed-origin takes an origin like http://localhost:3000 (scheme, host and optional port; no path), not \"\(text)\"")
            }
            configuration.control.allowedOrigins.append(origin)
        }
        if let token = try ControlTokenOption.resolve(flag: controlToken, flagName: "--control-token") {
            configuration.control.token = token
        }
        if configuration.controlPort != nil {
            do {
                try configuration.control.checkHost()
            } catch {
                throw ServeError(error.description)
            }
        }
    }
}

extension JournalFileBehindPolicy: ExpressibleByArgument {}
extension ProviderTokenRecording: ExpressibleByArgument {}

/// The control token a command was given: `--control-token`, else the environment variable
/// `MOCKAPNS_CONTROL_TOKEN`, else none.
enum ControlTokenOption {
    static let environmentVariable = "MOCKAPNS_CONTROL_TOKEN"

    static func resolve(flag: String?, flagName: String) throws -> BearerToken? {
        let (text, source): (String?, String) = flag.map { ($0, flagName) }
            ?? (ProcessInfo.processInfo.environment[environmentVariable].flatMap { $0.isEmpty ? nil : $0 }, environmentVariable)
        guard let text else { return nil }
        do {
            return try BearerToken(text)
        } catch {
            throw ValidationError("\(source): \(error)")
        }
    }
}

/// `mockapns journal`: prints a server's journal as a readable timeline, from the control
/// API of a running server or from a JSONL file, and with `--follow` keeps printing; with
/// `--pcap` writes its connections as a pcapng capture instead.
struct JournalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal",
        abstract: "Print the journal of a server (control API) or of a JSONL file as a timeline, or write its connections as a pcapng capture (--pcap)."
    )

    @Option(name: .long, help: "The control API to read (default http://127.0.0.1:2198).")
    var control: String?

    @Option(name: .customLong("control-token"), help: ArgumentHelp("The server's control token, for a control API on another machine (default: the environment variable MOCKAPNS_CONTROL_TOKEN).", valueName: "token"))
    var controlToken: String?

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

    @Option(name: .long, help: ArgumentHelp("Write the recorded connections as a pcapng capture to this file instead of printing (Wireshark, tshark; see the file's comments for the -d options of its ports).", valueName: "capture.pcapng"))
    var pcap: String?

    @Option(name: .long, help: ArgumentHelp("With --file and --pcap: the ports file (--ports-file of serve) naming the listeners' ports; without it, the ports serve listens on unless told otherwise.", valueName: "file"))
    var ports: String?

    func validate() throws {
        if control != nil, file != nil { throw ValidationError("give --control or --file, not both") }
        if pcap != nil {
            if follow { throw ValidationError("--pcap writes the journal as it is; it cannot --follow") }
            if json || type != nil || after != nil { throw ValidationError("--pcap takes every connection: no --json, --type or --after") }
        }
        if ports != nil, pcap == nil || file == nil { throw ValidationError("--ports goes with --file and --pcap") }
        _ = try Self.eventTypes(type)
        if let control {
            do {
                _ = try ControlURL(control)
            } catch {
                throw ValidationError(error.description)
            }
        }
    }

    func run() async throws {
        if let pcap {
            try await writeCapture(to: pcap)
            return
        }
        let types = try Self.eventTypes(type)
        let printer = TimelinePrinter(json: json, types: types)
        if let file {
            try await FileJournalReader(path: file).read(follow: follow, after: after ?? 0, printer: printer)
        } else {
            let url = try ControlURL(control ?? "http://127.0.0.1:\(ObservationOptions.defaultControlPort)")
            let token = try ControlTokenOption.resolve(flag: controlToken, flagName: "--control-token")
            try await ControlJournalReader(client: ControlClient(url: url, token: token), types: type)
                .read(follow: follow, after: after ?? 0, printer: printer)
        }
    }

    /// `--pcap`: the capture the control API makes, or one made here from a JSONL file.
    private func writeCapture(to path: String) async throws {
        let bytes: [UInt8]
        if let file {
            let listeners = try ports.map { try JournalCapturePorts.read(path: $0) } ?? CapturePorts.serveDefaults
            bytes = JournalCapture.pcapng(try FileJournalReader(path: file).events(kinds: JournalCapture.kinds), ports: listeners)
        } else {
            let url = try ControlURL(control ?? "http://127.0.0.1:\(ObservationOptions.defaultControlPort)")
            let token = try ControlTokenOption.resolve(flag: controlToken, flagName: "--control-token")
            let path = "/v1/journal/capture.pcapng"
            let answer: ControlClient.Answer
            do {
                answer = try await ControlClient(url: url, token: token).get(path, timeout: .seconds(120))
            } catch {
                throw JournalReadError(message: "\(error.description); is `mockapns serve` running there? (--control URL)")
            }
            guard answer.status == 200 else { throw JournalReadError(message: "\(url.text + path): \(answer.status) \(answer.body)") }
            bytes = answer.bytes
        }
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw JournalReadError(message: "cannot write \(path) (--pcap): \(error.localizedDescription)")
        }
    }

    /// The names given to `--type`, each checked against the journal's event kinds; `nil`
    /// when none were given.
    static func eventTypes(_ list: String?) throws -> Set<String>? {
        guard let list else { return nil }
        let names = list.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let unknown = names.filter { JournalEventKind.Name(text: $0) == nil }
        guard unknown.isEmpty else {
            let quoted = unknown.map { $0.isEmpty ? "\"\"" : $0 }.joined(separator: ", ")
            throw ValidationError("--type: no event type \(quoted); the types are \(JournalEventKind.Name.texts.joined(separator: ", "))")
        }
        return Set(names)
    }
}

/// Reads events from a control API page by page; following, it long-polls for the next ones.
struct ControlJournalReader {
    var client: ControlClient
    var types: String?

    /// How long the server holds a following read open (`wait`), and how much longer the
    /// client waits for it before giving up.
    static let longPoll = (server: Duration.seconds(25), slack: Duration.seconds(15))

    func read(follow: Bool, after: UInt64, printer: TimelinePrinter) async throws {
        var after = after
        while true {
            var query = "after=\(after)&limit=1000"
            if let types { query += "&type=\(types)" }
            if follow { query += "&wait=\(Self.longPoll.server.components.seconds * 1000)" }
            let path = "/v1/events?" + query
            let answer: ControlClient.Answer
            do {
                answer = try await client.get(path, timeout: follow ? Self.longPoll.server + Self.longPoll.slack : Self.longPoll.slack)
            } catch {
                throw JournalReadError(message: "\(error.description); is `mockapns serve` running there? (--control URL)")
            }
            let source = client.url.text + path
            guard answer.status == 200 else {
                throw JournalReadError(message: "\(source): \(answer.status) \(answer.body)")
            }
            let events = try Self.events(in: answer.body, from: source)
            for event in events {
                printer.print(event)
                after = max(after, event.sequence)
            }
            if events.count < 1000 && !follow { return }
        }
    }
}

extension ControlJournalReader {
    /// The events of one `GET /v1/events` answer, read into the types the server wrote them from.
    static func events(in text: String, from source: String) throws -> [JournalEvent] {
        do throws(JSONFileError) {
            var page = try JSONObjectReader(JSONParser.parse(text))
            guard let elements = try page.array("events") else {
                throw page.missing("events", expected: "the page's events")
            }
            return try elements.map { (path, node) throws(JSONFileError) in try JournalJSON.decode(node, path: path) }
        } catch {
            throw JournalReadError(message: "\(source): \(error)")
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
        var lineNumber = 0
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty {
                guard follow else { break }
                try await Task.sleep(for: .milliseconds(200))
                continue
            }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending = Data(pending[pending.index(after: newline)...])
                lineNumber += 1
                guard !line.isEmpty else { continue }
                if let gap = JournalFileGap(line: line) {
                    if gap.lastSequence > after { printer.print(gap, line: line) }
                    continue
                }
                do {
                    let event = try JournalJSON.decode(line)
                    if event.sequence > after { printer.print(event) }
                } catch {
                    FileHandle.standardError.write(Data("mockapns journal: \(path) line \(lineNumber): \(error)\n".utf8))
                }
            }
        }
    }
}

extension FileJournalReader {
    /// Every event of `kinds` in the file, in its order (gap lines and unreadable lines
    /// passed over, the latter told on standard error).
    func events(kinds: Set<String>) throws -> [JournalEvent] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw JournalReadError(message: "cannot open \(path)")
        }
        var events: [JournalEvent] = []
        for (index, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            let text = String(decoding: line, as: UTF8.self)
            if JournalFileGap(line: text) != nil { continue }
            do {
                let event = try JournalJSON.decode(text)
                if kinds.contains(event.kind.name) { events.append(event) }
            } catch {
                FileHandle.standardError.write(Data("mockapns journal: \(path) line \(index + 1): \(error)\n".utf8))
            }
        }
        return events
    }
}

/// The listeners a capture made from a file names: the ports file `serve --ports-file` wrote.
enum JournalCapturePorts {
    static func read(path: String) throws -> CapturePorts {
        guard let data = FileManager.default.contents(atPath: path),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw JournalReadError(message: "--ports: cannot read \(path) as the JSON object of --ports-file")
        }
        var listeners: [CapturePorts.Listener] = []
        let names: [(String, Transport)] = [
            ("http2", .http2), ("gateway", .legacy), ("feedback", .feedback), ("channelManagement", .channelManagement),
        ]
        func add(_ object: [String: Any], environment: APNsEnvironment?) {
            for (key, transport) in names {
                if let port = (object[key] as? Int).flatMap(UInt16.init(exactly:)) {
                    listeners.append(CapturePorts.Listener(transport: transport, environment: environment, port: port))
                }
            }
        }
        for (name, value) in (object["environments"] as? [String: Any]) ?? [:] {
            if let environment = APNsEnvironment(rawValue: name), let ports = value as? [String: Any] { add(ports, environment: environment) }
        }
        add(object, environment: nil)
        if let port = (object["webPush"] as? Int).flatMap(UInt16.init(exactly:)) {
            listeners.append(CapturePorts.Listener(transport: .webPush, environment: nil, port: port))
        }
        guard !listeners.isEmpty else { throw JournalReadError(message: "--ports: \(path) names no listener's port") }
        return CapturePorts(listeners: listeners)
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

    func print(_ event: JournalEvent) {
        if let types, !types.contains(event.kind.name) { return }
        if json {
            say(JournalJSON.encode(event))
            return
        }
        var line = "#\(event.sequence) " + Self.time(event.wallTimeMilliseconds)
        if let connection = event.connectionID { line += " c\(connection)" }
        if let stream = event.streamID { line += "/s\(stream)" }
        say(line + "  " + event.kind.summary)
    }

    /// A run of events the file left out because writing it fell behind.
    func print(_ gap: JournalFileGap, line: String) {
        if json {
            say(line)
            return
        }
        say("#\(gap.firstSequence)-#\(gap.lastSequence)  \(gap.missed) event(s) not in this file: writing it fell behind (the server's memory journal kept them)")
    }

    /// `HH:MM:SS.mmm` UTC.
    static func time(_ milliseconds: Int64) -> String {
        let dayMilliseconds = ((milliseconds % 86_400_000) + 86_400_000) % 86_400_000
        let hours = dayMilliseconds / 3_600_000
        let minutes = dayMilliseconds / 60_000 % 60
        let seconds = dayMilliseconds / 1000 % 60
        return String(format: "%02lld:%02lld:%02lld.%03lld", hours, minutes, seconds, dayMilliseconds % 1000)
    }
}
