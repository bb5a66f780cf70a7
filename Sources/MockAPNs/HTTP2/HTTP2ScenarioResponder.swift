import Logging
import MockAPNsCore
import MockAPNsHTTP2
import NIOCore

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
    private var connection: ScenarioConnection
    private var channel: (any Channel)?
    /// The SETTINGS this connection was given (the server's, with the scenario's overrides).
    private(set) var connectionSettings = HTTP2ServerConfiguration()
    /// After a GOAWAY naming a stream, later streams are left unanswered, as the client
    /// will retry them elsewhere.
    private var lastAnsweredStream: Int32?
    /// The last scripted body sent and its bytes: the streams a `respond` rule answers share
    /// one buffer's storage instead of each holding a copy until its answer is written.
    private var lastScriptedBody: (body: String?, reason: String?, buffer: ByteBuffer)?

    init(scenarios: ScenarioSwitch, connection: ScenarioConnection, environment: APNsEnvironment,
         clock: ServerClock, generatedIDCase: UUIDLetterCase, logger: Logger,
         recordFault: @escaping (Int32?, String) -> Void = { _, _ in }) {
        self.recordFault = recordFault
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

    /// Decides `request` and answers it, now or after the scenario's delay.
    func answer(_ request: HTTP2Request, facts: @autoclosure () -> ScenarioRequest, handler: NGHTTP2ServerHandler, core: () -> Verdict) {
        answer(request, facts: facts(), handler: handler, shape: .push) { CoreAnswer(verdict: core()) }
    }

    /// Decides `request` and answers it in `shape`, now or after the scenario's delay. `core`
    /// gives the core's verdict and, when the core writes its own response (the channel
    /// management API), that response and the change to make once it is sent: both are used
    /// only when the scenario keeps the core's verdict.
    func answer(
        _ request: HTTP2Request, facts: @autoclosure () -> ScenarioRequest, handler: NGHTTP2ServerHandler,
        shape: ResponseShape, core: () -> CoreAnswer
    ) {
        let engine = scenarios.current
        var coreAnswer: CoreAnswer?
        let decision = engine.decide(facts(), connection: &connection) {
            let answered = core()
            coreAnswer = answered
            return answered.verdict
        }
        let answer = Answer(shape: shape, coreResponse: coreAnswer?.response, commit: coreAnswer?.commit)
        let streamID = request.streamID
        let apnsID = request.firstValue(of: "apns-id")
        if let delay = decision.delayMilliseconds, delay > 0, let channel {
            let later = NIOLoopBound((responder: self, handler: handler), eventLoop: channel.eventLoop)
            channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(delay * 1_000_000))) {
                later.value.responder.apply(decision, streamID: streamID, apnsID: apnsID, handler: later.value.handler, answer: answer)
            }
        } else {
            apply(decision, streamID: streamID, apnsID: apnsID, handler: handler, answer: answer)
        }
        if let limit = engine.scenario.connection.goAwayAfterRequests, connection.requestCount == limit {
            logger.info("scenario: GOAWAY Shutdown after \(limit) requests on this connection")
            handler.gracefulShutdown()
        }
    }

    private func apply(_ decision: ScenarioDecision, streamID: Int32, apnsID: String?, handler: NGHTTP2ServerHandler, answer: Answer) {
        if let last = lastAnsweredStream, streamID > last { return }
        switch decision.action {
        case .respond(let response)?:
            var headers = response.headers.map { ($0.name, $0.value) }
            if answer.shape.includesAPNsID, !headers.contains(where: { $0.0 == "apns-id" }) {
                headers.append(("apns-id", decision.coreVerdict?.apnsID ?? apnsID ?? apnsIDs.next()))
            }
            for extra in answer.shape.extraHeaders where !headers.contains(where: { $0.0 == extra.name }) {
                headers.append((extra.name, extra.value))
            }
            handler.respond(streamID: streamID, status: response.status, headers: headers, body: scriptedBody(response))
        case .fault(let fault)?:
            report(fault, decision: decision, streamID: streamID)
            applyFault(fault, decision: decision, streamID: streamID, apnsID: apnsID, handler: handler, answer: answer)
        case nil, .accept?, .reject?, .refuseHandshake?, .limitRate?:
            respond(decision, streamID: streamID, apnsID: apnsID, handler: handler, answer: answer)
        }
    }

    /// Answers with the verdict the decision stands for (the core's, or a rule's reject or accept).
    private func respond(_ decision: ScenarioDecision, streamID: Int32, apnsID: String?, handler: NGHTTP2ServerHandler, answer: Answer) {
        let keepsCoreVerdict: Bool
        switch decision.action {
        case nil, .fault?, .limitRate?: keepsCoreVerdict = true
        case .accept?, .reject?, .respond?, .refuseHandshake?: keepsCoreVerdict = false
        }
        if keepsCoreVerdict, let response = answer.coreResponse {
            write(response, streamID: streamID, handler: handler)
            answer.commit?()
            return
        }
        let carriesUniqueID = answer.shape.includesAPNsID && (environment == .sandbox || answer.shape.uniqueIDInEveryEnvironment)
        guard let verdict = decision.verdict(
            apnsID: apnsID ?? apnsIDs.next(), uniqueID: carriesUniqueID ? uniqueIDs.next() : nil, now: clock.millisecondsSince1970
        ) else { return }
        var response = HTTP2ResponseRenderer.render(verdict)
        if !answer.shape.includesAPNsID {
            response.headers.removeAll { $0.name == "apns-id" || $0.name == "apns-unique-id" }
        }
        response.headers.append(contentsOf: answer.shape.extraHeaders)
        write(response, streamID: streamID, handler: handler)
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

    private func write(_ response: HTTP2PushResponse, streamID: Int32, handler: NGHTTP2ServerHandler) {
        handler.respond(
            streamID: streamID, status: response.status,
            headers: response.headers.map { ($0.name, $0.value) },
            body: response.body.map { ByteBuffer(bytes: $0) }
        )
    }

    private func applyFault(
        _ fault: ScenarioFault, decision: ScenarioDecision, streamID: Int32, apnsID: String?, handler: NGHTTP2ServerHandler,
        answer: Answer
    ) {
        guard let channel else { return }
        switch fault {
        case .closeConnection:
            WireFaults.close(channel)
        case .resetConnection:
            WireFaults.reset(channel)
        case .goAway(let goAway):
            let last: Int32?
            switch goAway.lastStream {
            case .lastReceived: last = nil
            case .current: last = streamID
            case .id(let id): last = id
            }
            let answers = goAway.answerRequest && streamID <= (last ?? .max)
            if answers {
                respond(decision, streamID: streamID, apnsID: apnsID, handler: handler, answer: answer)
            }
            if let last { lastAnsweredStream = last }
            // nghttp2 drops queued responses once a GOAWAY that ends the session is sent, so
            // when this request is answered the close waits until the batch is written.
            handler.sendGoAway(errorCode: goAway.errorCode, lastStreamID: last, debugData: goAway.debugBytes,
                               closeAfter: goAway.closeConnection && !answers)
            if goAway.closeConnection, answers {
                WireFaults.close(channel)
            }
        case .resetStream(let errorCode):
            handler.resetStream(streamID: streamID, errorCode: errorCode)
        case .stall:
            break
        case .lowerMaxConcurrentStreams(let limit):
            handler.setMaxConcurrentStreams(limit)
            respond(decision, streamID: streamID, apnsID: apnsID, handler: handler, answer: answer)
        case .sendGarbage(let garbage):
            let http2 = try? channel.pipeline.syncOperations.context(handlerType: NGHTTP2ServerHandler.self)
            WireFaults.sendGarbage(garbage.bytes ?? decision.garbage ?? [], insideTLS: garbage.insideTLS,
                                   applicationContext: http2, on: channel)
        case .closeAfterBytes(let bytes):
            WireFaults.closeAfter(bytes: bytes, on: channel)
            respond(decision, streamID: streamID, apnsID: apnsID, handler: handler, answer: answer)
        case .shutdown:
            respond(decision, streamID: streamID, apnsID: apnsID, handler: handler, answer: answer)
            handler.gracefulShutdown()
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

    /// A device push: the verdict as `HTTP2ResponseRenderer` writes it.
    static let push = ResponseShape()
}

/// What the core concluded about one request: its verdict and, for a core that writes its
/// own response, that response and the change to make once it is sent.
struct CoreAnswer {
    var verdict: Verdict
    var response: HTTP2PushResponse? = nil
    var commit: (@Sendable () -> Void)? = nil
}

/// The shape of one answer, and the core's own response and change when it has them.
private struct Answer: Sendable {
    var shape: ResponseShape
    var coreResponse: HTTP2PushResponse?
    var commit: (@Sendable () -> Void)?
}
