import MockAPNsCore
import MockAPNsTLS
import NIOCore
import NIOPosix

extension MockAPNsServer {
    /// The broadcast core for the provider API.
    func makeBroadcastDecider() -> BroadcastDecider {
        BroadcastDecider(options: configuration.broadcast.options, validation: makeDecider().options, registry: channels, clock: clock)
    }

    /// Binds the channel management listener when `configuration.broadcast.managePort` is set:
    /// the provider API's TLS context and connection pipeline, HTTP/2 with the same
    /// authentication, and the channel management core.
    func startChannelManagement(
        services provider: HTTP2ConnectionServices, tls: OpenSSLContext, guarding guardLimits: ConnectionGuardHandler.Limits
    ) async throws -> (any Channel)? {
        guard let port = configuration.broadcast.managePort else { return nil }
        var management = provider
        management.role = .channelManagement
        management.broadcasts = nil
        management.channelManagement = ChannelManagementDecider(options: configuration.broadcast.options, registry: channels, clock: clock)
        let services = management
        let connections = self.connections
        let scenarios = self.scenarios
        let journal = observation.journal
        let logger = self.logger
        let bootstrap = ListenerBootstrap.serving(
            ListenerBootstrap.make(group, listener: "channel management", journal: journal, logger: logger),
            .init(tracker: connections, transport: .channelManagement, tls: tls, scenarios: scenarios, journal: journal,
                  limits: guardLimits, listener: "channel management", logger: logger)
        ) { scenarioConnection, connectionID in
            HTTP2ConnectionBridge(services: services, scenarioConnection: scenarioConnection, connectionID: connectionID)
        }
        return try await ListenerBindFailed.binding(
            "broadcast channel management API", host: configuration.host, port: port,
            portFlag: "--broadcast-manage-port (broadcast.managePort)"
        ) {
            try await bootstrap.bind(host: configuration.host, port: port).get()
        }
    }
}

extension MockAPNsServer {
    /// The broadcasts recorded in the journal, oldest first; `channelID` narrows them to one
    /// channel.
    public func broadcasts(channel channelID: String? = nil) -> [BroadcastRecord] {
        journal.events(matching: JournalEventFilter(kinds: ["broadcast"], channelID: channelID)).compactMap { event in
            if case .broadcast(let record) = event.kind { return record }
            return nil
        }
    }

    /// The channel management requests recorded in the journal, oldest first; `channelID`
    /// narrows them to one channel.
    public func channelOperations(channel channelID: String? = nil) -> [ChannelOperationRecord] {
        journal.events(matching: JournalEventFilter(kinds: ["channelOperation"], channelID: channelID)).compactMap { event in
            if case .channelOperation(let record) = event.kind { return record }
            return nil
        }
    }

    /// Forgets every channel, then adds back the ones the configuration seeds: what a server
    /// reset does to the channel registry.
    /// Returns how many channels there were before.
    @discardableResult
    public func resetChannels() -> Int {
        let cleared = channels.reset()
        for channel in configuration.broadcast.channels { channels.insert(channel) }
        return cleared
    }
}
