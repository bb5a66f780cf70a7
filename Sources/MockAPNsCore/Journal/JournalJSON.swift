/// The JSON form of journal events and notification records: one object per event, the
/// same in the control API and in each line of the JSONL file.
///
/// ```json
/// {"seq":7,"time":1767225600000,"mono":81234567,"connection":2,"stream":1,"type":"notification",
///  "notification":{"transport":"http2","deviceToken":"a1b2...","accepted":true,"status":200,...}}
/// ```
public enum JournalJSON {
    /// One event as a JSON object.
    public static func encode(_ event: JournalEvent) -> String {
        var writer = JSONWriter()
        write(event, into: &writer)
        return writer.text
    }

    /// One notification record as a JSON object.
    public static func encode(_ record: NotificationRecord) -> String {
        var writer = JSONWriter()
        write(record, key: nil, into: &writer)
        return writer.text
    }

    public static func write(_ event: JournalEvent, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.integer("seq", event.sequence)
        writer.integer("time", event.wallTimeMilliseconds)
        writer.integer("mono", event.monotonicNanoseconds)
        writer.integer("connection", event.connectionID)
        writer.integer("stream", event.streamID)
        writer.string("type", event.kind.name)
        switch event.kind {
        case .connectionOpened(let transport, let peer):
            writer.string("transport", transport.rawValue)
            writer.string("peer", peer)
        case .connectionClosed(let transport, let closedBy, let reason):
            writer.string("transport", transport.rawValue)
            writer.string("closedBy", closedBy.rawValue)
            writer.string("reason", reason)
        case .tlsEstablished(let session):
            writer.string("version", session.version)
            writer.string("cipher", session.cipher)
            writer.string("serverName", session.serverName)
            writer.strings("offeredALPN", session.offeredALPN)
            writer.string("alpn", session.negotiatedALPN)
            writer.string("clientCertificateSubject", session.clientCertificateSubject)
            writer.bool("certificateTrusted", session.certificateTrusted)
            writer.strings("topics", session.topics)
            writer.strings("environments", session.environments)
            writer.bool("resumed", session.resumed)
        case .tlsFailed(let failure):
            writer.string("reason", failure.reason)
            writer.string("alertSent", failure.alertSent)
            writer.string("alertReceived", failure.alertReceived)
            writer.string("serverName", failure.serverName)
            writer.strings("offeredALPN", failure.offeredALPN)
            writer.strings("offeredVersions", failure.offeredVersions)
            writer.strings("offeredCipherSuites", failure.offeredCipherSuites)
        case .http2Frame(let frame):
            write(frame, into: &writer)
        case .legacyFrame(let frame):
            writer.integer("command", frame.command)
            writer.integer("identifier", frame.identifier)
            writer.string("deviceToken", frame.deviceToken)
            writer.integer("payloadLength", frame.payloadLength)
            writer.integer("frameLength", frame.frameLength)
            writer.string("problem", frame.problem)
            writer.string("rawHex", frame.rawBytes.map(hex))
            if frame.dropped { writer.bool("dropped", true) }
        case .notification(let record):
            write(record, key: "notification", into: &writer)
        case .fault(let description):
            writer.string("description", description)
        case .feedbackTuple(let token, let timestamp):
            writer.string("deviceToken", token)
            writer.integer("timestamp", timestamp)
        case .diagnosis(let code, let message, let figures):
            writer.string("code", code)
            writer.string("message", message)
            if !figures.isEmpty {
                writer.beginObject("figures")
                for figure in figures { writer.integer(figure.name, figure.value) }
                writer.endObject()
            }
        case .broadcast(let record):
            write(record, into: &writer)
        case .channelOperation(let record):
            write(record, into: &writer)
        }
        writer.endObject()
    }

    private static func write(_ frame: JournalHTTP2Frame, into writer: inout JSONWriter) {
        writer.string("direction", frame.direction.rawValue)
        writer.string("frameType", frame.type)
        writer.integer("flags", frame.flags)
        writer.integer("length", frame.length)
        switch frame.details {
        case .empty:
            break
        case .headers(let headers):
            writer.beginArray("headers")
            for header in headers {
                writer.beginArray()
                writer.string(nil, header.name)
                writer.string(nil, header.value)
                writer.endArray()
            }
            writer.endArray()
        case .settings(let settings):
            writer.beginObject("settings")
            for setting in settings { writer.integer(setting.name, setting.value) }
            writer.endObject()
        case .rstStream(let code):
            writer.integer("errorCode", code)
        case .goaway(let code, let lastStream, let debugData):
            writer.integer("errorCode", code)
            writer.integer("lastStreamID", lastStream)
            if let text = String(validating: debugData, as: UTF8.self) {
                writer.string("debugData", text)
            } else {
                writer.string("debugDataHex", hex(debugData))
            }
        case .windowUpdate(let increment):
            writer.integer("increment", increment)
        case .ping(let data):
            writer.string("opaqueDataHex", hex(data))
        }
    }

    public static func write(_ record: NotificationRecord, key: String?, into writer: inout JSONWriter) {
        writer.beginObject(key)
        if key == nil {
            // Standalone records carry their place in the journal; inside an event it is there.
            writer.integer("seq", record.sequence)
            writer.integer("time", record.wallTimeMilliseconds)
            writer.integer("connection", record.connectionID)
            writer.integer("stream", record.streamID)
        }
        writer.string("transport", record.transport.rawValue)
        writer.string("deviceToken", record.deviceToken)
        writer.string("topic", record.topic)
        writer.string("pushType", record.pushType)
        writer.string("apnsId", record.requestAPNsID)
        writer.integer("priority", record.priority)
        writer.integer("expiration", record.expiration)
        writer.string("collapseId", record.collapseID)
        writer.integer("identifier", record.legacyIdentifier)
        writer.integer("command", record.legacyCommand)
        writePayload(record.payload, length: record.payloadLength, into: &writer)
        write(record.authentication, into: &writer)
        writer.bool("accepted", record.accepted)
        writer.integer("status", record.status)
        writer.string("reason", record.reason?.rawValue)
        writer.string("responseApnsId", record.responseAPNsID)
        writer.integer("timestamp", record.timestamp)
        writer.integer("legacyStatus", record.legacyStatus?.rawValue)
        writer.string("problem", record.problem)
        if record.dropped { writer.bool("dropped", true) }
        writer.endObject()
    }

    /// Lowercase hex of `bytes`.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
