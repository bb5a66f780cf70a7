import MockAPNsConnections
import Logging
import MockAPNsAnswer
import MockAPNsCore
import MockAPNsHTTP2
import MockAPNsJournal
import NIOCore
import MockAPNsScenario

/// Writes the answers of one HTTP/2 connection, each on its request's stream, through the
/// connection's `NGHTTP2ServerHandler`: a response, a GOAWAY, an RST_STREAM, a closed or reset
/// connection, or nothing at all, as the answer flow (`AnswerFlow`) says.
///
/// Lives on the connection's event loop, owned by the `HTTP2ConnectionBridge` (through its
/// flow); it is given the channel and the HTTP/2 handler once TLS is done and HTTP/2 starts.
final class HTTP2StreamWriter: AnswerWriter {
    /// An answer goes on its request's stream.
    typealias Slot = Int32

    private let logger: Logger
    var channel: (any Channel)?
    /// The connection's HTTP/2 handler; it drops its delegate (the bridge) when it leaves the
    /// pipeline, so holding it makes no cycle that outlives the connection.
    var handler: NGHTTP2ServerHandler?
    /// After a GOAWAY naming a stream, later streams are left unanswered, as the client
    /// will retry them elsewhere.
    private var lastAnsweredStream: Int32?
    /// Set once an answer is cut (`closeAfterBytes`): the connection is closing, and the
    /// requests after it get no answer.
    private var cutAfterBytes: Int?

    /// The connection's way into the journal: an answer completed outside the connection's
    /// own read is recorded with the rest of its tick.
    private let recorder: ConnectionJournal?

    init(logger: Logger, recorder: ConnectionJournal? = nil) {
        self.logger = logger
        self.recorder = recorder
    }

    func stream(of slot: Int32) -> Int32? { slot }

    func unanswerable(_ stream: Int32) -> String? {
        if let cut = cutAfterBytes {
            return "the connection was cut after \(cut) bytes of an earlier answer (closeAfterBytes)"
        }
        if let last = lastAnsweredStream, stream > last {
            return "a GOAWAY had named stream \(last) as the last one the server processes"
        }
        return nil
    }

    /// HTTP/2 goes away after the answer instead (`goesAway(afterRequests:)`).
    func endsConnection(after stream: inout Int32) {}

    func goesAway(afterRequests limit: Int) {
        logger.info("scenario: GOAWAY Shutdown after \(limit) requests on this connection")
        handler?.gracefulShutdown()
    }

    func afterDelay(nanoseconds: Int64, _ body: @escaping () -> Void) {
        guard let channel, let handler else { return }
        let later = NIOLoopBound((handler: handler, body: body), eventLoop: channel.eventLoop)
        channel.eventLoop.scheduleTask(in: .nanoseconds(nanoseconds)) {
            let (handler, body) = later.value
            handler.holdingOutput(body)
        }
    }

    func completion<Value: Sendable, Failure: Error>(
        _ body: @escaping (Result<Value, Failure>) -> Void
    ) -> (@Sendable (Result<Value, Failure>) -> Void)? {
        guard let channel, let handler else { return nil }
        let eventLoop = channel.eventLoop
        let later = NIOLoopBound((handler: handler, body: body, recorder: recorder), eventLoop: eventLoop)
        @Sendable func run(_ result: Result<Value, Failure>) {
            let (handler, body, recorder) = later.value
            let holds = recorder?.holdUnlessHolding() == true
            handler.outputAtEndOfTick { body(result) }
            // Scheduled after the handler's own end-of-tick flush, which commits first.
            if holds, let recorder { eventLoop.execute { recorder.endHolding() } }
        }
        return { result in
            guard eventLoop.inEventLoop else { return eventLoop.execute { run(result) } }
            run(result)
        }
    }

    func write(_ answer: PreparedAnswer, to stream: Int32, record: AnswerRecord) {
        record(written(answer, on: stream))
    }

    /// Submits `answer` on `stream` and says what went out: the answer (its change made), or
    /// nothing, when the stream is already gone (the client reset it, or the connection closed).
    private func written(_ answer: PreparedAnswer, on stream: Int32) -> SentAnswer {
        let response = answer.answer
        guard let handler, handler.respond(
            response.responseHead, streamID: stream, body: answer.body ?? response.body.map { ByteBuffer(bytes: $0) }
        ) else { return .nothing(undelivered: "the stream was closed before the answer could be written") }
        answer.commit?()
        return answer.sent
    }

    func carryOut(
        _ fault: ScenarioFault, garbage: [UInt8]?, on stream: Int32, usual: () -> PreparedAnswer?, record: AnswerRecord
    ) {
        guard let channel, let handler else { return record(.nothing(undelivered: "the connection was gone")) }
        func answered(_ applied: AppliedFault) -> SentAnswer {
            var sent = usual().map { written($0, on: stream) } ?? .nothing()
            sent.fault = applied
            return sent
        }
        switch fault {
        case .closeConnection:
            WireFaults.close(channel)
            record(.nothing(fault: .closeConnection))
        case .resetConnection:
            WireFaults.reset(channel)
            record(.nothing(fault: .resetConnection))
        case .goAway(let goAway):
            let last: Int32?
            switch goAway.lastStream {
            case .lastReceived: last = nil
            case .current: last = stream
            case .id(let id): last = id
            }
            let answers = goAway.answerRequest && stream <= (last ?? .max)
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
            record(sent)
        case .resetStream(let errorCode):
            guard handler.resetStream(streamID: stream, errorCode: errorCode) else {
                return record(.nothing(undelivered: "the stream was closed before it could be reset"))
            }
            record(.nothing(fault: .resetStream(errorCode: errorCode)))
        case .stall:
            record(.nothing(fault: .stall))
        case .lowerMaxConcurrentStreams(let limit):
            handler.setMaxConcurrentStreams(limit)
            record(answered(.lowerMaxConcurrentStreams(limit)))
        case .sendGarbage(let sent):
            let http2 = try? channel.pipeline.syncOperations.context(handlerType: NGHTTP2ServerHandler.self)
            let bytes = sent.bytes ?? garbage ?? []
            WireFaults.sendGarbage(bytes, insideTLS: sent.insideTLS, applicationContext: http2, on: channel)
            record(.nothing(fault: .sendGarbage(length: bytes.count, insideTLS: sent.insideTLS)))
        case .closeAfterBytes(let bytes):
            cutAnswer(afterBytes: bytes, on: stream, handler: handler, channel: channel, usual: usual, record: record)
        case .shutdown:
            let sent = answered(.shutdown)
            handler.gracefulShutdown()
            record(sent)
        }
    }

    /// `closeAfterBytes`: the usual answer, of which only `bytes` bytes (counted from its
    /// first, inside TLS) reach the client before the connection closes. The record waits for
    /// the cut, so it says what the client read: no answer when its HEADERS frame was cut, a
    /// status without its body when the body was.
    private func cutAnswer(
        afterBytes bytes: Int, on stream: Int32, handler: NGHTTP2ServerHandler, channel: any Channel,
        usual: () -> PreparedAnswer?, record: AnswerRecord
    ) {
        cutAfterBytes = bytes
        WireFaults.noteServerCloses(channel, reason: "scenario closeAfterBytes: the answer cut after \(bytes) bytes")
        var written = SentAnswer.nothing()
        handler.cutOutput(afterBytes: bytes, ofStream: stream, queueAnswer: {
            written = usual().map { self.written($0, on: stream) } ?? .nothing()
        }, report: { cut in
            record(Self.received(written, after: cut))
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
}

@available(*, unavailable)
extension HTTP2StreamWriter: Sendable {}
