import MockAPNsObservation
import MockAPNsCore
import MockAPNsJournal
import MockAPNsHTTP2
import MockAPNsScenario
import MockAPNsVerdicts
import MockAPNsUpstream

/// Everything a MockAPNs server needs to start. The defaults are Apple-faithful, bind every
/// listener to a free port, and use development credentials the server finds or generates
/// (`DevelopmentCredentials`).
public struct MockAPNsConfiguration: Sendable {
    /// The address every listener binds. Loopback by default.
    public var host: String = "127.0.0.1"
    /// The HTTP/2 provider API's port. `0` (the default) picks a free port, so tests running
    /// in parallel never collide; `mockapns serve` uses Apple's 2197 unless told otherwise.
    public var http2Port: Int = 0
    /// The environments this server plays, `[.sandbox]` by default: they decide
    /// `apns-unique-id`, certificate and key environment checks, and which device tokens
    /// belong here. With both, the ports above serve the sandbox and `productionPorts` the
    /// production environment, over one device registry in which each token belongs to one
    /// environment. Empty, `start()` refuses (`MockAPNsServer.UsageError.noEnvironment`).
    public var environments: Set<APNsEnvironment> = [.sandbox]
    /// `environments` as the configuration file and the command line name it.
    package var environment: ServerEnvironment {
        get {
            switch (environments.contains(.sandbox), environments.contains(.production)) {
            case (true, true): .both
            case (false, true): .production
            case (true, false), (false, false): .sandbox
            }
        }
        set { environments = Set(newValue.environments) }
    }
    /// The production listeners' ports when `environment` is `.both`.
    package var productionPorts = ProductionPorts()
    /// The folder holding the server certificate, the CA that client certificates must chain
    /// to, and the provider keys (`AuthKey_<KEYID>.p8` + `keys.json`). Empty (the default):
    /// development credentials, from `./certs-dev` when it holds a set, else from the per-user
    /// folder, generated there on first use; `MockAPNsServer.developmentCredentials` says where.
    public var certificateDirectory: String = ""
    /// Whether requests must authenticate as Apple requires (client certificate or provider
    /// token). `false` accepts every request without credentials: handy for a quick local
    /// try, never what Apple does.
    public var requiresAuthentication: Bool = true
    /// The folder with provider keys (`AuthKey_<KEYID>.p8` + `keys.json`); `nil` means the
    /// certificate directory.
    public var keyDirectory: String? = nil
    /// Pins the server clock at this time (milliseconds since 1970) at start; `nil` follows
    /// real time. The clock can be moved later through the server's `clock`.
    public var clockStart: Int64? = nil
    /// Overrides for individual TLS files; `nil` means the file in `certificateDirectory`.
    package var tls = TLSFiles()
    /// HTTP/2 connection behaviour.
    package var http2 = HTTP2Options()
    /// The legacy binary gateway (2195) and feedback service (2196).
    package var legacy = LegacyOptions()
    /// The journal: memory capacity, JSONL file, frame recording, redaction.
    public var journal = JournalSettings()
    /// The control API (HTTP/1.1 JSON on loopback); off unless a port is set.
    public var control = ControlSettings()
    /// Broadcast push: the channel management listener (off unless a port is set), its
    /// rules, and seeded channels.
    package var broadcast = BroadcastSettings()
    /// Safari's web push endpoint: its listener (on a free port by default; `webPushPort`),
    /// the origin its subscriptions name, and the rules Apple leaves unverified.
    package var webPush = WebPushSettings()
    /// Upstream mode: the real APNs (or another server) requests are relayed to, how it is
    /// trusted, the client certificate presented to it, the pool (`upstream` in a file).
    package var upstreamSettings = UpstreamSettings()
    /// The device registry: the server-wide rate window per token.
    public var registry = RegistrySettings()
    /// How long connections may take to handshake and to start speaking.
    package var timeouts = Timeouts()
    /// The delivery model (devices online and offline, Apple's storage rules) and where
    /// delivered notifications are forwarded (an iOS Simulator, a webhook).
    public var delivery = DeliverySettings()
    /// The access log: a line per notification and per connection opened and closed; `nil`
    /// (the default for an embedded server) writes none. `mockapns serve` writes it unless `--quiet`.
    package var accessLog: AccessLogSettings? = nil
    /// Scripted behaviour and faults to run from the start (`nil`: none); see
    /// `MockAPNsServer.replaceScenario` to change it while running.
    public var scenario: Scenario? = nil
    /// Apple's request rules where Apple's exact behaviour is unverified (each option's doc
    /// says its default and why). `generatedIDCase` overrides its id case.
    package var validation = ValidationOptions.default
    /// Provider-token rules (token age, clock tolerance, refresh rate, other-team reason).
    package var providerTokens = ProviderTokenPolicy()
    /// Whether the server judges each provider's retry logic (`verdictReport()`, `GET
    /// /v1/report`, `verdict` journal events). On by default; the judging runs off the event
    /// loops, from the journal.
    public var judgesProviders: Bool = true
    /// The thresholds of the provider verdicts, each default with its source.
    package var verdicts = VerdictSettings()
    /// The case of `apns-id` values the server generates (Apple was seen using upper case).
    package var generatedIDCase: LetterCase = .upper
    /// Event loop threads; `nil` means one per core.
    public var eventLoopThreads: Int? = nil
    /// Whether `start()` logs the bound ports ("mockapns listening"). The command line turns
    /// it off: it prints that line on standard output itself, and says it once.
    package var logsListeningLine = true

