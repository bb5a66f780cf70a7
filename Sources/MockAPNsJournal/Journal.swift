import MockAPNsCore
import MockAPNsWire
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How a journal behaves.
package struct JournalOptions: Sendable, Equatable {
    /// How many events are kept in memory; older ones are dropped first and counted.
    package var capacity: Int
    /// How many bytes the events kept in memory may take (at least
    /// `JournalStore.minimumCapacityBytes`); whichever bound is reached first drops the oldest.
    package var capacityBytes: Int
    /// Whether every HTTP/2 frame is recorded. Notifications are always recorded.
    package var recordsFrames: Bool
    /// How provider tokens appear in what is recorded (frames, diagnoses, close reasons):
    /// without their signature by default.
    package var providerTokens: ProviderTokenRecording

    /// The default byte bound for a journal of `capacity` events: 1 KiB an event, at least
    /// 128 MiB. The default 100,000 events of usual traffic (a notification packs to a few
    /// hundred bytes, a frame to tens) fit well within it, so the count is the bound that
    /// usually applies; events of large or junk input cannot take more.
    package static func defaultCapacityBytes(forCapacity capacity: Int) -> Int {
        max(128 << 20, capacity.multipliedReportingOverflow(by: 1024).overflow ? .max : capacity * 1024)
    }
    /// The least byte bound taken (`JournalStore.minimumCapacityBytes`).
    package static let minimumCapacityBytes = JournalStore.minimumCapacityBytes

    /// `capacityBytes` `nil`: `defaultCapacityBytes(forCapacity:)`.
    package init(
        capacity: Int = 100_000, capacityBytes: Int? = nil, recordsFrames: Bool = true,
        providerTokens: ProviderTokenRecording = .withoutSignature
    ) {
        self.capacity = capacity
        self.capacityBytes = capacityBytes ?? Self.defaultCapacityBytes(forCapacity: capacity)
        self.recordsFrames = recordsFrames
        self.providerTokens = providerTokens
    }
}

/// How full the journal is.
/// What `Journal.tail(after:kinds:limit:)` found.
package struct JournalTail: Sendable {
    /// The newest matching events, oldest first.
    package var events: [JournalEvent]
    /// Matching events older than those, passed over, plus events pushed out of the journal
    /// before they could be read (events a clear forgot are not counted).
    package var skipped: UInt64
    /// The newest sequence recorded when the journal was read: the next look starts after it.
    package var lastSequence: UInt64
}

package struct JournalStatistics: Sendable, Equatable {
    /// Events held now.
    package var count: Int
    package var capacity: Int
    /// Events pushed out because the journal was full, since it was created or last cleared.
    package var dropped: UInt64
    /// The sequence number of the newest event ever recorded (0: none yet).
    package var lastSequence: UInt64
    /// The bytes the events held take (`JournalStore.bytesCounted`), and their bound.
    package var bytes: Int
    package var capacityBytes: Int
    /// Readers subscribed now (`Journal.subscribe`): the server's standing ones, and each open
    /// dashboard stream and wait.
    package var readers: Int
    /// Looks at the newest events (`Journal.tail`) since the journal was created: one per
    /// dashboard stream as it opens, since the feed pushes it the rest.
    package var historyReads: UInt64

    package init(
        count: Int, capacity: Int, dropped: UInt64, lastSequence: UInt64, bytes: Int = 0, capacityBytes: Int = .max,
        readers: Int = 0, historyReads: UInt64 = 0
    ) {
        self.count = count
        self.capacity = capacity
        self.dropped = dropped
        self.lastSequence = lastSequence
        self.bytes = bytes
        self.capacityBytes = capacityBytes
        self.readers = readers
        self.historyReads = historyReads
    }
}

/// The server's append-only record of everything it saw and did, shared by every connection.
///
/// Recording is cheap: the event packed into bytes under a short lock (`JournalStore`); values and JSON are made only
/// when someone reads. Readers query with filters, or subscribe (`subscribe`) and are handed
/// the new events in batches; a wait is such a reader while it waits, woken by the batch that
/// brings something new, never by polling. No reader's predicate and no reader runs under the
/// journal's lock.
public final class Journal: Sendable {
    package let options: JournalOptions
    private let clock: ServerClock
    private let state: Mutex<State>
    private let connectionCounter = Atomic<UInt64>(0)
    /// Calls of `tail`, for `JournalStatistics.historyReads`.
    private let tailCalls = Atomic<UInt64>(0)

