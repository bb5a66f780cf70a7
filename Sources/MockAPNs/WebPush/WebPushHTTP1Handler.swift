import MockAPNsConnections
import Logging
import MockAPNsCore
import MockAPNsJournal
import MockAPNsScenario
import MockAPNsWebPush
import MockAPNsWire
import NIOCore
import NIOHTTP1

/// Web push over HTTP/1.1, as the common server libraries send it (pywebpush, web-push for
/// Node, web-push-php): one request at a time on a keep-alive connection (NIO's pipelining
/// helper holds a pipelined request until the answer before it is written).
///
/// Each request goes through the same flow as on HTTP/2 (`WebPushFlow`): the core decides,
/// the scenario may answer or fault instead, and the record is written once the answer has
/// gone out. HTTP/1.1 has no streams: faults that act on one (RST_STREAM, a lowered stream
/// limit, GOAWAY) act on the connection, and the record says what was done. `HTTP1RequestGuard`
/// bounds each request in time and declared size before it gets here.
final class WebPushHTTP1Handler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let service: WebPushService
    private let scenarios: ScenarioSwitch
    private let recorder: ConnectionJournal
    private let logger: Logger
    private let requestGuard: HTTP1RequestGuard
    /// Requests whose head came, counting from 1 (as the guard counts them).
    private var requestsSeen = 0
    private var connection: ScenarioConnection
    /// The request being read: its head, the body kept (at most `bodyLimit` bytes) and its
    /// true length.
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var bodyLength = 0
    private let bodyLimit: Int
    /// Set once a fault or `Connection: close` ends the connection: later requests get nothing.
    private var closing = false

    init(
        service: WebPushService, scenarios: ScenarioSwitch, connection: ScenarioConnection, recorder: ConnectionJournal, logger: Logger,
        requestGuard: HTTP1RequestGuard
    ) {
        self.requestGuard = requestGuard
        self.service = service
        self.scenarios = scenarios
        self.connection = connection
        self.recorder = recorder
        self.logger = logger
        // Enough to judge any body: one byte over the limit is already a 413.
        self.bodyLimit = service.maximumPayloadBytes + 1
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            requestsSeen += 1
            head = requestHead
            body = []
            bodyLength = 0
        case .body(var buffer):
            let (sum, overflow) = bodyLength.addingReportingOverflow(buffer.readableBytes)
            bodyLength = overflow ? .max : sum
            let room = bodyLimit - body.count
            if room > 0, let bytes = buffer.readBytes(length: min(room, buffer.readableBytes)) {
                body.append(contentsOf: bytes)
            }
        case .end:
            guard let requestHead = head else { return }
            head = nil
            if let refusal = requestGuard.bodyRefusal, refusal.requestIndex == requestsSeen {
                bodyLength = refusal.declaredBytes
                return answer(requestHead, refusedBody: refusal, context: context)
            }
            answer(requestHead, context: context)
        }
    }

    /// The request as the web push core reads it, or `nil` when its target and `Host` lines
    /// were refused (answered here: 400 and closed, or 421).
    private func flow(_ requestHead: HTTPRequestHead, context: ChannelHandlerContext) -> WebPushFlow? {
        let target = WebPushHTTP1Target.resolve(
            target: requestHead.uri, hostLines: requestHead.headers[canonicalForm: "host"].map(String.init),
            requiresHost: requestHead.version != .http1_0, endpointOrigin: service.endpoint.origin)
        defer { body = [] }
        switch target {
        case .served(let path, let authority):
            // The request line and header fields read once into the head every transport shares.
            let request = WebPushRequest(
                method: requestHead.method.rawValue, path: path,
                fields: requestHead.headers.lazy.map { HTTPHeader(name: $0.name.lowercased(), value: $0.value) },
                body: body, bodyLength: bodyLength
            )
            return WebPushFlow(request, authority: authority, service: service)
        case .malformed(let problem), .misdirected(let problem):
            let malformed = target == .malformed(problem)
            recorder.record(.diagnosis(code: malformed ? .webPushMalformedHTTP1 : .webPushMisdirected, message: problem))
            closing = closing || malformed || !requestHead.isKeepAlive
            HTTP1Answer.write(status: malformed ? .badRequest : .misdirectedRequest, closing: closing, context: context)
            return nil
        }
    }

    /// A body the guard refused for its declared size: 413, recorded with what the core made of
    /// the rest, and the connection closed (the body was not read).
    private func answer(_ requestHead: HTTPRequestHead, refusedBody refusal: HTTP1RequestGuard.BodyRefusal, context: ChannelHandlerContext) {
        guard !closing, let flow = flow(requestHead, context: context) else { return }
        let verdict = Verdict.rejected(reason: .payloadTooLarge, apnsID: "", timestamp: nil)
        let diagnosis = Diagnosis(.webPushPayloadTooLarge, refusal.explanation)
        write(WebPushFlow.shape.render(verdict), keepAlive: false, context: context, sent: WebPushFlow.shape.sent(verdict)) { [recorder] sent in
            for noticed in flow.diagnoses where noticed.code != .webPushPayloadTooLarge { recorder.record(noticed.event) }
            recorder.record(diagnosis.event)
            recorder.record(.notification(flow.record(sent)))
        }
    }

    private func answer(_ requestHead: HTTPRequestHead, context: ChannelHandlerContext) {
        guard !closing, let flow = flow(requestHead, context: context) else { return }
        let engine = scenarios.current
        var coreAnswer: CoreAnswer?
        let decision = engine.decide(flow.scenarioFacts(), connection: &connection) {
            let answered = flow.coreAnswer()
            coreAnswer = answered
            return answered.verdict
        }
        var keepAlive = requestHead.isKeepAlive
        if let limit = engine.scenario.connection.goAwayAfterRequests, connection.requestCount >= limit {
            // HTTP/1.1's way of going away: this answer says `Connection: close`.
            keepAlive = false
        }
        let core = coreAnswer
        if let delay = decision.delayMilliseconds, delay > 0 {
            let later = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: .nanoseconds(Int64(delay * 1_000_000))) {
                later.value.handler.apply(decision, flow: flow, core: core, keepAlive: keepAlive, context: later.value.context)
            }
        } else {
            apply(decision, flow: flow, core: core, keepAlive: keepAlive, context: context)
        }
    }

    /// Carries out `decision` and records the request once what went out is known.
    private func apply(
        _ decision: ScenarioDecision, flow: WebPushFlow, core: CoreAnswer?, keepAlive: Bool, context: ChannelHandlerContext
    ) {
        let recorder = self.recorder
        func finish(_ sent: SentAnswer) {
            var sent = sent
            sent.rule = decision.rule
            if let delay = decision.delayMilliseconds, delay > 0 { sent.delayMilliseconds = Int(delay.rounded()) }
            for diagnosis in flow.diagnoses { recorder.record(diagnosis.event) }
            recorder.record(.notification(flow.record(sent)))
        }
        guard !closing, context.channel.isActive else {
            return finish(.nothing(undelivered: "the connection was closed before the answer could be written"))
        }
        switch decision.action {
        case .respond(let scripted)?:
            let response = ProviderAnswer(status: scripted.status, headers: scripted.headers, body: scripted.bodyBytes)
            write(response, keepAlive: keepAlive, context: context, sent: SentAnswer.http2(response, scripted: true), finish: finish)
        case .fault(let fault)?:
            recorder.recordFault(stream: nil, description: "scenario rule \"\(decision.rule ?? "")\": \(fault)")
            logger.notice("scenario fault", metadata: ["rule": "\(decision.rule ?? "")", "fault": "\(fault)"])
            applyFault(fault, decision: decision, flow: flow, core: core, keepAlive: keepAlive, context: context, finish: finish)
        case nil, .accept?, .reject?, .refuseHandshake?, .limitRate?, .setDevice?:
            let (response, sent) = verdictAnswer(decision, flow: flow, core: core)
            guard let response else { return finish(sent) }
            write(response, keepAlive: keepAlive, context: context, sent: sent, finish: finish)
        }
    }

    /// The answer for the verdict the decision stands for: the core's own response when the
    /// scenario kept the core's verdict, else the rule's verdict in web push's shape.
    private func verdictAnswer(_ decision: ScenarioDecision, flow: WebPushFlow, core: CoreAnswer?) -> (ProviderAnswer?, SentAnswer) {
        if decision.keepsCoreVerdict, let response = core?.response {
            return (response, SentAnswer.http2(response, scripted: false))
        }
        let shape = WebPushFlow.shape
        guard let verdict = decision.verdict(apnsID: "", uniqueID: nil, now: service.clock.millisecondsSince1970) else {
            return (nil, .nothing())
        }
        return (shape.render(verdict), shape.sent(verdict))
    }

    private func applyFault(
        _ fault: ScenarioFault, decision: ScenarioDecision, flow: WebPushFlow, core: CoreAnswer?, keepAlive: Bool,
        context: ChannelHandlerContext, finish: @escaping (SentAnswer) -> Void
    ) {
        let channel = context.channel
        func answered(_ applied: AppliedFault, keepAlive: Bool, note: String? = nil) {
            let (response, sent) = verdictAnswer(decision, flow: flow, core: core)
            var marked = sent
            marked.fault = applied
            if let note { marked.undelivered = note }
            guard let response else { return finish(marked) }
            write(response, keepAlive: keepAlive, context: context, sent: marked, finish: finish)
        }
        switch fault {
        case .closeConnection:
            closing = true
            WireFaults.close(channel)
            finish(.nothing(fault: .closeConnection))
        case .resetConnection:
            closing = true
            WireFaults.reset(channel)
            finish(.nothing(fault: .resetConnection))
        case .resetStream:
            // No streams on HTTP/1.1: the connection is reset instead.
            closing = true
            WireFaults.reset(channel)
            finish(.nothing(fault: .resetConnection, undelivered: "HTTP/1.1 has no streams: resetStream reset the connection"))
        case .goAway(let goAway):
            // No GOAWAY on HTTP/1.1: the answer (when the rule answers) says `Connection: close`.
            let applied = AppliedFault.goAway(errorCode: goAway.errorCode, lastStreamID: nil)
            if goAway.answerRequest {
                answered(applied, keepAlive: false)
            } else {
                closing = true
                WireFaults.close(channel)
                finish(.nothing(fault: applied))
            }
        case .stall:
            finish(.nothing(fault: .stall))
        case .lowerMaxConcurrentStreams(let limit):
            answered(.lowerMaxConcurrentStreams(limit), keepAlive: keepAlive,
                     note: "HTTP/1.1 has no stream limit: the answer went out as usual")
        case .sendGarbage(let garbage):
            closing = true
            let bytes = garbage.bytes ?? decision.garbage ?? []
            WireFaults.sendGarbage(bytes, insideTLS: garbage.insideTLS, applicationContext: nil, on: channel)
            finish(.nothing(fault: .sendGarbage(length: bytes.count, insideTLS: garbage.insideTLS)))
        case .closeAfterBytes(let bytes):
            closing = true
            WireFaults.closeAfter(bytes: bytes, on: channel)
            let (response, sent) = verdictAnswer(decision, flow: flow, core: core)
            guard let response else { return finish(.nothing(fault: .closeAfterBytes(bytes))) }
            // The record says what the client read: the whole answer, or, when the cut came
            // inside it, no answer at all (HTTP/1.1 clients drop a response cut short).
            let length = Self.wireLength(of: response, keepAlive: false)
            var marked = sent
            marked.fault = .closeAfterBytes(bytes)
            if bytes < length {
                marked = .nothing(
                    fault: .closeAfterBytes(bytes),
                    undelivered: "closeAfterBytes cut the HTTP/1.1 answer after \(bytes) of its \(length) bytes")
            }
            write(response, keepAlive: false, context: context, sent: marked, finish: finish)
        case .shutdown:
            answered(.shutdown, keepAlive: false)
        }
    }

    /// The bytes `write` puts on the wire for `response` (inside TLS), as NIO's encoder writes them.
    static func wireLength(of response: ProviderAnswer, keepAlive: Bool) -> Int {
        HTTP1Answer.wireLength(
            status: response.status, headers: response.headers, bodyLength: response.body?.count ?? 0,
            closing: !keepAlive)
    }

    /// Writes `response` (closing the connection after it unless `keepAlive`), then records
    /// `sent` once it is out, or that nothing went out when the connection closed first.
    private func write(
        _ response: ProviderAnswer, keepAlive: Bool, context: ChannelHandlerContext, sent: SentAnswer,
        finish: @escaping (SentAnswer) -> Void
    ) {
        if !keepAlive { closing = true }
        HTTP1Answer.write(
            status: HTTPResponseStatus(statusCode: response.status), headers: response.headers,
            body: response.body ?? [], closing: !keepAlive, context: context
        ) { delivered in
            finish(delivered ? sent : .nothing(undelivered: "the connection closed before the answer could be written"))
        }
    }
}

@available(*, unavailable)
extension WebPushHTTP1Handler: Sendable {}
