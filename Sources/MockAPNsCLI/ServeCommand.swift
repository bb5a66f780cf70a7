import MockAPNsObservation
import ArgumentParser
import Foundation
import Logging
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import UnixSignals
import MockAPNsLegacy

/// `mockapns serve`: runs the mock server until SIGINT or SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the mock APNs server.",
        discussion: """
            Settings come from the defaults, then --config FILE (JSON), then the flags given here. \
            On start it prints one line with the bound ports (and writes them to --ports-file). \
            On SIGINT or SIGTERM every legacy gateway connection gets the status-10 packet and every \
            HTTP/2 connection gets GOAWAY {"reason":"Shutdown"} before the server exits.
            """
    )

    @Option(name: .long, help: ArgumentHelp("A JSON configuration file (see the README for its keys).", valueName: "file"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("The address to listen on (default 127.0.0.1).", valueName: "address"))
    var host: String?

    @Option(name: .customLong("http2-port"), help: ArgumentHelp("The HTTP/2 provider API port (default 2197; 0 picks a free port).", valueName: "port"))
    var http2Port: Int?

    @Flag(name: .customLong("ephemeral-ports"), help: "Every listener on a free port (HTTP/2, gateway, feedback, channel management, control API, and with --environment both the production ones), reported in the listening line and --ports-file.")
    var ephemeralPorts = false

    @Option(name: .long, help: "The environment this server plays: sandbox, production, or both (the ports above serve the sandbox, the --production-* ports production; default sandbox).")
    var environment: ServerEnvironment?

    @Option(name: .customLong("production-http2-port"), help: "With --environment both: the production HTTP/2 port (default 2297; 0 picks a free port).")
    var productionHTTP2Port: Int?

    @Option(name: .customLong("production-gateway-port"), help: "With --environment both: the production legacy gateway port (default 2295; 0 picks a free port).")
    var productionGatewayPort: Int?

    @Option(name: .customLong("production-feedback-port"), help: "With --environment both: the production feedback port (default 2296; 0 picks a free port).")
    var productionFeedbackPort: Int?

    @Option(name: .customLong("production-broadcast-manage-port"), help: "With --environment both: the production channel management port (default 2299; 0 picks a free port).")
    var productionBroadcastManagePort: Int?

    @Option(name: .customLong("cert-dir"), help: ArgumentHelp("Folder with server.pem, server-key.pem, ca.pem and provider keys (default: ./certs-dev if present, else $XDG_DATA_HOME/mockapns or ~/.mockapns, created on first run).", valueName: "folder"))
    var certificateDirectory: String?

    @Option(name: .customLong("key-dir"), help: ArgumentHelp("Folder with AuthKey_<KEYID>.p8 files and keys.json (default: the --cert-dir).", valueName: "folder"))
    var keyDirectory: String?

    @Option(name: .long, help: ArgumentHelp("The server clock: real (default), epoch seconds, or an ISO 8601 UTC time to pin it at (e.g. 2026-01-01T00:00:00Z).", valueName: "time"))
    var clock: String?

    @Flag(name: .customLong("no-auth"), help: "Accept requests without a client certificate or provider token (not what Apple does).")
    var noAuthentication = false

    @Option(name: .customLong("max-concurrent-streams"), help: ArgumentHelp("SETTINGS_MAX_CONCURRENT_STREAMS, at least 1 (default 1000).", valueName: "count"))
    var maxConcurrentStreams: Int?

    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("Seconds idle before GOAWAY IdleTimeout (default: never).", valueName: "seconds"))
    var idleTimeout: Double?

    @Option(name: .customLong("broadcast-manage-port"), help: ArgumentHelp("The broadcast channel management API port (default 2199; 0 picks a free port).", valueName: "port"))
    var broadcastManagePort: Int?

    @Option(name: .customLong("tls-handshake-timeout"), help: ArgumentHelp("Seconds a connection has to finish its TLS handshake, on every APNs port (default 10).", valueName: "seconds"))
    var tlsHandshakeTimeout: Double?

    @Option(name: .customLong("http2-preface-timeout"), help: ArgumentHelp("Seconds an HTTP/2 client has after its TLS handshake to send its connection preface (default 10).", valueName: "seconds"))
    var http2PrefaceTimeout: Double?

    @Option(name: .customLong("control-header-timeout"), help: ArgumentHelp("Seconds a control API client has to send each request's header block (default 10).", valueName: "seconds"))
    var controlHeaderTimeout: Double?

    @Option(name: .customLong("legacy-idle-timeout"), help: "Seconds a legacy gateway or feedback connection may receive nothing, after the TLS handshake (default 300).")
    var legacyIdleTimeout: Double?

    @Option(name: .customLong("legacy-frame-timeout"), help: "Seconds a legacy gateway frame may take from its first byte to its last (default 10).")
    var legacyFrameTimeout: Double?

    @Option(name: .customLong("gateway-port"), help: ArgumentHelp("The legacy binary gateway port (default 2195; 0 picks a free port).", valueName: "port"))
    var gatewayPort: Int?

    @Option(name: .customLong("feedback-port"), help: ArgumentHelp("The legacy feedback service port (default 2196; 0 picks a free port).", valueName: "port"))
    var feedbackPort: Int?

    @Flag(name: .customLong("legacy-allow-old-tls"), help: "Accept TLS 1.0 and 1.1 (OpenSSL security level 0) on the legacy ports.")
    var legacyAllowOldTLS = false

    @Option(name: .customLong("legacy-parse-error-policy"), help: "Unparseable legacy frames: closed silently (silentClose, the default, as TN2265 describes) or answered with status 128 (statusPacket).")
    var legacyParseErrorPolicy: LegacyParseErrorPolicy?

    @Option(name: .customLong("legacy-token-length"), help: ArgumentHelp("Legacy device token length in bytes, 1-100 (default 32).", valueName: "bytes"))
    var legacyTokenLength: Int?

    @Flag(name: .customLong("legacy-variable-token-length"), help: "Accept legacy tokens of any length up to --legacy-token-length.")
    var legacyVariableTokenLength = false

    @Option(name: .customLong("legacy-max-payload"), help: ArgumentHelp("Largest legacy payload in bytes, 1-65535 (default 2048, Apple's limit since iOS 8; 256 before).", valueName: "bytes"))
    var legacyMaxPayload: Int?

    @Option(name: .customLong("legacy-invalid-json"), help: "A legacy notification whose payload is not JSON: accept (default), silentClose, or a status byte to answer (such as 1 or 255).")
    var legacyInvalidJSON: String?

    @Option(name: .customLong("scenario"), help: ArgumentHelp("A scenario file (JSON): scripted answers, delays and faults; see scenarios/.", valueName: "file"))
    var scenarioFile: String?

    @OptionGroup(title: "Journal and control API")
    var observation: ObservationOptions

    @OptionGroup(title: "Delivery and forwarding")
    var deliveryFlags: DeliveryFlags

    @Option(name: .customLong("ports-file"), help: ArgumentHelp("Write the bound ports to this file as JSON once listening.", valueName: "file"))
    var portsFile: String?

    @Option(name: .customLong("log-level"), help: "The least severe log lines written.")
    var logLevel: Logger.Level = .info

    @Option(name: .customLong("log-format"), help: "text, or json (one JSON object per line, for CI logs).")
    var logFormat: LogFormat = .text

    @Flag(name: .long, help: "No access log (the info line per notification and per connection).")
    var quiet = false

    func run() async throws {
        // Log lines queued from the event loops are on standard error before the process
        // exits, and before the error that ends it, if any.
        do {
            try await serve()
        } catch {
            await LogOutput.standardError.flush()
            throw error
        }
        await LogOutput.standardError.flush()
    }

    private func serve() async throws {
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
        // Trapped before anything listens: a script that signals as soon as it sees the
        // listening line must get the graceful shutdown, not the default action.
        let signals = await TerminationSignal.trap()
        let (server, ports) = try await observation.startServer(configuration, logger: Logger(label: "mockapns"))
        if let portsFile {
            // Whole (written aside, then renamed) and before the listening line, so whoever
            // waits for that line finds the file complete.
            do {
                try Data((ports.json + "\n").utf8).write(to: URL(fileURLWithPath: portsFile), options: .atomic)
            } catch {
                try await server.shutdown()
                throw ServeError("cannot write the ports file \(portsFile) (--ports-file): \(error.localizedDescription)")
            }
        }
        say("mockapns listening \(ports.summary(host: configuration.host, controlHost: configuration.control.host))")
        if configuration.control.token == nil, let token = server.controlToken, let control = ports.control {
            // The one place the token is shown: it was made for this run and is needed to use
            // the control API from another machine. The address is one a browser can open (a
            // wildcard bind's 0.0.0.0 or :: is not).
            let settings = configuration.control
            let elsewhere = settings.listensOnEveryAddress ? " (from another machine, with this machine's address)" : ""
            say("mockapns control token (generated for this run): \(token.value) - other machines send \"Authorization: Bearer <token>\"; the dashboard takes it as \(settings.dashboardAddress(port: control))#token=<token>\(elsewhere)")
        }
        if let credentials {
            say(credentials.guide(configuration: configuration, http2Port: ports.http2))
        }
        let signal = await TerminationSignal.wait(signals)
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
        configuration.productionPorts = .commandLineDefaults
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
        if let http2Port { configuration.http2Port = http2Port }
        if let scenarioFile {
            switch ScenarioFile.load(scenarioFile) {
            case .success(let scenario): configuration.scenario = scenario
            case .failure(let problems):
                throw ServeError(problems.lines.map { "\(scenarioFile):\($0)" }.joined(separator: "\n"))
            }
        }
        if let environment { configuration.environment = environment }
        let productionFlags: [(Int?, String, WritableKeyPath<MockAPNsConfiguration.ProductionPorts, Int>)] = [
            (productionHTTP2Port, "--production-http2-port", \.http2),
            (productionGatewayPort, "--production-gateway-port", \.gateway),
            (productionFeedbackPort, "--production-feedback-port", \.feedback),
            (productionBroadcastManagePort, "--production-broadcast-manage-port", \.channelManagement),
        ]
        for (value, _, keyPath) in productionFlags {
            guard let value else { continue }
            configuration.productionPorts[keyPath: keyPath] = value
        }
        if let certificateDirectory { configuration.certificateDirectory = certificateDirectory }
        if noAuthentication { configuration.requiresAuthentication = false }
        if let keyDirectory { configuration.keyDirectory = keyDirectory }
        if let clock, case .some(let start) = ClockSetting.parse(text: clock) { configuration.clockStart = start }
        if let maxConcurrentStreams { configuration.http2.maxConcurrentStreams = maxConcurrentStreams }
        if let idleTimeout { configuration.http2.idleTimeoutSeconds = idleTimeout }
        if let broadcastManagePort { configuration.broadcast.managePort = broadcastManagePort }
        applyTimeouts(to: &configuration.timeouts)
        applyLegacyOptions(to: &configuration.legacy)
        try observation.apply(to: &configuration)
        try deliveryFlags.apply(to: &configuration.delivery)
        if ephemeralPorts { Self.giveFreePorts(to: &configuration) }
        return configuration
    }

    /// What `--clock` takes, for its error message (`token --clock` takes the same).
    static let clockUsage = "--clock takes real, epoch seconds from 0 to 253402300799, or an ISO 8601 UTC time from 1970 to 9999 like 2026-01-01T00:00:00Z"

    /// `--ephemeral-ports`: every listener that runs binds a free port; one that is off
    /// (`--no-control`, a configuration without broadcast) stays off.
    static func giveFreePorts(to configuration: inout MockAPNsConfiguration) {
        configuration.http2Port = 0
        configuration.legacy.gatewayPort = 0
        configuration.legacy.feedbackPort = 0
        if configuration.broadcast.managePort != nil { configuration.broadcast.managePort = 0 }
        if configuration.control.port != nil { configuration.control.port = 0 }
        configuration.productionPorts = MockAPNsConfiguration.ProductionPorts(http2: 0, gateway: 0, feedback: 0, channelManagement: 0)
    }

    /// Checks the flags' values before anything runs, so a mistake is told with this
    /// command's usage rather than the top-level one.
    func validate() throws {
        if ephemeralPorts {
            let fixed = [
                ("--http2-port", http2Port), ("--gateway-port", gatewayPort), ("--feedback-port", feedbackPort),
                ("--broadcast-manage-port", broadcastManagePort), ("--control-port", observation.controlPort),
                ("--production-http2-port", productionHTTP2Port), ("--production-gateway-port", productionGatewayPort),
                ("--production-feedback-port", productionFeedbackPort),
                ("--production-broadcast-manage-port", productionBroadcastManagePort),
            ].filter { $0.1 != nil }.map(\.0)
            guard fixed.isEmpty else {
                throw ValidationError("--ephemeral-ports gives every listener a free port; drop it or \(fixed.joined(separator: ", "))")
            }
        }
        for (flag, port) in [
            ("--http2-port", http2Port), ("--gateway-port", gatewayPort), ("--feedback-port", feedbackPort),
            ("--broadcast-manage-port", broadcastManagePort), ("--production-http2-port", productionHTTP2Port),
            ("--production-gateway-port", productionGatewayPort), ("--production-feedback-port", productionFeedbackPort),
            ("--production-broadcast-manage-port", productionBroadcastManagePort),
        ] {
            if let port, !(0...65535).contains(port) { throw ValidationError("\(flag) must be 0-65535, not \(port)") }
        }
        if let clock, ClockSetting.parse(text: clock) == nil { throw ValidationError(Self.clockUsage) }
        if let maxConcurrentStreams, maxConcurrentStreams < 1 { throw ValidationError("--max-concurrent-streams must be at least 1, not \(maxConcurrentStreams)") }
        if let idleTimeout, !(idleTimeout > 0) { throw ValidationError("--idle-timeout must be a positive number of seconds, not \(idleTimeout)") }
        let range = MockAPNsConfiguration.Timeouts.range
        for (flag, value) in [
            ("--tls-handshake-timeout", tlsHandshakeTimeout), ("--http2-preface-timeout", http2PrefaceTimeout),
            ("--control-header-timeout", controlHeaderTimeout), ("--legacy-idle-timeout", legacyIdleTimeout),
            ("--legacy-frame-timeout", legacyFrameTimeout),
        ] {
            if let value, !range.contains(value) {
                throw ValidationError("\(flag) must be from \(range.lowerBound) to \(Int(range.upperBound)) seconds, not \(value)")
            }
        }
        if let legacyTokenLength, !(1...100).contains(legacyTokenLength) { throw ValidationError("--legacy-token-length must be 1-100, not \(legacyTokenLength)") }
        if let legacyMaxPayload, !(1...65535).contains(legacyMaxPayload) { throw ValidationError("--legacy-max-payload must be 1-65535, not \(legacyMaxPayload)") }
        if let legacyInvalidJSON, MockAPNsConfiguration.LegacyOptions.invalidJSONPolicy(.string(legacyInvalidJSON)) == nil {
            throw ValidationError("--legacy-invalid-json takes accept, silentClose, or a legacy status byte (1-8, 128 or 255), not \(legacyInvalidJSON)")
        }
    }
}

