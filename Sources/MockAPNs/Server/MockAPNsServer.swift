import MockAPNsConnections
import MockAPNsUpstream
import MockAPNsControl
import MockAPNsLogging
import MockAPNsDeliveryRuntime
import Logging
import MockAPNsCore
import MockAPNsDelivery
import MockAPNsJournal
import MockAPNsLegacyServer
import MockAPNsHTTP2
import MockAPNsTLS
import NIOCore
import NIOPosix
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MockAPNsBroadcast
import MockAPNsWebPush
import MockAPNsSessions
import MockAPNsFleet

/// A MockAPNs server running in this process: the embedding API for Swift tests.
///
/// ```swift
/// try await withMockAPNsServer(MockAPNsConfiguration()) { server, ports in  // free ports, development credentials
///     let credentials = server.developmentCredentials
///     // ... point the client at https://127.0.0.1:\(ports.http2), trusting credentials.caCertificatePath,
///     // with credentials.clientCertificatePath(for: .sandbox) or a token signed with a key in
///     // credentials.providerKeyDirectory
/// }
/// ```
///
/// Or by hand: `let ports = try await server.start()`, then `try await server.shutdown()`. A
/// server starts once: a second `start()` throws `MockAPNsServer.UsageError`, and so does
/// a start after a shutdown or after a failed start (which has already stopped whatever it
/// had started).
///
/// With `configuration.environments = [.sandbox, .production]` the server plays both at
/// once: `ports.ports(of: .production)` has the production listeners, and
/// `registry.environment(of:)` says which environment a token belongs to.
/// It logs nothing unless given a `logger`.
public final class MockAPNsServer: Sendable {
    /// The configuration the server was made with, its credentials folder settled: an empty
    /// `certificateDirectory` is replaced by the development credentials' folder.
    public let configuration: MockAPNsConfiguration
    /// The clock every rule reads; tests may pin it and move it.
    public let clock: ServerClock
    /// The device registry shared by every protocol.
    public let registry: DeviceRegistry
    /// The broadcast channels: created through the channel management API, sent to through
    /// broadcasts on the provider API, seeded from `configuration.broadcast.channels`.
    package let channels: ChannelRegistry
    /// The provider-token verifier; its keys come from the key directory and can be added
    /// or removed while the server runs.
    package let tokenVerifier: ProviderTokenVerifier
    /// The bearer token the control API asks of requests from other machines: the
    /// configured one, or, when the control API may bind beyond loopback and none was
    /// configured, one generated for this run (hand it to the user; never log it). `nil`
    /// when the control API is loopback only.
    package let controlToken: BearerToken?

    let logger: Logger
    let connections = ConnectionTracker()
    /// The legacy binary gateway and feedback listeners.
    let legacy: LegacyListeners
    /// The running scenario (`replaceScenario` swaps it).
    let scenarios: ScenarioSwitch
    /// The sessions made on the server (`createSession`), and the default one: the server's
    /// own credentials, deciding with `scenarios` and `registry`.
    let sessions: SessionDirectory
    /// The fleet this server is a replica of (`MockAPNsConfiguration.fleet`).
    let fleetLink: FleetLink?
    /// The journal, its JSONL file and the control API.
    let observation: ServerObservation
    /// Apple's storage and delivery rules, run beside the server, and the forwarders.
    let delivery: DeliveryService
    /// The log's notices of refused HTTP/2 streams, shared by every HTTP/2 listener.
    let refusalNotices: StreamRefusalNotices
    /// The web push subscriptions, made through `subscribeWebPush` or the control API.
    let webPushSubscriptions = WebPushSubscriptions()
    /// The origin web push endpoints name, settled once the listener is bound.
    let webPushEndpoint = WebPushEndpointOrigin("https://127.0.0.1")
    private let state = Mutex<State>(.idle)
    /// Upstream mode's clients while the server runs (shut down with it).
    private let upstreamService = Mutex<UpstreamRelayService?>(nil)
    /// Whether the folder was chosen by the server (no `certificateDirectory` configured),
    /// so it may fill it with a development set.
    private let usesImplicitCredentials: Bool
    private let generatedCredentials = Atomic<Bool>(false)

    private enum State {
        case idle
        /// `start()` is under way; the event loops are made.
        case starting(MultiThreadedEventLoopGroup)
        case running(listeners: [any Channel], ports: BoundPorts, group: MultiThreadedEventLoopGroup)
        /// Shut down, or a start failed: a server is not started twice.
        case stopped
    }

