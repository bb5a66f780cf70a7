import MockAPNsWire
import Logging
import MockAPNsCore
import MockAPNsJournal
import MockAPNsHTTP2
import NIOCore
import MockAPNsBroadcast

/// What one HTTP/2 connection writes to the journal: its frames, each notification with its
/// verdict, and its errors. The connection bridge calls it; it knows the journal's formats,
/// not Apple's rules (those are the core's `PushDecider`).
struct HTTP2Journaling {
    let journal: Journal
    /// The connection's way into the journal, shared with the rest of its pipeline.
    let recorder: ConnectionJournal
    var connectionID: UInt64 { recorder.connectionID }

    /// Where diagnoses are also told, at notice level.
    private let logger: Logger
    private let lastHeaders = RecordedHeaders()
    /// Where the records of pushes answered as Apple accepts them are written, without a box each.
    private let compactRecords = HTTP2RecordWriter()

    /// The session the connection's credentials belong to, once known (`nil`: the default
    /// session): every record made from then on says it.
    var session: String? {
        get { compactRecords.session }
        nonmutating set { compactRecords.session = newValue }
    }

    init(journal: Journal, recorder: ConnectionJournal, logger: Logger) {
        self.journal = journal
        self.recorder = recorder
        self.logger = logger
    }

    /// Whether the HTTP/2 handler should describe every frame.
    var recordsFrames: Bool { journal.options.recordsFrames }

    func record(_ frame: HTTP2FrameRecord) {
        recorder.record(
            .http2Frame(JournalHTTP2.recordable(
                frame, providerTokens: journal.options.providerTokens, lastHeaders: lastHeaders
            )), stream: frame.streamID
        )
    }

    /// Lets the core judge `push`: the verdict, and the request as it decided it, routed (the
    /// topic a single-topic certificate supplied, the push type a topic suffix implies). A
    /// payload that is not JSON, and whatever else the core noticed about the request, is
    /// diagnosed here, before the record, as on the legacy gateway.
    func judge(
        _ push: ProviderRequest, payloadJSON: PayloadJSON?, streamID: Int32, context: DecisionContext, decider: PushDecider
    ) -> (verdict: Verdict, request: PushRequest) {
        // `payloadJSON` is the body's one examination (none for a body stored cut short), for
        // the decision and for the diagnosis below.
        let assessment = decider.assess(http2: push, context: context, payloadJSON: payloadJSON)
        if let problem = payloadJSON?.problem {
            let verdict = assessment.verdict
            let message = "Stream \(streamID): \(PayloadJSONCheck.describe(problem)). "
                + "The answer follows validation.nonObjectPayload (\(verdict.reason.map { "refused: \($0.rawValue)" } ?? "accepted"))."
            logger.notice("HTTP/2: \(message)", metadata: ["diagnosis": "\(DiagnosisCode.http2PayloadNotJSON.rawValue)"])
            recorder.record(.diagnosis(code: .http2PayloadNotJSON, message: message), stream: streamID)
        }
        // Before the notification: whoever waits for it finds what was noticed about it.
        for diagnosis in assessment.diagnoses {
            logger.notice("HTTP/2 stream \(streamID): \(diagnosis.message)", metadata: ["diagnosis": "\(diagnosis.code.rawValue)"])
            recorder.record(diagnosis.event, stream: streamID)
        }
        return (assessment.verdict, assessment.request)
    }

    /// Records a notification once its answer has gone out (or its fault was carried out):
    /// the request as the core judged it (or, when a scenario answered before the core was
    /// consulted, as its headers say), and `sent`, what the client was sent. `problem` is what
    /// made the request wrong where its fields cannot show it (`HTTP2RequestProblem`).
    ///
    /// A push answered as Apple accepts one, nearly every push, is a compact record
    /// (`HTTP2RecordWriter`); any other is boxed.
    func recordNotification(
        _ request: PushRequest, sent: SentAnswer, bodyLength: Int, streamID: Int32, authentication: AuthenticationResult,
        environment: APNsEnvironment, tokenIssuedAt: Int64? = nil, authenticationDetail: String? = nil,
        payloadIsJSON: Bool? = nil, problem: String? = nil,
        handlingMicroseconds: Int?
    ) {
        let detail = authenticationDetail.map { JournalAuthentication.boundedDetail(printable($0)) }
        if problem == nil, let compact = compactRecords.record(
            request, sent: sent, payloadLength: bodyLength, payloadIsJSON: payloadIsJSON, authentication: authentication,
            tokenIssuedAt: tokenIssuedAt, authenticationDetail: detail, environment: environment,
            handlingMicroseconds: handlingMicroseconds, providerTokens: journal.options.providerTokens,
            handOvers: recorder.handOvers
        ) {
            recorder.record(.notification(compact), stream: streamID)
            return
        }
        var recordedAuthentication = JournalAuthentication(authentication)
        recordedAuthentication.issuedAt = tokenIssuedAt
        recordedAuthentication.detail = detail
        recordedAuthentication.session = session
        let record = NotificationRecord(
            request, answer: sent, authentication: recordedAuthentication, payloadLength: bodyLength,
            payloadIsJSON: payloadIsJSON, problem: problem.map(printable), handlingMicroseconds: handlingMicroseconds,
            environment: environment
        )
        recorder.record(.notification(record), stream: streamID)
    }

