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

/// Receives every event the journal records, in sequence order: the JSONL file sink.
/// `receive` runs outside the journal's lock, on whichever recording thread is delivering
/// (one at a time, so in order), so it should only hand the event over (append it to a
/// buffer), never encode or write.
package protocol JournalSink: AnyObject, Sendable {
    /// The kinds of event this sink wants, as `JournalEventKind.bit` values ORed together;
    /// the journal hands over only those, so a sink that wants no frames costs the hot path
    /// nothing per frame. The default is every kind.
    var wantedKinds: UInt32 { get }
    func receive(_ event: JournalEvent)
    /// A run of events in sequence order: those some sink wants, so possibly of kinds this
    /// one does not. The default passes each wanted one to `receive(_:)`; a sink that takes
    /// a lock per hand-over takes it once for the run instead.
    func receive(contentsOf events: [JournalEvent])
}

extension JournalSink {
    package var wantedKinds: UInt32 { JournalEventKind.allBits }

    package func receive(contentsOf events: [JournalEvent]) {
        let wanted = wantedKinds
        for event in events where event.kind.bit & wanted != 0 { receive(event) }
    }
}

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

    package init(count: Int, capacity: Int, dropped: UInt64, lastSequence: UInt64, bytes: Int = 0, capacityBytes: Int = .max) {
        self.count = count
        self.capacity = capacity
        self.dropped = dropped
        self.lastSequence = lastSequence
        self.bytes = bytes
        self.capacityBytes = capacityBytes
    }
}

/// The server's append-only record of everything it saw and did, shared by every connection.
///
/// Recording is cheap: the event packed into bytes under a short lock (`JournalStore`); values and JSON are made only
/// when someone reads. Readers query with filters, or wait until enough matching events have
/// arrived: a waiter is woken by the next append and reads the new events itself, never by
/// polling. No reader's predicate and no sink runs under the journal's lock.
public final class Journal: Sendable {
    package let options: JournalOptions
    private let clock: ServerClock
    private let state: Mutex<State>
    private let connectionCounter = Atomic<UInt64>(0)

    private struct State {
        var store: JournalStore
        var lastSequence: UInt64 = 0
        var sinks: [any JournalSink] = []
        /// Every kind some sink wants (`JournalEventKind.bit`).
        var sinkKinds: UInt32 = 0
        /// Events recorded but not yet handed to the sinks.
        var sinkBacklog: [JournalEvent] = []
        /// An empty buffer with capacity, swapped in for `sinkBacklog` when a batch is taken.
        var spareSinkBacklog: [JournalEvent] = []
        /// Whether a recording thread is handing the backlog to the sinks right now.
        var deliveringToSinks = false
        /// Readers parked until the next event is recorded (or their wait ends). Only
        /// continuations live here: no reader's predicate ever runs under the lock.
        var parked: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiterID: UInt64 = 0
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

    /// Adds a sink that receives every event from now on.
    package func addSink(_ sink: any JournalSink) {
        state.withLock { state in
            state.sinks.append(sink)
            state.sinkKinds |= sink.wantedKinds
        }
    }

