import MockAPNsWire
/// What a client was sent for one request, once every rule had spoken: the answer written
/// and the fault carried out. A request's record takes its outcome from this value alone, and
/// the protocol mouth fills it in where it writes, so the record says what went on the wire
/// rather than what a rule was expected to make of it.
@usableFromInline package struct SentAnswer: Sendable, Equatable {
    /// The HTTP/2 `:status` written; `nil` when no response was written.
    @usableFromInline package var status: Int?
    /// The Apple reason the answer named: the `reason` of an HTTP/2 error body, or the reason
    /// behind a legacy status packet. `nil` for an acceptance, and for a scripted answer whose
    /// body names no reason of Apple's.
    @usableFromInline package var reason: Reason?
    /// The `apns-id` header written.
    @usableFromInline package var apnsID: MessageID?
    /// The `apns-unique-id` header written (sandbox acceptances).
    package var uniqueID: MessageID?
    /// The `timestamp` of a 410 body, milliseconds since 1970.
    @usableFromInline package var timestamp: Int64?
    /// A scripted answer's header fields as written (besides `:status`, `apns-id` and
    /// `apns-unique-id`); `nil` for Apple's own answers, whose headers follow from the rest.
    package var scriptedHeaders: [HTTPHeader]?
    /// A scripted answer's body as written.
    package var scriptedBody: [UInt8]?
    /// The legacy error-response packet written (status and the identifier it named).
    package var legacyPacket: LegacyErrorResponse?
    /// Whether the client was told the notification was accepted: a 2xx status on HTTP/2;
    /// on the legacy gateway, a notification the connection took without a failure (that
    /// protocol answers successes with silence).
    @usableFromInline package var accepted: Bool
    /// The fault carried out instead of the answer, or after it.
    @usableFromInline package var fault: AppliedFault?
    /// The scenario rule that decided the answer; `nil` when the decision core did.
    @usableFromInline package var rule: String?
    /// How long a scenario delay held the answer, in milliseconds.
    package var delayMilliseconds: Int?
    /// Why no answer went out where one was due (the client closed the stream first, or a
    /// GOAWAY had already named an earlier stream as the last one answered).
    package var undelivered: String?
    /// Upstream mode: the upstream this answer came from (or failed at), and MockAPNs' own
    /// judgement of the request; `nil` when MockAPNs answered by itself.
    package var upstream: UpstreamRelay?

    package init(
        status: Int? = nil, reason: Reason? = nil, apnsID: MessageID? = nil, uniqueID: MessageID? = nil,
        timestamp: Int64? = nil, scriptedHeaders: [HTTPHeader]? = nil, scriptedBody: [UInt8]? = nil,
        legacyPacket: LegacyErrorResponse? = nil, accepted: Bool, fault: AppliedFault? = nil, rule: String? = nil,
        delayMilliseconds: Int? = nil, undelivered: String? = nil
    ) {
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.timestamp = timestamp
        self.scriptedHeaders = scriptedHeaders
        self.scriptedBody = scriptedBody
        self.legacyPacket = legacyPacket
        self.accepted = accepted
        self.fault = fault
        self.rule = rule
        self.delayMilliseconds = delayMilliseconds
        self.undelivered = undelivered
    }

    /// Apple's HTTP/2 answer for `verdict`, as `HTTP2ResponseRenderer` writes it.
    package static func http2(_ verdict: Verdict) -> SentAnswer {
        switch verdict {
        case .accepted(let apnsID, let uniqueID):
            return SentAnswer(status: 200, apnsID: apnsID, uniqueID: uniqueID, accepted: true)
        case .rejected(let reason, let apnsID, let timestamp):
            return SentAnswer(
                status: reason.httpStatus, reason: reason, apnsID: apnsID,
                timestamp: reason.carriesTimestamp ? timestamp : nil, accepted: false
            )
        }
    }

    /// An HTTP/2 response written as given (a scenario's `respond`, the channel management
    /// API's own answers): its status and headers, and the reason and timestamp its body names.
    package static func http2(_ response: ProviderAnswer, scripted: Bool) -> SentAnswer {
        var answer = SentAnswer(status: response.status, accepted: (200..<300).contains(response.status))
        answer.apnsID = response.apnsID
        answer.uniqueID = response.uniqueID
        var others: [HTTPHeader] = []
        for header in response.headers {
            switch header.name {
            case "apns-id" where answer.apnsID == nil: answer.apnsID = .text(header.value)
            case "apns-unique-id" where answer.uniqueID == nil: answer.uniqueID = .text(header.value)
            default: others.append(header)
            }
        }
        if let body = response.body, let named = ErrorBody.read(body) {
            answer.reason = named.reason.flatMap(Reason.init(rawValue:))
            answer.timestamp = named.timestamp
        }
        if scripted {
            answer.scriptedHeaders = others
            answer.scriptedBody = response.body
        }
        return answer
    }

    /// Nothing written for the request: a fault that answers nothing, or an answer that
    /// could not be delivered.
    package static func nothing(fault: AppliedFault? = nil, undelivered: String? = nil) -> SentAnswer {
        SentAnswer(accepted: false, fault: fault, undelivered: undelivered)
    }
}

