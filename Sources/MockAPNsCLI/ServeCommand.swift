import MockAPNsLogging
import MockAPNsObservation
import ArgumentParser
import Foundation
import Logging
import MockAPNs
import MockAPNsCore
import MockAPNsJournal
import UnixSignals
import MockAPNsLegacy
import MockAPNsUpstream

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

    @OptionGroup(title: "Everyday")
    var everyday: EverydayServeOptions

    @OptionGroup(title: "Sandbox and production")
    var environments: EnvironmentServeOptions

    @OptionGroup(title: "Connections and the clock")
    var connections: ConnectionServeOptions

    @OptionGroup(title: "Legacy gateway and feedback")
    var legacy: LegacyServeOptions

    @OptionGroup(title: "Journal and control API")
    var observation: ObservationOptions


    @OptionGroup(title: "Delivery and forwarding")
    var deliveryFlags: DeliveryFlags


    @OptionGroup(title: "Fleet (replicas sharing their state)")
    var fleet: FleetServeOptions

    @OptionGroup(title: "Upstream mode (in front of the real APNs)")
    var upstream: UpstreamServeOptions

    @OptionGroup(title: "Logging")
    var logging: LoggingServeOptions

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
        let level = logging.logLevel
        let format = logging.logFormat
        LoggingSystem.bootstrap { label in
            MockAPNsLogHandler(label: label, format: format, level: level)
        }
        if !everyday.quiet, level <= .info {
            configuration.accessLog = MockAPNsConfiguration.AccessLogSettings(format: format)
        }
        // The listening line goes to standard output below, once; not also to the log.
        configuration.logsListeningLine = false
        let credentials = try prepareCredentials(&configuration)
        // Trapped before anything listens: a script that signals as soon as it sees the
        // listening line must get the graceful shutdown, not the default action.
        let signals = await TerminationSignal.trap()
        let (server, ports) = try await observation.startServer(
            configuration, logger: Logger(label: "mockapns"), controlPortChosen: everyday.controlPort != nil
        )
        if let portsFile = everyday.portsFile {
            // Whole (written aside, then renamed) and before the listening line, so whoever
            // waits for that line finds the file complete.
            do {
                try Data((ports.json + "\n").utf8).write(to: URL(fileURLWithPath: portsFile), options: .atomic)
            } catch {
                try await server.shutdown()
                throw ServeError("cannot write the ports file \(portsFile) (--ports-file): \(error.localizedDescription)")
            }
        }
        say("mockapns listening \(ports.summary(host: configuration.host, controlHost: configuration.controlHost))")
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
        configuration.controlPort = ObservationOptions.defaultControlPort
        configuration.broadcast.managePort = MockAPNsConfiguration.BroadcastSettings.defaultManagePort
        configuration.webPush.port = MockAPNsConfiguration.WebPushSettings.defaultPort
        configuration.productionPorts = .commandLineDefaults
        if let config = everyday.config {
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
        if let host = everyday.host { configuration.host = host }
        if let http2Port = everyday.http2Port { configuration.http2Port = http2Port }
        if let scenarioFile = everyday.scenarioFile {
            switch ScenarioFile.load(scenarioFile) {
            case .success(let scenario): configuration.scenario = scenario
            case .failure(let problems):
                throw ServeError(problems.lines.map { "\(scenarioFile):\($0)" }.joined(separator: "\n"))
            }
        }
        if let environment = environments.environment { configuration.environment = environment }
        let productionFlags: [(Int?, String, WritableKeyPath<MockAPNsConfiguration.ProductionPorts, Int>)] = [
            (environments.productionHTTP2Port, "--production-http2-port", \.http2),
            (environments.productionGatewayPort, "--production-gateway-port", \.gateway),
            (environments.productionFeedbackPort, "--production-feedback-port", \.feedback),
            (environments.productionChannelManagementPort, environments.productionChannelManagementPortName, \.channelManagement),
        ]
        for (value, _, keyPath) in productionFlags {
            guard let value else { continue }
            configuration.productionPorts[keyPath: keyPath] = value
        }
        if let certificateDirectory = everyday.certificateDirectory { configuration.certificateDirectory = certificateDirectory }
        if everyday.noAuthentication { configuration.requiresAuthentication = false }
        if let keyDirectory = everyday.keyDirectory { configuration.keyDirectory = keyDirectory }
        if let clock = connections.clock, case .some(let start) = ClockSetting.parse(text: clock) { configuration.clockStart = start }
        if let maxConcurrentStreams = connections.maxConcurrentStreams { configuration.http2.maxConcurrentStreams = maxConcurrentStreams }
        if let idleTimeout = connections.idleTimeout { configuration.http2.idleTimeoutSeconds = idleTimeout }
        if let channelManagementPort = everyday.channelManagementPort { configuration.broadcast.managePort = channelManagementPort }
        if let webPushPort = everyday.webPushPort { configuration.webPush.port = webPushPort }
        if everyday.noWebPush { configuration.webPush.port = nil }
        applyUpstream(to: &configuration)
        if let problem = configuration.upstreamSettings.problem() { throw ServeError(problem) }
        applyTimeouts(to: &configuration.timeouts)
        applyLegacyOptions(to: &configuration.legacy)
        try observation.apply(to: &configuration, controlPort: everyday.controlPort)
        try deliveryFlags.apply(to: &configuration.delivery)
        if everyday.ephemeralPorts { Self.giveFreePorts(to: &configuration) }
        if let fleet = try fleet.settings() { configuration.fleet = fleet }
        return configuration
    }

    /// What `--connections.clock` takes, for its error message (`token --connections.clock` takes the same).
    static let clockUsage = "--clock takes real, epoch seconds from 0 to 253402300799, or an ISO 8601 UTC time from 1970 to 9999 like 2026-01-01T00:00:00Z"

    /// `--ephemeral-ports`: every listener that runs binds a free port; one that is off
    /// (`--no-control`, a configuration without broadcast) stays off.
    static func giveFreePorts(to configuration: inout MockAPNsConfiguration) {
        configuration.http2Port = 0
        configuration.legacy.gatewayPort = 0
        configuration.legacy.feedbackPort = 0
        if configuration.broadcast.managePort != nil { configuration.broadcast.managePort = 0 }
        if configuration.webPush.port != nil { configuration.webPush.port = 0 }
        if configuration.controlPort != nil { configuration.controlPort = 0 }
        configuration.productionPorts = MockAPNsConfiguration.ProductionPorts(http2: 0, gateway: 0, feedback: 0, channelManagement: 0)
    }

    /// Checks the flags' values before anything runs, so a mistake is told with this
    /// command's usage rather than the top-level one.
    func validate() throws {
        if everyday.ephemeralPorts {
            let fixed = [
                ("--http2-port", everyday.http2Port), ("--gateway-port", everyday.gatewayPort), ("--feedback-port", everyday.feedbackPort),
                (everyday.channelManagementPortName, everyday.channelManagementPort), ("--web-push-port", everyday.webPushPort),
                ("--control-port", everyday.controlPort),
                ("--production-http2-port", environments.productionHTTP2Port), ("--production-gateway-port", environments.productionGatewayPort),
                ("--production-feedback-port", environments.productionFeedbackPort),
                (environments.productionChannelManagementPortName, environments.productionChannelManagementPort),
            ].filter { $0.1 != nil }.map(\.0)
            guard fixed.isEmpty else {
                throw ValidationError("--ephemeral-ports gives every listener a free port; drop it or \(fixed.joined(separator: ", "))")
            }
        }
        for (flag, port) in [
            ("--http2-port", everyday.http2Port), ("--gateway-port", everyday.gatewayPort), ("--feedback-port", everyday.feedbackPort),
            (everyday.channelManagementPortName, everyday.channelManagementPort), ("--web-push-port", everyday.webPushPort),
            ("--control-port", everyday.controlPort), ("--production-http2-port", environments.productionHTTP2Port),
            ("--production-gateway-port", environments.productionGatewayPort), ("--production-feedback-port", environments.productionFeedbackPort),
            (environments.productionChannelManagementPortName, environments.productionChannelManagementPort),
        ] {
            if let port, !(0...65535).contains(port) { throw ValidationError("\(flag) must be 0-65535, not \(port)") }
        }
        if let clock = connections.clock, ClockSetting.parse(text: clock) == nil { throw ValidationError(Self.clockUsage) }
        if let maxConcurrentStreams = connections.maxConcurrentStreams, maxConcurrentStreams < 1 { throw ValidationError("--max-concurrent-streams must be at least 1, not \(maxConcurrentStreams)") }
        if let idleTimeout = connections.idleTimeout, !(idleTimeout > 0) { throw ValidationError("--idle-timeout must be a positive number of seconds, not \(idleTimeout)") }
        let range = MockAPNsConfiguration.Timeouts.range
        for (flag, value) in [
            ("--tls-handshake-timeout", connections.tlsHandshakeTimeout), ("--http2-preface-timeout", connections.http2PrefaceTimeout),
            ("--control-header-timeout", connections.controlHeaderTimeout), ("--legacy-idle-timeout", legacy.legacyIdleTimeout),
            ("--legacy-frame-timeout", legacy.legacyFrameTimeout), ("--web-push-idle-timeout", connections.webPushIdleTimeout),
            ("--web-push-header-timeout", connections.webPushHeaderTimeout), ("--web-push-body-timeout", connections.webPushBodyTimeout),
        ] {
            if let value, !range.contains(value) {
                throw ValidationError("\(flag) must be from \(range.lowerBound) to \(Int(range.upperBound)) seconds, not \(value)")
            }
        }
        if let legacyTokenLength = legacy.legacyTokenLength, !(1...100).contains(legacyTokenLength) { throw ValidationError("--legacy-token-length must be 1-100, not \(legacyTokenLength)") }
        if let legacyMaxPayload = legacy.legacyMaxPayload, !(1...65535).contains(legacyMaxPayload) { throw ValidationError("--legacy-max-payload must be 1-65535, not \(legacyMaxPayload)") }
        if let legacyInvalidJSON = legacy.legacyInvalidJSON, MockAPNsConfiguration.LegacyOptions.invalidJSONPolicy(.string(legacyInvalidJSON)) == nil {
            throw ValidationError("--legacy-invalid-json takes accept, silentClose, or a legacy status byte (1-8, 128 or 255), not \(legacyInvalidJSON)")
        }
    }
}

