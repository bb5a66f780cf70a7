import MockAPNsConnections
import MockAPNsCore
import MockAPNsJournal
import MockAPNsTLS
import NIOCore
import NIOPosix
import MockAPNsBroadcast

extension MockAPNsServer {
    /// The broadcast core for the provider API.
    func makeBroadcastDecider() -> BroadcastDecider {
        Self.makeBroadcastDecider(configuration, channels: channels, clock: clock)
    }

    /// The broadcast core over `channels`, with `configuration`'s options.
    static func makeBroadcastDecider(_ configuration: MockAPNsConfiguration, channels: ChannelRegistry, clock: ServerClock) -> BroadcastDecider {
        BroadcastDecider(options: configuration.broadcast.options, validation: validationOptions(configuration), registry: channels, clock: clock)
    }

    /// The channel management core over `channels`.
    static func makeChannelManagement(
        _ configuration: MockAPNsConfiguration, channels: ChannelRegistry, clock: ServerClock
    ) -> ChannelManagementDecider {
        ChannelManagementDecider(options: configuration.broadcast.options, registry: channels, clock: clock)
    }

    /// Binds the channel management listener on `port` (`nil`: none, as when
    /// `configuration.broadcast.managePort` is not set) for the environment `provider` plays:
    /// the provider API's TLS context and connection pipeline, HTTP/2 with the same
    /// authentication, and the channel management core.
    func startChannelManagement(
        services provider: HTTP2ConnectionServices, tls: OpenSSLContext, guarding guardLimits: ConnectionGuardHandler.Limits, port: Int?,
        group: any EventLoopGroup
    ) async throws -> (any Channel)? {
        guard let port else { return nil }
        let name = configuration.listenerName("channel management", provider.environment)
        var management = provider
        management.role = .channelManagement
        management.broadcasts = nil
        management.channelManagement = Self.makeChannelManagement(configuration, channels: channels, clock: clock)
        let services = management
        let connections = self.connections
        let scenarios = self.scenarios
        let journal = observation.journal
        let logger = self.logger
        let bootstrap = ListenerBootstrap.serving(
            ListenerBootstrap.make(group, listener: name, journal: journal, logger: logger),
            .init(tracker: connections, transport: .channelManagement, tls: tls, scenarios: scenarios, journal: journal,
                  limits: guardLimits, listener: name, logger: logger)
        ) { scenarioConnection, recorder in
            HTTP2ConnectionBridge(services: services, scenarioConnection: scenarioConnection, recorder: recorder)
        }
        return try await ListenerBindFailed.binding(
            configuration.listenerName("broadcast channel management API", provider.environment), host: configuration.host, port: port,
            portFlag: configuration.portSetting(
                "--broadcast-manage-port (broadcast.managePort)",
                production: "--production-broadcast-manage-port (productionPorts.channelManagement)", provider.environment)
        ) {
            try await bootstrap.bind(host: configuration.host, port: port).get()
        }
    }
}

extension MockAPNsServer {
    /// The broadcasts recorded in the journal, oldest first; `channelID` narrows them to one
    /// channel.
    package func broadcasts(channel channelID: String? = nil) -> [BroadcastRecord] {
        journal.events(matching: JournalEventFilter(kinds: ["broadcast"], channelID: channelID)).compactMap { event in
            if case .broadcast(let record) = event.kind { return record }
            return nil
        }
    }

    /// The channel management requests recorded in the journal, oldest first; `channelID`
    /// narrows them to one channel.
    package func channelOperations(channel channelID: String? = nil) -> [ChannelOperationRecord] {
        journal.events(matching: JournalEventFilter(kinds: ["channelOperation"], channelID: channelID)).compactMap { event in
            if case .channelOperation(let record) = event.kind { return record }
            return nil
        }
    }

    /// Forgets every channel, then adds back the ones the configuration seeds: what a server
    /// reset does to the channel registry.
    /// Returns how many channels there were before.
    @discardableResult
    package func resetChannels() -> Int {
        let cleared = channels.reset()
        for channel in configuration.broadcast.channels { channels.insert(channel) }
        return cleared
    }
}
