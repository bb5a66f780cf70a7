import MockAPNsCore
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
        writer.integer("notification", notification.sequence)
        writer.string("apnsId", notification.apnsID)
        writer.string("uniqueId", notification.uniqueID)
        writer.string("topic", notification.topic)
        writer.string("bundleId", notification.bundleID)
        writer.string("pushType", notification.pushType)
        writer.integer("priority", notification.priority)
        writer.string("collapseId", notification.collapseID)
        writer.integer("expiration", notification.expiration)
        writer.integer("receivedAt", notification.receivedAtMilliseconds)
        writer.integer("expiresAt", kept.expiresAtMilliseconds)
        writer.endObject()
    }

    /// One notification's log: the request's ids and headers, its answer, its state now, and
    /// each line of the log with the console's words.
    package static func write(_ timeline: DeliveryTimeline, into writer: inout JSONWriter) {
        let record = timeline.notification
        writer.beginObject()
        writer.integer("notification", record.sequence)
        writer.string("transport", record.transport.rawValue)
        writer.string("deviceToken", record.deviceToken)
        writer.string("topic", record.topic)
        writer.string("pushType", record.pushType)
        writer.integer("priority", record.priority)
        writer.integer("expiration", record.expiration)
        writer.string("collapseId", record.collapseID)
        writer.string("apnsId", record.responseAPNsID)
        writer.string("uniqueId", record.answer.uniqueID)
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
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}
