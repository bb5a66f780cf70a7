import MockAPNsCore
import MockAPNsScenario
import NIOCore

/// Where one connection's answers go, as its transport writes them: an HTTP/2 stream (the
/// server's `HTTP2StreamWriter`) or an HTTP/1.1 connection (its `WebPushHTTP1Handler`). The
/// answer flow (`AnswerFlow`) decides what goes out; the writer knows how on its transport,
/// and how a scenario's fault is carried out there (HTTP/1.1 has no streams: a fault that
/// acts on one acts on the connection).
///
/// A writer lives on its connection's event loop, and calls what it is given there.
package protocol AnswerWriter: AnyObject {
    /// Where one request's answer goes: its HTTP/2 stream, or on HTTP/1.1 whether the
    /// connection stays open after it.
    associatedtype Slot

    /// The HTTP/2 stream of `slot`, which the journal's events about the request name;
    /// `nil` on HTTP/1.1.
    func stream(of slot: Slot) -> Int32?

    /// Why `slot` can no longer be answered (the connection was cut or is closing, a GOAWAY
    /// named an earlier stream as the last one answered); `nil` while it can be.
    func unanswerable(_ slot: Slot) -> String?

    /// The scenario's `goAwayAfterRequests` is reached (or passed) by this request, before it
    /// is answered: on HTTP/1.1 its answer closes the connection.
    func endsConnection(after slot: inout Slot)

    /// The scenario's `goAwayAfterRequests` was reached by the request just answered (or
    /// scheduled): on HTTP/2 the connection goes away (GOAWAY NO_ERROR).
    func goesAway(afterRequests limit: Int)

    /// Runs `body` on the connection's event loop after `nanoseconds` (a scenario's delay),
    /// its writes going out together.
    func afterDelay(nanoseconds: Int64, _ body: @escaping () -> Void)

    /// A completion for work that ends elsewhere (the upstream's answer): called once, from
    /// any thread, it runs `body` with the result on the connection's event loop, its writes
    /// going out together. `nil` (and `body` never runs) when the connection is gone.
    func completion<Value: Sendable, Failure: Error>(
        _ body: @escaping (Result<Value, Failure>) -> Void
    ) -> (@Sendable (Result<Value, Failure>) -> Void)?

    /// Writes `answer`; then (at once, or once it is out) runs its `commit` when it went out
    /// and calls `record` with what the client was sent, or why nothing went out.
    func write(_ answer: PreparedAnswer, to slot: Slot, record: AnswerRecord)

    /// Carries out `fault` on `slot` and calls `record` with what went out. A fault that lets
    /// the answer through (a GOAWAY covering the request, a lowered stream limit, a byte
    /// limit, a shutdown) writes `usual()`, the answer there would have been without it.
    func carryOut(
        _ fault: ScenarioFault, garbage: [UInt8]?, on slot: Slot, usual: () -> PreparedAnswer?, record: AnswerRecord
    )
}

/// One answer, ready for a writer: what goes on the wire, what it tells the client, and
/// the core's change to make once it is out.
package struct PreparedAnswer {
    package var answer: ProviderAnswer
    /// The body as a buffer shared between answers (a `respond` rule's), when it is one.
    package var body: ByteBuffer?
    /// What the answer tells the client, for the record.
    package var sent: SentAnswer
    /// The core's change, made only when this answer (the core's own) is the one sent: the
    /// channel management API's create or delete.
    package var commit: (@Sendable () -> Void)?

    package init(answer: ProviderAnswer, body: ByteBuffer? = nil, sent: SentAnswer, commit: (@Sendable () -> Void)? = nil) {
        self.answer = answer
        self.body = body
        self.sent = sent
        self.commit = commit
    }
}

/// What the core concluded about one request: its verdict, what an acceptance carries
/// besides APNs' bare `200` (the channel management API's), and the change to make once
/// the core's answer is sent.
package struct CoreAnswer {
    package var verdict: Verdict
    package var acceptance: Acceptance?
    package var commit: (@Sendable () -> Void)?

    package init(verdict: Verdict, acceptance: Acceptance? = nil, commit: (@Sendable () -> Void)? = nil) {
        self.verdict = verdict
        self.acceptance = acceptance
        self.commit = commit
    }
}

/// Writes one request's record once what went out is known: the rule that decided and the
/// delay it held the answer, added to what was sent.
package struct AnswerRecord {
    let exchange: any ProviderExchange
    let rule: String?
    let delayMilliseconds: Double?
    /// Upstream mode: adds the relay's account to what was sent (and notes a disagreement)
    /// before the record is written.
    var relayed: ((inout SentAnswer) -> Void)? = nil

    package func callAsFunction(_ sent: SentAnswer) {
        var sent = sent
        sent.rule = rule
        if let delay = delayMilliseconds, delay > 0 { sent.delayMilliseconds = Int(delay.rounded()) }
        relayed?(&sent)
        exchange.record(sent)
    }
}
