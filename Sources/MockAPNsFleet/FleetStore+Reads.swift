import Logging
import MockAPNsJournal
import PostgresNIO

/// The fleet's reads: every replica's shipped records, past the journal clears that cover
/// them, numbered in the fleet.
extension FleetStore {

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
