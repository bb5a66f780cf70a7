import MockAPNsCore
import MockAPNsHTTP2

/// What one HTTP/2 connection writes to the journal: its frames, each notification with its
/// verdict, and its errors. The connection bridge calls it; it knows the journal's formats.
struct HTTP2Journaling {
    let journal: Journal
    let connectionID: UInt64
    /// The header rules, run here once per request so the journal gets the normalized request.
    private let validator: HTTP2RequestValidator

    init(journal: Journal, connectionID: UInt64, options: ValidationOptions) {
        self.journal = journal
        self.connectionID = connectionID
        self.validator = HTTP2RequestValidator(options: options)
    }

    /// Whether the HTTP/2 handler should describe every frame.
    var recordsFrames: Bool { journal.options.recordsFrames }

    func record(_ frame: HTTP2FrameRecord) {
        journal.record(
            .http2Frame(JournalHTTP2.frame(frame, redactingAuthorization: journal.options.redactsAuthorization)),
            connection: connectionID, stream: frame.streamID
        )
    }

    /// Lets the core decide `push` and records the notification with its verdict.
    ///
    /// The request is validated here rather than inside `decide(http2:)` so the journal gets
    /// the normalized request the core judged; a request refused by the header rules is
    /// decided as before and recorded with what its headers said.
    func decide(
        _ push: HTTP2PushRequest, streamID: Int32, context: DecisionContext, decider: PushDecider
    ) -> Verdict {
        let verdict: Verdict
        let request: PushRequest
        switch validator.validate(push) {
        case .valid(let valid):
            verdict = decider.decide(valid, context: context)
            request = valid
        case .invalid:
            verdict = decider.decide(http2: push, context: context)
            request = Self.bestEffortRequest(push)
        }
        let status = verdict.reason?.httpStatus ?? 200
        journal.record(
            .notification(NotificationRecord(
                request, verdict: verdict, authentication: JournalAuthentication(context.authentication), status: status
            )),
            connection: connectionID, stream: streamID
        )
        return verdict
    }

    func connectionError(_ error: HTTP2ConnectionError) {
        journal.record(.diagnosis(code: "http2.connectionError", message: error.description), connection: connectionID)
    }

    func refusal(_ refusal: HTTP2RequestRefusal) {
        journal.record(.diagnosis(code: "http2.requestRefused", message: refusal.description), connection: connectionID, stream: refusal.streamID)
    }

    func streamError(_ error: HTTP2StreamError) {
        journal.record(.diagnosis(code: "http2.streamError", message: error.description), connection: connectionID, stream: error.streamID)
    }

    /// Something worth knowing about an accepted request, such as a provider token whose
    /// `iat` was sent as a string.
    func note(_ message: String, code: String, streamID: Int32? = nil) {
        journal.record(.diagnosis(code: code, message: message), connection: connectionID, stream: streamID)
    }

    /// The fields of a request the header rules refused, as far as its headers tell them.
    static func bestEffortRequest(_ push: HTTP2PushRequest) -> PushRequest {
        var request = PushRequest(transport: .http2, deviceToken: "", payload: push.body)
        for header in push.headers {
            switch header.name {
            case ":path":
                let prefix = "/3/device/"
                if header.value.hasPrefix(prefix) { request.deviceToken = String(header.value.dropFirst(prefix.count)) }
            case "apns-topic": request.topic = request.topic ?? header.value
            case "apns-push-type": request.pushType = request.pushType ?? PushType(rawValue: header.value)
            case "apns-id": request.apnsID = request.apnsID ?? header.value
            case "apns-collapse-id": request.collapseID = request.collapseID ?? header.value
            case "apns-priority": request.priority = request.priority ?? Int(header.value).flatMap(Priority.init(rawValue:))
            case "apns-expiration": request.expiration = request.expiration ?? Int64(header.value)
            default: break
            }
        }
        return request
    }
}
