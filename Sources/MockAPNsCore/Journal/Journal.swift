import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Receives every event the journal records, in sequence order: the JSONL file sink.
/// `receive` is called while the journal holds its lock, so it must only hand the event
/// over (append it to a buffer), never encode or write.
public protocol JournalSink: AnyObject, Sendable {
    func receive(_ event: JournalEvent)
}

/// How a journal behaves.
public struct JournalOptions: Sendable, Equatable {
    /// How many events are kept in memory; older ones are dropped first and counted.
    public var capacity: Int
    /// Whether every HTTP/2 frame is recorded. Notifications are always recorded.
    public var recordsFrames: Bool
    /// Whether `authorization` header values are replaced by `<redacted>`.
    public var redactsAuthorization: Bool

    public init(capacity: Int = 100_000, recordsFrames: Bool = true, redactsAuthorization: Bool = false) {
        self.capacity = capacity
        self.recordsFrames = recordsFrames
        self.redactsAuthorization = redactsAuthorization
    }
}

/// How full the journal is.
public struct JournalStatistics: Sendable, Equatable {
    /// Events held now.
    public var count: Int
    public var capacity: Int
    /// Events pushed out because the journal was full, since it was created or last cleared.
    public var dropped: UInt64
    /// The sequence number of the newest event ever recorded (0: none yet).
    public var lastSequence: UInt64

    public init(count: Int, capacity: Int, dropped: UInt64, lastSequence: UInt64) {
        self.count = count
        self.capacity = capacity
        self.dropped = dropped
        self.lastSequence = lastSequence
    }
}

/// The server's append-only record of everything it saw and did, shared by every connection.
///
/// Recording is cheap: one value appended to a ring under a short lock; the JSON is made only
/// when someone reads. Readers query with filters, or wait until enough matching events have
/// arrived: a waiter is woken by the append that completes it, never by polling.
public final class Journal: Sendable {
    public let options: JournalOptions
    private let clock: ServerClock
    private let state: Mutex<State>
    private let connectionCounter = Atomic<UInt64>(0)

    private struct State {
        var ring: JournalRing
        var lastSequence: UInt64 = 0
        /// The transport of each connection seen, for filtering events by protocol.
        var transports: [UInt64: Transport] = [:]
        var sinks: [any JournalSink] = []
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiterID: UInt64 = 0
    }

    /// Someone waiting for `wanted` events that satisfy `predicate`.
    private struct Waiter {
        var predicate: @Sendable (JournalEvent) -> Bool
        var wanted: Int
        var found: [JournalEvent]
        var continuation: CheckedContinuation<[JournalEvent], Never>
        var timeout: Task<Void, Never>?
    }

    public init(options: JournalOptions = JournalOptions(), clock: ServerClock = ServerClock()) {
        self.options = options
        self.clock = clock
        self.state = Mutex(State(ring: JournalRing(capacity: options.capacity)))
    }

    /// A new connection id, unique within this journal.
    public func nextConnectionID() -> UInt64 {
        connectionCounter.add(1, ordering: .relaxed).newValue
    }

    /// Adds a sink that receives every event from now on.
    public func addSink(_ sink: any JournalSink) {
        state.withLock { $0.sinks.append(sink) }
    }

    /// Stops giving events to `sink` (a live reader that went away).
    public func removeSink(_ sink: any JournalSink) {
        state.withLock { $0.sinks.removeAll { $0 === sink } }
    }

    // MARK: Recording

    /// Records one event. A notification record read back carries the event's sequence,
    /// time, connection and stream (see `JournalEvent.notification`).
    public func record(_ kind: JournalEventKind, connection: UInt64? = nil, stream: Int32? = nil) {
        let wallTime = clock.millisecondsSince1970
        let monotonic = Self.monotonicNanoseconds()
        let completed: [(CheckedContinuation<[JournalEvent], Never>, [JournalEvent])] = state.withLock { state in
            state.lastSequence += 1
            let sequence = state.lastSequence
            // Notifications are stamped when read, not here: copying a record in and out of
            // its enum case costs more than the rest of recording it.
            if case .connectionOpened(let transport, _) = kind, let connection {
                state.transports[connection] = transport
            }
            let event = JournalEvent(
                sequence: sequence, wallTimeMilliseconds: wallTime, monotonicNanoseconds: monotonic,
                connectionID: connection, streamID: stream, kind: kind
            )
            state.ring.append(event)
            for sink in state.sinks { sink.receive(event) }
            guard !state.waiters.isEmpty else { return [] }
            return Self.offer(event, to: &state.waiters)
        }
        for (continuation, events) in completed {
            continuation.resume(returning: events)
        }
    }

