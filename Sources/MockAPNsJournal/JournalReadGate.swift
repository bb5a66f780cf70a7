import Synchronization

/// Holds provider connections' reads while a reader of the journal falls behind: the JSONL
/// file is the durable record, so when its writer cannot keep up the server reads more slowly
/// instead of leaving events out of it; and the readers beside the server (the verdicts, the
/// access log, the metrics) take every event, so their backlog is bounded the same way.
///
/// A reader closes the gate when its backlog passes a high-water mark and opens it again
/// once the backlog has drained; the gate is open when no reader holds it closed. Each
/// connection asks before it reads (`ConnectionGuardHandler.read`); a connection that finds
/// the gate closed leaves its socket unread (so TCP slows the client down) and is called
/// back when the gate opens.
package final class JournalReadGate: Sendable {
    /// Who holds the gate closed, one bit each.
    package enum Holder: UInt8, Sendable {
        /// The JSONL file's writer.
        case file = 1
        /// The feed of the verdicts, the access log and the metrics (`ActivityFeed`).
        case activity = 2
        /// A fleet replica's outbox of records for PostgreSQL (`FleetRecordOutbox`).
        case fleet = 4
    }

    /// The holders' bits; open when zero.
    private let closed = Atomic<UInt8>(0)
    private let waiters = Mutex<[UInt64: @Sendable () -> Void]>([:])
    /// How many times the gate closed: what a test or the log reports.
    private let closings = Atomic<Int>(0)

    package init() {}

    /// Whether connections may read now. Read on every read of every connection, so it is
    /// one atomic load.
    package var isOpen: Bool { closed.load(ordering: .acquiring) == 0 }

    /// How many times the gate has closed since the server started.
    package var closedCount: Int { closings.load(ordering: .relaxed) }

    /// Holds reads from now on, for `holder`.
    package func close(_ holder: Holder = .file) {
        if closed.bitwiseOr(holder.rawValue, ordering: .acquiringAndReleasing).oldValue == 0 {
            closings.add(1, ordering: .relaxed)
        }
    }

    /// Lets reads go on as far as `holder` is concerned; when no other holds the gate, calls
    /// back every connection that waited.
    package func open(_ holder: Holder = .file) {
        let (before, after) = closed.bitwiseAnd(~holder.rawValue, ordering: .acquiringAndReleasing)
        guard before != 0, after == 0 else { return }
        let waiting = waiters.withLock { waiters in
            defer { waiters.removeAll(keepingCapacity: true) }
            return Array(waiters.values)
        }
        // Outside the lock: each call hops to its connection's event loop.
        for resume in waiting { resume() }
    }

    /// Registers `resume` to be called when the gate opens, under `id` (the connection's);
    /// returns `false`, registering nothing, when the gate is already open.
    package func wait(_ id: UInt64, resume: @escaping @Sendable () -> Void) -> Bool {
        let registered = waiters.withLock { waiters -> Bool in
            // Checked under the lock that `open` takes, so a gate opening meanwhile either
            // sees this waiter or is seen here.
            guard closed.load(ordering: .acquiring) != 0 else { return false }
            waiters[id] = resume
            return true
        }
        return registered
    }

    /// Forgets a connection that went away while it waited.
    package func forget(_ id: UInt64) {
        _ = waiters.withLock { $0.removeValue(forKey: id) }
    }
}