    /// `text` as it may be printed or recorded: provider tokens without their signature, or
    /// hidden, or whole, as the journal's settings say. nghttp2's messages quote header
    /// values, `authorization` included.
    func printable(_ text: String) -> String {
        journal.options.providerTokens.apply(text)
    }

    func connectionError(_ error: HTTP2ConnectionError) {
        recorder.record(.diagnosis(code: .http2ConnectionError, message: printable(error.description)))
    }

    func refusal(_ refusal: HTTP2RequestRefusal) {
        recorder.record(.diagnosis(code: .http2RequestRefused, message: refusal.description), stream: refusal.streamID)
    }

    func streamError(_ error: HTTP2StreamError) {
        recorder.record(
            .diagnosis(code: .http2StreamError, message: printable(error.description)), stream: error.streamID
        )
    }

    /// A request nghttp2 refused (RST_STREAM REFUSED_STREAM) before anyone processed it: a
    /// notification record, `dropped`, with what its headers said, why it was refused and
    /// what the RST_STREAM means. Its credentials were never checked (`unverified`).
    func refusedStream(_ refused: HTTP2RefusedStream) {
        let unknown = refused.headers == nil ? " Its headers could not be decoded." : ""
        refusedRequest(
            streamID: refused.streamID, headers: refused.headers ?? [], sent: .nothing(), dropped: true,
            problem: "Stream refused: \(refused.reason). \(refused.meaning).\(unknown)"
        )
    }

    /// A request the HTTP/2 layer answered or reset itself, before the server read it (a
    /// header list over MAX_HEADER_LIST_SIZE answered 431, a field HTTP/2 forbids reset with
    /// PROTOCOL_ERROR): a notification record like every other request's, with its headers as
    /// far as they came and as sent, what the client got, and why.
    func refusedRequest(streamID: Int32, headers: [HTTPHeader], sent: SentAnswer, dropped: Bool, problem: String) {
        let request = PushRequest(bestEffort: ProviderRequest(headers: headers, body: []))
        let record = NotificationRecord(
            transport: .http2, deviceToken: request.deviceToken, topic: request.topic,
            pushType: request.pushType?.rawValue, requestAPNsID: request.apnsID, priority: request.priority?.rawValue,
            expiration: request.expiration, collapseID: request.collapseID, payload: [],
            authentication: JournalAuthentication(kind: "unverified"), answer: sent, dropped: dropped,
            problem: printable(problem)
        )
        recorder.record(.notification(record), stream: streamID)
    }

    /// A stream the client opened after the server's GOAWAY (nghttp2 ignored it).
    func streamAfterGoAway(_ streamID: Int32, lastStreamID: Int32) {
        recorder.record(
            .diagnosis(
                code: .http2StreamAfterGoAway,
                message: "Stream \(streamID) was opened after the server's GOAWAY named stream \(lastStreamID) as the last it would process; "
                    + "it was ignored. After a GOAWAY, send new requests on a new connection.",
                figures: [JournalFigure("stream", Int64(streamID)), JournalFigure("lastStreamID", Int64(lastStreamID))]
            ), stream: streamID
        )
    }

    /// Connection churn, seen when this connection opened or closed.
    func churn(_ churn: HTTP2Churn) {
        recorder.record(.diagnosis(code: HTTP2Churn.code, message: churn.message, figures: churn.figures))
    }

    /// Something worth knowing about an accepted request, such as a provider token whose
    /// `iat` was sent as a string.
    func note(_ message: String, code: DiagnosisCode, streamID: Int32? = nil) {
        recorder.record(.diagnosis(code: code, message: printable(message)), stream: streamID)
    }
}

extension HTTP2Journaling {
    /// Records a broadcast once its answer has gone out, after the diagnoses the core made
    /// of it (so whoever waits for the broadcast finds them).
    func recordBroadcast(
        _ record: BroadcastRecord, diagnoses: [Diagnosis], sent: SentAnswer, streamID: Int32, authenticationDetail: String? = nil
    ) {
        for diagnosis in diagnoses {
            recorder.record(diagnosis.event, stream: streamID)
        }
        var record = record
        record.answer = sent
        record.authentication.detail = authenticationDetail.map { JournalAuthentication.boundedDetail(printable($0)) }
        record.authentication.session = session
        recorder.record(.broadcast(record), stream: streamID)
    }

    /// Records a channel management request once its answer has gone out.
    func recordChannelOperation(
        _ outcome: ChannelManagementOutcome, sent: SentAnswer, streamID: Int32, authentication: AuthenticationResult,
        authenticationDetail: String? = nil
    ) {
        var record = ChannelOperationRecord(outcome: outcome, authentication: JournalAuthentication(authentication), answer: sent)
        record.authentication.detail = authenticationDetail.map { JournalAuthentication.boundedDetail(printable($0)) }
        record.authentication.session = session
        recorder.record(.channelOperation(record), stream: streamID)
    }
}
