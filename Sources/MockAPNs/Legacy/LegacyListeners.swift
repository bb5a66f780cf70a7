import MockAPNsConnections
import Logging
import MockAPNsCore
import MockAPNsJournal
import MockAPNsTLS
import NIOCore
import NIOPosix
import Synchronization

/// The legacy binary gateway and feedback listeners of one server (a pair per environment it
/// plays): binding them, tracking the gateway's connections, and shutting those down with
/// status 10.
final class LegacyListeners: Sendable {
    /// The ports the two listeners bound.
    struct Ports: Sendable {
        var gateway: Int
        var feedback: Int
    }

    /// Everything the listeners need from the server.
    struct Dependencies: Sendable {
        var configuration: MockAPNsConfiguration
        var group: MultiThreadedEventLoopGroup
        var decider: PushDecider
        var registry: DeviceRegistry
        var scenarios: ScenarioSwitch
        var logger: Logger
        /// Where connections, frames, notifications and feedback tuples are recorded.
        var journal: Journal? = nil
        /// Holds the gateway's reads while the journal's file is behind.
        var readGate: JournalReadGate? = nil
        /// The environment this pair of listeners plays, and their ports.
        var environment: APNsEnvironment = .sandbox
        var gatewayPort = 0
        var feedbackPort = 0
    }

    let activity: LegacyActivityLog
    private let gatewayConnections = ConnectionTracker()
    private let listeners = Mutex<[any Channel]>([])
    private let drain: LegacyDrainPolicy

    init(logger: Logger, drain: LegacyDrainPolicy = LegacyDrainPolicy()) {
        self.activity = LegacyActivityLog(logger: logger)
        self.drain = drain
    }

    /// Binds the gateway, then the feedback service, of one environment. If the second
    /// cannot bind, the first is closed again before the error is thrown.
    func start(_ dependencies: Dependencies) async throws -> Ports {
        let configuration = dependencies.configuration
        let environment = dependencies.environment
        let gatewayName = configuration.listenerName("legacy gateway", environment)
        let feedbackName = configuration.listenerName("legacy feedback", environment)
        let tls = try OpenSSLContext(configuration: Self.tlsConfiguration(configuration))
        let gatewayServices = LegacyGatewayServices(
            decider: dependencies.decider,
            environment: environment,
            sessionOptions: configuration.legacy.sessionOptions,
            frameTimeout: ConnectionTimeouts.amount(configuration.timeouts.legacyFrameSeconds),
            drain: drain,
            activity: activity,
            scenarios: dependencies.scenarios,
            logger: dependencies.logger,
            journal: dependencies.journal
        )
        let journal = dependencies.journal
        let logger = dependencies.logger
        var guardLimits = ConnectionGuardHandler.Limits(
            handshakeTimeout: ConnectionTimeouts.amount(configuration.timeouts.tlsHandshakeSeconds), firstBytesTimeout: nil,
            idleTimeout: ConnectionTimeouts.amount(configuration.timeouts.legacyIdleSeconds)
        )
        // Only the gateway reads what providers send; the feedback service only writes.
        let feedbackLimits = guardLimits
        guardLimits.readGate = dependencies.readGate
        let tracker = gatewayConnections
        let scenarios = dependencies.scenarios
        let gatewayBootstrap = ListenerBootstrap.serving(
            ListenerBootstrap.make(dependencies.group, listener: gatewayName, journal: journal, logger: logger),
            .init(tracker: tracker, transport: .legacy, tls: tls, scenarios: scenarios, journal: journal,
                  limits: guardLimits, listener: gatewayName, logger: logger)
        ) { scenarioConnection, recorder in
            LegacyGatewayHandler(services: gatewayServices, scenarioConnection: scenarioConnection, recorder: recorder)
        }
        let gateway = try await ListenerBindFailed.binding(
            gatewayName, host: configuration.host, port: dependencies.gatewayPort,
            portFlag: configuration.portSetting(
                "--gateway-port (legacy.gatewayPort)", production: "--production-gateway-port (productionPorts.gateway)", environment)
        ) {
            try await gatewayBootstrap.bind(host: configuration.host, port: dependencies.gatewayPort).get()
        }
        listeners.withLock { $0.append(gateway) }

        let feedbackServices = LegacyFeedbackServices(
            registry: dependencies.registry,
            environment: environment,
            logger: dependencies.logger,
            journal: dependencies.journal
        )
        let feedbackBootstrap = ListenerBootstrap.serving(
            ListenerBootstrap.make(dependencies.group, listener: feedbackName, journal: journal, logger: logger),
            .init(tracker: nil, transport: .feedback, tls: tls, scenarios: scenarios, journal: journal,
                  limits: feedbackLimits, listener: feedbackName, logger: logger)
        ) { _, recorder in
            LegacyFeedbackHandler(services: feedbackServices, recorder: recorder)
        }
        let feedback: any Channel
        do {
            feedback = try await ListenerBindFailed.binding(
                configuration.listenerName("feedback service", environment), host: configuration.host, port: dependencies.feedbackPort,
                portFlag: configuration.portSetting(
                    "--feedback-port (legacy.feedbackPort)", production: "--production-feedback-port (productionPorts.feedback)", environment)
            ) {
                try await feedbackBootstrap.bind(host: configuration.host, port: dependencies.feedbackPort).get()
            }
        } catch {
            await stopAccepting()
            throw error
        }
        listeners.withLock { $0.append(feedback) }
        return Ports(
            gateway: gateway.localAddress?.port ?? dependencies.gatewayPort,
            feedback: feedback.localAddress?.port ?? dependencies.feedbackPort
        )
    }