    private struct State {
        var store: JournalStore
        var lastSequence: UInt64 = 0
        /// Every subscribed reader: the one list the recording threads hand batches to.
        var readers: [any JournalReader] = []
        /// Every kind some reader wants (`JournalEventKind.bit`).
        var readerKinds: UInt32 = 0
        /// Events recorded but not yet handed to the readers.
        var readerBacklog: [JournalEvent] = []
        /// An empty buffer with capacity, swapped in for `readerBacklog` when a batch is taken.
        var spareReaderBacklog: [JournalEvent] = []
        /// Whether a recording thread is handing the backlog to the readers right now.
        var handingOver = false
        /// While handing over, the first sequence of the backlog's oldest batch: every event
        /// before it has been handed to the readers that want it (or no reader wanted it).
        /// At least 1 whenever `handingOver` is set.
        var handingOverFrom: UInt64 = 1
        /// Waits in progress (each a reader subscribed while it waits).
        var waits = 0
    }

    package init(options: JournalOptions = JournalOptions(), clock: ServerClock = ServerClock()) {
        self.options = options
        self.clock = clock
        self.state = Mutex(State(store: JournalStore(capacity: options.capacity, capacityBytes: options.capacityBytes)))
    }

    /// The journal clock's time now, in milliseconds since 1970.
    var wallTimeNow: Int64 { clock.millisecondsSince1970 }

    /// A new connection id, unique within this journal.
    package func nextConnectionID() -> UInt64 {
        connectionCounter.add(1, ordering: .relaxed).newValue
    }

    // MARK: Subscribing

    /// The one subscription point: `reader` is handed, in batches, every event of its kinds
    /// recorded from now on.
    package func subscribe(_ reader: any JournalReader) {
        state.withLock { state in
            state.readers.append(reader)
            state.readerKinds |= reader.wantedKinds
        }
    }

    /// Stops handing events to `reader` (a stream that closed, a wait that ended).
    package func unsubscribe(_ reader: any JournalReader) {
        state.withLock { state in
            state.readers.removeAll { $0 === reader }
            state.readerKinds = state.readers.reduce(0) { $0 | $1.wantedKinds }
        }
    }

    /// The sequence through which every recorded event has been handed to the readers that
    /// want it: what a reader told of something else's progress (the delivery model's) checks
    /// before it trusts that the events behind that progress have reached it.
    package var handedOverThrough: UInt64 {
        state.withLock { state in
            state.handingOver ? state.handingOverFrom - 1 : state.lastSequence
        }
    }

    // MARK: Recording

    /// Records one event and returns its sequence number. A notification record read back
    /// carries the event's sequence, time, connection and stream (see `JournalEvent.notification`).
    @discardableResult
    package func record(_ kind: JournalEventKind, connection: UInt64? = nil, stream: Int32? = nil) -> UInt64 {
        record(kind, nil, connection: connection, stream: stream)
    }

    /// Records two events of one moment, in order, under one lock: a frame and the
    /// notification it carried.
    package func record(_ first: JournalEventKind, then second: JournalEventKind, connection: UInt64? = nil, stream: Int32? = nil) {
        record(first, second, connection: connection, stream: stream)
    }

    /// Records events of one moment with no connection, in order, under one lock (the delivery
    /// model's steps for a batch of notifications). Returns the sequence of the last.
    @discardableResult
    package func record(_ kinds: [JournalEventKind]) -> UInt64 {
        guard let first = kinds.first else { return statistics.lastSequence }
        guard kinds.count > 1 else { return record(first, nil, connection: nil, stream: nil) }
        return record(
            kinds, wallTime: clock.millisecondsSince1970, monotonic: Self.monotonicNanoseconds(),
            connection: nil, kind: { $0 }, stream: { _ in nil }
        )
    }

    /// Records the events one connection held while it worked through a read
    /// (`ConnectionJournal`), in order, with the moment the first of them happened.
    func record(held: [ConnectionJournal.Held], connection: UInt64, wallTime: Int64, monotonic: UInt64) {
        _ = record(held, wallTime: wallTime, monotonic: monotonic, connection: connection, kind: { $0.kind }, stream: { $0.stream })
    }

    /// Appends `events` in order, a slice at a time: a batch of hundreds (a connection's read,
    /// the delivery model under load) must not keep another thread waiting long to record its
    /// own. The readers get the new events once, after the last slice. Returns the last sequence.
    private func record<Events: RandomAccessCollection>(
        _ events: Events, wallTime: Int64, monotonic: UInt64, connection: UInt64?,
        kind: (Events.Element) -> JournalEventKind, stream: (Events.Element) -> Int32?
    ) -> UInt64 where Events.Index == Int {
        var recorded: UInt64 = 0
        var delivers = false
        var start = events.startIndex
        while start < events.endIndex {
            let end = min(start + Self.batchSlice, events.endIndex)
            let (slice, last) = state.withLock { state in
                var delivers = false
                for index in start..<end {
                    delivers = Self.append(
                        kind(events[index]), to: &state, wallTime: wallTime, monotonic: monotonic, connection: connection,
                        stream: stream(events[index])
                    ) || delivers
                }
                return (delivers, state.lastSequence)
            }
            delivers = delivers || slice
            recorded = last
            start = end
        }
        if delivers { handOverToReaders() }
        return recorded
    }

