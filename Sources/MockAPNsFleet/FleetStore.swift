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
    private let connections: FleetConnections
    private let logger: Logger
    private let state: Mutex<State>
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

    private struct State {
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
                try await connections.with { connection in
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

    // MARK: - The change log

    private func readChanges(applying apply: @escaping @Sendable (FleetChange) async -> Void) async throws {
        let run = state.withLock { $0.health.run }
        while true {
            let after = state.withLock { $0.health.appliedThrough }
            let logger = logger
            let page = try await connections.with { connection in
                let rows = try await connection.query(
                    "SELECT id, origin, kind, session, body FROM mockapns_changes WHERE id > \(after) ORDER BY id LIMIT 500",
                    logger: logger
                )
                var page: [(id: Int64, origin: String, kind: String, session: String?, body: String)] = []
                for try await row in rows.decode((Int64, String, String, String?, String).self) { page.append(row) }
                return page
            }
            // Applied off the connection, which goes back for others meanwhile.
            for (id, origin, kind, session, body) in page {
                if origin != run, let kind = FleetChange.Kind(rawValue: kind) {
                    await apply(FleetChange(kind: kind, session: session, body: body))
                } else if origin != run {
                    logger.warning("a change of a kind this replica does not know was skipped: \(kind)")
                }
                state.withLock { $0.health.appliedThrough = id }
            }
            if page.count < 500 { return }
        }
    }

    private func writeOutbox() async throws {
        while let change = state.withLock({ $0.outbox.first }) {
            let run = state.withLock { $0.health.run }
            let logger = logger
            try await connections.with { connection in try await connection.withTransaction(logger: logger) { connection in
                // Appends in order: a reader past a number never misses one committed later.
                try await connection.query("SELECT pg_advisory_xact_lock(\(FleetSchema.lockKey))", logger: logger)
                try await connection.query(
                    """
                    WITH made AS (
                        INSERT INTO mockapns_changes (origin, kind, session, body)
                        VALUES (\(run), \(change.kind.rawValue), \(change.session), \(change.body)) RETURNING id
                    )
                    SELECT pg_notify(\(FleetSchema.changesChannel), id::text) FROM made
                    """,
                    logger: logger
                )
            } }
            state.withLock { state in
                if !state.outbox.isEmpty { state.outbox.removeFirst() }
                state.health.changesPending = state.outbox.count
            }
        }
    }

    private func writeSessionUse() async throws {
        let used = state.withLock { state in
            defer { state.sessionsUsed = [] }
            return Array(state.sessionsUsed)
        }
        guard !used.isEmpty else { return }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let logger = logger
        do {
            try await connections.with { connection in
                _ = try await connection.query(
                    """
                    INSERT INTO mockapns_session_use (session, used_at) SELECT s, \(now) FROM unnest(\(used)::text[]) AS u(s)
                    ON CONFLICT (session) DO UPDATE SET used_at = greatest(mockapns_session_use.used_at, excluded.used_at)
                    """,
                    logger: logger
                )
            }
        } catch {
            // Written with the next write instead.
            state.withLock { $0.sessionsUsed.formUnion(used) }
            throw error
        }
    }

    private func readSessionUse() async throws {
        let logger = logger
        let use = try await connections.with { connection in
            let rows = try await connection.query("SELECT session, used_at FROM mockapns_session_use", logger: logger)
            var use: [String: Int64] = [:]
            for try await (session, usedAt) in rows.decode((String, Int64).self) { use[session] = usedAt }
            return use
        }
        state.withLock { $0.sessionUse = use }
    }

    private func ensureSchema() async throws {
        if state.withLock({ $0.schemaReady }) { return }
        try await FleetSchema.create(on: connections, logger: logger)
        state.withLock { $0.schemaReady = true }
    }

    // MARK: - Health

    private func noteSuccess() {
        let recovered = state.withLock { state in
            defer {
                state.health.reachable = true
                state.health.lastError = nil
            }
            return !state.health.reachable
        }
        if recovered { logger.info("the fleet's PostgreSQL answers") }
    }

    private func noteFailure(_ error: any Error) {
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

    // MARK: - Reads for the whole fleet

    /// The records every run of every replica shipped, each run's in its own order, past
    /// every journal clear that covers them: for `session` when given (its records, past the
    /// whole server's clears and its own), else every session's (past the whole server's
    /// clears alone, as a session's clear only moves its own view).
    package func records(session: String?) async throws -> [FleetRun] {
        let logger = logger
        let (clears, blocks) = try await connections.with { connection in
            let clearRows = try await connection.query(
                "SELECT session, max(body::bigint) FROM mockapns_changes WHERE kind = 'journalCleared' GROUP BY session",
                logger: logger
            )
            var clears: [String?: Int64] = [:]
            for try await (session, through) in clearRows.decode((String?, Int64).self) { clears[session] = through }
            let floor = min(clears[nil] ?? .min, session.flatMap { clears[$0] } ?? clears[nil] ?? .min)
            let blockRows = try await connection.query(
                "SELECT id, run, block FROM mockapns_record_blocks WHERE latest > \(floor) ORDER BY id",
                logger: logger
            )
            var blocks: [(id: Int64, run: String, block: ByteBuffer)] = []
            for try await row in blockRows.decode((Int64, String, ByteBuffer).self) { blocks.append(row) }
            return (clears, blocks)
        }
        let wholeClear = clears[nil] ?? .min
        let sessionClear = session.flatMap { clears[$0] } ?? .min
        var runs: [FleetRun] = []
        var runIndex: [String: Int] = [:]
        for (id, run, block) in blocks {
            guard let events = JournalEventBlock.unpack(Array(buffer: block)) else {
                logger.warning("a block of records in the fleet's PostgreSQL could not be read; skipped", metadata: ["run": "\(run)"])
                continue
            }
            var kept: [JournalEvent] = []
            for (place, event) in events.enumerated() {
                let time = event.wallTimeMilliseconds
                guard time > wholeClear else { continue }
                if let session, event.kind.session != session || time <= sessionClear { continue }
                var numbered = event
                numbered.sequence = Self.fleetSequence(block: id, place: place)
                kept.append(numbered)
            }
            if let index = runIndex[run] {
                runs[index].events += kept
            } else {
                runIndex[run] = runs.count
                runs.append(FleetRun(run: run, events: kept))
            }
        }
        return runs
    }

    /// A record's number in the fleet: its block's number above the low 24 bits, its place in
    /// the block below (a block holds fewer than 2^24 records: the outbox's backlog is held
    /// far below). Always above any one replica's own numbers, so an `after` taken from a
    /// replica's journal passes every fleet record.
    package static func fleetSequence(block: Int64, place: Int) -> UInt64 {
        UInt64(max(0, block)) << 24 | UInt64(place & 0xFF_FFFF)
    }
}

/// The records one run of a replica shipped, in its order, each numbered in the fleet
/// (`FleetStore.fleetSequence`).
package struct FleetRun: Sendable, Equatable {
    package var run: String
    package var events: [JournalEvent]
}
