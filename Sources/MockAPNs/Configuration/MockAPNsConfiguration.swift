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
    package var journal = JournalSettings()
    /// The control API (HTTP/1.1 JSON on loopback); off unless a port is set.
    package var control = ControlSettings()
    /// Broadcast push: the channel management listener (off unless a port is set), its
    /// rules, and seeded channels.
    package var broadcast = BroadcastSettings()
    /// Safari's web push endpoint: its listener (on a free port by default; `webPushPort`),
    /// the origin its subscriptions name, and the rules Apple leaves unverified.
    package var webPush = WebPushSettings()
    /// Upstream mode: the real APNs (or another server) requests are relayed to, how it is
    /// trusted, the client certificate presented to it, the pool (`upstream` in a file).
    package var upstreamSettings = UpstreamSettings()
    /// The fleet this server is a replica of (`serve --state`): state shared through
    /// PostgreSQL. `nil` (the default): the server serves alone.
    package var fleet: FleetSettings? = nil
    /// The device registry: the server-wide rate window per token.
    package var registry = RegistrySettings()
    /// How long connections may take to handshake and to start speaking.
    package var timeouts = Timeouts()
    /// The delivery model (devices online and offline, Apple's storage rules) and where
    /// delivered notifications are forwarded (an iOS Simulator, a webhook).
    package var delivery = DeliverySettings()
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

// The settings an embedding test reaches for, one property each. The configuration file
// groups them (`journal`, `control`, `registry`, `delivery`), and so do the package's own
// settings values behind them; the front door keeps them flat, as `upstream` is, so they
// bring no type of their own.
extension MockAPNsConfiguration {
    /// Journal events kept in memory (100,000 by default); when full, the oldest go first and
    /// are counted as dropped.
    public var journalCapacity: Int {
        get { journal.capacity }
        set { journal.capacity = newValue }
    }
    /// Bytes the events kept in memory may take (at least 1 MiB); when reached before
    /// `journalCapacity`, the oldest go first all the same. `nil` (the default): 1 KiB for
    /// each event of `journalCapacity`, at least 128 MiB, which holds that many events of
    /// usual traffic and bounds what large or junk input can make the journal hold.
    public var journalCapacityBytes: Int? {
        get { journal.capacityBytes }
        set { journal.capacityBytes = newValue }
    }
    /// A JSON Lines file that receives every journal event, even those the memory store
    /// drops. `nil` (the default): no file.
    public var journalFile: String? {
        get { journal.file }
        set { journal.file = newValue }
    }
    /// Whether every frame is recorded (the default; off for benchmarks). Notifications are
    /// always recorded.
    public var recordsFrames: Bool {
        get { journal.recordsFrames }
        set { journal.recordsFrames = newValue }
    }

    /// The control API's port (plain HTTP/1.1 JSON for tests and tools): `0` picks a free
    /// one; `nil` (the default in an embedded server) runs none. `mockapns serve` uses 2198
    /// unless told otherwise.
    public var controlPort: Int? {
        get { control.port }
        set { control.port = newValue }
    }
    /// The address the control API binds: loopback by default. Another address must be
    /// allowed explicitly (`allowNonLoopback` in a configuration file), as anyone who reaches
    /// the port can change the server's behaviour.
    public var controlHost: String {
        get { control.host }
        set { control.host = newValue }
    }

    /// The device registry's server-wide rate window: at most this many pushes per token in
    /// each window, for every token without a window of its own (set through the control API,
    /// a scenario rule or `DeviceRegistry.limitPushes`); `nil` (the default) limits nothing.
    /// Counted on the server clock; a push over it gets `429 TooManyRequests`.
    public var rateLimit: RateWindow? {
        get { registry.rateLimit }
        set { registry.rateLimit = newValue }
    }

    /// Whether the delivery model runs (the default; docs/delivery.md). Off, nothing after
    /// the answer is modelled or recorded: every device is always online, there is no
    /// delivery log and nothing to forward. For load tests that measure the answers alone.
    public var runsDeliveryModel: Bool {
        get { delivery.runsModel }
        set { delivery.runsModel = newValue }
    }
    /// How long priority 5 and 1 notifications (and background pushes) to an online device
    /// are held before they go out together, in milliseconds. Apple says they "might get
    /// grouped and delivered in bursts" without saying when; `0` (the default) delivers them
    /// at once, so only a test that asks for batching sees it. Held within 0 and ten years.
    public var deliveryBatchDelayMilliseconds: Int64 {
        get { delivery.batchDelayMilliseconds }
        set { delivery.batchDelayMilliseconds = newValue }
    }
    /// The longest a notification is stored for an offline device, in milliseconds, and how
    /// long one without `apns-expiration` is kept. Apple: "it may store the notification for
    /// 30 days or less"; 30 days is the default. Held within 0 and ten years.
    public var deliveryMaximumStorageMilliseconds: Int64 {
        get { delivery.maximumStorageMilliseconds }
        set { delivery.maximumStorageMilliseconds = newValue }
    }
    /// POSTs each delivered notification as JSON to this `http://` URL; `nil` (the default):
    /// none.
    public var deliveryWebhookURL: String? {
        get { delivery.webhookURL }
        set { delivery.webhookURL = newValue }
    }
}