    /// The most events appended under one hold of the lock.
    static let batchSlice = 32

    /// Records one or two events; returns the sequence of the last.
    @discardableResult
    private func record(_ first: JournalEventKind, _ second: JournalEventKind?, connection: UInt64?, stream: Int32?) -> UInt64 {
        let wallTime = clock.millisecondsSince1970
        let monotonic = Self.monotonicNanoseconds()
        let (delivers, recorded) = state.withLock { state in
            var delivers = Self.append(first, to: &state, wallTime: wallTime, monotonic: monotonic, connection: connection, stream: stream)
            if let second {
                delivers = Self.append(second, to: &state, wallTime: wallTime, monotonic: monotonic, connection: connection, stream: stream)
                    || delivers
            }
            return (delivers, state.lastSequence)
        }
        if delivers { handOverToReaders() }
        return recorded
    }

    /// Appends one event under the lock; returns whether this thread is to hand the backlog
    /// to the readers.
    private static func append(
        _ kind: consuming JournalEventKind, to state: inout State, wallTime: Int64, monotonic: UInt64, connection: UInt64?,
        stream: Int32?
    ) -> Bool {
        // Consumed: the event the readers get takes the caller's reference to the kind, rather
        // than one more of its own.
        state.lastSequence += 1
        let sequence = state.lastSequence
        state.store.append(
            sequence: sequence, wallTime: wallTime, monotonic: monotonic, connection: connection, stream: stream, kind: kind
        )
        guard state.readerKinds & kind.bit != 0 else { return false }
        state.readerBacklog.append(JournalEvent(
            sequence: sequence, wallTimeMilliseconds: wallTime, monotonicNanoseconds: monotonic,
            connectionID: connection, streamID: stream, kind: kind
        ))
        guard !state.handingOver else { return false }
        // Not handing over means the backlog was empty: this event is its first.
        state.handingOver = true
        state.handingOverFrom = sequence
        return true
    }

