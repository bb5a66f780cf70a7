import NIOCore
import Synchronization

/// Remembers every open connection so a shutdown can say goodbye to each (GOAWAY, then close)
/// instead of cutting them off.
final class ConnectionTracker: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    /// Tracks `channel` until it closes.
    func track(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        channels.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.channels.withLock { _ = $0.removeValue(forKey: id) }
        }
    }

    /// The connections open right now.
    var open: [any Channel] {
        channels.withLock { Array($0.values) }
    }
}
