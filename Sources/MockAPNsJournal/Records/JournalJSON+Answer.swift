import MockAPNsWire
import MockAPNsCore
/// The JSON form of `SentAnswer`: members of the record object that holds it (a notification
/// or a broadcast), written and read here together.
///
/// ```json
/// "accepted":false,"status":429,"reason":"TooManyRequests","responseApnsId":"...",
/// "rule":"throttle","delayMs":250,"fault":{"type":"resetStream","errorCode":8}
/// ```
extension JournalJSON {
    static func write(_ answer: SentAnswer, into writer: inout JSONWriter) {
        writer.bool("accepted", answer.accepted)
        writer.integer("status", answer.status)
        writer.string("reason", answer.reason?.rawValue)
        writer.string("responseApnsId", answer.apnsID?.text)
        writer.string("uniqueId", answer.uniqueID?.text)
        writer.integer("timestamp", answer.timestamp)
        if let headers = answer.scriptedHeaders {
            writer.headerList("responseHeaders", headers)
        }
        if let body = answer.scriptedBody {
            if let text = String(validating: body, as: UTF8.self) {
                writer.string("responseBody", text)
            } else {
                writer.string("responseBodyHex", hex(body))
            }
        }
        writer.integer("legacyStatus", answer.legacyPacket?.status.rawValue)
        writer.integer("legacyPacketIdentifier", answer.legacyPacket?.identifier)
        if let fault = answer.fault { write(fault, into: &writer) }
        writer.string("rule", answer.rule)
        writer.integer("delayMs", answer.delayMilliseconds)
        writer.string("undelivered", answer.undelivered)
        if let upstream = answer.upstream { write(upstream, into: &writer) }
    }

    /// `"upstream":{"origin":"https://api.push.apple.com","latencyUs":81234,"ownStatus":200,"disagrees":false}`,
    /// with `ownReason`, `failureKind` and `failure` when there are.
    private static func write(_ upstream: UpstreamRelay, into writer: inout JSONWriter) {
        writer.beginObject("upstream")
        writer.string("origin", upstream.origin)
        writer.integer("latencyUs", upstream.latencyMicroseconds)
        writer.string("failureKind", upstream.failureKind)
        writer.string("failure", upstream.failure)
        writer.integer("ownStatus", upstream.ownStatus)
        writer.string("ownReason", upstream.ownReason?.rawValue)
        writer.bool("disagrees", upstream.disagrees)
        writer.endObject()
    }

    private static func readUpstream(_ object: inout JSONObjectReader) throws(JSONFileError) -> UpstreamRelay {
        let origin = try need(object.string("origin"), object, "origin", "the upstream's https origin")
        let latency = try need(object.integer("latencyUs", in: 0...Int64(Int.max)), object, "latencyUs", "microseconds")
        let ownStatus = try need(object.integer("ownStatus", in: 0...999), object, "ownStatus", "an HTTP status")
        let relay = UpstreamRelay(
            origin: origin, latencyMicroseconds: Int(latency), failureKind: try object.string("failureKind"),
            failure: try object.string("failure"), ownStatus: Int(ownStatus), ownReason: try object.oneOf("ownReason", Reason.self),
            disagrees: try need(object.bool("disagrees"), object, "disagrees", "true or false")
        )
        try object.finish()
        return relay
    }

    private static func write(_ fault: AppliedFault, into writer: inout JSONWriter) {
        writer.beginObject("fault")
        writer.string("type", fault.name)
        switch fault {
        case .closeConnection, .resetConnection, .stall, .shutdown:
            break
        case .goAway(let errorCode, let lastStreamID):
            writer.integer("errorCode", errorCode)
            writer.integer("lastStreamId", lastStreamID)
        case .resetStream(let errorCode):
            writer.integer("errorCode", errorCode)
        case .lowerMaxConcurrentStreams(let limit):
            writer.integer("limit", limit)
        case .sendGarbage(let length, let insideTLS):
            writer.integer("length", length)
            writer.bool("insideTLS", insideTLS)
        case .closeAfterBytes(let bytes):
            writer.integer("bytes", bytes)
        }
        writer.endObject()
    }

