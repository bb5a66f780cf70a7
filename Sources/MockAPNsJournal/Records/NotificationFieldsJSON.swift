import MockAPNsCore

/// The fields every JSON view of one notification shares: the journal's record, a
/// notification's delivery log, what waits for a device, the webhook's body. This is the one
/// place that spells their keys and orders them, so the views cannot drift apart; each view
/// writes its own fields around them. A field left `nil` is not written.
package struct NotificationFieldsJSON {
    /// The journal sequence of the notification (its identity in the delivery model).
    package var notification: UInt64? = nil
    package var transport: Transport? = nil
    package var deviceToken: String? = nil
    package var topic: String? = nil
    /// The app the topic names (the topic without a push type's suffix).
    package var bundleID: String? = nil
    package var pushType: String? = nil
    package var priority: Int? = nil
    package var expiration: Int64? = nil
    package var collapseID: String? = nil
    package var apnsID: String? = nil
    package var uniqueID: String? = nil

    package init(
        notification: UInt64? = nil, transport: Transport? = nil, deviceToken: String? = nil, topic: String? = nil,
        bundleID: String? = nil, pushType: String? = nil, priority: Int? = nil, expiration: Int64? = nil,
        collapseID: String? = nil, apnsID: String? = nil, uniqueID: String? = nil
    ) {
        self.notification = notification
        self.transport = transport
        self.deviceToken = deviceToken
        self.topic = topic
        self.bundleID = bundleID
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.uniqueID = uniqueID
    }

    /// Writes the fields into the object `writer` has open.
    package func write(into writer: inout JSONWriter) {
        writer.integer("notification", notification)
        writer.string("transport", transport?.rawValue)
        writer.string("deviceToken", deviceToken)
        writer.string("topic", topic)
        writer.string("bundleId", bundleID)
        writer.string("pushType", pushType)
        writer.integer("priority", priority)
        writer.integer("expiration", expiration)
        writer.string("collapseId", collapseID)
        writer.string("apnsId", apnsID)
        writer.string("uniqueId", uniqueID)
    }
}