extension ServeCommand {
    /// The timeout flags (checked by `validate`), over what the configuration file said.
    func applyTimeouts(to timeouts: inout MockAPNsConfiguration.Timeouts) {
        if let tlsHandshakeTimeout { timeouts.tlsHandshakeSeconds = tlsHandshakeTimeout }
        if let http2PrefaceTimeout { timeouts.http2PrefaceSeconds = http2PrefaceTimeout }
        if let controlHeaderTimeout { timeouts.controlRequestHeaderSeconds = controlHeaderTimeout }
        if let legacyIdleTimeout { timeouts.legacyIdleSeconds = legacyIdleTimeout }
        if let legacyFrameTimeout { timeouts.legacyFrameSeconds = legacyFrameTimeout }
    }

    /// The legacy gateway and feedback flags (checked by `validate`), over what the
    /// configuration file said.
    func applyLegacyOptions(to legacy: inout MockAPNsConfiguration.LegacyOptions) {
        if let gatewayPort { legacy.gatewayPort = gatewayPort }
        if let feedbackPort { legacy.feedbackPort = feedbackPort }
        if legacyAllowOldTLS { legacy.allowOldTLS = true }
        if let legacyParseErrorPolicy { legacy.parseErrorPolicy = legacyParseErrorPolicy }
        if let legacyTokenLength { legacy.tokenLength = legacyTokenLength }
        if legacyVariableTokenLength { legacy.variableTokenLength = true }
        if let legacyMaxPayload { legacy.maximumPayloadLength = legacyMaxPayload }
        if let legacyInvalidJSON, let policy = MockAPNsConfiguration.LegacyOptions.invalidJSONPolicy(.string(legacyInvalidJSON)) {
            legacy.invalidJSONPayload = policy
        }
    }
}

extension LegacyParseErrorPolicy: ExpressibleByArgument {}

/// A start-up failure reported in plain words, without a stack of wrapper types.
struct ServeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension ServerEnvironment: ExpressibleByArgument {}

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// Writes one line to standard output at once (no buffering), so scripts waiting for it see it.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// SIGINT and SIGTERM, trapped through ServiceLifecycle's `UnixSignalsSequence`.
enum TerminationSignal {
    /// Traps both from now on.
    static func trap() async -> UnixSignalsSequence {
        await UnixSignalsSequence(trapping: .sigint, .sigterm)
    }

    /// Waits for one of them and names it.
    static func wait(_ signals: UnixSignalsSequence) async -> String {
        for await signal in signals {
            return "\(signal)"
        }
        return "the end of the signal sequence"
    }
}

extension LogFormat: ExpressibleByArgument {}
