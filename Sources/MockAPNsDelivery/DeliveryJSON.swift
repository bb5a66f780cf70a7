import MockAPNsCore
import MockAPNsJournal
/// The JSON forms of the delivery model's answers: a device and what waits for it, and a
/// notification's delivery log. The control API serves them; the dashboard reads them.
package enum DeliveryJSON {
    /// `{"deviceToken":…,"online":false,"changedAt":…,"stored":[…],"held":[…],"batchReleaseAt":…}`
    package static func write(_ device: DeviceDeliveryState, key: String? = nil, into writer: inout JSONWriter) {
        writer.beginObject(key)
        writer.string("deviceToken", device.deviceToken)
        writer.bool("online", device.online)
        writer.integer("changedAt", device.changedAtMilliseconds)
        writer.beginArray("stored")
        for kept in device.stored { write(kept, into: &writer) }
        writer.endArray()
        writer.beginArray("held")
        for kept in device.held { write(kept, into: &writer) }
        writer.endArray()
        writer.integer("batchReleaseAt", device.batchReleaseAtMilliseconds)
        writer.endObject()
    }

    private static func write(_ kept: DeviceDeliveryState.Kept, into writer: inout JSONWriter) {
        let notification = kept.notification
        writer.beginObject()
        var fields = notification.jsonFields
        fields.transport = nil
        fields.deviceToken = nil   // the device's own object names it
        fields.write(into: &writer)
        writer.integer("receivedAt", notification.receivedAtMilliseconds)
        writer.integer("expiresAt", kept.expiresAtMilliseconds)
        writer.endObject()
    }

    /// One notification's log: the request's ids and headers, its answer, its state now, and
    /// each line of the log with the console's words.
    package static func write(_ timeline: DeliveryTimeline, into writer: inout JSONWriter) {
        let record = timeline.notification
        writer.beginObject()
        // The apns-id the provider was answered with, as the console shows it.
        NotificationFieldsJSON(
            notification: record.sequence, transport: record.transport, deviceToken: record.deviceToken, topic: record.topic,
            pushType: record.pushType, priority: record.priority, expiration: record.expiration, collapseID: record.collapseID,
            apnsID: record.responseAPNsID, uniqueID: record.answer.uniqueID?.text
        ).write(into: &writer)
        writer.integer("identifier", record.legacyIdentifier)
        writer.bool("accepted", record.accepted)
        writer.integer("status", record.status)
        writer.string("reason", record.reason?.rawValue)
        writer.string("state", timeline.state)
        writer.string("console", timeline.entries.last?.consoleText)
        writer.beginArray("timeline")
        for entry in timeline.entries {
            writer.beginObject()
            writer.integer("seq", entry.sequence)
            writer.string("step", entry.step)
            writer.string("cause", entry.record?.cause?.rawValue)
            writer.string("console", entry.consoleText)
            writer.integer("at", entry.atMilliseconds)
            writer.integer("until", entry.record?.untilMilliseconds)
            writer.integer("replacedBy", entry.record?.replacedBy)
            if entry.isDerived { writer.bool("derived", true) }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}