    /// Hands the backlog to the readers, outside the lock, a batch at a time until it is
    /// empty. Only one thread hands over at a time, so readers see events in sequence order.
    private func handOverToReaders() {
        var batch: [JournalEvent] = []
        while true {
            let readers: [any JournalReader]? = state.withLock { state in
                // The emptied batch goes back as the spare, so its storage is used again
                // rather than a new buffer allocated for every hand-over.
                if batch.capacity > 0 { state.spareReaderBacklog = batch }
                guard !state.readerBacklog.isEmpty else {
                    state.handingOver = false
                    return nil
                }
                batch = state.readerBacklog
                state.handingOverFrom = batch.first?.sequence ?? state.lastSequence + 1
                state.readerBacklog = state.spareReaderBacklog
                state.spareReaderBacklog = []
                return state.readers
            }
            guard let readers else { return }
            for reader in readers { reader.read(batch) }
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// A fault a scenario injected on a connection (and stream).
    package func recordFault(connection: UInt64?, stream: Int32?, description: String) {
        record(.fault(description: description), connection: connection, stream: stream)
    }

    // MARK: Reading

    /// Events matching `filter`, oldest first, at most `limit`.
    public func events(matching filter: JournalEventFilter = .all, limit: Int = .max) -> [JournalEvent] {
        state.withLock { state in
            var found: [JournalEvent] = []
            let store = state.store
            store.forEach(after: filter.afterSequence ?? 0) { event in
                if filter.matches(event, transportOf: { store.transport(ofConnection: $0) }) { found.append(event) }
                return found.count < limit
            }
            return found
        }
    }

    /// Notifications matching `filter`, oldest first, at most `limit`.
    public func notifications(matching filter: NotificationFilter = .all, limit: Int = .max) -> [NotificationRecord] {
        state.withLock { state in
            var found: [NotificationRecord] = []
            let store = state.store
            var position = store.position(after: filter.afterSequence ?? 0)
            while position < store.count, found.count < limit {
                if store.kindName(at: position) == .notification, let record = store.event(at: position).notification,
                   filter.matches(record) {
                    found.append(record)
                }
                position += 1
            }
            return found
        }
    }

    /// The newest `limit` events after `sequence` whose kind is among `kinds`
    /// (`JournalEventKind.bit`s), oldest first, with how many were passed over: what a
    /// dashboard stream shows when it opens (from then on the journal pushes it the rest).
    package func tail(after sequence: UInt64, kinds: UInt32, limit: Int) -> JournalTail {
        tailCalls.add(1, ordering: .relaxed)
        return state.withLock { state in
            var newestFirst: [JournalEvent] = []
            var skipped: UInt64 = 0
            let store = state.store
            var position = store.count
            let first = store.position(after: sequence)
            while position > first {
                position -= 1
                guard let name = store.kindName(at: position), kinds & name.bit != 0 else { continue }
                if newestFirst.count < limit { newestFirst.append(store.event(at: position)) } else { skipped += 1 }
            }
            // Events pushed out of the journal before this look are missed too (of any kind);
            // events a clear forgot are not. The pushed-out ones are the `dropped` just before
            // the oldest held (a clear restarts that count).
            if let oldest = store.firstSequence, oldest - 1 > sequence {
                skipped += min(oldest - 1 - sequence, store.dropped)
            }
            return JournalTail(events: newestFirst.reversed(), skipped: skipped, lastSequence: state.lastSequence)
        }
    }

    /// Forgets every event held. Sequence numbers go on from where they were.
    public func clear() {
        state.withLock { $0.store.removeAll() }
    }

    package var statistics: JournalStatistics {
        state.withLock { state in
            JournalStatistics(
                count: state.store.count, capacity: state.store.capacity,
                dropped: state.store.dropped, lastSequence: state.lastSequence,
                bytes: state.store.bytesCounted, capacityBytes: state.store.capacityBytes,
                readers: state.readers.count, historyReads: tailCalls.load(ordering: .relaxed)
            )
        }
    }

    /// Waits in progress: lets a test know a wait has begun (its reader is subscribed) before
    /// it records what the wait is for.
    package var waitingReaders: Int {
        state.withLock { $0.waits }
    }

    /// The transport of a connection the journal has seen open.
    package func transport(ofConnection id: UInt64) -> Transport? {
        state.withLock { $0.store.transport(ofConnection: id) }
    }

    // MARK: Waiting

    /// Waits until the journal holds `count` events after `after` that satisfy `predicate`,
    /// or `timeout` passes; returns the matches (fewer than `count` on timeout).
    ///
    /// `predicate` runs on the waiting task, never under the journal's lock, so it may call
    /// back into the journal (`transport(ofConnection:)`, queries). Events recorded while the
    /// waiter is awake are read from the ring on its next look; only events pushed out of a
    /// full ring before that look can be missed.
    public func waitForEvents(
        count: Int, after: UInt64? = nil, timeout: Duration,
        where predicate: @escaping @Sendable (JournalEvent) -> Bool
    ) async -> [JournalEvent] {
        await waitForEvents(count: count, after: after, kinds: JournalEventKind.allBits, timeout: timeout, where: predicate)
    }

    /// A wait is a reader subscribed while it waits: a batch with events of `kinds` rings its
    /// bell, and the waiting task reads what is new from the ring itself. It subscribes before
    /// its first look, so an event recorded in between is either in that look or rings.
    package func waitForEvents(
        count: Int, after: UInt64?, kinds: UInt32, timeout: Duration,
        where predicate: @escaping @Sendable (JournalEvent) -> Bool
    ) async -> [JournalEvent] {
        let reader = WaitingReader(wantedKinds: kinds)
        subscribe(reader)
        state.withLock { $0.waits += 1 }
        defer {
            state.withLock { $0.waits -= 1 }
            unsubscribe(reader)
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var found: [JournalEvent] = []
        var cursor = after ?? 0
        while true {
            let (batch, seen) = snapshot(after: cursor)
            for event in batch where predicate(event) {
                found.append(event)
                if found.count >= count { return found }
            }
            cursor = seen
            let left = clock.now.duration(to: deadline)
            guard left > .zero, !Task.isCancelled else { return found }
            await reader.bell.wait(timeout: left)
        }
    }

    /// The events held after `sequence`, and the newest sequence recorded.
    private func snapshot(after sequence: UInt64) -> (events: [JournalEvent], lastSequence: UInt64) {
        state.withLock { state in
            var events: [JournalEvent] = []
            state.store.forEach(after: sequence) { event in
                events.append(event)
                return true
            }
            return (events, state.lastSequence)
        }
    }

    static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}

/// The reader a wait subscribes: rings the waiting task's bell when a batch brings an event
/// it wants, and keeps nothing (the waiting task reads the ring).
private final class WaitingReader: JournalReader {
    let wantedKinds: UInt32
    let bell = Doorbell()

    init(wantedKinds: UInt32) {
        self.wantedKinds = wantedKinds
    }

    func read(_ batch: [JournalEvent]) {
        if batch.contains(where: { $0.kind.bit & wantedKinds != 0 }) { bell.ring() }
    }
}
