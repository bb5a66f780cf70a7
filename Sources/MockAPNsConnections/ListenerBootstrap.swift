import Logging
import MockAPNsCore
import MockAPNsJournal
import NIOCore
import MockAPNsTLS
import NIOPosix
import MockAPNsScenario

/// What every listener's bootstrap shares: the limit reporter on the listening socket
/// (a listener out of descriptors says so once), address reuse, and no Nagle delay.
package enum ListenerBootstrap {
    package static func make(
        _ group: any EventLoopGroup, listener: String, journal: Journal?, logger: Logger, backlog: Int32 = 256
    ) -> ServerBootstrap {
        ServerBootstrap(group: group)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ListenerLimitReporter(listener: listener, journal: journal, logger: logger))
                }
            }
            .serverChannelOption(.backlog, value: backlog)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // TCP_NODELAY is a TCP-level option: at the socket level its number is SO_DEBUG, which
            // an unprivileged process may not set, and every accepted connection would be closed.
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
    }

    /// What a listener does with each connection it accepts: tracks it (for shutdown), then
    /// installs the shared pipeline (`ConnectionPipeline.install`) ending in the protocol's
    /// own handler.
    package struct Connections: Sendable {
        package var tracker: ConnectionTracker?
        package var transport: Transport
        package var tls: OpenSSLContext
        package var scenarios: ScenarioSwitch
        package var journal: Journal?
        package var limits: ConnectionGuardHandler.Limits
        package var listener: String
        package var logger: Logger

        package init(
            tracker: ConnectionTracker?, transport: Transport, tls: OpenSSLContext, scenarios: ScenarioSwitch, journal: Journal?,
            limits: ConnectionGuardHandler.Limits, listener: String, logger: Logger
        ) {
            self.tracker = tracker
            self.transport = transport
            self.tls = tls
            self.scenarios = scenarios
            self.journal = journal
            self.limits = limits
            self.listener = listener
            self.logger = logger
        }
    }

    /// `bootstrap`, serving each accepted connection as `connections` says, with the handler
    /// `protocolHandler` makes last in its pipeline.
    package static func serving(
        _ bootstrap: ServerBootstrap, _ connections: Connections,
        protocolHandler: @escaping @Sendable (ScenarioConnection, ConnectionJournal) -> any ChannelHandler
    ) -> ServerBootstrap {
        bootstrap.childChannelInitializer { channel in
            connections.tracker?.track(channel)
            return channel.eventLoop.makeCompletedFuture {
                try ConnectionPipeline.install(
                    on: channel, transport: connections.transport, tls: connections.tls, scenarios: connections.scenarios,
                    journal: connections.journal, guarding: connections.limits, listener: connections.listener,
                    logger: connections.logger, protocolHandler: protocolHandler
                )
            }
        }
    }
}
