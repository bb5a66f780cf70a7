/// Waiting for notifications, and what a wait that fails says: the notifications that came
/// closest to its filter.
extension Journal {
    /// Waits until the journal holds `count` notifications matching `filter` (those already
    /// recorded count), and returns them as soon as the `count`-th arrives. When `timeout`
    /// passes first (or the waiting task is cancelled), throws ``NotificationWaitTimeout``
    /// with the matches found and the near misses: the notifications that came closest,
    /// each with the conditions it failed. Those are looked for only then, so a wait costs
    /// one check of the filter per notification while it waits.
    public func waitForNotifications(
        count: Int, matching filter: NotificationFilter = .all, timeout: Duration
    ) async throws(NotificationWaitTimeout) -> [NotificationRecord] {
        let notifications = JournalEventKind.bits(.notification)
        let events = await waitForEvents(count: count, after: filter.afterSequence, kinds: notifications, timeout: timeout) { event in
            event.notification.map(filter.matches) ?? false
        }
        let found = events.compactMap(\.notification)
        guard found.count >= count else {
            throw NotificationWaitTimeout(count: count, filter: filter, timeout: timeout, found: found, nearMisses: nearMisses(for: filter))
        }
        return found
    }

    /// The notifications after the filter's sequence bound that fail it, ranked: fewest
    /// failed conditions first, then the newest; at most `limit`, from the newest `window`
    /// events (so a failed wait over a full journal stays quick).
    package func nearMisses(
        for filter: NotificationFilter, limit: Int = NotificationWaitTimeout.nearMissLimit, window: UInt64 = 50_000
    ) -> [NotificationNearMiss] {
        let last = statistics.lastSequence
        let recent = last > window ? last - window : 0
        let after = max(filter.afterSequence ?? 0, recent)
        // Read under the journal's lock, compared off it: a payload condition parses each payload.
        let newestFirst = notifications(matching: NotificationFilter(afterSequence: after, session: filter.session)).reversed()
        return Self.nearMisses(for: filter, among: newestFirst, limit: limit)
    }

    /// The records of `newestFirst` that fail `filter`, ranked: fewest failed conditions
    /// first, then the newest; at most `limit`.
    package static func nearMisses(
        for filter: NotificationFilter, among newestFirst: some Sequence<NotificationRecord>,
        limit: Int = NotificationWaitTimeout.nearMissLimit
    ) -> [NotificationNearMiss] {
        var misses: [NotificationNearMiss] = []
        for record in newestFirst {
            let differences = filter.differences(from: record)
            if !differences.isEmpty { misses.append(NotificationNearMiss(record: record, differences: differences)) }
        }
        // Sorted by count, then by place (newest first), so equals keep their order.
        let ranked = misses.enumerated().sorted { ($0.element.differences.count, $0.offset) < ($1.element.differences.count, $1.offset) }
        return ranked.prefix(limit).map(\.element)
    }
}
