import MockAPNsCore
import MockAPNsJournal
import ServiceLifecycle
import Synchronization
import MockAPNsVerdicts

/// Collects the journal events that the access log, the metrics and the provider verdicts read
/// (notifications, connections, TLS outcomes, diagnoses, verdicts) for `ActivityReader`. The
/// journal hands them over on the hot path, so receiving keeps the journal's batch as it is,
/// one reference to the array the other readers got too, rather than copying its events one
/// by one; the reader skips the kinds it does not read (frames, when a journal file wants them).
package final class ActivityFeed: JournalReader {
    private struct Pending {
        var batches: [[JournalEvent]] = []
        /// Events of the wanted kinds in `batches`: what the gate and the wake mark count.
        var events = 0
    }

    private let pending = Mutex(Pending())
    /// Closed while the events waiting pass `highWater`, so provider connections read more
    /// slowly rather than the backlog growing without end when the reader cannot keep up.
    private let gate: JournalReadGate?
    private let highWater: Int
    /// Half the high-water mark: a backlog this large rings `bell`, so the reader takes it at
    /// once rather than at the end of its rest, before the gate has to close. Without it a
    /// burst the reader's 50 ms rest lets pile up (10,000 legacy notifications at 200,000/s)
    /// closed the gate dozens of times a second, and the connections waited on the reader's
    /// timer, not on its work.
    private let wakeMark: Int

    /// Rung when the backlog reaches `wakeMark`; the reader waits on it between batches.
    package let bell = Doorbell()

    /// Events waiting before the gate closes: 8,192 is more than the reader's 50 ms tick
    /// brings at full speed, and as notification records with 5 KiB payloads (answered 413)
    /// about 45 MiB, twice that with the batch the reader works through.
    package static let defaultHighWater = 8_192

    package init(gate: JournalReadGate? = nil, highWater: Int = ActivityFeed.defaultHighWater) {
        self.gate = gate
        self.highWater = max(1, highWater)
        self.wakeMark = max(1, highWater / 2)
    }

    /// The kinds the metrics, the access log and the verdicts read; the journal skips this
    /// reader for the others entirely.
    package let wantedKinds: UInt32 = JournalEventKind.Name.allCases.filter(ActivityFeed.wants).reduce(0) { $0 | $1.bit }

    /// Whether the feed passes events of `kind` on. A new kind must be decided here: frames
    /// are many and no reader counts them; the verdicts read diagnoses (a stream opened after
    /// GOAWAY) and their own verdicts.
    package static func wants(_ kind: JournalEventKind.Name) -> Bool {
        switch kind {
        case .notification, .broadcast, .channelOperation, .connectionOpened, .connectionClosed, .tlsEstablished, .tlsFailed,
             .diagnosis, .verdict:
            true
        case .http2Frame, .legacyFrame, .fault, .feedbackTuple, .delivery:
            false
        }
    }

    /// A batch, kept whole under one hold of the lock when it holds an event of a wanted kind.
    package func read(_ batch: [JournalEvent]) {
        var wanted = 0
        for event in batch where event.kind.bit & wantedKinds != 0 { wanted += 1 }
        guard wanted > 0 else { return }
        let waiting = pending.withLock { pending in
            pending.batches.append(batch)
            pending.events += wanted
            return pending.events
        }
        backlogGrew(to: waiting, by: wanted)
    }

    /// Wakes the reader when the backlog has just reached the wake mark (once per crossing,
    /// not once per event above it), and closes the gate past the high-water mark.
    private func backlogGrew(to waiting: Int, by added: Int) {
        if waiting >= wakeMark, waiting - added < wakeMark { bell.ring() }
        if waiting >= highWater { gate?.close(.activity) }
    }

    /// Everything received since the last call, oldest first. Opens the gate: the backlog is
    /// taken, and what waits next is what arrives while the reader works through it.
    package func drain() -> ActivityEvents {
        let taken = pending.withLock { pending in
            defer { pending = Pending() }
            return pending
        }
        gate?.open(.activity)
        return ActivityEvents(batches: taken.batches, count: taken.events, wantedKinds: wantedKinds)
    }

    /// Events waiting for the reader now.
    package var waiting: Int { pending.withLock { $0.events } }
}

/// What the feed passed on since the reader last took it: the journal's batches as they came,
/// read in place, their events of the kinds the feed wants in order.
package struct ActivityEvents: Sequence, Sendable {
    fileprivate let batches: [[JournalEvent]]
    /// How many events the sequence yields.
    package let count: Int
    fileprivate let wantedKinds: UInt32

    package var isEmpty: Bool { count == 0 }

    package func makeIterator() -> some IteratorProtocol<JournalEvent> {
        let wantedKinds = wantedKinds
        return batches.joined().lazy.filter { $0.kind.bit & wantedKinds != 0 }.makeIterator()
    }
}

