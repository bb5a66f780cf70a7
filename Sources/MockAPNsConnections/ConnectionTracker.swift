import NIOCore
import Synchronization

/// Remembers every open connection so a shutdown can say goodbye to each (GOAWAY, then close)
/// instead of cutting them off.
package final class ConnectionTracker: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    package init() {}

    /// Tracks `channel` until it closes.
    package func track(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        channels.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.channels.withLock { _ = $0.removeValue(forKey: id) }
        }
    }

    /// The connections open right now.
    package var open: [any Channel] {
        channels.withLock { Array($0.values) }
    }
}

/// Asks a gateway connection to go away as Apple's gateway did for maintenance: the status-10
/// packet naming the last accepted notification, then close.
package struct LegacyShutdownEvent: Sendable {
    package init() {}
}
