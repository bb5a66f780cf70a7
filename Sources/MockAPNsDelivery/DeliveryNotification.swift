import MockAPNsWire
import MockAPNsCore
import MockAPNsJournal
/// An accepted notification as the delivery model holds it: what its rules read (device,
/// app, priority, expiration, collapse id) and what is handed to the device.
package struct DeliveryNotification: Sendable, Equatable {
    /// The journal sequence of the notification's event: its identity in the model, and the
    /// id of a legacy notification, which has no `apns-id`.
    package var sequence: UInt64
    /// Lowercase.
    package var deviceToken: String
    package var topic: String?
    package var pushType: String?
    package var priority: Int?
    /// `apns-expiration` (or the legacy expiry), seconds since 1970; `nil` when absent.
    package var expiration: Int64?
    package var collapseID: String?
    /// As answered (a made id kept as its bits, its text made when read).
    package var apnsID: MessageID?
    package var uniqueID: MessageID?
    package var transport: Transport
    /// The payload as the journal keeps it (every byte of an APNs payload).
    package var payload: [UInt8]
    /// Whether the payload is one JSON value, as the request's one examination found (for a
    /// notification whose record carries none, the payload is examined when the value is made).
    package var payloadIsJSON: Bool
    /// When APNs received it, milliseconds since 1970 (the event's time).
    package var receivedAtMilliseconds: Int64

    package init(
        sequence: UInt64, deviceToken: String, topic: String? = nil, pushType: String? = nil, priority: Int? = nil,
        expiration: Int64? = nil, collapseID: String? = nil, apnsID: MessageID? = nil, uniqueID: MessageID? = nil,
        transport: Transport = .http2, payload: [UInt8] = [], payloadIsJSON: Bool? = nil, receivedAtMilliseconds: Int64
    ) {
        self.sequence = sequence
        self.deviceToken = DeviceRegistry.canonical(deviceToken)
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.transport = transport
        self.payload = payload
        self.payloadIsJSON = payloadIsJSON ?? PayloadJSON(payload).isJSON
        self.receivedAtMilliseconds = receivedAtMilliseconds
    }

    /// The notification a journal record describes, if the client was told it was accepted
    /// (only those enter the delivery model). `record` carries its event's sequence and time
    /// (`JournalEvent.notification`).
    package init?(_ record: NotificationRecord) {
        self.init(record, sequence: record.sequence, receivedAtMilliseconds: record.wallTimeMilliseconds)
    }

    /// The notification a journal record describes, if it was accepted, taking its sequence
    /// and time from the event that holds it (a journal reader reads the record from the event's
    /// kind, so the record itself is not stamped).
    package init?(_ record: NotificationRecord, sequence: UInt64, receivedAtMilliseconds: Int64) {
        guard Self.entersModel(record) else { return nil }
        self.init(
            sequence: sequence, deviceToken: record.deviceToken, topic: record.topic, pushType: record.pushType,
            priority: record.priority, expiration: record.expiration, collapseID: record.collapseID,
            apnsID: record.answer.apnsID, uniqueID: record.answer.uniqueID, transport: record.transport,
            payload: record.payload,
            // Only a payload kept whole is what was examined.
            payloadIsJSON: record.payload.count == record.payloadLength ? record.payloadIsJSON : nil,
            receivedAtMilliseconds: receivedAtMilliseconds
        )
    }

    /// Whether the notification `record` describes enters the delivery model: the client was
    /// told it was accepted, and it names a device.
    package static func entersModel(_ record: NotificationRecord) -> Bool {
        record.accepted && !record.dropped && !record.deviceTokenIsEmpty
    }

    /// The app it is for: the topic without its push-type suffix (Apple stores one
    /// notification per bundle id and device). `nil` when the request named no topic.
    package var bundleID: String? {
        topic.map { String(TopicRules.bundleID(of: $0)) }
    }

    /// Whether Apple may hold it back for the device's power: priority 5 and 1 "might get
    /// grouped and delivered in bursts", and background pushes must use priority 5.
    package var isPowerAware: Bool { Self.isPowerAware(priority: priority, pushType: pushType) }

    /// `isPowerAware` for a notification of this priority and push type.
    package static func isPowerAware(priority: Int?, pushType: String?) -> Bool {
        priority == Priority.powerAware.rawValue || priority == Priority.powerFirst.rawValue
            || pushType == PushType.background.rawValue
    }

    /// `apns-expiration` in milliseconds, saturating (an expiration far in the future is
    /// simply never reached).
    var expirationMilliseconds: Int64? {
        expiration.map { seconds in
            let (product, overflow) = seconds.multipliedReportingOverflow(by: 1000)
            return overflow ? (seconds < 0 ? Int64.min : Int64.max) : product
        }
    }
}

extension DeliveryNotification {
    /// Its fields as every JSON view of a notification writes them.
    package var jsonFields: NotificationFieldsJSON {
        NotificationFieldsJSON(
            notification: sequence, transport: transport, deviceToken: deviceToken, topic: topic, bundleID: bundleID,
            pushType: pushType, priority: priority, expiration: expiration, collapseID: collapseID, apnsID: apnsID?.text,
            uniqueID: uniqueID?.text
        )
    }
}
