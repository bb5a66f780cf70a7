import MockAPNsCore
import MockAPNsJournal
/// One notification's delivery log, as Apple's Push Notifications Console shows it for an
/// `apns-unique-id`: "Received by APNs", then each step the delivery model took with it.
/// Built from journal events: the notification's own event and the `delivery` events that
/// name it.
public struct DeliveryTimeline: Sendable, Equatable {
    /// The notification as recorded (its request and the answer it got).
    public var notification: NotificationRecord
    /// Oldest first. Empty when the notification was refused: it never entered delivery.
    public var entries: [Entry]

    /// One line of the log.
    public struct Entry: Sendable, Equatable {
        /// `nil` for the first line, the acceptance ("Received by APNs").
        package var record: DeliveryRecord?
        /// The journal sequence of the event the line comes from.
        public var sequence: UInt64
        /// When it took effect, milliseconds since 1970.
        public var atMilliseconds: Int64

        /// The step's name: `accepted`, or the delivery step.
        public var step: String { record?.step.rawValue ?? "accepted" }

        /// Apple's console words for the line.
        public var consoleText: String { record?.consoleText ?? "Received by APNs" }
    }

    /// The last step taken: `accepted` while nothing else has happened yet (or `refused`).
    public var state: String {
        guard notification.accepted else { return "refused" }
        return entries.last?.step ?? "accepted"
    }

    /// Whether the notification is still waiting (stored or held).
    package var isWaiting: Bool { entries.last?.record?.step == .stored }

    /// The timelines of the notifications `id` names, oldest first: `id` is an
    /// `apns-unique-id`, an `apns-id` (as answered; compared without regard to letter case, as
    /// UUIDs are), or the journal sequence number of the notification's event (the only id a
    /// legacy notification has). `events` are the journal's `notification` and `delivery`
    /// events, oldest first; others are passed over.
    package static func find(_ id: String, in events: [JournalEvent]) -> [DeliveryTimeline] {
        let sequence = UInt64(id)
        var timelines: [DeliveryTimeline] = []
        var indexBySequence: [UInt64: Int] = [:]
        for event in events {
            switch event.kind {
            case .notification:
                guard let record = event.notification else { continue }
                let named = record.sequence == sequence || Self.same(record.answer.uniqueID, id)
                    || Self.same(record.responseAPNsID, id)
                guard named else { continue }
                indexBySequence[record.sequence] = timelines.count
                let first = record.accepted && !record.dropped
                    ? [Entry(record: nil, sequence: record.sequence, atMilliseconds: record.wallTimeMilliseconds)] : []
                timelines.append(DeliveryTimeline(notification: record, entries: first))
            case .delivery(let delivery):
                guard let owner = delivery.notificationSequence, let index = indexBySequence[owner] else { continue }
                timelines[index].entries.append(Entry(record: delivery, sequence: event.sequence, atMilliseconds: delivery.atMilliseconds))
            case .connectionOpened, .connectionClosed, .tlsEstablished, .tlsFailed, .http2Frame, .legacyFrame, .fault,
                 .feedbackTuple, .diagnosis, .broadcast, .channelOperation, .verdict:
                continue
            }
        }
        return timelines
    }

    private static func same(_ value: String?, _ id: String) -> Bool {
        guard let value, value.utf8.count == id.utf8.count else { return false }
        return value == id || value.lowercased() == id.lowercased()
    }
}
