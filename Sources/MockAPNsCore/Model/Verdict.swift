import MockAPNsWire
/// What the decision core concluded about one notification.
package enum Verdict: Sendable, Equatable {
    /// APNs accepted it. `apnsID` is echoed or generated; `uniqueID` is sent only by the
    /// development (sandbox) environment.
    case accepted(apnsID: MessageID, uniqueID: MessageID?)
    /// APNs refused it. `timestamp` (milliseconds since 1970) accompanies 410 only.
    case rejected(reason: Reason, apnsID: MessageID, timestamp: Int64?)

    /// The `apns-id` the response carries.
    package var apnsID: MessageID {
        switch self {
        case .accepted(let id, _), .rejected(_, let id, _): return id
        }
    }

    /// The reason, if rejected.
    package var reason: Reason? {
        if case .rejected(let reason, _, _) = self { return reason }
        return nil
    }
}
