import MockAPNsWire
import MockAPNsCore
/// The JSON form of journal events and notification records: one object per event, the
/// same in the control API and in each line of the JSONL file.
///
/// ```json
/// {"seq":7,"time":1767225600000,"mono":81234567,"connection":2,"stream":1,"type":"notification",
///  "notification":{"transport":"http2","deviceToken":"a1b2...","accepted":true,"status":200,...}}
/// ```
package enum JournalJSON {
    /// One event as a JSON object.
    package static func encode(_ event: JournalEvent) -> String {
        var writer = JSONWriter()
        write(event, into: &writer)
        return writer.text
    }

    /// One notification record as a JSON object.
    package static func encode(_ record: NotificationRecord) -> String {
        var writer = JSONWriter()
        write(record, key: nil, into: &writer)
        return writer.text
    }

    package static func write(_ event: JournalEvent, into writer: inout JSONWriter) {
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
            writer.string("code", code.rawValue)
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
        case .verdict(let verdict):
            VerdictJSON.write(verdict, key: "verdict", into: &writer)
        case .delivery(let record):
            write(record, into: &writer)
        }
        writer.endObject()
    }

    private static func write(_ frame: HTTP2FrameRecord, into writer: inout JSONWriter) {
        writer.string("direction", frame.direction.rawValue)
        writer.string("frameType", frame.type.description)
        writer.integer("flags", frame.flags)
        writer.integer("length", frame.length)
        switch frame.details {
        case .empty:
            break
        case .headers(let headers):
            writer.headerList("headers", headers)
        case .response:
            writer.headerList("headers", frame.details.headerList ?? [])
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

    package static func write(_ record: NotificationRecord, key: String?, into writer: inout JSONWriter) {
        writer.beginObject(key)
        if key == nil {
            // Standalone records carry their place in the journal; inside an event it is there.
            writer.integer("seq", record.sequence)
            writer.integer("time", record.wallTimeMilliseconds)
            writer.integer("connection", record.connectionID)
            writer.integer("stream", record.streamID)
        }
        // What the request said: its apns-id is the one it sent (the answer's is in "answer").
        NotificationFieldsJSON(
            transport: record.transport, deviceToken: record.deviceToken, topic: record.topic, pushType: record.pushType,
            priority: record.priority, expiration: record.expiration, collapseID: record.collapseID, apnsID: record.requestAPNsID
        ).write(into: &writer)
        writer.integer("identifier", record.legacyIdentifier)
        writer.integer("command", record.legacyCommand)
        writePayload(record.payload, length: record.payloadLength, into: &writer)
        write(record.authentication, into: &writer)
        write(record.answer, into: &writer)
        writer.string("problem", record.problem)
        writer.integer("handlingMicros", record.handlingMicroseconds)
        if record.dropped { writer.bool("dropped", true) }
        writer.string("environment", record.environment?.rawValue)
        if let webPush = record.webPush { write(webPush, into: &writer) }
        writer.endObject()
    }

    /// Lowercase hex of `bytes`.
    package static func hex(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes(lowercaseHex)
    }
}

// MARK: Reading

/// Reading events back from their JSON form, into the types `JournalJSON.encode` wrote them
/// from: what `mockapns journal` reads from a JSONL file or the control API. Each kind's
/// reading sits in this file with its writing, so the two change together.
///
/// It is the inverse of the writer as far as the JSON carries (a channel operation's response
/// keeps its status and JSON body, not its headers). Unknown keys are errors, so nothing the
/// writer adds can be dropped silently by the reader; the tests check that reading and writing
/// again gives the same text for every kind.
extension JournalJSON {
    /// One event from its JSON text.
    package static func decode(_ text: String) throws(JSONFileError) -> JournalEvent {
        try decode(JSONParser.parse(text))
    }

    /// One event from a parsed JSON object, found at `path` (for error messages).
    package static func decode(_ node: JSONNode, path: String = "$") throws(JSONFileError) -> JournalEvent {
        var object = try JSONObjectReader(node, path: path)
        let sequence = try need(object.integer("seq", in: 0...Int64.max), object, "seq", "the event's sequence number")
        let time = try need(object.integer("time", in: Int64.min...Int64.max), object, "time", "milliseconds since 1970")
        let monotonic = try need(object.integer("mono", in: 0...Int64.max), object, "mono", "monotonic nanoseconds")
        let connection = try object.integer("connection", in: 0...Int64.max).map { UInt64($0) }
        let stream = try object.integer("stream", in: 0...Int64(Int32.max)).map { Int32($0) }
        let kind = try readKind(&object, stream: stream)
        try object.finish()
        return JournalEvent(
            sequence: UInt64(sequence), wallTimeMilliseconds: time, monotonicNanoseconds: UInt64(monotonic),
            connectionID: connection, streamID: stream, kind: kind
        )
    }

    private static func readKind(_ object: inout JSONObjectReader, stream: Int32?) throws(JSONFileError) -> JournalEventKind {
        let names = JournalEventKind.Name.texts.joined(separator: ", ")
        let typeText = try need(object.string("type"), object, "type", "an event type, one of \(names)")
        guard let type = JournalEventKind.Name(text: typeText) else {
            throw JSONFileError(path: object.path(of: "type"), position: object.position,
                                message: "unknown event type \"\(typeText)\"; known: \(names)")
        }
        switch type {
        case .connectionOpened:
            return .connectionOpened(transport: try need(object.oneOf("transport", Transport.self), object, "transport", "a transport"),
                                     peer: try object.string("peer"))
        case .connectionClosed:
            return .connectionClosed(
                transport: try need(object.oneOf("transport", Transport.self), object, "transport", "a transport"),
                closedBy: try need(object.oneOf("closedBy", ClosingSide.self), object, "closedBy", "client or server"),
                reason: try object.string("reason"))
        case .tlsEstablished:
            return .tlsEstablished(JournalTLSSession(
                version: try need(object.string("version"), object, "version", "a TLS version"),
                cipher: try need(object.string("cipher"), object, "cipher", "a cipher suite"),
                serverName: try object.string("serverName"), offeredALPN: try object.strings("offeredALPN"),
                negotiatedALPN: try object.string("alpn"), clientCertificateSubject: try object.string("clientCertificateSubject"),
                topics: try object.strings("topics") ?? [], environments: try object.strings("environments") ?? [],
                certificateTrusted: try object.bool("certificateTrusted"), resumed: try object.bool("resumed") ?? false))
        case .tlsFailed:
            return .tlsFailed(JournalTLSFailure(
                reason: try need(object.string("reason"), object, "reason", "why the handshake failed"),
                alertSent: try object.string("alertSent"), alertReceived: try object.string("alertReceived"),
                serverName: try object.string("serverName"), offeredALPN: try object.strings("offeredALPN"),
                offeredVersions: try object.strings("offeredVersions") ?? [],
                offeredCipherSuites: try object.strings("offeredCipherSuites") ?? []))
        case .http2Frame:
            return .http2Frame(try readFrame(&object, stream: stream))
        case .legacyFrame:
            return .legacyFrame(JournalLegacyFrame(
                command: UInt8(try need(object.integer("command", in: 0...255), object, "command", "a command byte")),
                identifier: try object.integer("identifier", in: 0...Int64(UInt32.max)).map { UInt32($0) },
                deviceToken: try object.string("deviceToken"),
                payloadLength: try object.integer("payloadLength", in: 0...Int64(Int32.max)).map { Int($0) },
                frameLength: try object.integer("frameLength", in: 0...Int64(Int32.max)).map { Int($0) },
                problem: try object.string("problem"), rawBytes: try hexBytes(&object, "rawHex"),
                dropped: try object.bool("dropped") ?? false))
        case .notification:
            var record = try need(object.object("notification"), object, "notification", "the notification's record")
            return .notification(try readNotification(&record))
        case .fault:
            return .fault(description: try need(object.string("description"), object, "description", "the fault"))
        case .feedbackTuple:
            return .feedbackTuple(
                deviceToken: try need(object.string("deviceToken"), object, "deviceToken", "a device token"),
                timestampMilliseconds: try need(object.integer("timestamp", in: Int64.min...Int64.max), object, "timestamp", "milliseconds"))
        case .diagnosis:
            var figures: [JournalFigure] = []
            if let node = object.node("figures") {
                guard case .object(let members) = node.value else {
                    throw object.invalid("figures", node, "expected an object of named numbers, found \(node.value.kindDescription)")
                }
                for member in members {
                    guard case .number(let text) = member.value.value, let value = Int64(text) else {
                        throw object.invalid("figures", member.value, "expected an integer for \"\(member.key)\"")
                    }
                    figures.append(JournalFigure(member.key, value))
                }
            }
            return .diagnosis(code: try need(object.oneOf("code", DiagnosisCode.self), object, "code", "a diagnosis code"),
                              message: try need(object.string("message"), object, "message", "a message"), figures: figures)
        case .broadcast:
            var record = try need(object.object("broadcast"), object, "broadcast", "the broadcast's record")
            return .broadcast(try readBroadcast(&record))
        case .channelOperation:
            var record = try need(object.object("channelOperation"), object, "channelOperation", "the operation's record")
            return .channelOperation(try readChannelOperation(&record))
        case .verdict:
            var verdict = try need(object.object("verdict"), object, "verdict", "the finding")
            return .verdict(try VerdictJSON.readVerdict(&verdict))
        case .delivery:
            var record = try need(object.object("delivery"), object, "delivery", "the delivery step's record")
            return .delivery(try readDelivery(&record))
        }
    }

    private static func readFrame(_ object: inout JSONObjectReader, stream: Int32?) throws(JSONFileError) -> HTTP2FrameRecord {
        let direction = try need(object.oneOf("direction", HTTP2FrameRecord.Direction.self), object, "direction", "inbound or outbound")
        let typeName = try need(object.string("frameType"), object, "frameType", "a frame type")
        guard let type = HTTP2FrameType(name: typeName) else {
            throw JSONFileError(path: object.path(of: "frameType"), position: object.position,
                                message: "expected a frame type such as HEADERS or UNKNOWN(0xa), found \"\(typeName)\"")
        }
        let flags = try need(object.integer("flags", in: 0...255), object, "flags", "the flags byte")
        let length = try need(object.integer("length", in: 0...Int64(Int32.max)), object, "length", "the payload length")
        var details = HTTP2FrameRecord.Details.empty
        if let elements = try object.array("headers") {
            var headers: [HTTPHeader] = []
            for (path, element) in elements {
                guard case .array(let pair) = element.value, pair.count == 2,
                      case .string(let name) = pair[0].value, case .string(let value) = pair[1].value else {
                    throw JSONFileError(path: path, position: element.position, message: "expected [name, value]")
                }
                headers.append(HTTPHeader(name: name, value: value))
            }
            details = .headers(headers)
        } else if let node = object.node("settings") {
            guard case .object(let members) = node.value else {
                throw object.invalid("settings", node, "expected an object of settings, found \(node.value.kindDescription)")
            }
            var settings: [HTTP2Setting] = []
            for member in members {
                guard case .number(let text) = member.value.value, let value = UInt32(text) else {
                    throw object.invalid("settings", member.value, "expected a 32-bit value for \"\(member.key)\"")
                }
                guard let setting = HTTP2Setting(name: member.key, value: value) else {
                    throw object.invalid("settings", member.value, "expected a SETTINGS name such as MAX_CONCURRENT_STREAMS or 0xa, found \"\(member.key)\"")
                }
                settings.append(setting)
            }
            details = .settings(settings)
        } else if let code = try object.integer("errorCode", in: 0...Int64(UInt32.max)).map({ UInt32($0) }) {
            if let lastStream = try object.integer("lastStreamID", in: 0...Int64(Int32.max)) {
                var debugData = try hexBytes(&object, "debugDataHex") ?? []
                if let text = try object.string("debugData") { debugData = Array(text.utf8) }
                details = .goaway(errorCode: code, lastStreamID: Int32(lastStream), debugData: debugData)
            } else {
                details = .rstStream(errorCode: code)
            }
        } else if let increment = try object.integer("increment", in: 0...Int64(Int32.max)) {
            details = .windowUpdate(increment: Int32(increment))
        } else if let opaque = try hexBytes(&object, "opaqueDataHex") {
            details = .ping(opaqueData: opaque)
        }
        return HTTP2FrameRecord(
            direction: direction, type: type, flags: UInt8(flags), streamID: stream ?? 0, length: Int(length), details: details
        )
    }

    private static func readNotification(_ object: inout JSONObjectReader) throws(JSONFileError) -> NotificationRecord {
        let payload = try readPayload(&object)
        // Read in the order the file's fields were always checked, so its first mistake is the
        // one named.
        let transport = try need(object.oneOf("transport", Transport.self), object, "transport", "a transport")
        let deviceToken = try need(object.string("deviceToken"), object, "deviceToken", "a device token")
        let topic = try object.string("topic")
        let pushType = try object.string("pushType")
        let requestAPNsID = try object.string("apnsId")
        let priority = try object.integer("priority", in: Int64(Int32.min)...Int64(Int32.max)).map { Int($0) }
        let expiration = try object.integer("expiration", in: Int64.min...Int64.max)
        let collapseID = try object.string("collapseId")
        let legacyIdentifier = try object.integer("identifier", in: 0...Int64(UInt32.max)).map { UInt32($0) }
        let authentication = try readAuthentication(&object)
        let answer = try readAnswer(&object)
        let dropped = try object.bool("dropped") ?? false
        let record = NotificationRecord(
            transport: transport, deviceToken: deviceToken, topic: topic, pushType: pushType, requestAPNsID: requestAPNsID,
            priority: priority, expiration: expiration, collapseID: collapseID, legacyIdentifier: legacyIdentifier,
            legacyCommand: try object.integer("command", in: 0...255).map { UInt8($0) },
            payload: payload.bytes, payloadLength: payload.length, authentication: authentication, answer: answer,
            dropped: dropped, problem: try object.string("problem"),
            handlingMicroseconds: try object.integer("handlingMicros", in: 0...Int64(Int32.max)).map { Int($0) },
            environment: try object.oneOf("environment", APNsEnvironment.self),
            webPush: try readWebPush(&object)
        )
        try object.finish()
        return record
    }

    private static func readBroadcast(_ object: inout JSONObjectReader) throws(JSONFileError) -> BroadcastRecord {
        let payload = try readPayload(&object)
        var record = BroadcastRecord(
            bundleID: try object.string("bundleId"), channelID: try object.string("channelId"),
            topic: try object.string("topic"), pushType: try object.string("pushType"),
            requestAPNsID: try object.string("apnsId"),
            requestID: try need(object.string("requestId"), object, "requestId", "the apns-request-id"),
            priority: try object.string("priority"), expiration: try object.string("expiration"),
            storagePolicy: try storagePolicy(&object), payload: payload.bytes,
            authentication: try readAuthentication(&object), answer: try readAnswer(&object)
        )
        record.payloadLength = payload.length
        try object.finish()
        return record
    }

    private static func readChannelOperation(_ object: inout JSONObjectReader) throws(JSONFileError) -> ChannelOperationRecord {
        var outcome = ChannelOperationOutcome(
            operation: try object.oneOf("operation", ChannelOperation.self),
            bundleID: try object.string("bundleId"), channelID: try object.string("channelId"),
            requestID: try need(object.string("requestId"), object, "requestId", "the apns-request-id")
        )
        outcome.storagePolicy = try storagePolicy(&object)
        let authentication = try readAuthentication(&object)
        let answer = try readAnswer(&object)
        outcome.reason = answer.reason
        var body: [UInt8]?
        if let response = object.node("response") {
            var writer = JSONWriter()
            writer.value(nil, response.value)
            body = writer.bytes
        }
        outcome.response = ProviderAnswer(status: answer.status ?? 0, headers: [], body: body)
        try object.finish()
        return ChannelOperationRecord(outcome: outcome, authentication: authentication, answer: answer)
    }

    private static func readAuthentication(_ object: inout JSONObjectReader) throws(JSONFileError) -> JournalAuthentication {
        var reader = try need(object.object("authentication"), object, "authentication", "how the request authenticated")
        let authentication = JournalAuthentication(
            kind: try need(reader.string("kind"), reader, "kind", "an authentication kind"),
            teamID: try reader.string("teamId"), keyID: try reader.string("keyId"),
            refusal: try reader.oneOf("refusal", Reason.self),
            issuedAt: try reader.integer("issuedAt", in: Int64.min...Int64.max),
            detail: try reader.string("detail"), session: try reader.string("session"))
        try reader.finish()
        return authentication
    }

    /// A record's payload: `payload` as text or `payloadHex`, its true length, and whether it was cut.
    private static func readPayload(_ object: inout JSONObjectReader) throws(JSONFileError) -> (bytes: [UInt8], length: Int) {
        var bytes = try hexBytes(&object, "payloadHex") ?? []
        if let text = try object.string("payload") { bytes = Array(text.utf8) }
        let length = try need(object.integer("payloadLength", in: 0...Int64(Int32.max)), object, "payloadLength", "the payload's length")
        _ = try object.bool("payloadTruncated")  // follows from the two above
        return (bytes, Int(length))
    }

    static func legacyStatus(_ object: inout JSONObjectReader) throws(JSONFileError) -> LegacyStatus? {
        guard let node = object.node("legacyStatus") else { return nil }
        guard case .number(let text) = node.value, let raw = UInt8(text), let status = LegacyStatus(rawValue: raw) else {
            throw object.invalid("legacyStatus", node, "expected a legacy status byte")
        }
        return status
    }

    private static func storagePolicy(_ object: inout JSONObjectReader) throws(JSONFileError) -> MessageStoragePolicy? {
        guard let node = object.node("storagePolicy") else { return nil }
        guard case .number(let text) = node.value, let raw = Int(text), let policy = MessageStoragePolicy(rawValue: raw) else {
            throw object.invalid("storagePolicy", node, "expected a message storage policy (0 or 1)")
        }
        return policy
    }

    static func hexBytes(_ object: inout JSONObjectReader, _ key: String) throws(JSONFileError) -> [UInt8]? {
        guard let node = object.node(key) else { return nil }
        guard case .string(let text) = node.value, let bytes = HexDigits.bytes(hex: text) else {
            throw object.invalid(key, node, "expected lowercase hex")
        }
        return bytes
    }

    /// A required member: present, or an error naming what was expected.
    static func need<Value>(_ value: Value?, _ object: JSONObjectReader, _ key: String, _ expected: String) throws(JSONFileError) -> Value {
        guard let value else { throw object.missing(key, expected: expected) }
        return value
    }
}

/// A run of consecutive events a JSONL journal file left out because writing it fell behind
/// (the in-memory journal kept them). The file holds one line for the run where its events
/// would have been: `{"type":"gap","missed":N,"firstSeq":A,"lastSeq":B}`.
package struct JournalFileGap: Sendable, Equatable {
    package var missed: UInt64
    package var firstSequence: UInt64
    package var lastSequence: UInt64

    package init(missed: UInt64, firstSequence: UInt64, lastSequence: UInt64) {
        self.missed = missed
        self.firstSequence = firstSequence
        self.lastSequence = lastSequence
    }

    /// The line as the file holds it (without the newline).
    package var line: String {
        #"{"type":"gap","missed":\#(missed),"firstSeq":\#(firstSequence),"lastSeq":\#(lastSequence)}"#
    }

    /// The gap a line of the file describes, or `nil` when the line is not a gap line.
    package init?(line: String) {
        guard line.utf8.starts(with: #"{"type":"gap""#.utf8),
              let node = try? JSONParser.parse(line), var object = try? JSONObjectReader(node),
              let missed = try? object.integer("missed", in: 0...Int64.max),
              let first = try? object.integer("firstSeq", in: 0...Int64.max),
              let last = try? object.integer("lastSeq", in: 0...Int64.max)
        else { return nil }
        self.init(missed: UInt64(missed), firstSequence: UInt64(first), lastSequence: UInt64(last))
    }
}

extension JSONWriter {
    /// A header list as the journal writes one: `[["name","value"],...]`, in order.
    mutating func headerList(_ key: String, _ headers: [HTTPHeader]) {
        beginArray(key)
        for header in headers {
            beginArray()
            string(nil, header.name)
            string(nil, header.value)
            endArray()
        }
        endArray()
    }
}