/// Reads the feed in batches, off the event loops, into the metrics, the access log and the
/// provider verdicts: on a short timer, before every `/metrics` scrape and report, and once
/// more at shutdown. The verdicts' findings go back into the journal as `verdict` events.
package actor ActivityReader: Service {
    /// How long events may wait before the access log shows them.
    package static let interval = Duration.milliseconds(50)

    /// What it reads: the server subscribes it to the journal with its other readers.
    package nonisolated let feed: ActivityFeed
    private let metrics: ServerMetrics
    private var accessLog: AccessLog?
    /// Judges the providers; `nil` when verdicts are off.
    private var judge: ProviderJudge?
    private let journal: Journal
    /// Events up to this sequence belong to a run the server was reset after (`startOver`).
    private let startsAfter: StartingPoint
    /// The starting point the judge was made for.
    private var judgedAfter: UInt64 = 0

    package init(feed: ActivityFeed, metrics: ServerMetrics, accessLog: AccessLog?, verdicts: VerdictSettings?, journal: Journal,
         startsAfter: StartingPoint) {
        self.feed = feed
        self.metrics = metrics
        self.accessLog = accessLog
        self.judge = verdicts.map { ProviderJudge(settings: $0) }
        self.journal = journal
        self.startsAfter = startsAfter
    }

    /// Takes in everything the feed holds now; returns how many items that was.
    @discardableResult
    package func catchUp() -> Int {
        let events = feed.drain()
        guard !events.isEmpty else { return 0 }
        metrics.record(events)
        if judge != nil { judgeProviders(events) }
        accessLog?.write(events)
        return events.count
    }

    /// A batch this large (an eighth of the feed's high-water mark) means traffic is heavy:
    /// the reader takes the next one at once instead of resting `interval`, or the feed's gate
    /// would hold the providers' reads for the rest of each interval while the reader slept.
    package static let busyBatch = ActivityFeed.defaultHighWater / 8

    private func judgeProviders(_ events: ActivityEvents) {
        startOverIfReset()
        guard var judge else { return }
        let start = judgedAfter
        for event in events where event.sequence > start {
            for verdict in judge.consume(event) {
                journal.record(.verdict(verdict), connection: verdict.connections.first)
            }
        }
        self.judge = judge
    }

    /// What the readers keep now (after taking in what the feed holds), for tests that they
    /// keep nothing per past request or connection.
    package func stateCounts() -> ReaderStateCounts {
        catchUp()
        return ReaderStateCounts(
            judge: judge?.stateCounts, accessLogConnections: accessLog?.connectionsTracked,
            metricsConnections: metrics.connectionsTracked
        )
    }

    /// The verdicts on every provider so far (after taking in what the feed holds).
    package func report() -> VerdictReport? {
        catchUp()
        startOverIfReset()
        return judge?.report()
    }

    /// After a server reset, a new judge for the events that follow it.
    private func startOverIfReset() {
        let start = startsAfter.sequence
        guard start != judgedAfter, let settings = judge?.settings else { return }
        judge = ProviderJudge(settings: settings)
        judgedAfter = start
    }

    /// Records a `verdict` event for every notification lost by now: the last word of a run.
    package func recordLostNotifications() {
        catchUp()
        guard let judge else { return }
        for verdict in judge.lostNotifications() {
            journal.record(.verdict(verdict), connection: verdict.connections.first)
        }
        catchUp()
    }

    /// Catches up every `interval` (sooner when the feed's backlog rings for it), or at once
    /// while batches are heavy, until the server's
    /// services shut down (or the task is cancelled), then once more, so the last events
    /// reach the metrics, the access log and the verdicts.
    package func run() async {
        var taken = 0
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            if taken >= Self.busyBatch {
                await Task.yield()
            } else {
                // Rests `interval`, or less when the feed's backlog rings for it.
                await feed.bell.wait(timeout: Self.interval)
            }
            taken = catchUp()
        }
        catchUp()
    }
}

/// The entries each reader beside the server keeps (`ActivityReader.stateCounts`).
package struct ReaderStateCounts: Sendable {
    /// The provider judge's, when verdicts are on.
    package var judge: ProviderJudge.StateCounts?
    /// The access log's open connections, when it is on.
    package var accessLogConnections: Int?
    /// The metrics' open connections.
    package var metricsConnections: Int
}

/// The sequence a server reset left the journal at: the verdicts judge only what follows.
/// Set from the reset, read by the reader; one atomic word, no lock.
package final class StartingPoint: Sendable {
    private let value = Atomic<UInt64>(0)

    package init() {}

    package var sequence: UInt64 { value.load(ordering: .acquiring) }

    package func start(after sequence: UInt64) {
        value.store(sequence, ordering: .releasing)
    }
}
