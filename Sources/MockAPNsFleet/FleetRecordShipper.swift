import Foundation
import MockAPNsJournal
import PostgresNIO
import Synchronization

/// Ships a replica's outbox spool (`FleetRecordOutbox`) to PostgreSQL: the lines written since
/// the last shipment, in batches, each stored once (`ON CONFLICT DO NOTHING` on the run and
/// sequence).
///
/// The spool is the outbox. While PostgreSQL is away the lines stay in it and the offset
/// stays where the last shipment ended; when PostgreSQL returns, the next shipments catch up
/// from there, so nothing recorded is lost. Only whole lines are shipped: a line the writer
/// has half written waits for its newline.
final class FleetRecordShipper: Sendable {
    let path: String
    let replica: String
    let run: String
    /// The bytes read per look, and the lines per statement.
    static let readLimit = 4 << 20
    static let batchLimit = 2000

    private let offset = Mutex<UInt64>(0)

    init(path: String, replica: String, run: String) {
        self.path = path
        self.replica = replica
        self.run = run
    }

    /// Ships every whole line written since the last call; returns the lines shipped and the
    /// file's offset shipped through. Throws (keeping the offset) when PostgreSQL refuses.
    func shipNewLines(to connections: FleetConnections, logger: Logger) async throws -> (lines: Int, offset: UInt64) {
        var shipped = 0
        while true {
            let start = offset.withLock { $0 }
            let chunk = Self.read(path, from: start)
            guard let lastNewline = chunk.lastIndex(of: UInt8(ascii: "\n")) else {
                return (shipped, start)
            }
            var batch = FleetRecordBatch()
            var consumed = 0
            for line in chunk[..<lastNewline].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
                consumed += line.count + 1
                batch.add(line)
                if batch.count >= Self.batchLimit {
                    try await batch.insert(replica: replica, run: run, into: connections, logger: logger)
                    shipped += batch.count
                    batch = FleetRecordBatch()
                    offset.withLock { $0 = start + UInt64(consumed) }
                }
            }
            try await batch.insert(replica: replica, run: run, into: connections, logger: logger)
            shipped += batch.count
            offset.withLock { $0 = start + UInt64(consumed) }
            if chunk.count < Self.readLimit { return (shipped, start + UInt64(consumed)) }
        }
    }

    /// Up to `readLimit` bytes of the file from `offset`; none when it cannot be read (not
    /// written yet).
    private static func read(_ path: String, from offset: UInt64) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? handle.close() }
        do {
            try handle.seek(toOffset: offset)
            return [UInt8](try handle.read(upToCount: readLimit) ?? Data())
        } catch {
            return []
        }
    }
}

/// Lines on their way to `mockapns_records`, with the columns the fleet's reads select by.
struct FleetRecordBatch {
    private var sequences: [Int64] = []
    private var times: [Int64] = []
    private var types: [String] = []
    private var sessions: [String] = []
    private var lines: [String] = []

    var count: Int { lines.count }

    /// Adds a line of the outbox's spool (`FleetRecordOutbox.drain`): its columns, then the
    /// JSON. A line that is not one (none is, but a file is a file) is left out.
    mutating func add(_ bytes: ArraySlice<UInt8>) {
        let columns = bytes.split(separator: UInt8(ascii: "\t"), maxSplits: 4, omittingEmptySubsequences: false)
        guard columns.count == 5,
              let sequence = Int64(String(decoding: columns[0], as: UTF8.self)),
              let time = Int64(String(decoding: columns[1], as: UTF8.self)),
              !columns[2].isEmpty, !columns[4].isEmpty
        else { return }
        sequences.append(sequence)
        times.append(time)
        types.append(String(decoding: columns[2], as: UTF8.self))
        sessions.append(String(decoding: columns[3], as: UTF8.self))
        lines.append(String(decoding: columns[4], as: UTF8.self))
    }

    func insert(replica: String, run: String, into connections: FleetConnections, logger: Logger) async throws {
        guard !lines.isEmpty else { return }
        try await connections.with { connection in _ = try await connection.query(
            """
            INSERT INTO mockapns_records (run, seq, replica, at, type, session, line)
            SELECT \(run), s, \(replica), a, t, se, l
            FROM unnest(\(sequences)::bigint[], \(times)::bigint[], \(types)::text[], \(sessions)::text[], \(lines)::text[])
                AS u(s, a, t, se, l)
            ON CONFLICT (run, seq) DO NOTHING
            """,
            logger: logger
        ) }
    }
}
