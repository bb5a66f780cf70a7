import Logging
import PostgresNIO
import Synchronization

/// Connections to the fleet's PostgreSQL, made when needed and kept while they work.
///
/// A connection that fails is closed and the next use connects anew, at once: the loops
/// retry on their own clock (`FleetStore.retryInterval`), so a PostgreSQL that returns after
/// a long absence is used within a second. (A pool that backs off between failed connects
/// would wait up to a minute after a long outage.)
final class FleetConnections: Sendable {
    private let location: FleetLocation
    private let logger: Logger
    private let idle = Mutex<[PostgresConnection]>([])
    private let nextID = Atomic<Int>(1)
    /// Connections kept between uses: the loops' and a few readers'.
    static let keptIdle = 4

    init(location: FleetLocation, logger: Logger) {
        self.location = location
        self.logger = logger
    }

    /// Runs `body` on a connection: an idle one that is still open, or a new one. A connection
    /// whose use threw is closed rather than kept.
    func with<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        let connection = try await take()
        do {
            let result = try await body(connection)
            give(connection)
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Closes the idle connections (the store is stopping).
    func closeAll() async {
        let connections = idle.withLock { idle in
            defer { idle = [] }
            return idle
        }
        for connection in connections { try? await connection.close() }
    }

    private func take() async throws -> PostgresConnection {
        while let connection = idle.withLock({ $0.popLast() }) {
            if !connection.isClosed { return connection }
        }
        let id = nextID.add(1, ordering: .relaxed).oldValue
        return try await PostgresConnection.connect(configuration: try location.connectionConfiguration(), id: id, logger: logger)
    }

    private func give(_ connection: PostgresConnection) {
        let kept = idle.withLock { idle in
            guard idle.count < Self.keptIdle, !connection.isClosed else { return false }
            idle.append(connection)
            return true
        }
        if !kept { Task { try? await connection.close() } }
    }
}
