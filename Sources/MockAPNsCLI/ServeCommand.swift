import ArgumentParser
import Foundation
import Logging
import MockAPNs
import MockAPNsCore
import UnixSignals

/// `mockapns serve`: runs the mock server until SIGINT or SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the mock APNs server.",
        discussion: """
            Settings come from the defaults, then --config FILE (JSON), then the flags given here.
            On start it prints one line with the bound ports; on SIGINT or SIGTERM every legacy
            gateway connection gets the status-10 packet and every HTTP/2 connection gets GOAWAY
            {"reason":"Shutdown"} before the server exits.
            """
    )

    @Option(name: .long, help: "A JSON configuration file (see the README for its keys).")
    var config: String?

    @Option(name: .long, help: "The address to listen on (default 127.0.0.1).")
    var host: String?

    @Option(name: .customLong("http2-port"), help: "The HTTP/2 provider API port (default 2197; 0 picks a free port).")
    var http2Port: Int?

    @Option(name: .long, help: "The environment this server plays: sandbox or production (default sandbox).")
    var environment: APNsEnvironment?

    @Option(name: .customLong("cert-dir"), help: "Folder with server.pem, server-key.pem, ca.pem and provider keys (default: ./certs-dev if present, else $XDG_DATA_HOME/mockapns or ~/.mockapns, created on first run).")
    var certificateDirectory: String?

    @Option(name: .customLong("key-dir"), help: "Folder with AuthKey_<KEYID>.p8 files and keys.json (default: the --cert-dir).")
    var keyDirectory: String?

    @Option(name: .long, help: "The server clock: real (default), epoch seconds, or an ISO 8601 UTC time to pin it at (e.g. 2026-01-01T00:00:00Z).")
    var clock: String?

    @Flag(name: .customLong("no-auth"), help: "Accept requests without a client certificate or provider token (not what Apple does).")
    var noAuthentication = false

    @Option(name: .customLong("max-concurrent-streams"), help: "SETTINGS_MAX_CONCURRENT_STREAMS (default 1000).")
    var maxConcurrentStreams: Int?

    @Option(name: .customLong("idle-timeout"), help: "Seconds idle before GOAWAY IdleTimeout (default: never).")
    var idleTimeout: Double?

    @Option(name: .customLong("broadcast-manage-port"), help: "The broadcast channel management API port (default 2199; 0 picks a free port).")
    var broadcastManagePort: Int?
    @Option(name: .customLong("tls-handshake-timeout"), help: "Seconds a connection has to finish its TLS handshake, on every APNs port (default 10).")
    var tlsHandshakeTimeout: Double?

    @Option(name: .customLong("http2-preface-timeout"), help: "Seconds an HTTP/2 client has after its TLS handshake to send its connection preface (default 10).")
    var http2PrefaceTimeout: Double?

    @Option(name: .customLong("control-header-timeout"), help: "Seconds a control API client has to send each request's header block (default 10).")
    var controlHeaderTimeout: Double?

    @Option(name: .customLong("gateway-port"), help: "The legacy binary gateway port (default 2195; 0 picks a free port).")
    var gatewayPort: Int?

    @Option(name: .customLong("feedback-port"), help: "The legacy feedback service port (default 2196; 0 picks a free port).")
    var feedbackPort: Int?

    @Flag(name: .customLong("legacy-allow-old-tls"), help: "Accept TLS 1.0 and 1.1 (OpenSSL security level 0) on the legacy ports.")
    var legacyAllowOldTLS = false

    @Option(name: .customLong("legacy-parse-error-policy"), help: "Unparseable legacy frames: silentClose (default, TN2265) or statusPacket (status 128).")
    var legacyParseErrorPolicy: LegacyParseErrorPolicy?

    @Option(name: .customLong("legacy-token-length"), help: "Legacy device token length in bytes, 1-100 (default 32).")
    var legacyTokenLength: Int?

    @Flag(name: .customLong("legacy-variable-token-length"), help: "Accept legacy tokens of any length up to --legacy-token-length.")
    var legacyVariableTokenLength = false

    @Option(name: .customLong("legacy-max-payload"), help: "Largest legacy payload in bytes: 2048 (default, iOS 8+) or 256 (iOS 7 and before).")
    var legacyMaxPayload: Int?

    @Option(name: .customLong("scenario"), help: "A scenario file (JSON): scripted answers, delays and faults; see scenarios/.")
    var scenarioFile: String?

    @OptionGroup(title: "Journal and control API")
    var observation: ObservationOptions

    @OptionGroup(title: "Delivery and forwarding")
    var deliveryFlags: DeliveryFlags

    @Option(name: .customLong("ports-file"), help: "Write the bound ports to this file as JSON once listening.")
    var portsFile: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (default info).")
    var logLevel: Logger.Level = .info

    @Option(name: .customLong("log-format"), help: "text (default) or json (one JSON object per line, for CI logs).")
    var logFormat: LogFormat = .text

    @Flag(name: .long, help: "No access log (the info line per notification and per connection).")
    var quiet = false

    func run() async throws {
        var configuration = try resolveConfiguration()
        let level = logLevel
        let format = logFormat
        LoggingSystem.bootstrap { label in
            MockAPNsLogHandler(label: label, format: format, level: level)
        }
        if !quiet, level <= .info {
            configuration.accessLog = MockAPNsConfiguration.AccessLogSettings(format: format)
        }
        let credentials = try prepareCredentials(&configuration)
        let (server, ports) = try await observation.startServer(configuration)
        say("mockapns listening \(ports.summary(host: configuration.host, controlHost: configuration.control.host))")
        if let credentials {
            say(credentials.guide(configuration: configuration, http2Port: ports.http2))
        }
        if let portsFile {
            try Data((ports.json + "\n").utf8).write(to: URL(fileURLWithPath: portsFile))
        }
        let signal = await TerminationSignal.wait()
        say("mockapns received \(signal), shutting down")
        try await server.shutdown()
    }

    /// Apple's port numbers: the command line's defaults.
    static let applePorts = (http2: 2197, gateway: 2195, feedback: 2196)

    private func resolveConfiguration() throws -> MockAPNsConfiguration {
        var configuration = MockAPNsConfiguration()
        // Empty until a file or flag names it; `prepareCredentials` then picks the folder.
        configuration.certificateDirectory = ""
        // The embedding API binds free ports; the command line serves on Apple's.
        configuration.http2Port = Self.applePorts.http2
        configuration.legacy.gatewayPort = Self.applePorts.gateway
        configuration.legacy.feedbackPort = Self.applePorts.feedback
        configuration.control.port = ObservationOptions.defaultControlPort
        configuration.broadcast.managePort = MockAPNsConfiguration.BroadcastSettings.defaultManagePort
        if let config {
            let bytes: Data
            do {
                bytes = try Data(contentsOf: URL(fileURLWithPath: config))
            } catch {
                throw ServeError("cannot read configuration file \(config): \(error.localizedDescription)")
            }
            let text: String
            do {
                text = try UTF8FileText.decode(Array(bytes))
            } catch {
                throw ServeError("\(config): \(error)")
            }
            do {
                configuration = try MockAPNsConfiguration.parse(json: text, over: configuration)
            } catch {
                throw ServeError("\(config): \(error)")
            }
        }
        if let host { configuration.host = host }
        if let http2Port {
            guard (0...65535).contains(http2Port) else { throw ValidationError("--http2-port must be 0-65535") }
            configuration.http2Port = http2Port
        }
        if let scenarioFile {
            switch ScenarioFile.load(scenarioFile) {
            case .success(let scenario): configuration.scenario = scenario
            case .failure(let problems):
                throw ServeError(problems.lines.map { "\(scenarioFile):\($0)" }.joined(separator: "\n"))
            }
        }
        if let environment { configuration.environment = environment }
        if let certificateDirectory { configuration.certificateDirectory = certificateDirectory }
        if noAuthentication { configuration.requiresAuthentication = false }
        if let keyDirectory { configuration.keyDirectory = keyDirectory }
        if let clock {
            guard let start = ClockSetting.parse(text: clock) else {
                throw ValidationError("--clock takes real, epoch seconds from 0 to 253402300799, or an ISO 8601 UTC time from 1970 to 9999 like 2026-01-01T00:00:00Z")
            }
            configuration.clockStart = start
        }
        if let maxConcurrentStreams {
            guard maxConcurrentStreams >= 1 else { throw ValidationError("--max-concurrent-streams must be at least 1") }
            configuration.http2.maxConcurrentStreams = maxConcurrentStreams
        }
        if let idleTimeout {
            guard idleTimeout > 0 else { throw ValidationError("--idle-timeout must be positive") }
            configuration.http2.idleTimeoutSeconds = idleTimeout
        }
        if let broadcastManagePort {
            guard (0...65535).contains(broadcastManagePort) else { throw ValidationError("--broadcast-manage-port must be 0-65535") }
            configuration.broadcast.managePort = broadcastManagePort
        }
        try applyTimeouts(to: &configuration.timeouts)
        try applyLegacyOptions(to: &configuration.legacy)
        try observation.apply(to: &configuration)
        try deliveryFlags.apply(to: &configuration.delivery)
        return configuration
    }
}

