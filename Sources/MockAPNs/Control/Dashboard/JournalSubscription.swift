import MockAPNsCore
import Synchronization

/// One live reader of the journal (a dashboard's event stream) with a bounded buffer.
///
/// The journal hands each new event to `receive` while it holds its lock, so `receive` only
/// appends to this subscription's own buffer: when the buffer is full the oldest event is
/// dropped and counted, so a slow or vanished reader costs the journal one short append per
/// event and never holds it up. The reader takes what has gathered with `next(timeout:)`.
final class JournalSubscription: JournalSink, Sendable {
    /// What the reader gets: events in sequence order, and how many were dropped before them.
    struct Batch: Sendable {
        var skipped: UInt64
        var events: [JournalEvent]
    }

    /// How many events wait at most; older ones are dropped first.
    let capacity: Int
    /// Event kinds wanted (`JournalEventKind.name`); `nil` for all.
    let kinds: Set<String>?

    private struct State {
        var buffer: [JournalEvent] = []
        /// Index of the oldest event in `buffer` (a ring once it is full).
        var head = 0
        var skipped: UInt64 = 0
        var waiter: CheckedContinuation<Void, Never>?
        var closed = false
    }

    private let state = Mutex(State())
    /// `kinds` as `JournalEventKind.bit` values: the journal hands over only these.
    let wantedKinds: UInt32

    init(capacity: Int, kinds: Set<String>?) {
        precondition(capacity > 0, "a subscription holds at least one event")
        self.capacity = capacity
        self.kinds = kinds
        self.wantedKinds = kinds.map { JournalEventKind.bits(named: $0) } ?? JournalEventKind.allBits
    }

    /// Called by the journal for every event, in order: append, drop the oldest when full, wake the reader.
    /// Waking only schedules the reader's task; none of its code runs here.
    func receive(_ event: JournalEvent) {
        // The journal hands over only wanted kinds; a bit test, not a string lookup, all the same.
        guard wantedKinds & event.kind.bit != 0 else { return }
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.closed else { return nil }
            Self.append(event, to: &state, capacity: capacity)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Adds events read from the journal before this subscription saw them (a resume), as if
    /// they had arrived first; the buffer's bound applies to them too.
    func prepend(_ backlog: [JournalEvent]) {
        state.withLock { state in
            let live = Self.ordered(state)
            state.buffer = []
            state.head = 0
            let firstLive = live.first?.sequence ?? .max
            for event in backlog where event.sequence < firstLive {
                Self.append(event, to: &state, capacity: capacity)
            }
            for event in live { Self.append(event, to: &state, capacity: capacity) }
        }
    }

    /// Waits until at least one event (or a skip) is ready or `timeout` passes, and takes
    /// everything gathered. An empty batch means the time ran out (or the task was cancelled).
    func next(timeout: Duration) async -> Batch {
        if let ready = take() { return ready }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.wake()
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.closed || !state.buffer.isEmpty || state.skipped > 0 || Task.isCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            wake()
        }
        return take() ?? Batch(skipped: 0, events: [])
    }

    /// Stops gathering and releases a waiting reader.
    func close() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.closed = true
            state.buffer = []
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    private func wake() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    private func take() -> Batch? {
        state.withLock { state -> Batch? in
            guard !state.buffer.isEmpty || state.skipped > 0 else { return nil }
            let batch = Batch(skipped: state.skipped, events: Self.ordered(state))
            state.buffer = []
            state.head = 0
            state.skipped = 0
            return batch
        }
    }

    private static func append(_ event: JournalEvent, to state: inout State, capacity: Int) {
        if state.buffer.count < capacity {
            state.buffer.append(event)
        } else {
            state.buffer[state.head] = event
            state.head = (state.head + 1) % capacity
            state.skipped += 1
        }
    }

    private static func ordered(_ state: State) -> [JournalEvent] {
        guard state.head > 0 else { return state.buffer }
        return Array(state.buffer[state.head...] + state.buffer[..<state.head])
    }
}
