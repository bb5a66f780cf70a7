import MockAPNsCore
import MockAPNsJournal

extension ProviderJudge {
    /// One provider: its tallies, its retry delays, its findings, and what its connection and
    /// token rules remember.
    struct ProviderTrack: Sendable {
        var connections = 0
        var acceptedAtOnce = 0
        var acceptedAfterRetries = 0
        var sentAgainAfterAcceptance = 0
        /// Every retry delay observed, in the order seen (at most `delayLimit` kept).
        var retryDelays: [Int64] = []
        var findings: [VerdictRule: Int] = [:]
        var examples: [VerdictRule: [ProviderVerdict]] = [:]
        var churn: HTTP2ChurnDetector
        var drops: [Drop] = []
        var stormQuietUntil: Int64 = .min
        /// Provider tokens seen (`iat`), and when the newest new one was first used.
        var tokensSeen: Set<Int64> = []
        var lastRenewal: (issuedAt: Int64, at: Int64, sequence: UInt64)?

        /// Keeps the most recent `StateBounds.dropsPerProvider` drops (junk on a port is a
        /// drop a connection, hundreds a second).
        mutating func addDrop(_ drop: Drop) {
            drops.append(drop)
            if drops.count > StateBounds.dropsPerProvider { drops.removeFirst(drops.count / 10) }
        }
    }
}