    /// The answer's members of `object` (the inverse of `write(_:into:)`).
    static func readAnswer(_ object: inout JSONObjectReader) throws(JSONFileError) -> SentAnswer {
        var answer = SentAnswer(accepted: try need(object.bool("accepted"), object, "accepted", "true or false"))
        answer.status = try object.integer("status", in: 0...999).map { Int($0) }
        answer.reason = try object.oneOf("reason", Reason.self)
        answer.apnsID = try object.string("responseApnsId").map(MessageID.text)
        answer.uniqueID = try object.string("uniqueId").map(MessageID.text)
        answer.timestamp = try object.integer("timestamp", in: Int64.min...Int64.max)
        if let entries = try object.array("responseHeaders") {
            var headers: [HTTPHeader] = []
            for (path, node) in entries {
                guard case .array(let pair) = node.value, pair.count == 2,
                      case .string(let name) = pair[0].value, case .string(let value) = pair[1].value else {
                    throw JSONFileError(path: path, position: node.position, message: "expected a [name, value] pair of strings")
                }
                headers.append(HTTPHeader(name: name, value: value))
            }
            answer.scriptedHeaders = headers
        }
        answer.scriptedBody = try hexBytes(&object, "responseBodyHex")
        if let text = try object.string("responseBody") { answer.scriptedBody = Array(text.utf8) }
        if let status = try legacyStatus(&object) {
            let identifier = try need(
                object.integer("legacyPacketIdentifier", in: 0...Int64(UInt32.max)), object, "legacyPacketIdentifier",
                "the identifier the legacy packet named"
            )
            answer.legacyPacket = LegacyErrorResponse(status: status, identifier: UInt32(identifier))
        }
        if var fault = try object.object("fault") {
            answer.fault = try readFault(&fault)
            try fault.finish()
        }
        answer.rule = try object.string("rule")
        answer.delayMilliseconds = try object.integer("delayMs", in: 0...Int64(Int32.max)).map { Int($0) }
        answer.undelivered = try object.string("undelivered")
        if var upstream = try object.object("upstream") { answer.upstream = try readUpstream(&upstream) }
        return answer
    }

    private static func readFault(_ object: inout JSONObjectReader) throws(JSONFileError) -> AppliedFault {
        let names = AppliedFault.names.joined(separator: ", ")
        let type = try need(object.string("type"), object, "type", "a fault, one of \(names)")
        func code(_ key: String) throws(JSONFileError) -> UInt32 {
            UInt32(try need(object.integer(key, in: 0...Int64(UInt32.max)), object, key, "an HTTP/2 error code"))
        }
        switch type {
        case "closeConnection": return .closeConnection
        case "resetConnection": return .resetConnection
        case "stall": return .stall
        case "shutdown": return .shutdown
        case "goAway":
            let errorCode = try code("errorCode")
            let last = try object.integer("lastStreamId", in: 0...Int64(Int32.max)).map { Int32($0) }
            return .goAway(errorCode: errorCode, lastStreamID: last)
        case "resetStream":
            return .resetStream(errorCode: try code("errorCode"))
        case "lowerMaxConcurrentStreams":
            return .lowerMaxConcurrentStreams(try code("limit"))
        case "sendGarbage":
            let length = try need(object.integer("length", in: 0...Int64(Int32.max)), object, "length", "a byte count")
            return .sendGarbage(length: Int(length), insideTLS: try object.bool("insideTLS") ?? false)
        case "closeAfterBytes":
            let bytes = try need(object.integer("bytes", in: 0...Int64(Int32.max)), object, "bytes", "a byte count")
            return .closeAfterBytes(Int(bytes))
        default:
            throw JSONFileError(path: object.path(of: "type"), position: object.position,
                                message: "unknown fault \"\(type)\"; known: \(names)")
        }
    }
}
