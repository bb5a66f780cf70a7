/// One change to the state replicas share, as the replica that made it wrote it down: the
/// others apply it in the order PostgreSQL numbered it (`FleetStore`).
///
/// What a change says is JSON text the server writes and reads (`body`); the store only moves
/// it. The kinds are few on purpose: most changes are control API calls, replayed on every
/// replica as they were made on one, so each route's checks and effects stay in one place.
package struct FleetChange: Sendable, Equatable {
    package enum Kind: String, Sendable, CaseIterable {
        /// A control API call that changed state: `{"method", "path", "body"}`, replayed
        /// through the same router on every other replica.
        case control
        /// A session made on one replica: what the others need to take its credentials
        /// (its team, key id, public key, topics, control token's digest, scenario).
        case session
        /// A session ended by request (`{}`); one ended for going unused ends on each
        /// replica by itself.
        case sessionEnded
        /// A broadcast channel made or replaced, through either API: the channel as made,
        /// with the id it was given.
        case channel
        /// A broadcast channel deleted, through either API: `{"id"}`.
        case channelDeleted
        /// A web push subscription made on one replica, with the keys the user agent holds
        /// (`{"id", "applicationServerKey", "privateKey", "auth", "createdAt"}`, base64), so any
        /// replica reads a push to it. Expiring, revoking and forgetting one are control calls.
        case webPushSubscription
        /// A rate window given to a token, by the control API or a scenario's `limitRate` rule
        /// on the request path: `{"token", "pushes", "perMilliseconds"}`.
        case rateWindow
        /// A device set online or offline by a scenario's `setDevice` rule on the request
        /// path: `{"token", "online", "rule"}`; each replica's delivery model takes it.
        case deviceState
        /// A journal clear, for the fleet's reads: the body is the clear's time (milliseconds
        /// since 1970); lines of the session (`nil`: every session) up to it are skipped.
        /// Each replica's own journal is cleared by the control call, replayed.
        case journalCleared
    }

    package var kind: Kind
    /// The session the change belongs to; `nil`: the server's own state.
    package var session: String?
    /// The change itself, JSON.
    package var body: String

    package init(kind: Kind, session: String?, body: String) {
        self.kind = kind
        self.session = session
        self.body = body
    }
}

/// How the fleet's PostgreSQL stands, as `health` and metrics report it.
package struct FleetHealth: Sendable, Equatable {
    /// This replica's name (`--replica`), and this run of it (the name and a random suffix:
    /// the key of its records, since each run numbers its journal from 1).
    package var replica: String
    package var run: String
    /// Whether the last talk with PostgreSQL worked. `false`: the fleet is degraded; this
    /// replica answers from what it holds and catches up when PostgreSQL returns.
    package var reachable: Bool
    /// What went wrong last, while unreachable.
    package var lastError: String?
    /// Changes made here and not yet written to PostgreSQL.
    package var changesPending: Int
    /// The newest change applied (PostgreSQL's number for it).
    package var appliedThrough: Int64
    /// The records written to PostgreSQL, and how far the outbox's spool is shipped (bytes).
    package var recordsShipped: Int
    package var fileBytesShipped: UInt64
    /// The outbox's spool file, once the store runs.
    package var spool: String?
    /// Records handed to the outbox and not yet written to its spool (for at most 100 ms).
    package var recordsPending = 0

    package init(
        replica: String, run: String, reachable: Bool, lastError: String?, changesPending: Int, appliedThrough: Int64,
        recordsShipped: Int, fileBytesShipped: UInt64
    ) {
        self.replica = replica
        self.run = run
        self.reachable = reachable
        self.lastError = lastError
        self.changesPending = changesPending
        self.appliedThrough = appliedThrough
        self.recordsShipped = recordsShipped
        self.fileBytesShipped = fileBytesShipped
        spool = nil
    }
}
