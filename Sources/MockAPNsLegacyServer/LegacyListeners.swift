import MockAPNsSessions
import MockAPNsConnections
import Logging
import MockAPNsCore
import MockAPNsJournal
import MockAPNsLegacy
import MockAPNsTLS
import NIOCore
import NIOPosix
import Synchronization

/// The legacy binary gateway and feedback listeners of one server (a pair per environment it
/// plays): binding them, tracking the gateway's connections, and shutting those down with
/// status 10.
package final class LegacyListeners: Sendable {
    /// The ports the two listeners bound.
    package struct Ports: Sendable {
        package var gateway: Int
        package var feedback: Int
    }

    /// What the server's configuration says about one environment's pair of listeners.
    package struct Settings: Sendable {
        /// The address both listen on.
        package var host: String
        /// The listeners' names in logs and the journal ("legacy gateway (production)").
        package var gatewayName: String
        package var feedbackName: String
        /// The feedback listener's name where a port cannot be bound ("feedback service").
        package var feedbackServiceName: String
        /// The settings that choose each port, named in the error when it cannot be bound.
        package var gatewayPortSetting: String
        package var feedbackPortSetting: String
        /// The TLS both listeners speak.
        package var tls: TLSConfiguration
        /// How the gateway reads and answers frames.
        package var sessionOptions: LegacySessionOptions
        /// The deadlines: a frame's bytes, the TLS handshake, a connection's silence.
        package var frameTimeout: TimeAmount
        package var handshakeTimeout: TimeAmount
        package var idleTimeout: TimeAmount

        package init(
            host: String, gatewayName: String, feedbackName: String, feedbackServiceName: String, gatewayPortSetting: String, feedbackPortSetting: String,
            tls: TLSConfiguration, sessionOptions: LegacySessionOptions,
            frameTimeout: TimeAmount, handshakeTimeout: TimeAmount, idleTimeout: TimeAmount
        ) {
            self.host = host
            self.gatewayName = gatewayName
            self.feedbackName = feedbackName
            self.feedbackServiceName = feedbackServiceName
            self.gatewayPortSetting = gatewayPortSetting
            self.feedbackPortSetting = feedbackPortSetting
            self.tls = tls
            self.sessionOptions = sessionOptions
            self.frameTimeout = frameTimeout
            self.handshakeTimeout = handshakeTimeout
            self.idleTimeout = idleTimeout
        }
    }

    /// Everything the listeners need from the server.
    package struct Dependencies: Sendable {
        package var settings: Settings
        package var group: MultiThreadedEventLoopGroup
        package var decider: PushDecider
        package var registry: DeviceRegistry
        package var scenarios: ScenarioSwitch
        /// The sessions a connection's certificate may belong to; `decider`, `registry` and
        /// `scenarios` are the default session's.
        package var sessions: SessionDirectory?
        package var logger: Logger
        /// Where connections, frames, notifications and feedback tuples are recorded.
        package var journal: Journal?
        /// Holds the gateway's reads while the journal's file is behind.
        package var readGate: JournalReadGate?
        /// The environment this pair of listeners plays, and their ports.
        package var environment: APNsEnvironment
        package var gatewayPort: Int
        package var feedbackPort: Int

        package init(
            settings: Settings, group: MultiThreadedEventLoopGroup, decider: PushDecider, registry: DeviceRegistry,
            scenarios: ScenarioSwitch, sessions: SessionDirectory? = nil, logger: Logger, journal: Journal?,
            readGate: JournalReadGate?, environment: APNsEnvironment, gatewayPort: Int, feedbackPort: Int
        ) {
            self.sessions = sessions
            self.settings = settings
            self.group = group
            self.decider = decider
            self.registry = registry
            self.scenarios = scenarios
            self.logger = logger
            self.journal = journal
            self.readGate = readGate
            self.environment = environment
            self.gatewayPort = gatewayPort
            self.feedbackPort = feedbackPort
        }
    }

    package let activity: LegacyActivityLog
    private let gatewayConnections = ConnectionTracker()
    private let listeners = Mutex<[any Channel]>([])
    private let drain: LegacyDrainPolicy

    package init(logger: Logger, drain: LegacyDrainPolicy = LegacyDrainPolicy()) {
        self.activity = LegacyActivityLog(logger: logger)
        self.drain = drain
    }

    /// Binds the gateway, then the feedback service, of one environment. If the second
    /// cannot bind, the first is closed again before the error is thrown.
    package func start(_ dependencies: Dependencies) async throws -> Ports {
        let settings = dependencies.settings
        let environment = dependencies.environment
        let gatewayName = settings.gatewayName
        let feedbackName = settings.feedbackName
        let tls = try OpenSSLContext(configuration: settings.tls)
        let gatewayServices = LegacyGatewayServices(
            decider: dependencies.decider,
            environment: environment,
            sessionOptions: settings.sessionOptions,
            frameTimeout: settings.frameTimeout,
            drain: drain,
            activity: activity,
            scenarios: dependencies.scenarios,
            sessions: dependencies.sessions,
            logger: dependencies.logger,
            journal: dependencies.journal
        )
        let journal = dependencies.journal
        let logger = dependencies.logger
        var guardLimits = ConnectionGuardHandler.Limits(
            handshakeTimeout: settings.handshakeTimeout, firstBytesTimeout: nil,
            idleTimeout: settings.idleTimeout
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
            gatewayName, host: settings.host, port: dependencies.gatewayPort, portFlag: settings.gatewayPortSetting
        ) {
            try await gatewayBootstrap.bind(host: settings.host, port: dependencies.gatewayPort).get()
        }
        listeners.withLock { $0.append(gateway) }

        let feedbackServices = LegacyFeedbackServices(
            registry: dependencies.registry,
            sessions: dependencies.sessions,
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
                settings.feedbackServiceName, host: settings.host, port: dependencies.feedbackPort, portFlag: settings.feedbackPortSetting
            ) {
                try await feedbackBootstrap.bind(host: settings.host, port: dependencies.feedbackPort).get()
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
    package func shutDownConnections() async {
        let open = gatewayConnections.open
        for channel in open {
            channel.pipeline.fireUserInboundEventTriggered(LegacyShutdownEvent())
        }
        for channel in open {
            try? await channel.closeFuture.get()
        }
    }

    /// Stops accepting connections, then shuts the open gateway connections down.
    package func stop() async {
        await stopAccepting()
        await shutDownConnections()
    }

    /// Closes both listeners; open connections stay.
    package func stopAccepting() async {
        let channels = listeners.withLock { listeners in
            defer { listeners.removeAll() }
            return listeners
        }
        for channel in channels {
            try? await channel.close()
        }
    }
}
