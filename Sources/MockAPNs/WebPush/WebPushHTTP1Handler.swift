import MockAPNsConnections
import Logging
import MockAPNsAnswer
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
/// It reads each request into the head every transport shares and hands it, as one
/// `WebPushExchange`, to the answer flow every endpoint goes through (`AnswerFlow`); it is
/// that flow's writer on HTTP/1.1. HTTP/1.1 has no streams: faults that act on one
/// (RST_STREAM, a lowered stream limit, GOAWAY) act on the connection, and the record says
/// what was done. `HTTP1RequestGuard` bounds each request in time and declared size before it
/// gets here.
final class WebPushHTTP1Handler: ChannelInboundHandler, AnswerWriter {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// Where an answer goes on HTTP/1.1: the connection, kept open after it or not.
    struct Slot {
        var keepAlive: Bool
    }

    private let service: WebPushService
    /// The server's scenario, for pushes to subscriptions of no session.
    private let serverScenarios: ScenarioSwitch
    private let recorder: ConnectionJournal
    private let requestGuard: HTTP1RequestGuard
    /// The flow this handler writes for; released when the handler leaves the pipeline (the
    /// flow holds its writer, this handler).
    private var answers: AnswerFlow<WebPushHTTP1Handler>?
    private var context: ChannelHandlerContext?
    /// Requests whose head came, counting from 1 (as the guard counts them).
    private var requestsSeen = 0
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
        self.serverScenarios = scenarios
        self.recorder = recorder
        // Enough to judge any body: one byte over the limit is already a 413.
        self.bodyLimit = service.maximumPayloadBytes + 1
        self.answers = nil
        // Safari's web push service has one environment, and its answers carry no ids: the
        // environment and the ids' letter case change nothing here.
        self.answers = AnswerFlow(
            writer: self, scenarios: scenarios, connection: connection, environment: .production, clock: service.clock,
            generatedIDCase: .uppercase, logger: logger, recorder: recorder
        )
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        answers = nil
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
            guard !closing, let answers, let flow = flow(requestHead, context: context) else { return }
            answers.scenarios = service.scenarios(for: flow.decision) ?? serverScenarios
            answers.answer(
                WebPushExchange(flow, streamID: nil, recorder: recorder), on: Slot(keepAlive: requestHead.isKeepAlive), apnsID: nil)
        }
    }

    /// The request as the web push core reads it, or `nil` when its target and `Host` lines
    /// were refused (answered here: 400 and closed, or 421).
    private func flow(_ requestHead: HTTPRequestHead, context: ChannelHandlerContext) -> WebPushFlow? {
        // The request line and header fields read once into the head every transport shares;
        // the target and RFC 9112's Host rules read that head.
        var request = WebPushRequest(
            method: requestHead.method.rawValue, path: requestHead.uri,
            fields: requestHead.headers.lazy.map { HTTPHeader(name: $0.name.lowercased(), value: $0.value) },
            body: body, bodyLength: bodyLength
        )
        let target = WebPushHTTP1Target.resolve(
            target: requestHead.uri, hostLines: WebPushHTTP1Target.hostLines(of: request.head),
            requiresHost: requestHead.version != .http1_0, endpointOrigin: service.endpoint.origin)
        defer { body = [] }
        switch target {
        case .served(let path, let authority):
            request.path = path
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
    /// the rest, and the connection closed (the body was not read). Answered before the
    /// scenario, as HTTP/2 refuses a stream nghttp2 could not take.
    private func answer(_ requestHead: HTTPRequestHead, refusedBody refusal: HTTP1RequestGuard.BodyRefusal, context: ChannelHandlerContext) {
        guard !closing, let flow = flow(requestHead, context: context) else { return }
        let verdict = Verdict.rejected(reason: .payloadTooLarge, apnsID: "", timestamp: nil)
        let diagnosis = Diagnosis(.webPushPayloadTooLarge, refusal.explanation)
        let answer = PreparedAnswer(answer: WebPushFlow.shape.render(verdict), sent: WebPushFlow.shape.sent(verdict))
        send(answer, keepAlive: false) { [recorder] sent in
            for noticed in flow.diagnoses where noticed.code != .webPushPayloadTooLarge { recorder.record(noticed.event) }
            recorder.record(diagnosis.event)
            recorder.record(.notification(flow.record(sent)))
        }
    }

    // MARK: Writing answers (`AnswerWriter`)

    func stream(of slot: Slot) -> Int32? { nil }

    func unanswerable(_ slot: Slot) -> String? {
        guard !closing, context?.channel.isActive == true else {
            return "the connection was closed before the answer could be written"
        }
        return nil
    }

    /// HTTP/1.1's way of going away: this answer says `Connection: close`.
    func endsConnection(after slot: inout Slot) {
        slot.keepAlive = false
    }

    /// Done by `endsConnection(after:)`: HTTP/1.1 has no GOAWAY.
    func goesAway(afterRequests limit: Int) {}

    func afterDelay(nanoseconds: Int64, _ body: @escaping () -> Void) {
        guard let eventLoop = context?.eventLoop else { return }
        let later = NIOLoopBound(body, eventLoop: eventLoop)
        eventLoop.scheduleTask(in: .nanoseconds(nanoseconds)) { later.value() }
    }

    func completion<Value: Sendable, Failure: Error>(
        _ body: @escaping (Result<Value, Failure>) -> Void
    ) -> (@Sendable (Result<Value, Failure>) -> Void)? {
        guard let eventLoop = context?.eventLoop else { return nil }
        let later = NIOLoopBound(body, eventLoop: eventLoop)
        return { result in
            guard eventLoop.inEventLoop else { return eventLoop.execute { later.value(result) } }
            later.value(result)
        }
    }

    func write(_ answer: PreparedAnswer, to slot: Slot, record: AnswerRecord) {
        send(answer, keepAlive: slot.keepAlive) { record($0) }
    }

    /// Writes `answer` (closing the connection after it unless `keepAlive`), then hands `then`
    /// what was sent once it is out (its change made), or that nothing went out when the
    /// connection closed first.
    private func send(_ answer: PreparedAnswer, keepAlive: Bool, then: @escaping (SentAnswer) -> Void) {
        guard let context else { return then(.nothing(undelivered: "the connection was gone")) }
        if !keepAlive { closing = true }
        let response = answer.answer
        HTTP1Answer.write(
            status: HTTPResponseStatus(statusCode: response.status), headers: response.fields,
            body: response.body ?? [], closing: !keepAlive, context: context
        ) { delivered in
            guard delivered else { return then(.nothing(undelivered: "the connection closed before the answer could be written")) }
            answer.commit?()
            then(answer.sent)
        }
    }

    func carryOut(
        _ fault: ScenarioFault, garbage: [UInt8]?, on slot: Slot, usual: () -> PreparedAnswer?, record: AnswerRecord
    ) {
        guard let channel = context?.channel else { return record(.nothing(undelivered: "the connection was gone")) }
        func answered(_ applied: AppliedFault, keepAlive: Bool, note: String? = nil) {
            let answer = usual()
            var sent = answer?.sent ?? .nothing()
            sent.fault = applied
            if let note { sent.undelivered = note }
            guard var answer else { return record(sent) }
            answer.sent = sent
            write(answer, to: Slot(keepAlive: keepAlive), record: record)
        }
        switch fault {
        case .closeConnection:
            closing = true
            WireFaults.close(channel)
            record(.nothing(fault: .closeConnection))
        case .resetConnection:
            closing = true
            WireFaults.reset(channel)
            record(.nothing(fault: .resetConnection))
        case .resetStream:
            // No streams on HTTP/1.1: the connection is reset instead.
            closing = true
            WireFaults.reset(channel)
            record(.nothing(fault: .resetConnection, undelivered: "HTTP/1.1 has no streams: resetStream reset the connection"))
        case .goAway(let goAway):
            // No GOAWAY on HTTP/1.1: the answer (when the rule answers) says `Connection: close`.
            let applied = AppliedFault.goAway(errorCode: goAway.errorCode, lastStreamID: nil)
            if goAway.answerRequest {
                answered(applied, keepAlive: false)
            } else {
                closing = true
                WireFaults.close(channel)
                record(.nothing(fault: applied))
            }
        case .stall:
            record(.nothing(fault: .stall))
        case .lowerMaxConcurrentStreams(let limit):
            answered(.lowerMaxConcurrentStreams(limit), keepAlive: slot.keepAlive,
                     note: "HTTP/1.1 has no stream limit: the answer went out as usual")
        case .sendGarbage(let sent):
            closing = true
            let bytes = sent.bytes ?? garbage ?? []
            WireFaults.sendGarbage(bytes, insideTLS: sent.insideTLS, applicationContext: nil, on: channel)
            record(.nothing(fault: .sendGarbage(length: bytes.count, insideTLS: sent.insideTLS)))
        case .closeAfterBytes(let bytes):
            closing = true
            WireFaults.closeAfter(bytes: bytes, on: channel)
            guard var answer = usual() else { return record(.nothing(fault: .closeAfterBytes(bytes))) }
            // The record says what the client read: the whole answer, or, when the cut came
            // inside it, no answer at all (HTTP/1.1 clients drop a response cut short).
            let length = Self.wireLength(of: answer.answer, keepAlive: false)
            answer.sent.fault = .closeAfterBytes(bytes)
            if bytes < length {
                answer.sent = .nothing(
                    fault: .closeAfterBytes(bytes),
                    undelivered: "closeAfterBytes cut the HTTP/1.1 answer after \(bytes) of its \(length) bytes")
            }
            write(answer, to: Slot(keepAlive: false), record: record)
        case .shutdown:
            answered(.shutdown, keepAlive: false)
        }
    }

    /// The bytes `write` puts on the wire for `response` (inside TLS), as NIO's encoder writes them.
    static func wireLength(of response: ProviderAnswer, keepAlive: Bool) -> Int {
        HTTP1Answer.wireLength(
            status: response.status, headers: response.fields, bodyLength: response.body?.count ?? 0,
            closing: !keepAlive)
    }
}

@available(*, unavailable)
extension WebPushHTTP1Handler: Sendable {}
