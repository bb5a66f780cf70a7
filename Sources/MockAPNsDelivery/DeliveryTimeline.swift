import MockAPNsCore
import MockAPNsJournal
/// One notification's delivery log, as Apple's Push Notifications Console shows it for an
/// `apns-unique-id`: "Received by APNs", then each step the delivery model took with it.
/// Built from journal events: the notification's own event and the `delivery` events that
/// name it. A delivery on arrival (an online device holding nothing for it, the usual case)
/// is not recorded as an event; it is derived here: an accepted notification the model has
/// taken in that no recorded step names was delivered when it arrived.
public struct DeliveryTimeline: Sendable, Equatable {
    /// The notification as recorded (its request and the answer it got).
    public var notification: NotificationRecord
    /// Oldest first. Empty when the notification was refused: it never entered delivery.
    public var entries: [Entry]

    /// One line of the log.
    public struct Entry: Sendable, Equatable {
        /// `nil` for the first line, the acceptance ("Received by APNs").
        package var record: DeliveryRecord?
        /// The journal sequence of the event the line comes from (for a delivery on arrival,
        /// which is derived, the notification's own).
        public var sequence: UInt64
        /// When it took effect, milliseconds since 1970.
        public var atMilliseconds: Int64
        /// Whether the line is derived rather than recorded: a delivery on arrival.
        public var isDerived = false

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
    /// events, oldest first; others are passed over. An accepted notification up to
    /// `derivedThrough` (the newest the model has taken in, its steps recorded), outside
    /// `leftOut` (notifications the model never saw), with no recorded step was delivered on
    /// arrival, and its timeline says so.
    package static func find(
        _ id: String, in events: [JournalEvent], derivedThrough: UInt64 = 0, leftOut: [ClosedRange<UInt64>] = []
    ) -> [DeliveryTimeline] {
        let sequence = UInt64(id)
        var timelines: [DeliveryTimeline] = []
        var indexBySequence: [UInt64: Int] = [:]
        for event in events {
            switch event.kind {
            case .notification:
                guard let record = event.notification else { continue }
                let named = record.sequence == sequence || Self.same(record.answer.uniqueID?.text, id)
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
        for index in timelines.indices {
            let record = timelines[index].notification
            guard timelines[index].entries.count == 1, record.sequence <= derivedThrough,
                  DeliveryNotification.entersModel(record), !leftOut.contains(where: { $0.contains(record.sequence) }) else { continue }
            let delivered = DeliveryRecord(
                step: .delivered, cause: nil, deviceToken: DeviceRegistry.canonical(record.deviceToken),
                notificationSequence: record.sequence, atMilliseconds: record.wallTimeMilliseconds
            )
            timelines[index].entries.append(
                Entry(record: delivered, sequence: record.sequence, atMilliseconds: record.wallTimeMilliseconds, isDerived: true)
            )
        }
        return timelines
    }

    private static func same(_ value: String?, _ id: String) -> Bool {
        guard let value, value.utf8.count == id.utf8.count else { return false }
        return value == id || value.lowercased() == id.lowercased()
    }
}
