import MockAPNsCore
import MockAPNsJournal

/// Upstream mode: answers relayed, upstream failures, and the fidelity check's disagreements
/// (by the two answers' words), for the report.
struct UpstreamTally: Sendable {
    private(set) var relayed = 0
    private(set) var failures = 0
    private(set) var disagreements: [String: Int] = [:]

    /// One relayed request, answered by the upstream or not, and whether its answer differed
    /// from MockAPNs' own.
    mutating func count(_ upstream: UpstreamRelay, _ record: NotificationRecord) {
        guard upstream.failureKind == nil, let status = record.status else {
            failures += 1
            return
        }
        relayed += 1
        if upstream.disagrees {
            let key = VerdictReport.disagreementKey(
                upstream: UpstreamRelay.describe(status: status, reason: record.reason),
                mockAPNs: UpstreamRelay.describe(status: upstream.ownStatus, reason: upstream.ownReason)
            )
            disagreements[key, default: 0] += 1
        }
    }
}