extension ServeCommand {
    /// The upstream flags, over what the configuration file said.
    func applyUpstream(to configuration: inout MockAPNsConfiguration) {
        var settings = configuration.upstreamSettings
        if let target = upstream.upstream { settings.target = target }
        if let path = upstream.upstreamCA { settings.trustRoots = path }
        if let path = upstream.upstreamCertificate { settings.certificateChain = path }
        if let path = upstream.upstreamKey { settings.privateKey = path }
        if let url = upstream.upstreamChannelManagement { settings.channelManagementTarget = url }
        if let count = upstream.upstreamConnections { settings.connections = count }
        if let seconds = upstream.upstreamTimeout { settings.requestTimeoutSeconds = seconds }
        if let seconds = upstream.upstreamConnectTimeout { settings.connectTimeoutSeconds = seconds }
        if let path = upstream.recordScenario { settings.recordScenario = path }
        configuration.upstreamSettings = settings
    }

    /// The timeout flags (checked by `validate`), over what the configuration file said.
    func applyTimeouts(to timeouts: inout MockAPNsConfiguration.Timeouts) {
        if let tlsHandshakeTimeout = connections.tlsHandshakeTimeout { timeouts.tlsHandshakeSeconds = tlsHandshakeTimeout }
        if let http2PrefaceTimeout = connections.http2PrefaceTimeout { timeouts.http2PrefaceSeconds = http2PrefaceTimeout }
        if let controlHeaderTimeout = connections.controlHeaderTimeout { timeouts.controlRequestHeaderSeconds = controlHeaderTimeout }
        if let legacyIdleTimeout = legacy.legacyIdleTimeout { timeouts.legacyIdleSeconds = legacyIdleTimeout }
        if let legacyFrameTimeout = legacy.legacyFrameTimeout { timeouts.legacyFrameSeconds = legacyFrameTimeout }
        if let seconds = connections.webPushIdleTimeout { timeouts.webPushIdleSeconds = seconds }
        if let seconds = connections.webPushHeaderTimeout { timeouts.webPushHeaderSeconds = seconds }
        if let seconds = connections.webPushBodyTimeout { timeouts.webPushBodySeconds = seconds }
    }

    /// The legacy gateway and feedback flags (checked by `validate`), over what the
    /// configuration file said.
    func applyLegacyOptions(to options: inout MockAPNsConfiguration.LegacyOptions) {
        if let gatewayPort = everyday.gatewayPort { options.gatewayPort = gatewayPort }
        if let feedbackPort = everyday.feedbackPort { options.feedbackPort = feedbackPort }
        if legacy.legacyAllowOldTLS { options.allowOldTLS = true }
        if let legacyParseErrorPolicy = legacy.legacyParseErrorPolicy { options.parseErrorPolicy = legacyParseErrorPolicy }
        if let legacyTokenLength = legacy.legacyTokenLength { options.tokenLength = legacyTokenLength }
        if legacy.legacyVariableTokenLength { options.variableTokenLength = true }
        if let legacyMaxPayload = legacy.legacyMaxPayload { options.maximumPayloadLength = legacyMaxPayload }
        if let legacyInvalidJSON = legacy.legacyInvalidJSON, let policy = MockAPNsConfiguration.LegacyOptions.invalidJSONPolicy(.string(legacyInvalidJSON)) {
            options.invalidJSONPayload = policy
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
