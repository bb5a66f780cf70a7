import MockAPNsCore
import MockAPNsJournal
/// A notification the delivery model handed to its device: what the forwarders pass on.
package struct DeliveredNotification: Sendable, Equatable {
    package var notification: DeliveryNotification
    /// When it was delivered, milliseconds since 1970 by the server clock.
    package var deliveredAtMilliseconds: Int64
    /// Whether it had been stored or held first.
    package var fromStorage: Bool

    package init(notification: DeliveryNotification, deliveredAtMilliseconds: Int64, fromStorage: Bool) {
        self.notification = notification
        self.deliveredAtMilliseconds = deliveredAtMilliseconds
        self.fromStorage = fromStorage
    }

    /// The delivery a model change describes, when the change is one.
    package init?(_ change: DeliveryModel.Change) {
        guard change.record.step == .delivered else { return nil }
        self.init(
            notification: change.notification, deliveredAtMilliseconds: change.record.atMilliseconds,
            fromStorage: change.record.cause == .fromStorage
        )
    }

    /// The JSON object the webhook forwarder POSTs: the notification's headers as APNs read
    /// them, when it was received and delivered, and its payload (as JSON when the request's
    /// one examination of it found it JSON, `DeliveryNotification.payloadIsJSON`; else as text
    /// or hex). The payload is not parsed again here.
    ///
    /// ```json
    /// {"notification":12,"transport":"http2","deviceToken":"a1b2…","topic":"com.example.app",
    ///  "bundleId":"com.example.app","pushType":"alert","priority":10,"apnsId":"…","uniqueId":"…","receivedAt":1767225600000,
    ///  "deliveredAt":1767225600000,"fromStorage":false,"payload":{"aps":{"alert":"hi"}}}
    /// ```
    package var json: String {
        let notification = self.notification
        var writer = JSONWriter()
        writer.beginObject()
        notification.jsonFields.write(into: &writer)
        writer.integer("receivedAt", notification.receivedAtMilliseconds)
        writer.integer("deliveredAt", deliveredAtMilliseconds)
        writer.bool("fromStorage", fromStorage)
        if let text = String(validating: notification.payload, as: UTF8.self) {
            if notification.payloadIsJSON {
                writer.raw("payload", json: text)
            } else {
                writer.string("payloadText", text)
            }
        } else {
            writer.string("payloadHex", JournalJSON.hex(notification.payload))
        }
        writer.endObject()
        return writer.text
    }
}
