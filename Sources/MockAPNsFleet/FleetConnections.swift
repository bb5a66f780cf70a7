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

    /// How long one use of a connection may take, and a connect: past it the connection is
    /// closed, which fails what waits on it, so no loop waits for ever on a PostgreSQL that
    /// went away mid-query or a connection whose peer vanished without a word.
    static let useLimit = Duration.seconds(10)

    /// Runs `body` on a connection: an idle one that is still open, or a new one. A connection
    /// whose use threw, or outlasted `limit` (`nil`: a use with no end, the LISTEN), is closed
    /// rather than kept.
    func with<Result: Sendable>(
        limit: Duration? = useLimit, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let connection = try await take()
        let watchdog = limit.map { limit in
            Task {
                try await Task.sleep(for: limit)
                try? await connection.close()
            }
        }
        defer { watchdog?.cancel() }
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
        let configuration = try location.connectionConfiguration()
        let logger = logger
        // The connect's own timeout covers TCP; the start-up exchange after it is bounded
        // here. Whichever ends first answers; a connection made too late is closed.
        let race = FirstOutcome<PostgresConnection>()
        return try await withCheckedThrowingContinuation { continuation in
            race.await(continuation)
            let timer = Task {
                try await Task.sleep(for: Self.useLimit)
                race.deliver(.failure(FleetConnectTimeout(limit: Self.useLimit)))
            }
            Task {
                do {
                    let connection = try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
                    if !race.deliver(.success(connection)) { try? await connection.close() }
                } catch {
                    race.deliver(.failure(error))
                }
                timer.cancel()
            }
        }
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

/// A connection to the fleet's PostgreSQL was not made within its bound.
struct FleetConnectTimeout: Error, CustomStringConvertible {
    let limit: Duration
    var description: String { "no connection to PostgreSQL within \(limit)" }
}

/// The first of several outcomes, handed to the one waiting continuation; the later ones are
/// refused, so their owner can undo them.
final class FirstOutcome<Value: Sendable>: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Value, any Error>?, delivered: Bool)>((nil, false))

    func await(_ continuation: CheckedContinuation<Value, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Hands `outcome` over unless one was; says whether this one was.
    @discardableResult
    func deliver(_ outcome: Result<Value, any Error>) -> Bool {
        let continuation: CheckedContinuation<Value, any Error>? = state.withLock { state in
            guard !state.delivered else { return nil }
            state.delivered = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: outcome)
        return continuation != nil
    }
}
