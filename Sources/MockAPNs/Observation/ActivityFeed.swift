import MockAPNsCore
import ServiceLifecycle
import Synchronization

/// Collects the journal events that the access log and the metrics read (notifications,
/// connections, TLS outcomes) for `ActivityReader`. The journal hands them over on the hot
/// path, so receiving only appends to a buffer; frames are not kept.
final class ActivityFeed: JournalSink {
    private let pending = Mutex<[ActivityItem]>([])
    /// Whether notifications are kept whole (an access log prints them); otherwise only what
    /// the metrics count by is kept, a few bytes with nothing to retain, so the reader's
    /// thread never touches the strings and buffers the recording thread made.
    private let keepsWholeNotifications: Bool

    init(keepsWholeNotifications: Bool) {
        self.keepsWholeNotifications = keepsWholeNotifications
    }

    /// The kinds the metrics and the access log read; the journal skips this sink for the
    /// others entirely.
    let wantedKinds: UInt32 = JournalEventKind.Name.allCases.filter(ActivityFeed.wants).reduce(0) { $0 | $1.bit }

    /// Whether the feed passes events of `kind` on. A new kind must be decided here: frames
    /// and diagnoses are many and neither reader counts them.
    static func wants(_ kind: JournalEventKind.Name) -> Bool {
        switch kind {
        case .notification, .broadcast, .channelOperation, .connectionOpened, .connectionClosed, .tlsEstablished, .tlsFailed:
            true
        case .http2Frame, .legacyFrame, .fault, .feedbackTuple, .diagnosis:
            false
        }
    }

    /// The journal hands over only the kinds in `wantedKinds`.
    func receive(_ event: JournalEvent) {
        let item: ActivityItem
        if !keepsWholeNotifications, case .notification(let record) = event.kind {
            item = .notification(NotificationOutcome(record))
        } else {
            item = .event(event)
        }
        pending.withLock { $0.append(item) }
    }

    /// Everything received since the last call, oldest first.
    func drain() -> [ActivityItem] {
        pending.withLock { events in
            defer { events.removeAll(keepingCapacity: true) }
            return events
        }
    }
}

/// One thing the feed passed on: a notification as the metrics count it, or a whole event.
enum ActivityItem: Sendable, Equatable {
    case notification(NotificationOutcome)
    case event(JournalEvent)

    /// The whole event, when the feed kept it.
    var event: JournalEvent? {
        switch self {
        case .notification: nil
        case .event(let event): event
        }
    }
}

/// Reads the feed in batches, off the event loops, into the metrics and the access log: on a
/// short timer, before every `/metrics` scrape, and once more at shutdown.
actor ActivityReader: Service {
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
        let items = feed.drain()
        guard !items.isEmpty else { return }
        metrics.record(items)
        guard accessLog != nil else { return }
        accessLog?.write(items.compactMap(\.event))
    }

    /// Catches up every `interval` until the server's services shut down (or the task is
    /// cancelled), then once more, so the last events reach the metrics and the access log.
    func run() async {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            try? await Task.sleep(for: Self.interval)
            catchUp()
        }
        catchUp()
    }
}
