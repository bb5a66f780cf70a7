import Logging
import MockAPNsCore
import MockAPNsConnections
import MockAPNsJournal
import MockAPNsScenario
import MockAPNsUpstream
import MockAPNsWire
import NIOCore

/// The one answer flow, for every endpoint on every transport: the scenario decides (running
/// the exchange's core unless a before-validation rule decides first), the core's verdict is
/// kept or the rule's answer or fault taken instead, the answer is rendered in the exchange's
/// shape and handed to the connection's writer (now or after the scenario's delay), and the
/// exchange records what went out, once it is known.
///
/// One per connection (the scenario counts its requests), on the connection's event loop,
/// owned by its mouth (the server's HTTP/2 bridge, its web push HTTP/1.1 handler). It holds no
/// channel: how an answer or a fault goes out is the writer's.
package final class AnswerFlow<Writer: AnswerWriter> {
    package let writer: Writer
    /// The scenario deciding the connection's requests: its session's, once the connection's
    /// credentials say which session that is.
    package var scenarios: ScenarioSwitch
    private let environment: APNsEnvironment
    private let clock: ServerClock
    let apnsIDs: UUIDGenerator
    private let uniqueIDs = UUIDGenerator(letterCase: .lowercase)
    let logger: Logger
    private let recorder: ConnectionJournal
    /// Writes a diagnosis to the journal (upstream mode's failures and disagreements).
    let recordDiagnosis: (DiagnosisCode, String, Int32?) -> Void
    private var connection: ScenarioConnection
    /// The last scripted body sent and its bytes: the streams a `respond` rule answers share
    /// one buffer's storage instead of each holding a copy until its answer is written.
    private var lastScriptedBody: (body: String?, reason: String?, buffer: ByteBuffer)?

    package init(
        writer: Writer, scenarios: ScenarioSwitch, connection: ScenarioConnection, environment: APNsEnvironment,
        clock: ServerClock, generatedIDCase: UUIDLetterCase, logger: Logger, recorder: ConnectionJournal,
        recordDiagnosis: @escaping (DiagnosisCode, String, Int32?) -> Void = { _, _, _ in }
    ) {
        self.writer = writer
        self.scenarios = scenarios
        self.connection = connection
        self.environment = environment
        self.clock = clock
        self.apnsIDs = UUIDGenerator(letterCase: generatedIDCase)
        self.logger = logger
        self.recorder = recorder
        self.recordDiagnosis = recordDiagnosis
    }

    /// Decides `exchange`'s request through the scenario and answers it on `slot` in the
    /// exchange's shape, now or after the scenario's delay; then hands the exchange what was
    /// written (or done instead) to record, once, after it is done. The core's acceptance and
    /// change (the channel management API's) are used only when the scenario keeps the core's
    /// verdict.
    ///
    /// - Parameters:
    ///   - apnsID: the request's `apns-id`, echoed by answers that carry one.
    ///   - upstream: upstream mode: where an answer the scenario leaves to the core is asked
    ///     for instead, and relayed unchanged; the core's verdict is kept beside it in the
    ///     record, for the fidelity check.
    package func answer(_ exchange: any ProviderExchange, on slot: Writer.Slot, apnsID: String?, upstream: UpstreamHop? = nil) {
        let engine = scenarios.current
        var coreAnswer: CoreAnswer?
        let decision = engine.decide(exchange.scenarioFacts(), connection: &connection) {
            let answered = exchange.decide()
            coreAnswer = answered
            return answered.verdict
        }
        var slot = slot
        let limit = engine.scenario.connection.goAwayAfterRequests
        if let limit, connection.requestCount >= limit { writer.endsConnection(after: &slot) }
        let pending = Pending(shape: exchange.shape, core: coreAnswer, apnsID: apnsID, upstream: upstream)
        let record = AnswerRecord(exchange: exchange, rule: decision.rule, delayMilliseconds: decision.delayMilliseconds)
        if let delay = decision.delayMilliseconds, delay > 0 {
            let answeredSlot = slot
            writer.afterDelay(nanoseconds: Int64(delay * 1_000_000)) {
                self.apply(decision, pending, on: answeredSlot, record: record)
            }
        } else {
            apply(decision, pending, on: slot, record: record)
        }
        if let limit, connection.requestCount == limit {
            writer.goesAway(afterRequests: limit)
        }
    }

    /// Carries out `decision` on `slot`; the writer records what went out.
    private func apply(_ decision: ScenarioDecision, _ pending: Pending, on slot: Writer.Slot, record: AnswerRecord) {
        if let refusal = writer.unanswerable(slot) {
            return record(.nothing(undelivered: refusal))
        }
        switch decision.action {
        case .respond(let response)?:
            writer.write(scripted(response, decision: decision, pending), to: slot, record: record)
        case .fault(let fault)?:
            report(fault, decision: decision, stream: writer.stream(of: slot))
            writer.carryOut(fault, garbage: decision.garbage, on: slot, usual: { verdictAnswer(decision, pending) }, record: record)
        case nil, .accept?, .reject?, .refuseHandshake?, .limitRate?, .setDevice?:
            if let upstream = pending.upstream, Self.leavesAnswerToUpstream(decision) {
                relay(upstream, decision: decision, pending, on: slot, record: record)
            } else if let answer = verdictAnswer(decision, pending) {
                writer.write(answer, to: slot, record: record)
            } else {
                record(.nothing())
            }
        }
    }

    /// The answer for the verdict the decision stands for: the core's (with what its
    /// acceptance carries, and its change) when the scenario keeps it, else the rule's reject
    /// or accept; in the exchange's shape. `nil` for a decision that stands for no verdict.
    func verdictAnswer(_ decision: ScenarioDecision, _ pending: Pending) -> PreparedAnswer? {
        let shape = pending.shape
        let carriesUniqueID = shape.includesAPNsID && (environment == .sandbox || shape.uniqueIDInEveryEnvironment)
        guard let verdict = decision.verdict(
            apnsID: shape.includesAPNsID ? pending.apnsID.map(MessageID.text) ?? apnsIDs.next() : "",
            uniqueID: carriesUniqueID ? uniqueIDs.next() : nil, now: clock.millisecondsSince1970
        ) else { return nil }
        guard decision.keepsCoreVerdict, let core = pending.core else {
            return PreparedAnswer(answer: shape.render(verdict), sent: shape.sent(verdict))
        }
        return PreparedAnswer(
            answer: shape.render(verdict, acceptance: core.acceptance), sent: shape.sent(verdict, acceptance: core.acceptance),
            commit: core.commit
        )
    }

    /// A `respond` rule's answer: its status, headers and body, with `apns-id` (and the
    /// shape's extra headers) added unless the rule gave them.
    private func scripted(_ response: ScenarioResponse, decision: ScenarioDecision, _ pending: Pending) -> PreparedAnswer {
        let shape = pending.shape
        var headers = response.headers
        if shape.includesAPNsID, !headers.contains(where: { $0.name == "apns-id" }) {
            headers.append(HTTPHeader(name: "apns-id", value: decision.coreVerdict?.apnsID.text ?? pending.apnsID ?? apnsIDs.next().text))
        }
        for extra in shape.extraHeaders where !headers.contains(where: { $0.name == extra.name }) {
            headers.append(extra)
        }
        let body = scriptedBody(response)
        let written = ProviderAnswer(status: response.status, headers: headers, body: body.map { Array($0.readableBytesView) })
        return PreparedAnswer(answer: written, body: body, sent: .http2(written, scripted: true))
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

    private func report(_ fault: ScenarioFault, decision: ScenarioDecision, stream: Int32?) {
        let rule = decision.rule ?? ""
        var metadata: Logger.Metadata = ["rule": "\(rule)", "fault": "\(fault)", "request": "\(decision.numbers.global)"]
        if let stream { metadata["stream"] = "\(stream)" }
        logger.notice("scenario fault", metadata: metadata)
        recorder.recordFault(stream: stream, description: "scenario rule \"\(rule)\": \(fault)")
    }

    /// What every answer to one request is made from besides the decision: its shape, the
    /// core's answer when the core was consulted, the request's `apns-id`, and the upstream
    /// the answer is asked of in upstream mode.
    struct Pending {
        var shape: ResponseShape
        var core: CoreAnswer?
        var apnsID: String?
        var upstream: UpstreamHop?
    }
}

@available(*, unavailable)
extension AnswerFlow: Sendable {}
