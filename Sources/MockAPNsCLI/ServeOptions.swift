import ArgumentParser
import Logging
import Foundation
import MockAPNs
import MockAPNsFleet
import MockAPNsLegacy
import MockAPNsLogging

// `mockapns serve`'s flags, one group per task, the everyday group first: `serve --help`
// lists the groups in this order.

/// `mockapns serve`: what most runs set: where the server listens, its credentials, and what it answers.
struct EverydayServeOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The address to listen on (default 127.0.0.1).", valueName: "address"))
    var host: String?

    @Option(name: .customLong("http2-port"), help: ArgumentHelp("The HTTP/2 provider API port (default 2197; 0 picks a free port).", valueName: "port"))
    var http2Port: Int?

    @Option(name: .customLong("gateway-port"), help: ArgumentHelp("The legacy binary gateway port (default 2195; 0 picks a free port).", valueName: "port"))
    var gatewayPort: Int?

    @Option(name: .customLong("feedback-port"), help: ArgumentHelp("The legacy feedback service port (default 2196; 0 picks a free port).", valueName: "port"))
    var feedbackPort: Int?

    @Option(name: .customLong("channel-management-port"), help: ArgumentHelp("The broadcast channel management API port (default 2199; 0 picks a free port). Its former name, --broadcast-manage-port, is accepted too.", valueName: "port"))
    var channelManagementPortFlag: Int?

    /// `--channel-management-port`'s former name, still accepted (not listed).
    @Option(name: .customLong("broadcast-manage-port"), help: .hidden)
    var broadcastManagePortFlag: Int?

    /// The channel management port given under either name.
    var channelManagementPort: Int? { channelManagementPortFlag ?? broadcastManagePortFlag }
    /// The name it was given under, for a mistake's message.
    var channelManagementPortName: String {
        channelManagementPortFlag == nil && broadcastManagePortFlag != nil ? "--broadcast-manage-port" : "--channel-management-port"
    }

    @Option(name: .customLong("web-push-port"), help: ArgumentHelp("Safari's web push endpoint port, HTTP/2 and HTTP/1.1 (default 2200; 0 picks a free port).", valueName: "port"))
    var webPushPort: Int?

    @Flag(name: .customLong("no-web-push"), help: "Run no web push listener.")
    var noWebPush = false

    @Option(name: .customLong("control-port"), help: ArgumentHelp("The control API port, which tests wait on and assert through (default 2198; 0 picks a free port).", valueName: "port"))
    var controlPort: Int?

    @Flag(name: .customLong("ephemeral-ports"), help: "Every listener on a free port (HTTP/2, gateway, feedback, channel management, web push, control API, and with --environment both the production ones), reported in the listening line and --ports-file.")
    var ephemeralPorts = false

    @Option(name: .customLong("cert-dir"), help: ArgumentHelp("Folder with server.pem, server-key.pem, ca.pem and provider keys (default: ./certs-dev if present, else $XDG_DATA_HOME/mockapns or ~/.mockapns, created on first run).", valueName: "folder"))
    var certificateDirectory: String?

    @Option(name: .customLong("key-dir"), help: ArgumentHelp("Folder with AuthKey_<KEYID>.p8 files and keys.json (default: the --cert-dir).", valueName: "folder"))
    var keyDirectory: String?

    @Flag(name: .customLong("no-auth"), help: "Accept requests without a client certificate or provider token (not what Apple does).")
    var noAuthentication = false

    @Option(name: .long, help: ArgumentHelp("A JSON configuration file (its keys: docs/reference/configuration.md).", valueName: "file"))
    var config: String?

    @Option(name: .customLong("scenario"), help: ArgumentHelp("A scenario file (JSON): scripted answers, delays and faults; see scenarios/.", valueName: "file"))
    var scenarioFile: String?

    @Option(name: .customLong("ports-file"), help: ArgumentHelp("Write the bound ports to this file as JSON once listening.", valueName: "file"))
    var portsFile: String?

    @Flag(name: .long, help: "No access log (the info line per notification and per connection).")
    var quiet = false
}