    /// What the server refuses to do as asked: start twice, start again after a shutdown,
    /// answer for a delivery model it does not run, or make a session of what is no topic.
    public enum UsageError: Error, Sendable, Equatable, CustomStringConvertible {
        /// `start()` was called on a server already starting or running.
        case alreadyStarted
        /// `start()` was called on a server shut down, or whose start failed: make a new one.
        case stopped
        /// `start()` was called with `configuration.environments` empty.
        case noEnvironment
        /// A device or delivery log was asked for while the delivery model is off
        /// (`configuration.runsDeliveryModel` false).
        case deliveryModelOff
        /// `createSession` was asked for what it cannot make (no topic, a malformed one), said
        /// in plain words.
        case sessionRefused(String)

        public var description: String {
            switch self {
            case .alreadyStarted: "the MockAPNs server is already started; it starts once"
            case .stopped: "the MockAPNs server was shut down (or its start failed); make a new MockAPNsServer to start again"
            case .noEnvironment: "configuration.environments is empty: the server plays [.sandbox], [.production] or both"
            case .deliveryModelOff: DeliveryModelOff().description
            case .sessionRefused(let why): why
            }
        }
    }

    /// Makes a server; nothing listens, and no thread is made, until `start()`, which also
    /// loads the provider keys (and generates development credentials when none are
    /// configured and none exist yet).
    ///
    /// - Parameters:
    ///   - configuration: what the server plays: its listeners, credentials, scenario, journal.
    ///   - logger: where the server says what it does (listening, keys loaded, refused
    ///     handshakes); by default nowhere, so an embedded server keeps the host's test output clean.
    public convenience init(
        configuration: MockAPNsConfiguration,
        logger: Logger = Logger(label: "mockapns", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.init(configuration: configuration, clock: nil, logger: logger)
    }

    /// Makes a server reading `clock` (the command line's server shares its own).
    package init(
        configuration: MockAPNsConfiguration, clock: ServerClock?,
        logger: Logger = Logger(label: "mockapns", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        var configuration = configuration
        self.usesImplicitCredentials = configuration.certificateDirectory.isEmpty
        if usesImplicitCredentials {
            configuration.certificateDirectory = DevelopmentCredentials.implicitFolderOrTemporary()
        }
        self.configuration = configuration
        self.fleetLink = configuration.fleet.map { fleet in
            FleetLink(store: FleetStore(location: fleet.location, replica: fleet.replica, logger: logger))
        }
        let clock = clock ?? configuration.clockStart.map { ServerClock(fixedAt: $0) } ?? ServerClock()
        self.clock = clock
        self.registry = DeviceRegistry(
            rateWindow: configuration.rateLimit, bindsEnvironmentOnFirstPush: configuration.environment == .both
        )
        let channels = ChannelRegistry()
        for channel in configuration.broadcast.channels { channels.insert(channel) }
        self.channels = channels
        var tokenPolicy = configuration.providerTokens
        // Upstream mode: providers sign with their real keys, which only the upstream can check.
        if configuration.upstreamSettings.isEnabled { tokenPolicy.trustsUnknownKeys = true }
        self.tokenVerifier = ProviderTokenVerifier(registry: ProviderKeyRegistry(), clock: clock, policy: tokenPolicy)
        self.controlToken = configuration.control.token
            ?? (configuration.control.allowsNonLoopbackHost ? BearerToken.generate() : nil)
        self.logger = logger
        self.refusalNotices = StreamRefusalNotices(logger: logger, window: configuration.http2.refusalNoticeWindow)
        self.legacy = LegacyListeners(logger: logger)
        let observation = ServerObservation(
            settings: configuration.journal, accessLog: configuration.accessLog,
            verdicts: configuration.judgesProviders ? configuration.verdicts : nil, clock: clock
        )
        self.observation = observation
        self.delivery = DeliveryService(settings: configuration.delivery.service, journal: observation.journal, clock: clock, logger: logger)
        let scenarios = ScenarioSwitch(
            scenario: configuration.scenario ?? .empty, registry: registry, logger: logger,
            deviceChanges: Self.deviceChanges(journal: observation.journal, clock: clock, fleet: fleetLink?.store, session: nil)
        )
        self.scenarios = scenarios
        self.sessions = SessionDirectory(defaultScope: SessionScope(
            id: nil, teamID: nil, keyID: nil, topics: [], registry: registry, scenarios: scenarios,
            initialScenario: configuration.scenario ?? .empty, decider: Self.makeDecider(configuration, registry: registry, clock: clock),
            channels: channels, broadcasts: Self.makeBroadcastDecider(configuration, channels: channels, clock: clock),
            channelManagement: Self.makeChannelManagement(configuration, channels: channels, clock: clock), idleTimeout: nil,
            createdAtMilliseconds: clock.millisecondsSince1970, controlTokenDigest: nil
        ))
    }

    /// The ports the listeners bound, while the server runs.
    public var ports: BoundPorts? {
        state.withLock { state in
            if case .running(_, let ports, _) = state { return ports }
            return nil
        }
    }

    /// The PEM file of the CA that signed the server certificate: what a client must trust.
    public var caCertificatePath: String {
        configuration.certificateFile(configuration.tls.clientTrustRoots, default: "ca.pem")
    }

    /// The folder of the server's credentials, with the paths of the CA, the client
    /// certificates and the provider keys a client uses against it. When no
    /// `certificateDirectory` was configured this is the development set the server found or,
    /// once started, generated (`generated` says which).
    public var developmentCredentials: DevelopmentCredentials {
        DevelopmentCredentials(directory: configuration.certificateDirectory, generated: generatedCredentials.load(ordering: .relaxed))
    }

    /// Binds every listener and returns the bound ports.
    ///
    /// Throws `UsageError` when the server was started before. When a step fails (a port
    /// taken, a credentials file missing), whatever had started is stopped again (listeners,
    /// the journal file, the delivery model, the event loops) before the error is thrown.
    @discardableResult
    public func start() async throws -> BoundPorts {
        let group: MultiThreadedEventLoopGroup = try state.withLock { state in
            switch state {
            case .idle:
                let group = MultiThreadedEventLoopGroup(numberOfThreads: configuration.eventLoopThreads ?? System.coreCount)
                state = .starting(group)
                return group
            case .starting, .running: throw UsageError.alreadyStarted
            case .stopped: throw UsageError.stopped
            }
        }
        var listeners: [any Channel] = []
        do {
            let ports = try await start(on: group, listeners: &listeners)
            state.withLock { $0 = .running(listeners: listeners, ports: ports, group: group) }
            if configuration.logsListeningLine {
                logger.info("mockapns listening", metadata: ["ports": "\(ports.summary(host: configuration.host))"])
            }
            return ports
        } catch {
            state.withLock { $0 = .stopped }
            await stopEverything(listeners: listeners, group: group)
            throw error
        }
    }

    /// Every step of `start()`, each listener added to `listeners` as soon as it is bound.
    private func start(on group: MultiThreadedEventLoopGroup, listeners: inout [any Channel]) async throws -> BoundPorts {
        if usesImplicitCredentials {
            let credentials = try DevelopmentCredentials.prepare(in: configuration.certificateDirectory)
            if credentials.generated {
                generatedCredentials.store(true, ordering: .relaxed)
                logger.notice("generated development credentials in \(credentials.directory) (development only: the keys are not secret)")
            }
        }
        guard !configuration.environments.isEmpty else { throw UsageError.noEnvironment }
        raiseOpenFileLimit()
        try configuration.delivery.check()
        let upstream = try startUpstream(group: group)
        let http2Context = try OpenSSLContext(configuration: makeHTTP2TLSConfiguration())
        try loadProviderKeys()
        scenarios.applyRegistryState()
        try observation.openFile(configuration.journal, logger: logger)
        let fleetOutbox = try openFleetOutbox()
        observation.subscribeReaders(delivery: delivery, fleetOutbox: fleetOutbox)
        await delivery.start(group: group)
        // Before the listeners open: a replica serves with the fleet's state.
        await startFleet(outbox: fleetOutbox)
        let journal = observation.journal
        var guardLimits = ConnectionGuardHandler.Limits(
            handshakeTimeout: ConnectionTimeouts.amount(configuration.timeouts.tlsHandshakeSeconds),
            firstBytesTimeout: ConnectionTimeouts.amount(configuration.timeouts.http2PrefaceSeconds)
        )
        guardLimits.readGate = observation.readGate
        // One set of listeners per environment played, over the same registry and journal.
        let churn = HTTP2ChurnWatch(logger: logger)
        var environmentPorts: [EnvironmentPorts] = []
        var primaryServices: HTTP2ConnectionServices?
        for environment in configuration.environment.environments {
            let services = HTTP2ConnectionServices(
                decider: makeDecider(),
                tokenVerifier: tokenVerifier,
                environment: environment,
                requiresAuthentication: configuration.requiresAuthentication,
                http2Settings: makeHTTP2Settings(),
                scenarios: scenarios,
                sessions: sessions,
                clock: clock,
                journal: journal,
                logger: logger,
                clientTrustRootsPath: DevelopmentCredentials.absolute(caCertificatePath),
                churn: churn,
                refusalNotices: refusalNotices,
                broadcasts: makeBroadcastDecider(),
                upstream: upstream
            )
            if primaryServices == nil { primaryServices = services }
            let ports = configuration.listenerPorts(for: environment)
            let http2Listener = try await startHTTP2(
                services: services, tls: http2Context, guarding: guardLimits, port: ports.http2, group: group
            )
            listeners.append(http2Listener)
            let managementListener = try await startChannelManagement(
                services: services, tls: http2Context, guarding: guardLimits, port: ports.channelManagement, group: group
            )
            if let managementListener { listeners.append(managementListener) }
            let legacyPorts = try await legacy.start(LegacyListeners.Dependencies(
                settings: configuration.legacyListenerSettings(environment), group: group, decider: makeDecider(), registry: registry, scenarios: scenarios, sessions: sessions, logger: logger,
                journal: journal, readGate: observation.readGate, environment: environment,
                gatewayPort: ports.gateway, feedbackPort: ports.feedback
            ))
            environmentPorts.append(EnvironmentPorts(
                environment: environment, http2: http2Listener.localAddress?.port ?? ports.http2,
                gateway: legacyPorts.gateway, feedback: legacyPorts.feedback,
                channelManagement: managementListener?.localAddress?.port
            ))
        }
        // One web push listener: Safari's web push service has no sandbox.
        var webPushPort: Int?
        if let primary = primaryServices {
            let listener = try await startWebPush(
                services: primary, guarding: guardLimits, port: configuration.webPush.port, group: group
            )
            if let listener {
                listeners.append(listener)
                webPushPort = listener.localAddress?.port
            }
        }
        let controlPort = try await observation.startServices(
            configuration.control, requestHeaderTimeout: ConnectionTimeouts.amount(configuration.timeouts.controlRequestHeaderSeconds),
            server: self, logger: logger
        )
        let primary = environmentPorts.first
        let ports = BoundPorts(
            http2: primary?.http2 ?? configuration.http2Port,
            gateway: primary?.gateway,
            feedback: primary?.feedback,
            control: controlPort,
            channelManagement: primary?.channelManagement,
            webPush: webPushPort,
            environments: environmentPorts
        )
        observation.metrics.setPorts(
            http2: ports.http2, gateway: ports.gateway, feedback: ports.feedback, channelManagement: ports.channelManagement,
            webPush: ports.webPush
        )
        // Sessions left unused end on their own; the task ends with the event loops.
        group.next().scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { [weak self] _ in
            self?.endIdleSessions()
        }
        return ports
    }

    /// Shuts the server down in this order:
    ///
    /// 1. every listener stops accepting (HTTP/2, gateway, feedback);
    /// 2. every open connection is told goodbye at once: HTTP/2 connections get GOAWAY
    ///    `Shutdown` naming the last stream they opened, so nghttp2 refuses any newer one;
    ///    a connection still in its TLS handshake gets its GOAWAY right after its SETTINGS,
    ///    before any request is read; gateway connections get status 10 (a gateway connection
    ///    still in its handshake is closed, having sent nothing);
    /// 3. open streams finish, for up to `gracePeriod`, and each connection closes when its
    ///    last stream is done; whatever is still open at the end is closed;
    /// 4. the control API shuts down gracefully (requests in flight finish, long polls answer
    ///    with what they have, event streams end), the activity reader takes in the last
    ///    events, the journal file is written out, the access log's output is flushed (lines
    ///    queued from the event loops included), and only then do the event loops stop, so
    ///    nothing is left to run on them.
    ///
    /// Shutting down a server that is not running (never started, already shut down, or still
    /// starting) does nothing.
    public func shutdown(gracePeriod: Duration = .seconds(5)) async throws {
        let running: (listeners: [any Channel], group: MultiThreadedEventLoopGroup)? = state.withLock { state in
            guard case .running(let listeners, _, let group) = state else { return nil }
            state = .stopped
            return (listeners, group)
        }
        guard let running else { return }
        let gracePeriod = TimeAmount(gracePeriod)
        for listener in running.listeners {
            try? await listener.close()
        }
        await legacy.stopAccepting()
        async let legacyClosed: Void = legacy.shutDownConnections()
        // A connection accepted just before its listener closed may join the tracker after a
        // first look, so say goodbye until none is left; every connection must be closed
        // before the event loops stop, or its handlers could not schedule their last tasks.
        let deadline = NIODeadline.now() + gracePeriod
        for _ in 0..<3 {
            let open = connections.open
            if open.isEmpty { break }
            for channel in open {
                channel.pipeline.fireUserInboundEventTriggered(HTTP2GracefulShutdownEvent())
            }
            for channel in open {
                let remaining = deadline - .now()
                if remaining > .zero {
                    let timeout = channel.eventLoop.scheduleTask(in: remaining) { channel.close(promise: nil) }
                    try? await channel.closeFuture.get()
                    timeout.cancel()
                } else {
                    try? await channel.close()
                }
            }
        }
        for channel in connections.open {
            try? await channel.close()
        }
        await legacyClosed
        // Refused streams counted since the last summary, said before the event loops stop.
        refusalNotices.sayCounted()
        await upstreamService.withLock { $0 }?.shutdown()
        // What the last notifications came to, before the journal file is written out.
        await delivery.stop()
        // Last, so the journal file also holds every connection's closing events.
        await observation.stop()
        // Then the file's last lines go to the fleet.
        await stopFleet()
        // Log lines queued from the event loops are on the output before shutdown returns.
        await configuration.accessLog?.output.flush()
        try await running.group.shutdownGracefully()
    }

    /// Undoes a start that failed part way: every step of `start()` can be undone whether or
    /// not it was reached.
    private func stopEverything(listeners: [any Channel], group: MultiThreadedEventLoopGroup) async {
        for listener in listeners { try? await listener.close() }
        await legacy.stop()
        for channel in connections.open { try? await channel.close() }
        await upstreamService.withLock { $0 }?.shutdown()
        await delivery.stop()
        await observation.stop()
        await stopFleet()
        await configuration.accessLog?.output.flush()
        try? await group.shutdownGracefully()
    }

    /// Every connection takes a descriptor: raise the soft limit to the hard one and say where
    /// it stands, so a cap met under load is no surprise.
    private func raiseOpenFileLimit() {
        guard let change = OpenFileLimit.raiseToHardLimit() else {
            logger.notice("the open-file limit could not be read")
            return
        }
        if change.after > change.before {
            logger.info("open-file limit raised from \(change.before) to \(change.after)")
        } else {
            logger.info("open-file limit \(change.after)")
        }
    }

    /// Loads `AuthKey_<KEYID>.p8` files and `keys.json` from the key directory, if it has a
    /// manifest. A directory without one simply has no provider keys.
    private func loadProviderKeys() throws {
        let directory = configuration.keyDirectory ?? configuration.certificateDirectory
        let manifest = directory.hasSuffix("/") ? directory + "keys.json" : directory + "/keys.json"
        guard access(manifest, F_OK) == 0 else {
            logger.notice("no provider keys: \(manifest) does not exist; every provider token will be refused")
            return
        }
        let registry = try ProviderKeyRegistry(directory: directory)
        for key in registry.keys {
            tokenVerifier.register(key)
        }
        logger.info("provider keys loaded", metadata: ["keys": "\(registry.keys.map(\.keyID).sorted().joined(separator: ","))"])
    }

    /// Upstream mode's clients, when it is on (no connection opens before the first request).
    private func startUpstream(group: any EventLoopGroup) throws -> UpstreamRelayService? {
        let settings = configuration.upstreamSettings
        guard settings.isEnabled else { return nil }
        guard configuration.environment != .both else {
            throw UpstreamSetupError("upstream mode relays to one APNs environment; --environment both is not for it")
        }
        let service = try UpstreamRelayService(settings: settings, group: group, logger: logger)
        upstreamService.withLock { $0 = service }
        let management = service.channelManagementOrigin.map { ", channel management to \($0)" }
            ?? "; channel management is answered here (no upstream.channelManagementUrl)"
        logger.notice("upstream mode: requests no scenario answers go to \(service.providerOrigin)\(management)")
        return service
    }

    func makeDecider() -> PushDecider {
        Self.makeDecider(configuration, registry: registry, clock: clock)
    }

    /// Apple's rules as `configuration` sets them, over `registry`.
    static func makeDecider(_ configuration: MockAPNsConfiguration, registry: DeviceRegistry, clock: ServerClock) -> PushDecider {
        PushDecider(options: validationOptions(configuration), registry: registry, clock: clock)
    }

    /// Apple's rules' options as `configuration` sets them, the generated ids' letter case included.
    static func validationOptions(_ configuration: MockAPNsConfiguration) -> ValidationOptions {
        var options = configuration.validation
        options.generatedAPNsIDCase = configuration.generatedIDCase == .upper ? .uppercase : .lowercase
        return options
    }
}
