import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Ships a replica's outbox spool (`FleetRecordOutbox`) to PostgreSQL: the records written
/// since the last shipment, one row per record (a block of events), each stored once (`ON
/// CONFLICT DO NOTHING` on the run and the block's first sequence).
///
/// The spool is the outbox. While PostgreSQL is away the records stay in it and the offset
/// stays where the last shipment ended; when PostgreSQL returns, the next shipments catch up
/// from there, so nothing recorded is lost. Only whole records are shipped: one the outbox has
/// half written waits for the rest.
final class FleetRecordShipper: Sendable {
    let path: String
    let replica: String
    let run: String
    /// The bytes read per look.
    static let readLimit = 8 << 20

    private let offset = Mutex<UInt64>(0)

    init(path: String, replica: String, run: String) {
        self.path = path
        self.replica = replica
        self.run = run
    }

    /// Ships every whole record written since the last call; returns the events shipped and
    /// the spool's offset shipped through. Throws (keeping the offset) when PostgreSQL refuses.
    func shipNewBlocks(to connections: FleetConnections, logger: Logger) async throws -> (events: Int, offset: UInt64) {
        var shipped = 0
        while true {
            let start = offset.withLock { $0 }
            var chunk = Self.read(path, from: start, limit: Self.readLimit)
            // A record longer than a look (a backlog written at once) is read whole.
            if let head = FleetSpoolHead(chunk[...]), head.length > UInt64(chunk.count - FleetSpoolHead.size),
               chunk.count == Self.readLimit, head.length < UInt64(Int.max / 2) {
                chunk = Self.read(path, from: start, limit: FleetSpoolHead.size + Int(head.length))
            }
            var position = chunk.startIndex
            var rows: [(head: FleetSpoolHead, block: ByteBuffer)] = []
            while let head = FleetSpoolHead(chunk[position...]),
                  head.length <= UInt64(chunk.endIndex - position - FleetSpoolHead.size) {
                let blockStart = position + FleetSpoolHead.size
                let blockEnd = blockStart + Int(head.length)
                rows.append((head, ByteBuffer(bytes: chunk[blockStart..<blockEnd])))
                position = blockEnd
            }
            guard !rows.isEmpty else { return (shipped, start) }
            let (replica, run) = (replica, run)
            // One statement for the lot.
            var insert: PostgresQuery = "INSERT INTO mockapns_record_blocks (run, first_seq, last_seq, replica, earliest, latest, block) VALUES "
            for (index, row) in rows.enumerated() {
                insert.sql += index == 0 ? "" : ", "
                let first = insert.binds.count
                insert.sql += "($\(first + 1), $\(first + 2), $\(first + 3), $\(first + 4), $\(first + 5), $\(first + 6), $\(first + 7))"
                insert.binds.append(run)
                insert.binds.append(Int64(truncatingIfNeeded: row.head.firstSequence))
                insert.binds.append(Int64(truncatingIfNeeded: row.head.lastSequence))
                insert.binds.append(replica)
                insert.binds.append(row.head.earliest)
                insert.binds.append(row.head.latest)
                insert.binds.append(row.block)
            }
            insert.sql += " ON CONFLICT (run, first_seq) DO NOTHING"
            let statement = insert
            try await connections.with { connection in
                try await connection.withTransaction(logger: logger) { connection in
                    // Numbered in the order they commit, across replicas (`FleetSchema`).
                    try await connection.query("SELECT pg_advisory_xact_lock(\(FleetSchema.lockKey))", logger: logger)
                    try await connection.query(statement, logger: logger)
                }
            }
            let through = start + UInt64(position - chunk.startIndex)
            offset.withLock { $0 = through }
            shipped += rows.reduce(0) { $0 + Int(truncatingIfNeeded: $1.head.events) }
            if chunk.count < Self.readLimit { return (shipped, through) }
        }
    }

    /// Up to `limit` bytes of the spool from `offset`; none when it cannot be read.
    private static func read(_ path: String, from offset: UInt64, limit: Int) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? handle.close() }
        do {
            try handle.seek(toOffset: offset)
            return [UInt8](try handle.read(upToCount: limit) ?? Data())
        } catch {
            return []
        }
    }
}
