import MockAPNsCore
import MockAPNsLegacy

extension MockAPNsServer {
    /// Shuts every open legacy gateway connection down as Apple did for maintenance: the
    /// status-10 packet carrying the identifier of the connection's last accepted
    /// notification (0 if none), then close after draining. Returns once all have closed.
    /// The listener keeps accepting new connections.
    package func legacyShutdown() async {
        await legacy.shutDownConnections()
    }

    /// What the legacy gateway has seen: one report per closed connection (accepted,
    /// dropped, the packet sent, diagnoses), and diagnoses across connections.
    package var legacyActivity: LegacyGatewayActivity {
        legacy.activity.activity
    }
}
