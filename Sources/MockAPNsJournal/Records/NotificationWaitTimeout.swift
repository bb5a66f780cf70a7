/// A wait for notifications that ended before enough matched: what matched, and the
/// notifications that came closest (the near misses), each with the conditions it failed.
///
/// ```
/// waited 2s for 1 notification(s) matching token=aa11…, status=410; 0 matched. Closest:
///   #12 token aa11… topic com.example.app status 200: status: expected 410, got 200
/// ```
public struct NotificationWaitTimeout: Error, Sendable, Equatable, CustomStringConvertible {
    /// How many notifications were waited for.
    public var count: Int
    /// What they had to match.
    public var filter: NotificationFilter
    /// How long the wait lasted.
    public var timeout: Duration
    /// The notifications that matched, fewer than `count`, oldest first.
    public var found: [NotificationRecord]
    /// The notifications that failed the filter, ranked (fewest failed conditions first, then
    /// the newest), at most ``nearMissLimit``.
    public var nearMisses: [NotificationNearMiss]

    /// How many near misses a failed wait lists.
    public static let nearMissLimit = 5

    package init(count: Int, filter: NotificationFilter, timeout: Duration, found: [NotificationRecord], nearMisses: [NotificationNearMiss]) {
        self.count = count
        self.filter = filter
        self.timeout = timeout
        self.found = found
        self.nearMisses = nearMisses
    }

    /// What was waited for, what matched, and each near miss with the conditions it failed.
    public var description: String {
        let wanted = filter.conditionsText.isEmpty ? "anything" : filter.conditionsText
        var text = "waited \(timeout) for \(count) notification(s) matching \(wanted); \(found.count) matched."
        if nearMisses.isEmpty {
            text += " No other notification was recorded."
        } else {
            text += " Closest:"
            for miss in nearMisses {
                let record = miss.record
                text += "\n  #\(record.sequence) token \(record.deviceToken) topic \(record.topic ?? "none") status \(record.status.map(String.init) ?? "none"): "
                text += miss.differences.map(\.description).joined(separator: "; ")
            }
        }
        return text
    }
}

extension NotificationFilter {
    /// The conditions set, as `name=value` pairs (`token=aa11, status=410`).
    var conditionsText: String {
        var parts: [String] = []
        for condition in Condition.allCases {
            if let expected = expectedText(condition) { parts.append("\(condition.rawValue)=\(expected)") }
        }
        if let afterSequence { parts.append("after=\(afterSequence)") }
        return parts.joined(separator: ", ")
    }
}
