import Crypto
import MockAPNsCore
import NIOCore
import Synchronization

/// Every session of a server, found by what a request carries: a team id (a provider token's
/// `iss`, a client certificate's `OU`), a control token, or the session's id.
///
/// Traffic whose credentials belong to no session is the default session's. While no session
/// exists, finding a scope takes no lock, so a server nobody made a session on pays nothing.
package final class SessionDirectory: Sendable {
    /// The server's own credentials' scope.
    package let defaultScope: SessionScope
    private let table = Mutex(Table())
    /// How many sessions the table holds, read without the lock.
    private let count = Atomic<Int>(0)

    private struct Table {
        var byID: [String: SessionScope] = [:]
        var byTeam: [String: SessionScope] = [:]
        var byControlTokenDigest: [String: SessionScope] = [:]
    }

    package init(defaultScope: SessionScope) {
        self.defaultScope = defaultScope
    }

    /// Adds a session. Its id, team and control token are new (the caller made them at random).
    package func insert(_ scope: SessionScope) {
        guard let id = scope.id else { return }
        table.withLock { table in
            table.byID[id] = scope
            if let team = scope.teamID { table.byTeam[team] = scope }
            if let digest = scope.controlTokenDigest { table.byControlTokenDigest[digest] = scope }
            count.store(table.byID.count, ordering: .relaxed)
        }
    }

    /// Ends a session: its credentials lead nowhere from now on. Returns it, or `nil` when no
    /// session has this id.
    @discardableResult
    package func remove(id: String) -> SessionScope? {
        table.withLock { table in
            guard let scope = table.byID.removeValue(forKey: id) else { return nil }
            if let team = scope.teamID { table.byTeam[team] = nil }
            if let digest = scope.controlTokenDigest { table.byControlTokenDigest[digest] = nil }
            count.store(table.byID.count, ordering: .relaxed)
            return scope
        }
    }

    /// The scope of a request whose credentials name `teamID`: its session's, or the default.
    package func scope(forTeam teamID: String?) -> SessionScope {
        guard let teamID, count.load(ordering: .relaxed) > 0 else { return defaultScope }
        return table.withLock { $0.byTeam[teamID] } ?? defaultScope
    }

    /// The session with this id, if it exists.
    package func scope(id: String) -> SessionScope? {
        table.withLock { $0.byID[id] }
    }

    /// The session whose control token is `token`, if any. Compared by digest: the table keeps
    /// no token, and a lookup's time says nothing of how close a guess was.
    package func scope(controlToken token: String) -> SessionScope? {
        guard count.load(ordering: .relaxed) > 0 else { return nil }
        let digest = Self.digest(ofControlToken: token)
        return table.withLock { $0.byControlTokenDigest[digest] }
    }

    /// Every session, oldest first.
    package var all: [SessionScope] {
        table.withLock { Array($0.byID.values) }.sorted {
            ($0.createdAtMilliseconds, $0.id ?? "") < ($1.createdAtMilliseconds, $1.id ?? "")
        }
    }

    /// Removes and returns the sessions idle at `now`.
    package func removeIdle(at now: NIODeadline) -> [SessionScope] {
        guard count.load(ordering: .relaxed) > 0 else { return [] }
        let idle = table.withLock { table in table.byID.values.filter { $0.isIdle(at: now) } }
        return idle.compactMap { scope in scope.id.flatMap { remove(id: $0) } }
    }

    /// A control token's digest as the table keys it: SHA-256, lowercase hex.
    package static func digest(ofControlToken token: String) -> String {
        SHA256.hash(data: Array(token.utf8)).withUnsafeBytes(lowercaseHex)
    }
}