/// `mockapns serve`: `--environment` and the production ports.
struct EnvironmentServeOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The environment this server plays: sandbox, production, or both (the ports above serve the sandbox, the --production-* ports production; default sandbox).", valueName: "sandbox|production|both"))
    var environment: ServerEnvironment?

    @Option(name: .customLong("production-http2-port"), help: ArgumentHelp("With --environment both: the production HTTP/2 port (default 2297; 0 picks a free port).", valueName: "port"))
    var productionHTTP2Port: Int?

    @Option(name: .customLong("production-gateway-port"), help: ArgumentHelp("With --environment both: the production legacy gateway port (default 2295; 0 picks a free port).", valueName: "port"))
    var productionGatewayPort: Int?

    @Option(name: .customLong("production-feedback-port"), help: ArgumentHelp("With --environment both: the production feedback port (default 2296; 0 picks a free port).", valueName: "port"))
    var productionFeedbackPort: Int?

    @Option(name: .customLong("production-channel-management-port"), help: ArgumentHelp("With --environment both: the production channel management port (default 2299; 0 picks a free port). Its former name, --production-broadcast-manage-port, is accepted too.", valueName: "port"))
    var productionChannelManagementPortFlag: Int?

    /// `--production-channel-management-port`'s former name, still accepted (not listed).
    @Option(name: .customLong("production-broadcast-manage-port"), help: .hidden)
    var productionBroadcastManagePortFlag: Int?

    /// The production channel management port given under either name.
    var productionChannelManagementPort: Int? { productionChannelManagementPortFlag ?? productionBroadcastManagePortFlag }
    /// The name it was given under, for a mistake's message.
    var productionChannelManagementPortName: String {
        productionChannelManagementPortFlag == nil && productionBroadcastManagePortFlag != nil
            ? "--production-broadcast-manage-port" : "--production-channel-management-port"
    }
}

/// `mockapns serve`: upstream mode, in front of the real APNs.
struct UpstreamServeOptions: ParsableArguments {
    @Option(name: .customLong("upstream"), help: ArgumentHelp("Relay every request no scenario answers to this APNs and give its answers back unchanged: sandbox, production, or https://host[:port]. MockAPNs' own verdict is recorded beside each (the fidelity check).", valueName: "sandbox|production|url"))
    var upstream: String?

    @Option(name: .customLong("upstream-ca"), help: ArgumentHelp("PEM file of the CA certificates the upstream's certificate must chain to (default: the system's store).", valueName: "file"))
    var upstreamCA: String?

    @Option(name: .customLong("upstream-certificate"), help: ArgumentHelp("Client certificate (PEM) presented upstream for providers that connect with a certificate (one cannot be forwarded).", valueName: "file"))
    var upstreamCertificate: String?

    @Option(name: .customLong("upstream-key"), help: ArgumentHelp("The private key (PEM) of --upstream-certificate; never journaled or logged.", valueName: "file"))
    var upstreamKey: String?

    @Option(name: .customLong("upstream-channel-management"), help: ArgumentHelp("Where channel management requests go (default: Apple's management host for sandbox and production; with a URL upstream, answered here).", valueName: "url"))
    var upstreamChannelManagement: String?

    @Option(name: .customLong("upstream-connections"), help: ArgumentHelp("The most upstream connections at once; each provider connection gets its own (default 64).", valueName: "count"))
    var upstreamConnections: Int?

    @Option(name: .customLong("upstream-timeout"), help: ArgumentHelp("Seconds the upstream has to answer a request before the provider gets 503 (default 10).", valueName: "seconds"))
    var upstreamTimeout: Double?

    @Option(name: .customLong("upstream-connect-timeout"), help: ArgumentHelp("Seconds to connect to the upstream and finish TLS before the provider gets 503 (default 5).", valueName: "seconds"))
    var upstreamConnectTimeout: Double?

    @Option(name: .customLong("record-scenario"), help: ArgumentHelp("Write each answer the upstream gives that MockAPNs' own rules would not (a 410 and its timestamp, a refusal and its reason) to this scenario file, one rule per token and topic, to replay offline with --scenario.", valueName: "path"))
    var recordScenario: String?
}

/// `mockapns serve`: HTTP/2 settings, timeouts and the server clock.
struct ConnectionServeOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The server clock: real (default), epoch seconds, or an ISO 8601 UTC time to pin it at (e.g. 2026-01-01T00:00:00Z).", valueName: "time"))
    var clock: String?

    @Option(name: .customLong("max-concurrent-streams"), help: ArgumentHelp("SETTINGS_MAX_CONCURRENT_STREAMS, at least 1 (default 1000).", valueName: "count"))
    var maxConcurrentStreams: Int?

    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("Seconds idle before GOAWAY IdleTimeout (default: never).", valueName: "seconds"))
    var idleTimeout: Double?

    @Option(name: .customLong("tls-handshake-timeout"), help: ArgumentHelp("Seconds a connection has to finish its TLS handshake, on every APNs port (default 10).", valueName: "seconds"))
    var tlsHandshakeTimeout: Double?

    @Option(name: .customLong("http2-preface-timeout"), help: ArgumentHelp("Seconds an HTTP/2 client has after its TLS handshake to send its connection preface (default 10).", valueName: "seconds"))
    var http2PrefaceTimeout: Double?

    @Option(name: .customLong("control-header-timeout"), help: ArgumentHelp("Seconds a control API client has to send each request's header block (default 10).", valueName: "seconds"))
    var controlHeaderTimeout: Double?

    @Option(name: .customLong("web-push-idle-timeout"), help: ArgumentHelp("Seconds an HTTP/1.1 web push connection may wait between requests before it is closed (default 60).", valueName: "seconds"))
    var webPushIdleTimeout: Double?

    @Option(name: .customLong("web-push-header-timeout"), help: ArgumentHelp("Seconds an HTTP/1.1 web push request has for its request line and headers, from its first byte (default 10; then 408).", valueName: "seconds"))
    var webPushHeaderTimeout: Double?

    @Option(name: .customLong("web-push-body-timeout"), help: ArgumentHelp("Seconds an HTTP/1.1 web push request has for its body, after its headers (default 10; then 408).", valueName: "seconds"))
    var webPushBodyTimeout: Double?
}

