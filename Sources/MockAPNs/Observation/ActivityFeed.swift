import MockAPNsCore
import Synchronization

/// Collects the journal events that the access log and the metrics read (notifications,
/// connections, TLS outcomes) for `ActivityReader`. The journal hands them over on the hot
/// path, so receiving only appends to a buffer; frames are not kept.
final class ActivityFeed: JournalSink {
    private let pending = Mutex<[JournalEvent]>([])

    /// No frames, no diagnoses: the journal skips this sink for them entirely.
    let wantedKinds: UInt32 = JournalEventKind.bits(
        .notification, .broadcast, .channelOperation, .connectionOpened, .connectionClosed, .tlsEstablished, .tlsFailed
    )

    /// The journal hands over only the kinds in `wantedKinds`.
    func receive(_ event: JournalEvent) {
        pending.withLock { $0.append(event) }
    }

    /// Everything received since the last call, oldest first.
    func drain() -> [JournalEvent] {
        pending.withLock { events in
            defer { events.removeAll(keepingCapacity: true) }
            return events
        }
    }
}

/// Reads the feed in batches, off the event loops, into the metrics and the access log: on a
/// short timer, before every `/metrics` scrape, and once more at shutdown.
actor ActivityReader {
    /// How long events may wait before the access log shows them.
    static let interval = Duration.milliseconds(50)

    private let feed: ActivityFeed
    private let metrics: ServerMetrics
    private var accessLog: AccessLog?

    init(feed: ActivityFeed, metrics: ServerMetrics, accessLog: AccessLog?) {
        self.feed = feed
        self.metrics = metrics
        self.accessLog = accessLog
    }

    /// Takes in everything the feed holds now.
    func catchUp() {
        let events = feed.drain()
        guard !events.isEmpty else { return }
        metrics.record(events)
        accessLog?.write(events)
    }

    /// Catches up every `interval` until cancelled, then once more.
    func run() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.interval)
            catchUp()
        }
        catchUp()
    }
}
