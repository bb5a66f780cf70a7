import MockAPNsJournal
import Synchronization

/// The reader one dashboard stream subscribes while it is open (`JournalEventStream`): the
/// journal pushes it the events of the stream's kinds in batches, it keeps the newest
/// `capacity` the stream has not written yet, counts those it pushes out as skipped, and rings
/// the stream's bell. So a stream never looks at the journal on a timer: it writes when it is
/// rung, and a stream that falls behind (a burst larger than `capacity`) holds at most about
/// twice `capacity` events and is told how many it missed.
package final class JournalStreamReader: JournalReader {
    package let wantedKinds: UInt32
    private let capacity: Int
    private let pending = Mutex(Pending())
    package let bell = Doorbell()

    private struct Pending {
        var events: [JournalEvent] = []
        /// Events pushed out before the stream took them.
        var skipped: UInt64 = 0
        /// Set once the stream has made its one look at the history (`start(after:)`): until
        /// then nothing is pushed out, since the look may already hold what arrived meanwhile.
        var after: UInt64?
    }

    package init(wantedKinds: UInt32, capacity: Int) {
        self.wantedKinds = wantedKinds
        self.capacity = max(1, capacity)
    }

    package func read(_ batch: [JournalEvent]) {
        let wanted = wantedKinds
        let capacity = capacity
        let kept = pending.withLock { pending -> Bool in
            let before = pending.events.count
            for event in batch where event.kind.bit & wanted != 0 { pending.events.append(event) }
            guard pending.events.count > before else { return false }
            // Pushed out in runs of `capacity`, so a burst costs one move per `capacity` events.
            if pending.after != nil, pending.events.count >= 2 * capacity {
                let excess = pending.events.count - capacity
                pending.events.removeFirst(excess)
                pending.skipped += UInt64(excess)
            }
            return true
        }
        if kept { bell.ring() }
    }

    /// The stream has written the history through `sequence`: what is held up to it is
    /// dropped (it was in that look), and from now on the oldest are pushed out past `capacity`.
    package func start(after sequence: UInt64) {
        pending.withLock { pending in
            pending.events.removeAll { $0.sequence <= sequence }
            pending.after = sequence
        }
    }

    /// The newest `capacity` events held, oldest first, and how many were passed over since
    /// the last take; the reader is empty afterwards.
    package func take() -> (events: [JournalEvent], skipped: UInt64) {
        let capacity = capacity
        return pending.withLock { pending in
            var events = pending.events
            var skipped = pending.skipped
            if events.count > capacity {
                let excess = events.count - capacity
                events.removeFirst(excess)
                skipped += UInt64(excess)
            }
            pending.events = []
            pending.skipped = 0
            return (events, skipped)
        }
    }
}
