/// How a request went to the upstream APNs (upstream mode, `mockapns serve --upstream`) and
/// what MockAPNs' own rules made of it: carried by the record of every request relayed, or
/// that could not be relayed because the upstream failed.
///
/// The answer the provider got is the record's own (`status`, `reason`, `apnsID`, ...): the
/// upstream's, relayed unchanged, or MockAPNs' 503/500 when the upstream gave none.
public struct UpstreamRelay: Sendable, Equatable {
    /// The upstream's origin, `https://host[:port]` (port 443 left out).
    public var origin: String
    /// From sending the request upstream to its complete answer (or its failure), in microseconds.
    public var latencyMicroseconds: Int
    /// Why the upstream gave no answer, in one of a few stable words: `unreachable`,
    /// `tlsFailed`, `timedOut`, `reset`, `closed`, `protocolError`, `shutDown`, `overloaded`; `nil` when it answered.
    public var failureKind: String?
    /// What happened, in a sentence (`nil` when the upstream answered).
    public var failure: String?
    /// The status MockAPNs' own rules gave the request, judged beside the upstream without answering.
    public var ownStatus: Int
    /// The reason MockAPNs' own rules gave (`nil` for an acceptance).
    public var ownReason: Reason?
    /// Whether the upstream answered otherwise than MockAPNs would have: another status, or
    /// another reason. Always `false` when the upstream gave no answer.
    public var disagrees: Bool

    package init(
        origin: String, latencyMicroseconds: Int, failureKind: String? = nil, failure: String? = nil,
        ownStatus: Int, ownReason: Reason?, disagrees: Bool
    ) {
        self.origin = origin
        self.latencyMicroseconds = latencyMicroseconds
        self.failureKind = failureKind
        self.failure = failure
        self.ownStatus = ownStatus
        self.ownReason = ownReason
        self.disagrees = disagrees
    }

    /// Whether an upstream answer of `status` naming `reason` differs from MockAPNs' own
    /// `ownStatus` and `ownReason`: the status, or the reason, is another.
    package static func differs(status: Int, reason: Reason?, ownStatus: Int, ownReason: Reason?) -> Bool {
        status != ownStatus || reason != ownReason
    }

    /// `status reason` as a report names an answer: `200`, `400 BadDeviceToken`.
    package static func describe(status: Int, reason: Reason?) -> String {
        reason.map { "\(status) \($0.rawValue)" } ?? "\(status)"
    }
}
