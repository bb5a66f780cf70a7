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
        let engine = scenarios.current
        let decision = engine.decide(facts(), connection: &connection, core: core)
        let streamID = request.streamID
        let apnsID = request.firstValue(of: "apns-id")
        if let delay = decision.delayMilliseconds, delay > 0, let channel {
            let later = NIOLoopBound((responder: self, handler: handler), eventLoop: channel.eventLoop)
            channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(delay * 1_000_000))) {
                later.value.responder.apply(decision, streamID: streamID, apnsID: apnsID, handler: later.value.handler)
            }
        } else {
            apply(decision, streamID: streamID, apnsID: apnsID, handler: handler)
        }
        if let limit = engine.scenario.connection.goAwayAfterRequests, connection.requestCount == limit {
            logger.info("scenario: GOAWAY Shutdown after \(limit) requests on this connection")
            handler.gracefulShutdown()
        }
    }

    private func apply(_ decision: ScenarioDecision, streamID: Int32, apnsID: String?, handler: NGHTTP2ServerHandler) {
        if let last = lastAnsweredStream, streamID > last { return }
        switch decision.action {
        case .respond(let response)?:
            var headers = response.headers.map { ($0.name, $0.value) }
            if !headers.contains(where: { $0.0 == "apns-id" }) {
                headers.append(("apns-id", decision.coreVerdict?.apnsID ?? apnsID ?? apnsIDs.next()))
            }
            handler.respond(streamID: streamID, status: response.status, headers: headers,
                            body: response.bodyBytes.map { ByteBuffer(bytes: $0) })
        case .fault(let fault)?:
            report(fault, decision: decision, streamID: streamID)
            applyFault(fault, decision: decision, streamID: streamID, apnsID: apnsID, handler: handler)
        default:
            respond(decision, streamID: streamID, apnsID: apnsID, handler: handler)
        }
    }

    /// Answers with the verdict the decision stands for (the core's, or a rule's reject or accept).
    private func respond(_ decision: ScenarioDecision, streamID: Int32, apnsID: String?, handler: NGHTTP2ServerHandler) {
        let sandbox = environment == .sandbox
        guard let verdict = decision.verdict(
            apnsID: apnsID ?? apnsIDs.next(), uniqueID: sandbox ? uniqueIDs.next() : nil, now: clock.millisecondsSince1970
        ) else { return }
        let response = HTTP2ResponseRenderer.render(verdict)
        handler.respond(
            streamID: streamID, status: response.status,
            headers: response.headers.map { ($0.name, $0.value) },
            body: response.body.map { ByteBuffer(bytes: $0) }
        )
    }

    private func applyFault(_ fault: ScenarioFault, decision: ScenarioDecision, streamID: Int32, apnsID: String?, handler: NGHTTP2ServerHandler) {
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
                respond(decision, streamID: streamID, apnsID: apnsID, handler: handler)
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
            respond(decision, streamID: streamID, apnsID: apnsID, handler: handler)
        case .sendGarbage(let garbage):
            let http2 = try? channel.pipeline.syncOperations.context(handlerType: NGHTTP2ServerHandler.self)
            WireFaults.sendGarbage(garbage.bytes ?? decision.garbage ?? [], insideTLS: garbage.insideTLS,
                                   applicationContext: http2, on: channel)
        case .closeAfterBytes(let bytes):
            WireFaults.closeAfter(bytes: bytes, on: channel)
            respond(decision, streamID: streamID, apnsID: apnsID, handler: handler)
        case .shutdown:
            respond(decision, streamID: streamID, apnsID: apnsID, handler: handler)
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
