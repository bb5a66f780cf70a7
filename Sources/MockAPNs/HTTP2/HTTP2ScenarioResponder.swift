import MockAPNsConnections
import MockAPNsWire
import Logging
import MockAPNsCore
import MockAPNsJournal
import MockAPNsHTTP2
import NIOCore
import MockAPNsScenario
import MockAPNsUpstream

/// Answers the requests of one HTTP/2 connection through the running scenario: asks the
/// engine (which consults the decision core when no earlier rule decided), waits out any
/// delay on the event loop, and writes the decision as HTTP/2 says it: a response, a
/// GOAWAY, an RST_STREAM, a closed or reset connection, or nothing at all.
///
/// Lives on the connection's event loop, owned by the `HTTP2ConnectionBridge`.
final class HTTP2ScenarioResponder {
    private let scenarios: ScenarioSwitch
    private let environment: APNsEnvironment
    private let clock: ServerClock
    private let apnsIDs: UUIDGenerator
    private let uniqueIDs = UUIDGenerator(letterCase: .lowercase)
    private let logger: Logger
    /// Writes each injected fault to the journal: the stream and what was done.
    private let recordFault: (Int32?, String) -> Void
    /// Writes a diagnosis to the journal (upstream mode's failures and disagreements).
    private let recordDiagnosis: (DiagnosisCode, String, Int32) -> Void
    private var connection: ScenarioConnection
    private var channel: (any Channel)?
    /// The SETTINGS this connection was given (the server's, with the scenario's overrides).
    private(set) var connectionSettings = HTTP2ServerConfiguration()
    /// After a GOAWAY naming a stream, later streams are left unanswered, as the client
    /// will retry them elsewhere.
    private var lastAnsweredStream: Int32?
    /// Set once an answer is cut (`closeAfterBytes`): the connection is closing, and the
    /// requests after it get no answer.
    private var cutAfterBytes: Int?
    /// The last scripted body sent and its bytes: the streams a `respond` rule answers share
    /// one buffer's storage instead of each holding a copy until its answer is written.
    private var lastScriptedBody: (body: String?, reason: String?, buffer: ByteBuffer)?

    init(scenarios: ScenarioSwitch, connection: ScenarioConnection, environment: APNsEnvironment,
         clock: ServerClock, generatedIDCase: UUIDLetterCase, logger: Logger,
         recordFault: @escaping (Int32?, String) -> Void = { _, _ in },
         recordDiagnosis: @escaping (DiagnosisCode, String, Int32) -> Void = { _, _, _ in }) {
        self.recordFault = recordFault
        self.recordDiagnosis = recordDiagnosis
        self.scenarios = scenarios
        self.connection = connection
        self.environment = environment
        self.clock = clock
        self.apnsIDs = UUIDGenerator(letterCase: generatedIDCase)
        self.logger = logger
    }

    /// The SETTINGS for this connection: the server's, with the scenario's overrides.
    func settings(_ base: HTTP2ServerConfiguration, channel: any Channel) -> HTTP2ServerConfiguration {
        self.channel = channel
        var settings = base
        let overrides = scenarios.current.scenario.connection
        if let streams = overrides.maxConcurrentStreams { settings.maxConcurrentStreams = UInt32(clamping: streams) }
        if let idle = overrides.idleTimeoutSeconds { settings.idleTimeout = .nanoseconds(Int64(idle * 1_000_000_000)) }
        connectionSettings = settings
        return settings
    }

