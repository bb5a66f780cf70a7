/// What the registry says about sending to one token on one topic.
public enum TokenStatus: Sendable, Equatable {
    /// Nothing in the registry stands in the way.
    case deliverable
    /// APNs would refuse the push. `timestamp` (milliseconds since 1970) is set for the 410
    /// reasons only.
    case refused(Reason, timestamp: Int64?)
}
