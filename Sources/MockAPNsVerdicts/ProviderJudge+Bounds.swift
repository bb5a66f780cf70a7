import MockAPNsCore
import MockAPNsJournal

/// What keeps the judge's memory bounded: each collection has a bound (`StateBounds`,
/// `delayLimit`, `AcceptedNotifications.capacity`), past which its oldest entries are forgotten.
extension ProviderJudge {
    /// Retry delays kept per provider (and per notification before its provider is known).
    static let delayLimit = 10_000

    /// How much of each kind of state is kept at most. When a bound is passed, the oldest
    /// tenth goes at once (sorted by age), so keeping it costs O(log n) per entry, not a scan
    /// per request.
    enum StateBounds {
        /// Notifications tried and not accepted (`chains`), and tokens answered 410.
        static let notifications = 100_000
        /// Closed connections kept because a failed notification names its provider through them.
        static let connectionsOwningChains = 10_000
        /// Provider tokens (`iat`) remembered per provider.
        static let tokensPerProvider = 10_000
        /// Connections the server dropped, remembered per provider for the reconnect-storm rule.
        static let dropsPerProvider = 1_000
    }

    /// The numbers of entries in each part of the judge's state, for tests of its bounds.
    package struct StateCounts: Equatable, Sendable {
        package var connections: Int
        package var chains: Int
        package var chainsByAPNsID: Int
        package var chainDelays: Int
        package var goneTokens: Int
        package var pendingFindings: Int
        package var connectionsOwningChains: Int
        package var tokensSeen: Int
        package var drops: Int
        package var dropReconnections: Int
    }

    package var stateCounts: StateCounts {
        StateCounts(
            connections: connections.count, chains: chains.count, chainsByAPNsID: chainsByAPNsID.count,
            chainDelays: chains.values.reduce(0) { $0 + $1.delays.count + $1.unattributedDelays.count },
            goneTokens: goneTokens.count,
            pendingFindings: pending.values.reduce(0) { $0 + $1.kept.count + $1.counted.count },
            connectionsOwningChains: connectionsOwningChains.count,
            tokensSeen: tracks.reduce(0) { $0 + $1.tokensSeen.count },
            drops: tracks.reduce(0) { $0 + $1.drops.count },
            dropReconnections: tracks.reduce(0) { $0 + $1.drops.reduce(0) { $0 + $1.reconnections.count } }
        )
    }

    /// The keys of the oldest tenth of `entries` by `age` (at least one).
    static func oldestTenth<Key, Value>(of entries: [Key: Value], by age: (Value) -> UInt64) -> [Key] {
        let aged = entries.map { (key: $0.key, age: age($0.value)) }.sorted { $0.age < $1.age }
        return aged.prefix(max(1, aged.count / 10)).map(\.key)
    }

    /// Forgets the oldest tenth of the notifications tried and not accepted (by their first
    /// attempt): what a run of failures without end would otherwise keep for ever.
    mutating func forgetOldestChains() {
        for key in Self.oldestTenth(of: chains, by: { $0.sequences.first ?? 0 }) {
            guard let chain = chains.removeValue(forKey: key) else { continue }
            if let id = chain.apnsID, chainsByAPNsID[id] == key { chainsByAPNsID[id] = nil }
            forgottenChains += 1
        }
    }

    /// Keeps the closed connections kept for their failed notifications within their bound,
    /// forgetting the oldest (connection ids rise with time).
    mutating func boundConnectionsOwningChains() {
        guard connectionsOwningChains.count > StateBounds.connectionsOwningChains else { return }
        let closed = connectionsOwningChains.filter { connections[$0]?.closed ?? true }.sorted()
        for id in closed.prefix(max(1, closed.count / 10)) {
            connectionsOwningChains.remove(id)
            connections[id] = nil
            lastTokens[id] = nil
        }
    }
}