extension ServeCommand {
    /// The timeout flags, over what the configuration file said.
    func applyTimeouts(to timeouts: inout MockAPNsConfiguration.Timeouts) throws {
        let range = MockAPNsConfiguration.Timeouts.range
        func check(_ value: Double?, _ flag: String) throws -> Double? {
            guard let value else { return nil }
            guard range.contains(value) else {
                throw ValidationError("--\(flag) must be from \(range.lowerBound) to \(Int(range.upperBound)) seconds")
            }
            return value
        }
        if let value = try check(tlsHandshakeTimeout, "tls-handshake-timeout") { timeouts.tlsHandshakeSeconds = value }
        if let value = try check(http2PrefaceTimeout, "http2-preface-timeout") { timeouts.http2PrefaceSeconds = value }
        if let value = try check(controlHeaderTimeout, "control-header-timeout") { timeouts.controlRequestHeaderSeconds = value }
    }

    /// The legacy gateway and feedback flags, over what the configuration file said.
    func applyLegacyOptions(to legacy: inout MockAPNsConfiguration.LegacyOptions) throws {
        if let gatewayPort {
            guard (0...65535).contains(gatewayPort) else { throw ValidationError("--gateway-port must be 0-65535") }
            legacy.gatewayPort = gatewayPort
        }
        if let feedbackPort {
            guard (0...65535).contains(feedbackPort) else { throw ValidationError("--feedback-port must be 0-65535") }
            legacy.feedbackPort = feedbackPort
        }
        if legacyAllowOldTLS { legacy.allowOldTLS = true }
        if let legacyParseErrorPolicy { legacy.parseErrorPolicy = legacyParseErrorPolicy }
        if let legacyTokenLength {
            guard (1...100).contains(legacyTokenLength) else { throw ValidationError("--legacy-token-length must be 1-100") }
            legacy.tokenLength = legacyTokenLength
        }
        if legacyVariableTokenLength { legacy.variableTokenLength = true }
        if let legacyMaxPayload {
            guard (1...65535).contains(legacyMaxPayload) else { throw ValidationError("--legacy-max-payload must be 1-65535") }
            legacy.maximumPayloadLength = legacyMaxPayload
        }
    }
}

extension LegacyParseErrorPolicy: ExpressibleByArgument {}

/// A start-up failure reported in plain words, without a stack of wrapper types.
struct ServeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension APNsEnvironment: ExpressibleByArgument {}

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// Writes one line to standard output at once (no buffering), so scripts waiting for it see it.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Waits for SIGINT or SIGTERM (trapped through ServiceLifecycle's `UnixSignalsSequence`)
/// and names the one that came.
enum TerminationSignal {
    static func wait() async -> String {
        for await signal in await UnixSignalsSequence(trapping: .sigint, .sigterm) {
            return "\(signal)"
        }
        return "the end of the signal sequence"
    }
}

extension LogFormat: ExpressibleByArgument {}
