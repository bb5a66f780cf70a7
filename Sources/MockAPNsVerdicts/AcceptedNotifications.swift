/// Notifications accepted lately (at most `capacity`), so one accepted again after its
/// acceptance (its answer lost with its connection, say) counts as sent again, not as a new
/// one. A refusal of it is judged as any, unless it carries the accepted request's own
/// `apns-id`: the provider named it the same notification, whatever answer it meets.
struct AcceptedNotifications: Sendable {
    static let capacity = 100_000

    private var acceptances: [NotificationKey: Acceptance] = [:]
    /// The keys in the order first accepted; those before `orderStart` are forgotten already
    /// (dropped from the array in one step once there are `capacity` of them).
    private var order: [NotificationKey] = []
    private var orderStart = 0

    subscript(key: NotificationKey) -> Acceptance? {
        acceptances[key]
    }

    /// Remembers an acceptance, forgetting the oldest when `capacity` is passed.
    mutating func remember(_ key: NotificationKey, acceptance: Acceptance) {
        guard acceptances.updateValue(acceptance, forKey: key) == nil else { return }
        order.append(key)
        if order.count - orderStart > Self.capacity {
            acceptances[order[orderStart]] = nil
            orderStart += 1
            if orderStart >= Self.capacity {
                order.removeFirst(orderStart)
                orderStart = 0
            }
        }
    }
}
