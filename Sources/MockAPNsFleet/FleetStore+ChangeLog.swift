import Foundation
import Logging
import PostgresNIO

/// The change log, and the sessions' use: what the reader and the writer loops do with
/// PostgreSQL (`FleetStore`).
extension FleetStore {

    func readChanges(applying apply: @escaping @Sendable (FleetChange) async -> Void) async throws {
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

    func writeOutbox() async throws {
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

    func writeSessionUse() async throws {
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

    func readSessionUse() async throws {
        let logger = logger
        let use = try await connections.with { connection in
            let rows = try await connection.query("SELECT session, used_at FROM mockapns_session_use", logger: logger)
            var use: [String: Int64] = [:]
            for try await (session, usedAt) in rows.decode((String, Int64).self) { use[session] = usedAt }
            return use
        }
        state.withLock { $0.sessionUse = use }
    }

    func ensureSchema() async throws {
        if state.withLock({ $0.schemaReady }) { return }
        try await FleetSchema.create(on: connections, logger: logger)
        state.withLock { $0.schemaReady = true }
    }
}