/// `mockapns serve`: the binary gateway's and feedback service's rules.
struct LegacyServeOptions: ParsableArguments {
    @Option(name: .customLong("legacy-idle-timeout"), help: ArgumentHelp("Seconds a legacy gateway or feedback connection may receive nothing, after the TLS handshake (default 300).", valueName: "seconds"))
    var legacyIdleTimeout: Double?

    @Option(name: .customLong("legacy-frame-timeout"), help: ArgumentHelp("Seconds a legacy gateway frame may take from its first byte to its last (default 10).", valueName: "seconds"))
    var legacyFrameTimeout: Double?

    @Flag(name: .customLong("legacy-allow-old-tls"), help: "Accept TLS 1.0 and 1.1 (OpenSSL security level 0) on the legacy ports.")
    var legacyAllowOldTLS = false

    @Option(name: .customLong("legacy-parse-error-policy"), help: ArgumentHelp("Unparseable legacy frames: closed silently (silentClose, the default, as TN2265 describes) or answered with status 128 (statusPacket).", valueName: "silentClose|statusPacket"))
    var legacyParseErrorPolicy: LegacyParseErrorPolicy?

    @Option(name: .customLong("legacy-token-length"), help: ArgumentHelp("Legacy device token length in bytes, 1-100 (default 32).", valueName: "bytes"))
    var legacyTokenLength: Int?

    @Flag(name: .customLong("legacy-variable-token-length"), help: "Accept legacy tokens of any length up to --legacy-token-length.")
    var legacyVariableTokenLength = false

    @Option(name: .customLong("legacy-max-payload"), help: ArgumentHelp("Largest legacy payload in bytes, 1-65535 (default 2048, Apple's limit since iOS 8; 256 before).", valueName: "bytes"))
    var legacyMaxPayload: Int?

    @Option(name: .customLong("legacy-invalid-json"), help: ArgumentHelp("A legacy notification whose payload is not JSON: accept (default), silentClose, or a status byte to answer (such as 1 or 255).", valueName: "accept|silentClose|status"))
    var legacyInvalidJSON: String?
}

/// `mockapns serve`: the log on standard error.
struct LoggingServeOptions: ParsableArguments {
    @Option(name: .customLong("log-level"), help: ArgumentHelp("The least severe log lines written.", valueName: "level"))
    var logLevel: Logger.Level = .info

    @Option(name: .customLong("log-format"), help: ArgumentHelp("text, or json (one JSON object per line, for CI logs).", valueName: "text|json"))
    var logFormat: LogFormat = .text
}

/// `mockapns serve`: a replica of a fleet, sharing its state through PostgreSQL.
struct FleetServeOptions: ParsableArguments {
    @Option(name: .customLong("state"), help: ArgumentHelp("Share the state (sessions, scenarios and rules, registry, channels, the clock) with the other replicas through this PostgreSQL, and ship the journal's records there for fleet-wide queries: postgresql://user[:password]@host[:port]/database[?sslmode=disable|prefer|require]. Also $MOCKAPNS_STATE.", valueName: "url"))
    var state: String?

    @Option(name: .customLong("replica"), help: ArgumentHelp("This replica's name in records and health (default: the host name). Also $MOCKAPNS_REPLICA.", valueName: "name"))
    var replica: String?

    /// The fleet's settings from the flags or the environment; `nil` when neither names one.
    func settings(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> MockAPNsConfiguration.FleetSettings? {
        guard let url = state ?? environment["MOCKAPNS_STATE"], !url.isEmpty else { return nil }
        do {
            return MockAPNsConfiguration.FleetSettings(
                location: try FleetLocation(url: url), replica: replica ?? environment["MOCKAPNS_REPLICA"]
            )
        } catch {
            throw ValidationError("--state: \(error.description)")
        }
    }
}
