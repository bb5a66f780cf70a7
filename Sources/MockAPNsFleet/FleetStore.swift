import Foundation
import Logging
import PostgresNIO
import MockAPNsJournal
import Synchronization

/// One replica's link to the fleet's PostgreSQL: what it changes goes into the change log,
/// what the others change comes back out of it, and its journal's records are shipped there
/// so any replica can answer for the whole fleet.
///
/// `run(outbox:applying:)` holds three loops, each on its own task, none on an event loop:
/// - the listener: LISTEN on the change channel, each NOTIFY wakes the reader;
/// - the reader: reads the log past the last change applied and hands each change another
///   replica made to `apply`, in order; it also reads once a second whatever NOTIFY says,
///   so a lost notification (a reconnect) delays a change by a second, never loses it; and
///   it reads when each session was last used anywhere;
/// - the writer: appends what this replica changed (`publish`), in order; packs what the
///   journal handed the outbox into its spool (`FleetRecordOutbox.drain`) and ships the
///   spool's new blocks (`FleetRecordShipper`); writes which sessions were used here.
///
/// When PostgreSQL is away, the loops try it again every second; what this replica changed
/// waits in the store's outbox and its records in the spool, so nothing is lost, and `health`
/// says the fleet is degraded until the next talk works.
package final class FleetStore: Sendable {
    package let location: FleetLocation
    let connections: FleetConnections
    let logger: Logger
    let state: Mutex<State>
    /// The journal's records on their way out, once `run` is given the outbox.
    private let records = Mutex<(outbox: FleetRecordOutbox, shipper: FleetRecordShipper)?>(nil)
    /// Wakes the reader (a NOTIFY arrived) and the writer (a change was published).
    private let readerWake = Doorbell()
    private let writerWake = Doorbell()
    /// The first read of the whole log, which the server waits for (within a bound) before it
    /// serves, so a replica joining late starts with the fleet's state.
    private let caughtUp = Doorbell()

    /// How often each loop retries while PostgreSQL is away, and the reader re-reads anyway.
    package static let retryInterval = Duration.seconds(1)
    /// How often the writer packs what the journal handed over and ships it: a wait on
    /// another replica sees a record within about this.
    package static let shipInterval = Duration.milliseconds(100)

    struct State {
        var health: FleetHealth
        var outbox: [FleetChange] = []
        var schemaReady = false
        var caughtUp = false
        /// Sessions used here since the last write.
        var sessionsUsed: Set<String> = []
        /// When each session was last used on any replica, as last read.
        var sessionUse: [String: Int64] = [:]
    }

    /// A store for replica `replica`.
    package init(location: FleetLocation, replica: String, logger: Logger) {
        self.location = location
        var logger = logger
        logger[metadataKey: "fleet"] = "\(location.description)"
        self.logger = logger
        let run = "\(replica)-" + String(UInt32.random(in: .min ... .max), radix: 16)
        var connectionLogger = logger
        connectionLogger.logLevel = .critical
        connections = FleetConnections(location: location, logger: connectionLogger)
        state = Mutex(State(health: FleetHealth(
            replica: replica, run: run, reachable: false, lastError: "not connected yet", changesPending: 0,
            appliedThrough: 0, recordsShipped: 0, fileBytesShipped: 0
        )))
    }

    package var health: FleetHealth {
        var health = state.withLock { $0.health }
        health.recordsPending = records.withLock { $0?.outbox.pendingCount } ?? 0
        return health
    }

    /// This run's name: the replica's and a random suffix (`FleetHealth.run`).
    package var run: String { state.withLock { $0.health.run } }

    /// Runs until the task is cancelled, shipping what `outbox` takes from the journal; `apply`
    /// gets every change another replica made.
    package func run(outbox: FleetRecordOutbox, applying apply: @escaping @Sendable (FleetChange) async -> Void) async {
        let health = health
        records.withLock { $0 = (outbox, FleetRecordShipper(path: outbox.path, replica: health.replica, run: health.run)) }
        state.withLock { $0.health.spool = outbox.path }
        await withDiscardingTaskGroup { group in
            group.addTask { await self.listen() }
            group.addTask { await self.read(applying: apply) }
            group.addTask { await self.write() }
            // The group ends when the task is cancelled: every loop checks for it.
        }
        await connections.closeAll()
    }

    /// Waits until the first read of the log is applied, or `limit` passes (PostgreSQL away);
    /// says which.
    package func waitUntilCaughtUp(within limit: Duration) async -> Bool {
        if state.withLock({ $0.caughtUp }) { return true }
        await caughtUp.wait(timeout: limit)
        return state.withLock { $0.caughtUp }
    }

    /// Adds a change this replica made to the log (soon, in order; kept while PostgreSQL is away).
    package func publish(_ change: FleetChange) {
        state.withLock { state in
            state.outbox.append(change)
            state.health.changesPending = state.outbox.count
        }
        writerWake.ring()
    }

    /// Ships the last records at shutdown (after the journal's readers took the last events),
    /// within `limit`, and removes the spool once PostgreSQL holds it all; what PostgreSQL does
    /// not take stays in the spool, which the log names.
    package func shipRemaining(within limit: Duration) async {
        guard let (outbox, shipper) = records.withLock({ $0 }) else { return }
        let connections = connections
        let logger = logger
        do {
            try outbox.drain()
        } catch {
            logger.warning("\(error)")
        }
        guard health.reachable else {
            logger.warning("records not yet in the fleet's PostgreSQL are kept in \(outbox.path)")
            return
        }
        let shippedAll = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                guard let shipped = try? await shipper.shipNewBlocks(to: connections, logger: logger) else { return false }
                let size = (try? FileManager.default.attributesOfItem(atPath: outbox.path)[.size] as? UInt64) ?? nil
                return size == shipped.offset
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        // Everything is in PostgreSQL: the spool has done its work. Otherwise it stays, and
        // the log says where.
        if shippedAll {
            try? FileManager.default.removeItem(atPath: outbox.path)
        } else {
            logger.warning("records not yet in the fleet's PostgreSQL are kept in \(outbox.path)")
        }
    }

    /// Notes that `session` was used here; written to the fleet with the next write.
    package func noteSessionUse(_ session: String) {
        state.withLock { _ = $0.sessionsUsed.insert(session) }
    }

    /// When each session was last used on any replica (milliseconds since 1970), as read at
    /// most a second ago.
    package var sessionUse: [String: Int64] { state.withLock { $0.sessionUse } }

    // MARK: - The loops

    private func listen() async {
        while !Task.isCancelled {
            do {
                try await ensureSchema()
                try await connections.with(limit: nil) { connection in
                    try await connection.listen(on: FleetSchema.changesChannel) { notifications in
                        // Listening: whatever came before it is read now.
                        self.readerWake.ring()
                        for try await _ in notifications { self.readerWake.ring() }
                    }
                }
            } catch {
                noteFailure(error)
            }
            try? await Task.sleep(for: Self.retryInterval)
        }
    }

    private func read(applying apply: @escaping @Sendable (FleetChange) async -> Void) async {
        while !Task.isCancelled {
            do {
                try await ensureSchema()
                try await readChanges(applying: apply)
                try await readSessionUse()
                let first = state.withLock { state in
                    defer { state.caughtUp = true }
                    return !state.caughtUp
                }
                if first { caughtUp.ring() }
                noteSuccess()
            } catch {
                noteFailure(error)
            }
            await readerWake.wait(timeout: Self.retryInterval)
        }
    }

    private func write() async {
        // While PostgreSQL is away it is tried again every `retryInterval`; the spool is
        // written every `shipInterval` all the same.
        var nextTry = ContinuousClock.now
        while !Task.isCancelled {
            let records = records.withLock { $0 }
            // The spool first, whether PostgreSQL answers or not: what it does not take now
            // waits there, and the journal's readers never wait on PostgreSQL.
            do {
                try records?.outbox.drain()
            } catch {
                logger.warning("\(error)")
            }
            if ContinuousClock.now >= nextTry {
                do {
                    try await ensureSchema()
                    try await writeOutbox()
                    try await writeSessionUse()
                    if let (_, shipper) = records {
                        let shipped = try await shipper.shipNewBlocks(to: connections, logger: logger)
                        state.withLock { state in
                            state.health.recordsShipped += shipped.events
                            state.health.fileBytesShipped = shipped.offset
                        }
                    }
                    noteSuccess()
                } catch {
                    nextTry = ContinuousClock.now + Self.retryInterval
                    noteFailure(error)
                }
            }
            await writerWake.wait(timeout: Self.shipInterval)
        }
    }

    // MARK: - Health

    func noteSuccess() {
        let recovered = state.withLock { state in
            defer {
                state.health.reachable = true
                state.health.lastError = nil
            }
            return !state.health.reachable
        }
        if recovered { logger.info("the fleet's PostgreSQL answers") }
    }

    func noteFailure(_ error: any Error) {
        if Task.isCancelled { return }
        let text = Self.describe(error)
        let first = state.withLock { state in
            defer {
                state.health.reachable = false
                state.health.lastError = text
                // A PostgreSQL that comes back may be a new one: make sure of the tables.
                state.schemaReady = false
            }
            return state.health.reachable || state.health.lastError == "not connected yet"
        }
        if first { logger.warning("the fleet's PostgreSQL is away; answering from what this replica holds: \(text)") }
    }

    /// An error as one line, without what postgres-nio's description leaves out by design.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            return "\(error.code)"
        }
        return "\(error)"
    }
}