    /// Stops giving events to `sink` (a live reader that went away).
    package func removeSink(_ sink: any JournalSink) {
        state.withLock { state in
            state.sinks.removeAll { $0 === sink }
            state.sinkKinds = state.sinks.reduce(0) { $0 | $1.wantedKinds }
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
    /// own. The sinks get the new events once, after the last slice. Returns the last sequence.
    private func record<Events: RandomAccessCollection>(
        _ events: Events, wallTime: Int64, monotonic: UInt64, connection: UInt64?,
        kind: (Events.Element) -> JournalEventKind, stream: (Events.Element) -> Int32?
    ) -> UInt64 where Events.Index == Int {
        var recorded: UInt64 = 0
        var delivers = false
        var start = events.startIndex
        while start < events.endIndex {
            let end = min(start + Self.batchSlice, events.endIndex)
            let (woken, slice, last) = state.withLock { state in
                var delivers = false
                for index in start..<end {
                    delivers = Self.append(
                        kind(events[index]), to: &state, wallTime: wallTime, monotonic: monotonic, connection: connection,
                        stream: stream(events[index])
                    ) || delivers
                }
                return Self.takeParked(&state, delivers: delivers)
            }
            finishRecording(woken: woken, delivers: false)
            delivers = delivers || slice
            recorded = last
            start = end
        }
        if delivers { deliverToSinks() }
        return recorded
    }

    /// The most events appended under one hold of the lock.
    static let batchSlice = 32

    /// Records one or two events; returns the sequence of the last.
    @discardableResult
    private func record(_ first: JournalEventKind, _ second: JournalEventKind?, connection: UInt64?, stream: Int32?) -> UInt64 {
        let wallTime = clock.millisecondsSince1970
        let monotonic = Self.monotonicNanoseconds()
        let (woken, delivers, recorded) = state.withLock { state in
            var delivers = Self.append(first, to: &state, wallTime: wallTime, monotonic: monotonic, connection: connection, stream: stream)
            if let second {
                delivers = Self.append(second, to: &state, wallTime: wallTime, monotonic: monotonic, connection: connection, stream: stream)
                    || delivers
            }
            return Self.takeParked(&state, delivers: delivers)
        }
        finishRecording(woken: woken, delivers: delivers)
        return recorded
    }

    /// Appends one event under the lock; returns whether this thread is to hand the backlog
    /// to the sinks.
    private static func append(
        _ kind: JournalEventKind, to state: inout State, wallTime: Int64, monotonic: UInt64, connection: UInt64?, stream: Int32?
    ) -> Bool {
        state.lastSequence += 1
        let sequence = state.lastSequence
        state.store.append(
            sequence: sequence, wallTime: wallTime, monotonic: monotonic, connection: connection, stream: stream, kind: kind
        )
        guard state.sinkKinds & kind.bit != 0 else { return false }
        state.sinkBacklog.append(JournalEvent(
            sequence: sequence, wallTimeMilliseconds: wallTime, monotonicNanoseconds: monotonic,
            connectionID: connection, streamID: stream, kind: kind
        ))
        guard !state.deliveringToSinks else { return false }
        state.deliveringToSinks = true
        return true
    }

    /// The readers parked for new events (taken, to be woken outside the lock), whether this
    /// thread delivers to the sinks, and the last sequence.
    private static func takeParked(
        _ state: inout State, delivers: Bool
    ) -> (woken: [UInt64: CheckedContinuation<Void, Never>], delivers: Bool, recorded: UInt64) {
        guard !state.parked.isEmpty else { return ([:], delivers, state.lastSequence) }
        defer { state.parked.removeAll() }
        return (state.parked, delivers, state.lastSequence)
    }

    private func finishRecording(woken: [UInt64: CheckedContinuation<Void, Never>], delivers: Bool) {
        // Parked readers look at the new events themselves, on their own task.
        for continuation in woken.values {
            continuation.resume()
        }
        if delivers { deliverToSinks() }
    }

    /// Hands the backlog to the sinks, outside the lock, until it is empty. Only one thread
    /// delivers at a time, so sinks see events in sequence order.
    private func deliverToSinks() {
        var batch: [JournalEvent] = []
        while true {
            let sinks: [any JournalSink]? = state.withLock { state in
                // The emptied batch goes back as the spare, so its storage is used again
                // rather than a new buffer allocated for every delivery.
                if batch.capacity > 0 { state.spareSinkBacklog = batch }
                guard !state.sinkBacklog.isEmpty else {
                    state.deliveringToSinks = false
                    return nil
                }
                batch = state.sinkBacklog
                state.sinkBacklog = state.spareSinkBacklog
                state.spareSinkBacklog = []
                return state.sinks
            }
            guard let sinks else { return }
            for sink in sinks { sink.receive(contentsOf: batch) }
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
    /// (`JournalEventKind.bit`s), oldest first, with how many were passed over: a live reader
    /// that looks now and then gets the latest events and a count of what it missed, and the
    /// writers pay nothing for it between looks.
    package func tail(after sequence: UInt64, kinds: UInt32, limit: Int) -> JournalTail {
        state.withLock { state in
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
                bytes: state.store.bytesCounted, capacityBytes: state.store.capacityBytes
            )
        }
    }

    /// Readers suspended until the next event is recorded: lets a test know a wait has begun
    /// before it records what the wait is for.
    package var parkedReaders: Int {
        state.withLock { $0.parked.count }
    }

    /// The transport of a connection the journal has seen open.
    package func transport(ofConnection id: UInt64) -> Transport? {
        state.withLock { $0.store.transport(ofConnection: id) }
    }

    // MARK: Waiting

    /// Waits until the journal holds `count` notifications matching `filter` (those already
    /// recorded count), or `timeout` passes. Returns as soon as the `count`-th arrives; on
    /// timeout, returns the matches found so far (fewer than `count`).
    public func waitForNotifications(
        count: Int, matching filter: NotificationFilter = .all, timeout: Duration
    ) async -> [NotificationRecord] {
        let events = await waitForEvents(count: count, after: filter.afterSequence, timeout: timeout) { event in
            event.notification.map(filter.matches) ?? false
        }
        return events.compactMap(\.notification)
    }

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
        await withWaitTicket(timeout: timeout) { id, ticket in
            var found: [JournalEvent] = []
            var cursor = after ?? 0
            while true {
                let (batch, seen) = snapshot(after: cursor)
                for event in batch where predicate(event) {
                    found.append(event)
                    if found.count >= count { return found }
                }
                cursor = seen
                guard !ticket.hasEnded else { return found }
                await park(id, untilAfter: cursor, ticket: ticket)
            }
        }
    }

    /// Waits until an event after `sequence` is recorded (returns at once if one already
    /// is), or `timeout` passes. Returns the newest sequence recorded then.
    @discardableResult
    package func waitForRecord(after sequence: UInt64, timeout: Duration) async -> UInt64 {
        await withWaitTicket(timeout: timeout) { id, ticket in
            await park(id, untilAfter: sequence, ticket: ticket)
        }
        return state.withLock { $0.lastSequence }
    }

    /// Runs `body` with a fresh waiter id and a ticket that ends after `timeout` or on
    /// cancellation, waking the waiter if it is parked then.
    private func withWaitTicket<Result>(
        timeout: Duration, _ body: (UInt64, WaitTicket) async -> Result
    ) async -> Result {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        let ticket = WaitTicket()
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            ticket.end()
            self?.wake(id)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await body(id, ticket)
        } onCancel: {
            ticket.end()
            wake(id)
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

    /// Suspends until an event after `sequence` is recorded or the ticket ends. Returns at once
    /// when either has already happened.
    private func park(_ id: UInt64, untilAfter sequence: UInt64, ticket: WaitTicket) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let parked = state.withLock { state -> Bool in
                guard state.lastSequence == sequence, !ticket.hasEnded else { return false }
                state.parked[id] = continuation
                return true
            }
            if !parked { continuation.resume() }
        }
    }

    /// Resumes a parked waiter, if it is parked, so it looks at its ticket again.
    private func wake(_ id: UInt64) {
        let continuation = state.withLock { $0.parked.removeValue(forKey: id) }
        continuation?.resume()
    }

    static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}

/// Whether one wait is over (timed out or cancelled); set from the timer or the canceller,
/// read by the waiting task.
private final class WaitTicket: Sendable {
    private let ended = Atomic<Bool>(false)

    var hasEnded: Bool { ended.load(ordering: .acquiring) }

    func end() { ended.store(true, ordering: .releasing) }
}