    /// Decides `request` through the scenario (which runs `exchange`'s core unless a
    /// before-validation rule decides) and answers it in the exchange's shape, now or after
    /// the scenario's delay; then hands the exchange what was written (or done instead) to
    /// record, once, after it is done. The core's own response and change (the channel
    /// management API's) are used only when the scenario keeps the core's verdict.
    ///
    /// In upstream mode (`upstream` given) an answer the scenario leaves to the core is the
    /// upstream's instead, relayed unchanged; the core's verdict is kept beside it in the
    /// record, for the fidelity check.
    func answer(_ request: HTTP2Request, through exchange: any HTTP2Exchange, handler: NGHTTP2ServerHandler, upstream: UpstreamHop? = nil) {
        let engine = scenarios.current
        var coreAnswer: CoreAnswer?
        let decision = engine.decide(exchange.scenarioFacts(), connection: &connection) {
            let answered = exchange.decide()
            coreAnswer = answered
            return answered.verdict
        }
        let answer = Answer(shape: exchange.shape, coreResponse: coreAnswer?.response, commit: coreAnswer?.commit, upstream: upstream)
        let streamID = request.streamID
        let apnsID = request.head[.apnsID]
        if let delay = decision.delayMilliseconds, delay > 0, let channel {
            let later = NIOLoopBound((responder: self, handler: handler, exchange: exchange), eventLoop: channel.eventLoop)
            channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(delay * 1_000_000))) {
                let (responder, handler, exchange) = later.value
                handler.holdingOutput {
                    responder.apply(decision, streamID: streamID, apnsID: apnsID, handler: handler, answer: answer, exchange: exchange)
                }
            }
        } else {
            apply(decision, streamID: streamID, apnsID: apnsID, handler: handler, answer: answer, exchange: exchange)
        }
        if let limit = engine.scenario.connection.goAwayAfterRequests, connection.requestCount == limit {
            logger.info("scenario: GOAWAY Shutdown after \(limit) requests on this connection")
            handler.gracefulShutdown()
        }
    }

    /// Carries out `decision` on the stream and hands the exchange what went out to record:
    /// at once, or, when the answer is cut (`closeAfterBytes`), once the cut is known.
    private func apply(
        _ decision: ScenarioDecision, streamID: Int32, apnsID: String?, handler: NGHTTP2ServerHandler, answer: Answer,
        exchange: any HTTP2Exchange
    ) {
        func finish(_ sent: SentAnswer) {
            var sent = sent
            sent.rule = decision.rule
            if let delay = decision.delayMilliseconds, delay > 0 { sent.delayMilliseconds = Int(delay.rounded()) }
            exchange.record(sent)
        }
        if let cut = cutAfterBytes {
            return finish(.nothing(undelivered: "the connection was cut after \(cut) bytes of an earlier answer (closeAfterBytes)"))
        }
        if let last = lastAnsweredStream, streamID > last {
            return finish(.nothing(undelivered: "a GOAWAY had named stream \(last) as the last one the server processes"))
        }
        switch decision.action {
        case .respond(let response)?:
            finish(respond(scripted: response, decision: decision, streamID: streamID, apnsID: apnsID, handler: handler, answer: answer))
        case .fault(.closeAfterBytes(let bytes))?:
            report(.closeAfterBytes(bytes), decision: decision, streamID: streamID)
            cutAnswer(afterBytes: bytes, decision: decision, streamID: streamID, apnsID: apnsID, handler: handler, answer: answer,
                      finish: finish)
        case .fault(let fault)?:
            report(fault, decision: decision, streamID: streamID)
            finish(applyFault(fault, decision: decision, streamID: streamID, apnsID: apnsID, handler: handler, answer: answer))
        case nil, .accept?, .reject?, .refuseHandshake?, .limitRate?, .setDevice?:
            if let upstream = answer.upstream, Self.leavesAnswerToUpstream(decision) {
                relay(upstream, decision: decision, streamID: streamID, apnsID: apnsID, handler: handler, answer: answer, finish: finish)
            } else {
                finish(respond(decision, streamID: streamID, apnsID: apnsID, handler: handler, answer: answer))
            }
        }
    }

    // MARK: Upstream mode

    /// Whether the scenario left the answer to the core, which upstream mode hands to the
    /// upstream: no rule, or one that acts beside the answer (a device change, a rate window
    /// that did not refuse). A scripted answer or fault is MockAPNs' own and never goes upstream.
    static func leavesAnswerToUpstream(_ decision: ScenarioDecision) -> Bool {
        switch decision.action {
        case nil, .setDevice?:
            return true
        case .limitRate?:
            if case .rejected(.tooManyRequests, _, _)? = decision.coreVerdict { return false }
            return true
        case .accept?, .reject?, .respond?, .fault?, .refuseHandshake?:
            return false
        }
    }

    /// Sends the request upstream and, once it answers, writes its answer unchanged; when it
    /// gives none (unreachable, refused TLS, timed out, reset, closed), answers 503
    /// ServiceUnavailable (500 InternalServerError for a protocol failure) itself. Either way
    /// the record carries `UpstreamRelay`: the origin, the latency, the failure, and the
    /// core's own verdict, which is compared with the upstream's answer.
    private func relay(
        _ upstream: UpstreamHop, decision: ScenarioDecision, streamID: Int32, apnsID: String?, handler: NGHTTP2ServerHandler,
        answer: Answer, finish: @escaping (SentAnswer) -> Void
    ) {
        guard let channel else { return finish(.nothing(undelivered: "the connection was gone")) }
        let own = decision.coreVerdict.map(answer.shape.sent) ?? SentAnswer(status: 200, accepted: true)
        let started = NIODeadline.now()
        let later = NIOLoopBound((responder: self, handler: handler, finish: finish), eventLoop: channel.eventLoop)
        upstream.route.client.send(
            method: upstream.method, path: upstream.path, headers: upstream.headers, body: upstream.body,
            affinity: upstream.affinity
        )
            .hop(to: channel.eventLoop)
            .whenComplete { result in
                let (responder, handler, finish) = later.value
                handler.holdingOutput { responder.relayed(result, upstream, own: own, streamID: streamID, apnsID: apnsID,
                                                          handler: handler, answer: answer, started: started, finish: finish) }
            }
    }

    /// Writes what the upstream said (or 503/500 when it said nothing) and records it.
    private func relayed(
        _ result: Result<UpstreamResponse, any Error>, _ upstream: UpstreamHop, own: SentAnswer, streamID: Int32, apnsID: String?,
        handler: NGHTTP2ServerHandler, answer: Answer, started: NIODeadline, finish: (SentAnswer) -> Void
    ) {
        let ownStatus = own.status ?? 200
        let latency = Int((NIODeadline.now() - started).nanoseconds / 1000)
        var relay = UpstreamRelay(origin: upstream.route.origin, latencyMicroseconds: latency, ownStatus: ownStatus,
                                  ownReason: own.reason, disagrees: false)
        let where_ = "\(upstream.method) \(upstream.path): the upstream \(upstream.route.origin)"
        switch result {
        case .success(let response):
            let written = ProviderAnswer(status: response.status, headers: response.headers, body: response.body.isEmpty ? nil : response.body)
            var sent = deliver(written, streamID: streamID, handler: handler) { .http2(written, scripted: true) }
            if sent.status != nil, upstream.comparesAnswers,
               UpstreamRelay.differs(status: response.status, reason: sent.reason, ownStatus: ownStatus, ownReason: own.reason) {
                relay.disagrees = true
                let theirs = UpstreamRelay.describe(status: response.status, reason: sent.reason)
                let ours = UpstreamRelay.describe(status: ownStatus, reason: own.reason)
                recordDiagnosis(.fidelityDisagreement, "\(where_) answered \(theirs); MockAPNs' own rules answer \(ours)", streamID)
            }
            sent.upstream = relay
            finish(sent)
        case .failure(let error):
            let failure = error as? UpstreamFailure ?? .protocolError("\(error)")
            relay.failureKind = failure.kind
            relay.failure = failure.description
            let reason = failure.answeredReason
            let verdict = Verdict.rejected(reason: reason, apnsID: apnsID ?? apnsIDs.next(), timestamp: nil)
            logger.notice("upstream gave no answer", metadata: [
                "upstream": "\(upstream.route.origin)", "stream": "\(streamID)", "failure": "\(failure)",
            ])
            recordDiagnosis(.upstreamFailed, "\(where_) gave no answer (\(failure)); the provider got \(reason.httpStatus) \(reason.rawValue)",
                            streamID)
            let response = answer.shape.render(verdict)
            var sent = deliver(response, streamID: streamID, handler: handler) { answer.shape.sent(verdict) }
            sent.upstream = relay
            finish(sent)
        }
    }

    /// `closeAfterBytes`: the usual answer, of which only `bytes` bytes (counted from its
    /// first, inside TLS) reach the client before the connection closes. The record waits for
    /// the cut, so it says what the client read: no answer when its HEADERS frame was cut, a
    /// status without its body when the body was.
    private func cutAnswer(
        afterBytes bytes: Int, decision: ScenarioDecision, streamID: Int32, apnsID: String?, handler: NGHTTP2ServerHandler,
        answer: Answer, finish: @escaping (SentAnswer) -> Void
    ) {
        cutAfterBytes = bytes
        if let channel { WireFaults.noteServerCloses(channel, reason: "scenario closeAfterBytes: the answer cut after \(bytes) bytes") }
        var written = SentAnswer.nothing()
        handler.cutOutput(afterBytes: bytes, ofStream: streamID, queueAnswer: {
            written = respond(decision, streamID: streamID, apnsID: apnsID, handler: handler, answer: answer)
        }, report: { cut in
            finish(Self.received(written, after: cut))
        })
    }

    /// What the client read of `written` once `cut` closed the connection.
    static func received(_ written: SentAnswer, after cut: HTTP2OutputCut) -> SentAnswer {
        var received = written
        if written.status == nil {
            // Nothing was written (the stream was gone): nothing to cut.
        } else if !cut.headersSent {
            received = .nothing(undelivered: "closeAfterBytes cut the answer after \(cut.answerBytesSent) of its "
                + "\(cut.answerBytes) bytes, inside its HEADERS frame: the client read no status")
        } else if !cut.answerSent {
            received.reason = nil
            received.timestamp = nil
            received.scriptedBody = nil
            received.undelivered = "closeAfterBytes cut the answer after \(cut.answerBytesSent) of its "
                + "\(cut.answerBytes) bytes: the client read its status and headers, not its whole body"
        }
        received.fault = .closeAfterBytes(cut.budget)
        return received
    }

    /// Writes a `respond` rule's answer: its status, headers and body, with `apns-id` (and the
    /// shape's extra headers) added unless the rule gave them.
    private func respond(
        scripted response: ScenarioResponse, decision: ScenarioDecision, streamID: Int32, apnsID: String?,
        handler: NGHTTP2ServerHandler, answer: Answer
    ) -> SentAnswer {
        var headers = response.headers
        if answer.shape.includesAPNsID, !headers.contains(where: { $0.name == "apns-id" }) {
            headers.append(HTTPHeader(name: "apns-id", value: decision.coreVerdict?.apnsID ?? apnsID ?? apnsIDs.next()))
        }
        for extra in answer.shape.extraHeaders where !headers.contains(where: { $0.name == extra.name }) {
            headers.append(extra)
        }
        let body = scriptedBody(response)
        let written = ProviderAnswer(status: response.status, headers: headers, body: body.map { Array($0.readableBytesView) })
        return deliver(written, streamID: streamID, handler: handler, body: body) { .http2(written, scripted: true) }
    }

    /// Answers with the verdict the decision stands for (the core's, or a rule's reject or accept).
    private func respond(
        _ decision: ScenarioDecision, streamID: Int32, apnsID: String?, handler: NGHTTP2ServerHandler, answer: Answer
    ) -> SentAnswer {
        if decision.keepsCoreVerdict, let response = answer.coreResponse {
            let sent = deliver(response, streamID: streamID, handler: handler) { .http2(response, scripted: false) }
            if sent.status != nil { answer.commit?() }
            return sent
        }
        let carriesUniqueID = answer.shape.includesAPNsID && (environment == .sandbox || answer.shape.uniqueIDInEveryEnvironment)
        guard let verdict = decision.verdict(
            apnsID: apnsID ?? apnsIDs.next(), uniqueID: carriesUniqueID ? uniqueIDs.next() : nil, now: clock.millisecondsSince1970
        ) else { return .nothing() }
        let response = answer.shape.render(verdict)
        return deliver(response, streamID: streamID, handler: handler) { answer.shape.sent(verdict) }
    }

    /// Writes `response` and returns `sent()`, what it says; or, when the stream is already
    /// gone (the client reset it, or the connection closed), that nothing went out.
    private func deliver(
        _ response: ProviderAnswer, streamID: Int32, handler: NGHTTP2ServerHandler, body: ByteBuffer? = nil,
        _ sent: () -> SentAnswer
    ) -> SentAnswer {
        let written = handler.respond(
            streamID: streamID, status: response.status,
            headers: response.headers,
            body: body ?? response.body.map { ByteBuffer(bytes: $0) }
        )
        guard written else { return .nothing(undelivered: "the stream was closed before the answer could be written") }
        return sent()
    }

    /// A `respond` rule's body as a buffer, shared with the previous answer when it is the same
    /// (the same rule's strings compare by identity first, so the check is cheap).
    private func scriptedBody(_ response: ScenarioResponse) -> ByteBuffer? {
        if let last = lastScriptedBody, last.body == response.body, last.reason == response.reason {
            return last.buffer
        }
        guard let bytes = response.bodyBytes else { return nil }
        let buffer = ByteBuffer(bytes: bytes)
        lastScriptedBody = (response.body, response.reason, buffer)
        return buffer
    }

    /// Carries out a fault and says what went out: nothing, or the answer it let through.
    private func applyFault(
        _ fault: ScenarioFault, decision: ScenarioDecision, streamID: Int32, apnsID: String?, handler: NGHTTP2ServerHandler,
        answer: Answer
    ) -> SentAnswer {
        guard let channel else { return .nothing(undelivered: "the connection was gone") }
        func answered(_ applied: AppliedFault) -> SentAnswer {
            var sent = respond(decision, streamID: streamID, apnsID: apnsID, handler: handler, answer: answer)
            sent.fault = applied
            return sent
        }
        switch fault {
        case .closeConnection:
            WireFaults.close(channel)
            return .nothing(fault: .closeConnection)
        case .resetConnection:
            WireFaults.reset(channel)
            return .nothing(fault: .resetConnection)
        case .goAway(let goAway):
            let last: Int32?
            switch goAway.lastStream {
            case .lastReceived: last = nil
            case .current: last = streamID
            case .id(let id): last = id
            }
            let answers = goAway.answerRequest && streamID <= (last ?? .max)
            let applied = AppliedFault.goAway(errorCode: goAway.errorCode, lastStreamID: last)
            let sent = answers ? answered(applied) : .nothing(fault: applied)
            if let last { lastAnsweredStream = last }
            // nghttp2 drops queued responses once a GOAWAY that ends the session is sent, so
            // when this request is answered the close waits until the batch is written.
            handler.sendGoAway(errorCode: goAway.errorCode, lastStreamID: last, debugData: goAway.debugBytes,
                               closeAfter: goAway.closeConnection && !answers)
            if goAway.closeConnection, answers {
                WireFaults.close(channel)
            }
            return sent
        case .resetStream(let errorCode):
            guard handler.resetStream(streamID: streamID, errorCode: errorCode) else {
                return .nothing(undelivered: "the stream was closed before it could be reset")
            }
            return .nothing(fault: .resetStream(errorCode: errorCode))
        case .stall:
            return .nothing(fault: .stall)
        case .lowerMaxConcurrentStreams(let limit):
            handler.setMaxConcurrentStreams(limit)
            return answered(.lowerMaxConcurrentStreams(limit))
        case .sendGarbage(let garbage):
            let http2 = try? channel.pipeline.syncOperations.context(handlerType: NGHTTP2ServerHandler.self)
            let bytes = garbage.bytes ?? decision.garbage ?? []
            WireFaults.sendGarbage(bytes, insideTLS: garbage.insideTLS, applicationContext: http2, on: channel)
            return .nothing(fault: .sendGarbage(length: bytes.count, insideTLS: garbage.insideTLS))
        case .closeAfterBytes(let bytes):
            // Carried out by `cutAnswer`, which waits for the cut before recording.
            return answered(.closeAfterBytes(bytes))
        case .shutdown:
            let sent = answered(.shutdown)
            handler.gracefulShutdown()
            return sent
        }
    }

    private func report(_ fault: ScenarioFault, decision: ScenarioDecision, streamID: Int32) {
        let rule = decision.rule ?? ""
        logger.notice("scenario fault", metadata: [
            "rule": "\(rule)", "fault": "\(fault)", "stream": "\(streamID)", "request": "\(decision.numbers.global)",
        ])
        recordFault(streamID, "scenario rule \"\(rule)\": \(fault)")
    }
}