    /// Sends status 10 (with the last accepted identifier) on every open gateway connection
    /// and waits until each has drained and closed.
    func shutDownConnections() async {
        let open = gatewayConnections.open
        for channel in open {
            channel.pipeline.fireUserInboundEventTriggered(LegacyShutdownEvent())
        }
        for channel in open {
            try? await channel.closeFuture.get()
        }
    }

    /// Stops accepting connections, then shuts the open gateway connections down.
    func stop() async {
        await stopAccepting()
        await shutDownConnections()
    }

    /// Closes both listeners; open connections stay.
    func stopAccepting() async {
        let channels = listeners.withLock { listeners in
            defer { listeners.removeAll() }
            return listeners
        }
        for channel in channels {
            try? await channel.close()
        }
    }

    /// Both legacy ports: a client certificate chaining to the same roots as HTTP/2 is
    /// required, TLS 1.2 at most (clients of that era miss the error packet under TLS 1.3),
    /// and TLS 1.0 and 1.1 at security level 0 when old clients are allowed.
    static func tlsConfiguration(_ configuration: MockAPNsConfiguration) -> TLSConfiguration {
        let allowOld = configuration.legacy.allowOldTLS
        return TLSConfiguration(
            certificateChain: [.file(configuration.certificateFile(configuration.tls.certificateChain, default: "server.pem"))],
            privateKey: .file(configuration.certificateFile(configuration.tls.privateKey, default: "server-key.pem")),
            alpn: .none,
            clientCertificate: .require,
            trustRootsPEM: [.file(configuration.certificateFile(configuration.tls.clientTrustRoots, default: "ca.pem"))],
            minimumVersion: allowOld ? .tlsv1 : .tlsv12,
            maximumVersion: .tlsv12,
            securityLevel: allowOld ? 0 : nil,
            keyLogFile: ProcessEnvironment.value(of: "SSLKEYLOGFILE"),
            versionRefusalAdvice: allowOld
                ? "the legacy ports accept nothing older than TLS 1.0"
                : "TLS 1.0 and 1.1 are refused unless --legacy-allow-old-tls (legacy.allowOldTLS) is set",
            untrustedServerAdvice: configuration.untrustedServerAdvice,
            sslRefusalAdvice: "Apple's gateway and feedback service have refused it since October 2014"
        )
    }
}
