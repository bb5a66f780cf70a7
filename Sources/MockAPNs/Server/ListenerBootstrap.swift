import Logging
import MockAPNsCore
import NIOCore
import NIOPosix

/// What every listener's bootstrap shares: the limit reporter on the listening socket
/// (a listener out of descriptors says so once), address reuse, and no Nagle delay.
enum ListenerBootstrap {
    static func make(
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
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    }
}
