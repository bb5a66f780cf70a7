import MockAPNsCore
extension JournalJSON {
    /// A broadcast event's members: `"broadcast":{...}` with the request and the answer as
    /// written, like a notification's.
    static func write(_ record: BroadcastRecord, into writer: inout JSONWriter) {
        writer.beginObject("broadcast")
        writer.string("bundleId", record.bundleID)
        writer.string("channelId", record.channelID)
        writer.string("topic", record.topic)
        writer.string("pushType", record.pushType)
        writer.string("apnsId", record.requestAPNsID)
        writer.string("requestId", record.requestID)
        writer.string("priority", record.priority)
        writer.string("expiration", record.expiration)
        writer.integer("storagePolicy", record.storagePolicy?.rawValue)
        writePayload(record.payload, length: record.payloadLength, into: &writer)
        write(record.authentication, into: &writer)
        write(record.answer, into: &writer)
        writer.endObject()
    }

    /// A channel operation event's members: `"channelOperation":{...}`.
    static func write(_ record: ChannelOperationRecord, into writer: inout JSONWriter) {
        let outcome = record.outcome
        writer.beginObject("channelOperation")
        writer.string("operation", outcome.operation?.rawValue)
        writer.string("bundleId", outcome.bundleID)
        writer.string("channelId", outcome.channelID)
        writer.string("requestId", outcome.requestID)
        writer.integer("storagePolicy", outcome.storagePolicy?.rawValue)
        write(record.authentication, into: &writer)
        write(record.answer, into: &writer)
        if record.answeredByCore, let body = outcome.response.body, outcome.reason == nil,
           let text = String(validating: body, as: UTF8.self) {
            writer.raw("response", json: text)
        }
        writer.endObject()
    }

    /// A record's payload, as notifications and broadcasts carry it: its true length, the kept
    /// bytes as text when they are UTF-8 (else as hex), and whether they were cut.
    static func writePayload(_ payload: [UInt8], length: Int, into writer: inout JSONWriter) {
        writer.integer("payloadLength", length)
        if let text = String(validating: payload, as: UTF8.self) {
            writer.string("payload", text)
        } else {
            writer.string("payloadHex", hex(payload))
        }
        if length > payload.count { writer.bool("payloadTruncated", true) }
    }

    /// `"authentication":{...}`, as notifications, broadcasts and channel operations carry it.
    static func write(_ authentication: JournalAuthentication, into writer: inout JSONWriter) {
        writer.beginObject("authentication")
        writer.string("kind", authentication.kind)
        writer.string("teamId", authentication.teamID)
        writer.string("keyId", authentication.keyID)
        writer.string("refusal", authentication.refusal?.rawValue)
        writer.integer("issuedAt", authentication.issuedAt)
        writer.string("detail", authentication.detail)
        writer.string("session", authentication.session)
        writer.endObject()
    }
}
