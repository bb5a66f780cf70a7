import MockAPNsCore

/// Spots a provider that opens a connection per notification instead of keeping one open,
/// which Apple treated as a denial-of-service attempt.
///
/// Every gateway connection that completed its handshake is reported here when it closes.
/// When `threshold` connections carrying at most one notification each closed within
/// `window`, the detector names it once; it stays quiet for the next `window` so a steady
/// churn gives one diagnosis per window, not one per connection.
package struct LegacyChurnDetector: Sendable {
    /// How many short connections within `window` count as churn.
    package let threshold: Int
    /// The window, in nanoseconds of a monotonic clock.
    package let windowNanoseconds: UInt64

    /// When each recent short connection closed, and how many notifications it carried.
    private var recent: [(closedAt: UInt64, notifications: Int)] = []
    /// No new diagnosis before this instant.
    private var quietUntil: UInt64 = 0

    package init(threshold: Int = 10, windowSeconds: Int = 10) {
        self.threshold = threshold
        self.windowNanoseconds = UInt64(windowSeconds) * 1_000_000_000
    }

    /// Forgets the connections seen and the quiet period after the last diagnosis (a server
    /// reset): a burst that follows is judged on its own.
    package mutating func startOver() {
        recent.removeAll()
        quietUntil = 0
    }

    /// Records a closed connection; returns the diagnosis when this one completes the churn.
    /// `now` is monotonic nanoseconds.
    package mutating func connectionClosed(notifications: Int, at now: UInt64) -> LegacyDiagnosis? {
        // A connection that carried several notifications is how providers should behave.
        guard notifications <= 1 else { return nil }
        recent.append((now, notifications))
        recent.removeAll { now - $0.closedAt > windowNanoseconds }
        guard recent.count >= threshold, now >= quietUntil else { return nil }
        let total = recent.reduce(0) { $0 + $1.notifications }
        let diagnosis = LegacyDiagnosis.connectionChurn(
            connections: recent.count,
            seconds: Int(windowNanoseconds / 1_000_000_000),
            notificationsPerConnection: Double(total) / Double(recent.count)
        )
        recent.removeAll()
        quietUntil = now + windowNanoseconds
        return diagnosis
    }
}