/// A scenario fault as it was carried out, for the record of the request it struck. The
/// names are those of the scenario actions (`"type"` in a scenario file).
@usableFromInline package enum AppliedFault: Sendable, Equatable {
    /// The connection was closed (TCP FIN) without an answer.
    case closeConnection
    /// The connection was aborted (TCP RST) without an answer.
    case resetConnection
    /// GOAWAY with this error code, naming `lastStreamID` (`nil`: the last stream received)
    /// as the last one the server processes.
    case goAway(errorCode: UInt32, lastStreamID: Int32?)
    /// RST_STREAM with this error code on the request's stream.
    case resetStream(errorCode: UInt32)
    /// Never answered; the connection stayed open.
    case stall
    /// SETTINGS_MAX_CONCURRENT_STREAMS lowered to this, then answered.
    case lowerMaxConcurrentStreams(UInt32)
    /// This many bytes that are no protocol at all were written, then the connection closed.
    case sendGarbage(length: Int, insideTLS: Bool)
    /// Answered, then the connection closed once this many more bytes had gone out.
    case closeAfterBytes(Int)
    /// Answered, then the server began going away (GOAWAY NO_ERROR, or legacy status 10).
    case shutdown

    /// The scenario action's name for this fault.
    package var name: String {
        switch self {
        case .closeConnection: "closeConnection"
        case .resetConnection: "resetConnection"
        case .goAway: "goAway"
        case .resetStream: "resetStream"
        case .stall: "stall"
        case .lowerMaxConcurrentStreams: "lowerMaxConcurrentStreams"
        case .sendGarbage: "sendGarbage"
        case .closeAfterBytes: "closeAfterBytes"
        case .shutdown: "shutdown"
        }
    }

    /// Every name, for readers of the JSON form.
    package static let names = [
        "closeConnection", "resetConnection", "goAway", "resetStream", "stall", "lowerMaxConcurrentStreams",
        "sendGarbage", "closeAfterBytes", "shutdown",
    ]
}

/// The fields of an APNs error body (`{"reason":"...","timestamp":...}`), read back from the
/// bytes written.
enum ErrorBody {
    static func read(_ body: [UInt8]) -> (reason: String?, timestamp: Int64?)? {
        guard let root = try? JSONParser.parse(String(decoding: body, as: UTF8.self)),
              case .object(let members) = root.value else { return nil }
        var reason: String?
        var timestamp: Int64?
        for member in members {
            switch (member.key, member.value.value) {
            case ("reason", .string(let text)) where reason == nil: reason = text
            case ("timestamp", .number(let digits)) where timestamp == nil: timestamp = Int64(digits)
            default: break
            }
        }
        return (reason, timestamp)
    }
}
