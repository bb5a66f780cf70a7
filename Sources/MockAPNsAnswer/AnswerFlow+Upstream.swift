import MockAPNsWire
// The one answer flow every endpoint and transport shares (`AnswerFlow`), the exchange each
// endpoint gives it (`ProviderExchange`), and the writer each transport answers through
// (`AnswerWriter`); this file is the flow's upstream mode.

import MockAPNsCore
import MockAPNsScenario
import MockAPNsUpstream
import NIOCore

extension AnswerFlow {
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
    func relay(_ upstream: UpstreamHop, decision: ScenarioDecision, _ pending: Pending, on slot: Writer.Slot, record: AnswerRecord) {
        let own = decision.coreVerdict.map { pending.shape.sent($0) } ?? SentAnswer(status: 200, accepted: true)
        let started = NIODeadline.now()
        let completion = writer.completion { (result: Result<UpstreamResponse, UpstreamFailure>) in
            self.relayed(result, upstream, own: own, pending, on: slot, started: started, record: record)
        }
        guard let completion else { return record(.nothing(undelivered: "the connection was gone")) }
        upstream.route.client.send(upstream.request, affinity: upstream.affinity, completion: completion)
    }

    /// Writes what the upstream said (or 503/500 when it said nothing); the record carries
    /// the relay's account.
    private func relayed(
        _ result: Result<UpstreamResponse, UpstreamFailure>, _ upstream: UpstreamHop, own: SentAnswer, _ pending: Pending,
        on slot: Writer.Slot, started: NIODeadline, record: AnswerRecord
    ) {
        let ownStatus = own.status ?? 200
        let latency = Int((NIODeadline.now() - started).nanoseconds / 1000)
        let account = UpstreamRelay(origin: upstream.route.origin, latencyMicroseconds: latency, ownStatus: ownStatus,
                                    ownReason: own.reason, disagrees: false)
        let stream = writer.stream(of: slot)
        // Made only for a diagnosis: most relayed answers need none.
        func where_() -> String { "\(upstream.method) \(upstream.path): the upstream \(upstream.route.origin)" }
        var record = record
        switch result {
        case .success(let response):
            let written = ProviderAnswer(relaying: response.status, headers: response.headers, body: response.body.isEmpty ? nil : response.body)
            let recordDiagnosis = self.recordDiagnosis
            record.relayed = { sent in
                var account = account
                if sent.status != nil, upstream.comparesAnswers,
                   UpstreamRelay.differs(status: response.status, reason: sent.reason, ownStatus: ownStatus, ownReason: own.reason) {
                    account.disagrees = true
                    let theirs = UpstreamRelay.describe(status: response.status, reason: sent.reason)
                    let ours = UpstreamRelay.describe(status: ownStatus, reason: own.reason)
                    recordDiagnosis(.fidelityDisagreement, "\(where_()) answered \(theirs); MockAPNs' own rules answer \(ours)", stream)
                }
                // --record-scenario keeps what the provider was sent when it is not what
                // MockAPNs would have answered (and forgets it once they agree again).
                if sent.status != nil, upstream.comparesAnswers, let recorder = upstream.route.recorder {
                    recorder.observe(upstream, status: response.status, headers: response.headers, body: response.body,
                                     disagrees: account.disagrees, coreAccepted: own.accepted)
                }
                sent.upstream = account
            }
            writer.write(PreparedAnswer(answer: written, sent: .http2(written, scripted: true)), to: slot, record: record)
        case .failure(let failure):
            var account = account
            account.failureKind = failure.kind
            account.failure = failure.description
            let reason = failure.answeredReason
            let verdict = Verdict.rejected(reason: reason, apnsID: pending.apnsID.map(MessageID.text) ?? apnsIDs.next(), timestamp: nil)
            logger.notice("upstream gave no answer", metadata: [
                "upstream": "\(upstream.route.origin)", "stream": "\(stream.map { "\($0)" } ?? "")", "failure": "\(failure)",
            ])
            recordDiagnosis(.upstreamFailed, "\(where_()) gave no answer (\(failure)); the provider got \(reason.httpStatus) \(reason.rawValue)",
                            stream)
            record.relayed = { sent in sent.upstream = account }
            let answer = PreparedAnswer(answer: pending.shape.render(verdict), sent: pending.shape.sent(verdict))
            writer.write(answer, to: slot, record: record)
        }
    }
}
