import MockAPNsWire
import MockAPNsCore
/// What the scenario concluded about one request.
package struct ScenarioDecision: Sendable, Equatable {
    /// The rule that fired, if any.
    package var rule: String?
    /// What to do instead of answering the core's verdict; `nil` answers the verdict.
    package var action: ScenarioAction?
    /// Wait this long before answering (or faulting).
    package var delayMilliseconds: Double?
    /// The request's numbers, for logs and the journal.
    package var numbers: ScenarioRequestNumbers
    /// The core's verdict, when the core was consulted (it is not when a before-validation
    /// rule decided).
    package var coreVerdict: Verdict?
    /// Bytes drawn for a `sendGarbage` fault without fixed bytes.
    package var garbage: [UInt8]?

    package init(rule: String? = nil, action: ScenarioAction? = nil, delayMilliseconds: Double? = nil,
                numbers: ScenarioRequestNumbers, coreVerdict: Verdict? = nil, garbage: [UInt8]? = nil) {
        self.rule = rule
        self.action = action
        self.delayMilliseconds = delayMilliseconds
        self.numbers = numbers
        self.coreVerdict = coreVerdict
        self.garbage = garbage
    }

    /// Whether the answer sent is the core's own: no rule answered, or the rule only acts
    /// beside the answer (a fault, a rate window, a device change). Every transport asks this
    /// one question before it writes.
    package var keepsCoreVerdict: Bool {
        switch action {
        case nil, .fault?, .limitRate?, .setDevice?: true
        case .accept?, .reject?, .respond?, .refuseHandshake?: false
        }
    }

    /// The verdict a protocol answers with: a `reject` or `accept` becomes a verdict; no
    /// action, or a fault that still answers (a GOAWAY covering the request, a lowered stream
    /// limit, a byte limit, a shutdown), keeps the core's. `nil` for arbitrary responses,
    /// which each protocol renders itself.
    ///
    /// - apnsID: the request's `apns-id` when the core was not consulted; generated otherwise.
    package func verdict(apnsID: @autoclosure () -> MessageID, uniqueID: @autoclosure () -> MessageID?, now: Int64) -> Verdict? {
        ScenarioAction.verdict(of: action, core: coreVerdict, apnsID: apnsID, uniqueID: uniqueID, now: now)
    }
}