    /// A fault a scenario injected on a connection (and stream).
    public func recordFault(connection: UInt64?, stream: Int32?, description: String) {
        record(.fault(description: description), connection: connection, stream: stream)
    }

    /// Gives `event` to every waiter it satisfies; returns the waiters now complete.
    private static func offer(
        _ event: JournalEvent, to waiters: inout [UInt64: Waiter]
    ) -> [(CheckedContinuation<[JournalEvent], Never>, [JournalEvent])] {
        var completed: [(CheckedContinuation<[JournalEvent], Never>, [JournalEvent])] = []
        for id in Array(waiters.keys) {
            guard var waiter = waiters[id], waiter.predicate(event) else { continue }
            waiter.found.append(event)
            if waiter.found.count >= waiter.wanted {
                waiters.removeValue(forKey: id)
                waiter.timeout?.cancel()
                completed.append((waiter.continuation, waiter.found))
            } else {
                waiters[id] = waiter
            }
        }
        return completed
    }

    // MARK: Reading

    /// Events matching `filter`, oldest first, at most `limit`.
    public func events(matching filter: JournalEventFilter = .all, limit: Int = .max) -> [JournalEvent] {
        state.withLock { state in
            var found: [JournalEvent] = []
            let transports = state.transports
            state.ring.forEach(after: filter.afterSequence ?? 0) { event in
                if filter.matches(event, transportOf: { transports[$0] }) { found.append(event) }
                return found.count < limit
            }
            return found
        }
    }

    /// Notifications matching `filter`, oldest first, at most `limit`.
    public func notifications(matching filter: NotificationFilter = .all, limit: Int = .max) -> [NotificationRecord] {
        state.withLock { state in
            var found: [NotificationRecord] = []
            state.ring.forEach(after: filter.afterSequence ?? 0) { event in
                if let record = event.notification, filter.matches(record) { found.append(record) }
                return found.count < limit
            }
            return found
        }
    }

    /// Forgets every event held. Sequence numbers go on from where they were.
    public func clear() {
        state.withLock { $0.ring.removeAll() }
    }

    public var statistics: JournalStatistics {
        state.withLock { state in
            JournalStatistics(
                count: state.ring.count, capacity: state.ring.capacity,
                dropped: state.ring.dropped, lastSequence: state.lastSequence
            )
        }
    }

    /// The transport of a connection the journal has seen open.
    public func transport(ofConnection id: UInt64) -> Transport? {
        state.withLock { $0.transports[id] }
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
    public func waitForEvents(
        count: Int, after: UInt64? = nil, timeout: Duration,
        where predicate: @escaping @Sendable (JournalEvent) -> Bool
    ) async -> [JournalEvent] {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[JournalEvent], Never>) in
                let ready: [JournalEvent]? = state.withLock { state in
                    var found: [JournalEvent] = []
                    state.ring.forEach(after: after ?? 0) { event in
                        if predicate(event) { found.append(event) }
                        return found.count < count
                    }
                    if found.count >= count { return found }
                    state.waiters[id] = Waiter(predicate: predicate, wanted: count, found: found, continuation: continuation)
                    return nil
                }
                if let ready {
                    continuation.resume(returning: ready)
                    return
                }
                let timer = Task { [weak self] in
                    try? await Task.sleep(for: timeout)
                    self?.finishWaiter(id)
                }
                let stillWaiting = state.withLock { state -> Bool in
                    guard state.waiters[id] != nil else { return false }
                    state.waiters[id]?.timeout = timer
                    return true
                }
                if !stillWaiting { timer.cancel() }
            }
        } onCancel: {
            finishWaiter(id)
        }
    }

    /// Ends a wait with what it found so far (timeout or cancellation).
    private func finishWaiter(_ id: UInt64) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        guard let waiter else { return }
        waiter.timeout?.cancel()
        waiter.continuation.resume(returning: waiter.found)
    }

    static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}
