import MockAPNsConnections
import Logging
import MockAPNsCore
import MockAPNsJournal
import NIOCore
import MockAPNsScenario
import MockAPNsLegacy

/// Runs the scenario for the notifications of one legacy gateway connection and says how
/// the gateway must answer, in the binary protocol's terms.
///
/// The gateway's codec asks for one `Reason?` per notification (`nil` accepts) and stops at
/// the first refusal, dropping what follows as Apple did. A rule's reject becomes that
/// reason, so its legacy status byte goes out (`Unregistered`: status 8, then close). Going
/// away (`shutdown`, `goAway`, or `goAwayAfterRequests`) becomes `Shutdown`: status 10
/// naming the last accepted notification. Anything the codec cannot express (a fault, or an
/// arbitrary legacy status) still stops the codec with a placeholder refusal, and
/// ``interception`` tells the gateway to act on it instead of the codec's packet.
///
/// A delay postpones the connection's answer; accepted notifications have no answer on this
/// protocol, so only the answer to a failure (or a fault) can be seen to wait.
final class LegacyScenarioJudge {
    /// What the gateway does instead of writing the codec's answer.
    enum Interception: Equatable {
        /// Write this answer (an arbitrary status packet, or a silent close).
        case answer(LegacyConnectionAction)
        /// Misbehave.
        case fault(ScenarioFault, garbage: [UInt8])
    }

    /// The connection's session's scenario (set once its certificate is read).
    var scenarios: ScenarioSwitch
    private let logger: Logger
    /// Writes each injected fault to the journal.
    private let recordFault: (String) -> Void
    private var connection: ScenarioConnection
    /// The status-10 point was reached: every later notification is refused with `Shutdown`.
    private(set) var shutdownRequested = false
    /// Set when a rule's decision replaces the codec's answer.
    private(set) var interception: Interception?
    /// How long to hold the connection's answer.
    private(set) var delayMilliseconds: Double?
    /// Close after this many more bytes, once the answer is written.
    private(set) var byteBudget: Int?
    /// What the scenario did to the notification judged last, for its record: the rule that
    /// fired and the fault it carries out (`nil` when no rule fired).
    private(set) var lastJudged: (rule: String?, fault: AppliedFault?)?

    init(scenarios: ScenarioSwitch, connection: ScenarioConnection, logger: Logger, recordFault: @escaping (String) -> Void = { _ in }) {
        self.recordFault = recordFault
        self.scenarios = scenarios
        self.connection = connection
        self.logger = logger
    }

    /// The codec's `decide` for one notification.
    func judge(_ request: PushRequest, authentication: AuthenticationResult, core: () -> Verdict) -> Reason? {
        lastJudged = nil
        if shutdownRequested { return .shutdown }
        let engine = scenarios.current
        let decision = engine.decide(ScenarioRequest(legacy: request, authentication: authentication), connection: &connection, core: core)
        if decision.rule != nil { lastJudged = (decision.rule, Self.appliedFault(decision)) }
        let reason = reason(for: decision, request: request)
        if reason != nil, decision.delayMilliseconds != nil {
            delayMilliseconds = decision.delayMilliseconds
        }
        if reason == nil, let limit = engine.scenario.connection.goAwayAfterRequests, connection.requestCount >= limit {
            shutdownRequested = true
        }
        return reason
    }

    private func reason(for decision: ScenarioDecision, request: PushRequest) -> Reason? {
        // Stops the codec when the answer is the gateway's to give; never sent as such.
        let placeholder = Reason.internalServerError
        switch decision.action {
        case nil, .refuseHandshake?, .fault(.lowerMaxConcurrentStreams)?, .limitRate?, .setDevice?:
            return decision.coreVerdict?.reason
        case .accept?:
            return nil
        case .reject(let reason, _)?:
            return reason
        case .respond(let response)?:
            if let status = response.legacyStatus {
                interception = .answer(Self.packet(status, for: request))
                return placeholder
            }
            guard !(200..<300).contains(response.status) else { return nil }
            interception = .answer(Self.packet(.processingError, for: request))
            return placeholder
        case .fault(.goAway)?, .fault(.shutdown)?:
            report(decision)
            return .shutdown
        case .fault(.closeAfterBytes(let bytes))?:
            byteBudget = bytes
            return decision.coreVerdict?.reason
        case .fault(.closeConnection)?, .fault(.resetStream)?:
            // A plain close goes through the gateway's drain, so the client sees a FIN rather
            // than the reset unread bytes would cause. RST_STREAM has no counterpart without
            // streams: losing the notification silently is the nearest thing.
            interception = .answer(.closeSilently)
            report(decision)
            return placeholder
        case .fault(let fault)?:
            interception = .fault(fault, garbage: decision.garbage ?? [])
            report(decision)
            return placeholder
        }
    }

    /// What a rule's fault does on this protocol, as it reaches the wire: going away is the
    /// status-10 packet, a stream reset or a close is a close without a packet.
    private static func appliedFault(_ decision: ScenarioDecision) -> AppliedFault? {
        guard case .fault(let fault)? = decision.action else { return nil }
        switch fault {
        case .goAway, .shutdown: return .shutdown
        case .closeConnection, .resetStream: return .closeConnection
        case .resetConnection: return .resetConnection
        case .stall: return .stall
        case .lowerMaxConcurrentStreams: return nil  // no such setting here: answered as usual
        case .sendGarbage(let garbage):
            return .sendGarbage(length: garbage.bytes?.count ?? decision.garbage?.count ?? garbage.length, insideTLS: garbage.insideTLS)
        case .closeAfterBytes(let bytes): return .closeAfterBytes(bytes)
        }
    }

    /// A status packet for `request`; a command-0 notification has no identifier, and Apple
    /// closed such connections without a word.
    private static func packet(_ status: LegacyStatus, for request: PushRequest) -> LegacyConnectionAction {
        guard let identifier = request.legacyIdentifier else { return .closeSilently }
        return .sendErrorAndClose(LegacyErrorResponse(status: status, identifier: identifier))
    }

    private func report(_ decision: ScenarioDecision) {
        guard case .fault(let fault)? = decision.action else { return }
        let rule = decision.rule ?? ""
        logger.notice("scenario fault", metadata: ["rule": "\(rule)", "fault": "\(fault)", "request": "\(decision.numbers.global)"])
        recordFault("scenario rule \"\(rule)\": \(fault)")
    }

    /// Carries out a fault on the connection. `applicationContext` is the gateway handler's,
    /// after TLS.
    static func apply(_ fault: ScenarioFault, garbage: [UInt8], applicationContext: ChannelHandlerContext) {
        let channel = applicationContext.channel
        switch fault {
        case .resetConnection:
            WireFaults.reset(channel)
        case .closeConnection:
            WireFaults.close(channel)
        case .sendGarbage(let spec):
            WireFaults.sendGarbage(spec.bytes ?? garbage, insideTLS: spec.insideTLS, applicationContext: applicationContext, on: channel)
        case .stall:
            break  // The codec drops everything from now on; the connection stays open.
        case .goAway, .shutdown, .resetStream, .lowerMaxConcurrentStreams, .closeAfterBytes:
            break  // Expressed as reasons or answers above.
        }
    }
}

@available(*, unavailable)
extension LegacyScenarioJudge: Sendable {}
