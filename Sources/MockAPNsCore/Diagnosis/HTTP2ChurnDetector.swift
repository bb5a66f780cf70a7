/// Spots an HTTP/2 provider that uses each connection for one request: it opens a new TLS
/// connection per notification, whether it then closes the old one or leaves it open. Apple
/// asks providers to keep connections open and reuse them; connection churn is a classic
/// cause of being throttled.
///
/// A connection counts as *single-use* when it carried exactly one request and then either
/// closed, or sat idle (its request answered) while the provider opened another connection
/// instead of reusing it. A pool that opens several connections at once and keeps using them
/// never counts: none of its connections is idle when another opens. When `threshold`
/// single-use connections occur within `window`, the detector reports them once and stays
/// quiet for the next `window`.
///
/// Pure bookkeeping over connection ids and monotonic nanoseconds; the server feeds it.
package struct HTTP2ChurnDetector: Sendable {
    /// How many single-use connections within the window count as churn.
    package let threshold: Int
    /// The window, in nanoseconds of a monotonic clock.
    package let windowNanoseconds: UInt64

    private struct Connection: Sendable {
        /// It carried one request, answered, and nothing since.
        var idleAfterOne = false
        /// Already counted as single-use while still open.
        var passedOver = false
    }

    /// Open connections, by id.
    private var open: [UInt64: Connection] = [:]
    /// When each recent single-use connection was counted, and which it was.
    private var singleUse: [(at: UInt64, id: UInt64)] = []
    private var quietUntil: UInt64 = 0

    package init(threshold: Int = 10, windowSeconds: Int = 10) {
        self.threshold = threshold
        self.windowNanoseconds = UInt64(windowSeconds) * 1_000_000_000
    }

    /// A connection started HTTP/2. Connections idle after their only request were passed over.
    package mutating func connectionOpened(_ id: UInt64, at now: UInt64) -> HTTP2Churn? {
        var counted = false
        for (other, connection) in open where connection.idleAfterOne && !connection.passedOver {
            open[other]?.passedOver = true
            singleUse.append((now, other))
            counted = true
        }
        open[id] = Connection()
        return counted ? evaluate(at: now) : nil
    }

    /// The connection's first request was answered and nothing else is in flight on it.
    /// Called once per connection, so the hot path touches the detector only a few times
    /// per connection, never per request.
    package mutating func idleAfterFirstRequest(_ id: UInt64) {
        open[id]?.idleAfterOne = true
    }

    /// A second request arrived on the connection: it is being reused.
    package mutating func reused(_ id: UInt64) {
        open[id]?.idleAfterOne = false
    }

    /// The connection closed after carrying `requests` requests.
    package mutating func connectionClosed(_ id: UInt64, requests: Int, at now: UInt64) -> HTTP2Churn? {
        guard let connection = open.removeValue(forKey: id) else { return nil }
        guard requests == 1, !connection.passedOver else { return nil }
        singleUse.append((now, id))
        return evaluate(at: now)
    }

    private mutating func evaluate(at now: UInt64) -> HTTP2Churn? {
        // Written so that an earlier `now` can never underflow.
        singleUse.removeAll { $0.at + windowNanoseconds < now }
        guard singleUse.count >= threshold, now >= quietUntil else { return nil }
        let stillOpen = singleUse.filter { open[$0.id] != nil }.count
        let churn = HTTP2Churn(
            connections: singleUse.count, windowSeconds: Int(windowNanoseconds / 1_000_000_000), stillOpen: stillOpen
        )
        singleUse.removeAll()
        quietUntil = now + windowNanoseconds
        return churn
    }
}

/// Connection churn on the HTTP/2 API, with the figures that showed it.
package struct HTTP2Churn: Sendable, Equatable {
    /// Single-use connections within the window.
    package var connections: Int
    package var windowSeconds: Int
    /// Of those, how many the provider left open (idle, never reused).
    package var stillOpen: Int

    package init(connections: Int, windowSeconds: Int, stillOpen: Int) {
        self.connections = connections
        self.windowSeconds = windowSeconds
        self.stillOpen = stillOpen
    }

    /// The journal's code for it.
    package static let code = DiagnosisCode.http2ConnectionChurn

    /// The diagnosis in plain words.
    package var message: String {
        var text = "\(connections) connections in \(windowSeconds) s each carried a single request"
        if stillOpen > 0 {
            text += " (\(stillOpen) of them left open and idle instead of being reused)"
        }
        return text + ". Apple treats a new connection per notification as connection churn and may throttle it: "
            + "keep one connection (or a few) open and send every notification over it."
    }

    /// The numbers behind it, for the journal.
    package var figures: [JournalFigure] {
        [JournalFigure("connections", Int64(connections)), JournalFigure("windowSeconds", Int64(windowSeconds)),
         JournalFigure("requests", Int64(connections)), JournalFigure("stillOpen", Int64(stillOpen))]
    }
}