    /// The defaults: the sandbox, every listener on a free port, development credentials, authentication on, verdicts and the delivery model on.
    public init() {}

    /// Paths of the TLS material.
    package struct TLSFiles: Sendable, Equatable {
        /// The server's certificate chain (PEM). Default: `server.pem`.
        package var certificateChain: String?
        /// The server's private key (PEM). Default: `server-key.pem`.
        package var privateKey: String?
        /// The roots client certificates must chain to (PEM bundle). Default: `ca.pem`. Point
        /// it at Apple's WWDR chain to accept real Apple push certificates.
        package var clientTrustRoots: String?

        package init(certificateChain: String? = nil, privateKey: String? = nil, clientTrustRoots: String? = nil) {
            self.certificateChain = certificateChain
            self.privateKey = privateKey
            self.clientTrustRoots = clientTrustRoots
        }
    }

    /// HTTP/2 connection behaviour (apns-protocol A.8).
    package struct HTTP2Options: Sendable, Equatable {
        /// SETTINGS_MAX_CONCURRENT_STREAMS. Apple has used 500, 1000 and 1500; 1000 is the
        /// most recent report.
        package var maxConcurrentStreams: Int = 1000
        /// Whether a TLS client that sends no ALPN extension is served HTTP/2 (prior
        /// knowledge). Apple evidently does (pushy's client never offered ALPN and worked;
        /// aioapns 4 offers none), so the default is `true`. A client that offers ALPN
        /// without `h2` is refused with `no_application_protocol` either way.
        package var acceptsClientsWithoutALPN: Bool = true
        /// Seconds of silence after which the server sends GOAWAY `IdleTimeout` and closes.
        /// Apple's real period is unknown; `nil` (the default) never times out.
        package var idleTimeoutSeconds: Double? = nil
        /// A request whose header list is over the announced MAX_HEADER_LIST_SIZE (8,000
        /// bytes, as Apple announces): answered 431 (the default; RFC 9113 section 10.5.1)
        /// or reset with PROTOCOL_ERROR. What Apple does is not documented.
        package var headerListOverflow: HeaderListOverflowResponse = .answer431
        /// How long after a refused stream's notice the log counts the refused streams that
        /// follow rather than saying each (`StreamRefusalNotices`).
        package var refusalNoticeWindow: Duration = .seconds(10)

        package init() {}
    }

    /// Letter case for generated identifiers.
    package enum LetterCase: String, CaseIterable, Sendable {
        case upper
        case lower
    }

    /// The CA file that signed the server certificate, from the root, when the server knows it:
    /// the credentials folder's `ca.pem` when the folder holds a development set and no
    /// other server certificate is configured.
    var serverCertificateAuthority: String? {
        guard tls.certificateChain == nil, DevelopmentCredentials.isPopulated(certificateDirectory) else { return nil }
        return DevelopmentCredentials.absolute(certificateFile(nil, default: "ca.pem"))
    }

    /// What a client that refuses the server's certificate (`unknown_ca`) is told to do.
    var untrustedServerAdvice: String {
        guard let ca = serverCertificateAuthority else {
            let chain = DevelopmentCredentials.absolute(certificateFile(tls.certificateChain, default: "server.pem"))
            return "give the client the CA that signed \(chain)"
        }
        return "give the client the CA that signed it, \(ca) (curl --cacert \(ca), openssl s_client -CAfile \(ca), or the CA setting of its TLS library)"
    }

    /// The resolved path of a file in the certificate directory.
    func certificateFile(_ override: String?, default name: String) -> String {
        if let override { return override }
        return certificateDirectory.hasSuffix("/") ? certificateDirectory + name : certificateDirectory + "/" + name
    }
}

extension MockAPNsConfiguration {
    /// Where the access log goes and how it looks (the journal's readers own the type).
    package typealias AccessLogSettings = MockAPNsObservation.AccessLogSettings
}

extension MockAPNsConfiguration {
    /// Upstream mode: `"sandbox"`, `"production"` or an `https://host[:port]` URL to relay
    /// every request no scenario answers to, with the upstream's answer given back unchanged
    /// and MockAPNs' own judgement recorded beside it; `nil` (the default) answers everything
    /// here. The upstream's CA, the client certificate for certificate providers and the
    /// pool's limits are the configuration file's `upstream` object (`init(jsonText:)`).
    public var upstream: String? {
        get { upstreamSettings.target }
        set { upstreamSettings.target = newValue }
    }
}