@available(*, unavailable)
extension HTTP2ScenarioResponder: Sendable {}

/// What every answer on a stream carries besides the verdict.
struct ResponseShape: Sendable {
    /// Headers added to every answer (a broadcast's or management request's `apns-request-id`).
    var extraHeaders: [HTTPHeader] = []
    /// Whether answers carry `apns-id` (and `apns-unique-id`): yes for pushes and broadcasts,
    /// no for the channel management API.
    var includesAPNsID = true
    /// Whether an accepted answer carries `apns-unique-id` in production too (broadcasts);
    /// device pushes get it on the sandbox only.
    var uniqueIDInEveryEnvironment = false
    /// The status of an acceptance when it is not APNs' 200: web push answers 201 Created.
    var acceptedStatus: Int? = nil

    /// A device push: the verdict as `HTTP2ResponseRenderer` writes it.
    static let push = ResponseShape()

    /// `verdict` as an answer of this shape: APNs' response, without the ids the shape does
    /// not carry, with its accepted status and extra headers.
    func render(_ verdict: Verdict) -> ProviderAnswer {
        var response = HTTP2ResponseRenderer.render(verdict)
        if !includesAPNsID {
            response.headers.removeAll { $0.name == "apns-id" || $0.name == "apns-unique-id" }
        }
        if case .accepted = verdict, let acceptedStatus { response.status = acceptedStatus }
        response.headers.append(contentsOf: extraHeaders)
        return response
    }

    /// What `render(verdict)` tells the client, for the record.
    func sent(_ verdict: Verdict) -> SentAnswer {
        var sent = SentAnswer.http2(verdict)
        if !includesAPNsID {
            sent.apnsID = nil
            sent.uniqueID = nil
        }
        if case .accepted = verdict, let acceptedStatus { sent.status = acceptedStatus }
        return sent
    }
}

/// What the core concluded about one request: its verdict and, for a core that writes its
/// own response, that response and the change to make once it is sent.
struct CoreAnswer {
    var verdict: Verdict
    var response: ProviderAnswer? = nil
    var commit: (@Sendable () -> Void)? = nil
}

/// The shape of one answer, the core's own response and change when it has them, and the
/// upstream the answer is asked of in upstream mode.
private struct Answer: Sendable {
    var shape: ResponseShape
    var coreResponse: ProviderAnswer?
    var commit: (@Sendable () -> Void)?
    var upstream: UpstreamHop?
}
