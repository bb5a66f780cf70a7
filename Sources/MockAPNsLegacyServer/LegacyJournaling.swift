import MockAPNsWire
import MockAPNsCore
import MockAPNsJournal
import MockAPNsLegacy

/// What one legacy gateway or feedback connection writes to the journal: each frame, each
/// notification with its outcome (accepted, refused by the core, refused by the codec, or
/// dropped unexamined), diagnoses, and feedback tuples sent.
struct LegacyJournaling {
    /// The connection's way into the journal, shared with the rest of its pipeline.
    let recorder: ConnectionJournal
    /// `nil` when the server keeps no journal: nothing is made to be recorded.
    var journal: Journal? { recorder.journal }
    /// Routes each notification to the topic the decision uses (the certificate's).
    var decider: PushDecider? = nil
    var environment: APNsEnvironment = .sandbox
    /// The session the connection's certificate belongs to (`JournalAuthentication.session`).
    var session: String?
    /// What the connection's accepted notifications share in their records, kept while the
    /// route and the authentication stay the same.
    let recordContexts = LegacyRecordContexts()
    /// Where the connection's accepted notifications are written as compact records.
    let compactRecords = LegacyRecordWriter()

    /// Records what the codec and the decision core made of the connection's bytes, for the
    /// events whose answer is already known: an accepted notification (answered with silence)
    /// and a dropped frame. A failure waits for its answer to be written
    /// (`recordFailure(_:authentication:sent:)`). `route` is where the connection's notifications
    /// go (the certificate's topic and the push type it implies), when the caller worked it out
    /// for the read, and `scenario` what a rule did to the notification: a decided
    /// notification's event follows its decision at once.
    func observe(
        _ event: LegacySessionEvent, authentication: AuthenticationResult, route: LegacyRoute? = nil,
        scenario: (rule: String?, fault: AppliedFault?)? = nil
    ) {
        guard journal != nil else { return }
        switch event {
        case .accepted(let notification):
            let sent = SentAnswer(accepted: true, fault: scenario?.fault, rule: scenario?.rule)
            record(notification, route: route ?? self.route(authentication), authentication: authentication, sent: sent)
        case .failed:
            break  // Recorded once its answer is written.
        case .dropped(let frame):
            recordDropped(frame, authentication: authentication)
        case .diagnosis:
            break  // The handler reports every diagnosis, its own included, through `diagnosis(_:)`.
        }
    }

    /// Records the connection's failure once its answer went out: the refused notification (or
    /// the frame the codec refused) with `sent`, what the client was actually sent.
    func recordFailure(_ cause: LegacyFailureCause, authentication: AuthenticationResult, sent: SentAnswer) {
        guard journal != nil else { return }
        switch cause {
        case .decision(_, let notification):
            record(notification, route: route(authentication), authentication: authentication, sent: sent)
        case .frame(let error):
            record(error, authentication: authentication, sent: sent)
        }
    }

    func diagnosis(_ diagnosis: LegacyDiagnosis) {
        recorder.record(.diagnosis(code: diagnosis.code, message: diagnosis.message, figures: diagnosis.figures))
    }

    /// A deadline of the connection's that passed (`timeout.*`), with the figures behind it.
    func timeout(code: DiagnosisCode, message: String, figures: [JournalFigure]) {
        recorder.record(.diagnosis(code: code, message: message, figures: figures))
    }

    func feedbackTuple(_ entry: FeedbackEntry) {
        recorder.record(.feedbackTuple(deviceToken: entry.deviceToken, timestampMilliseconds: entry.timestamp))
    }

    /// A queued feedback entry that cannot be written as a tuple, and why.
    func feedbackSkipped(_ entry: FeedbackEntry, reason: String) {
        recorder.record(
            .diagnosis(code: .feedbackTupleSkipped, message: "feedback entry for \(entry.deviceToken) not sent: \(reason)")
        )
    }

    /// Where the decision core sends a legacy notification: frames name no topic, so every
    /// one goes to the certificate's topic, with the push type that topic implies. With it,
    /// what the records of the notifications sent there share.
    func route(_ authentication: AuthenticationResult) -> LegacyRoute {
        guard let decider else {
            return LegacyRoute(topic: nil, pushType: nil, context: recordContexts.context(
                topic: nil, pushType: nil, authentication: authentication, environment: environment, session: session
            ))
        }
        let route = decider.route(
            topic: nil, pushType: nil, transport: .legacy,
            context: DecisionContext(environment: environment, authentication: authentication)
        )
        let context = recordContexts.context(
            topic: route.topic, pushType: route.pushType?.rawValue, authentication: authentication, environment: environment,
            session: session
        )
        return LegacyRoute(topic: route.topic, pushType: route.pushType, context: context)
    }

    /// The record of a notification read whole, made from the notification and its route: no
    /// request value is copied for it. An accepted notification that no rule touched, nearly
    /// every one, is a compact record; others (a refusal, a rule's fault) are boxed.
    private func record(
        _ notification: LegacyNotification, route: LegacyRoute, authentication: AuthenticationResult, sent: SentAnswer
    ) {
        let frame = JournalLegacyFrame(
            command: notification.command.rawValue, identifier: notification.identifier,
            deviceToken: notification.deviceToken, payloadLength: notification.payload.count,
            frameLength: notification.frameLength
        )
        recorder.record(.legacyFrame(frame), then: .notification(record(of: notification, route: route, sent: sent)))
    }

    private func record(of notification: LegacyNotification, route: LegacyRoute, sent: SentAnswer) -> NotificationRecord {
        if sent.accepted, sent.fault == nil, sent.rule == nil, let compact = compactRecords.record(
            deviceToken: notification.deviceToken, payload: notification.payload, context: route.context,
            command: notification.command.rawValue, identifier: notification.identifier, expiry: notification.expiry,
            priority: notification.priority?.rawValue, payloadIsJSON: nil, handOvers: recorder.handOvers
        ) {
            return compact
        }
        return NotificationRecord(
            payloadBytes: notification.payload, transport: .legacy, deviceToken: notification.deviceToken,
            topic: route.topic, pushType: route.pushType?.rawValue, priority: notification.priority?.rawValue,
            expiration: notification.expiry.map(Int64.init),
            legacyIdentifier: notification.identifier, legacyCommand: notification.command.rawValue,
            authentication: route.context.authentication, answer: sent, environment: environment
        )
    }

    /// A frame the codec refused: its frame event, then a notification record with what was
    /// sent (a status packet, or nothing for a silent close), the nearest APNs reason, and
    /// the problem.
    private func record(
        _ error: LegacyFrameError, authentication: AuthenticationResult, sent: SentAnswer
    ) {
        let token = error.token.map { JournalJSON.hex($0) }
        let problem = describe(error, sent)
        recorder.record(.legacyFrame(JournalLegacyFrame(
            command: error.command, identifier: error.identifier, deviceToken: token,
            payloadLength: error.payloadLength, problem: problem, rawBytes: error.leadingBytes
        )))
        let record = NotificationRecord(
            transport: .legacy, deviceToken: token ?? "", topic: route(authentication).topic,
            legacyIdentifier: error.identifier, legacyCommand: error.command, payload: error.payload ?? [],
            payloadLength: error.payloadLength ?? 0, authentication: recorded(authentication), answer: sent,
            problem: error.problem.description, environment: environment
        )
        recorder.record(.notification(record))
    }

    /// What a record says of `authentication`, the connection's session with it.
    private func recorded(_ authentication: AuthenticationResult) -> JournalAuthentication {
        var recorded = JournalAuthentication(authentication)
        recorded.session = session
        return recorded
    }

    /// A frame discarded unexamined after the failure or shutdown, with what was read of it.
    private func recordDropped(_ frame: LegacyDroppedFrame, authentication: AuthenticationResult) {
        let token = frame.token.map { JournalJSON.hex($0) }
        var payload = SharedBytes()
        var payloadLength: Int?
        var frameLength: Int?
        var problem: String?
        // What the frame said of its delivery, kept as an examined notification's record keeps it.
        var expiration: Int64?
        var priority: Int?
        switch frame {
        case .notification(let notification):
            payload = notification.payload
            payloadLength = notification.payload.count
            frameLength = notification.frameLength
            expiration = notification.expiry.map(Int64.init)
            priority = notification.priority?.rawValue
        case .invalid(let error):
            payloadLength = error.payloadLength
            problem = error.problem.description
        }
        recorder.record(.legacyFrame(JournalLegacyFrame(
            command: frame.command, identifier: frame.identifier, deviceToken: token, payloadLength: payloadLength,
            frameLength: frameLength, problem: problem, dropped: true
        )))
        let record = NotificationRecord(
            payloadBytes: payload, transport: .legacy, deviceToken: token ?? "", topic: route(authentication).topic, priority: priority,
            expiration: expiration, legacyIdentifier: frame.identifier, legacyCommand: frame.command,
            payloadLength: max(payloadLength ?? 0, payload.count), authentication: recorded(authentication),
            answer: SentAnswer(accepted: false), dropped: true, problem: problem, environment: environment
        )
        recorder.record(.notification(record))
    }

    private func describe(_ error: LegacyFrameError, _ sent: SentAnswer) -> String {
        if let packet = sent.legacyPacket { return "\(error.problem) (status \(packet.status.rawValue) sent)" }
        if let fault = sent.fault { return "\(error.problem) (\(fault.summary))" }
        return "\(error.problem) (closed without a packet)"
    }
}

extension SentAnswer {
    /// What a legacy connection's answer to a failure puts on the wire: the status packet, or
    /// nothing (a silent close). `reason` is the refusal behind it, when it came from one.
    static func legacy(_ action: LegacyConnectionAction, reason: Reason?) -> SentAnswer {
        switch action {
        case .sendErrorAndClose(let packet): SentAnswer(reason: reason, legacyPacket: packet, accepted: false)
        case .closeSilently: SentAnswer(reason: reason, accepted: false)
        }
    }
}

/// Where a legacy notification goes: the certificate's topic and the push type it implies. The
/// same for every notification of a connection, so worked out once per read.
struct LegacyRoute {
    var topic: String?
    var pushType: PushType?
    /// What the records of accepted notifications sent this way share.
    var context: LegacyRecordContext
}

/// The record context a legacy connection's accepted notifications share
/// (`LegacyRecordContext`): the last one made, given again while the route, the
/// authentication and the environment are the same. Used on the connection's event loop only.
final class LegacyRecordContexts: @unchecked Sendable {
    private var last: LegacyRecordContext?

    func context(
        topic: String?, pushType: String?, authentication: AuthenticationResult, environment: APNsEnvironment, session: String?
    ) -> LegacyRecordContext {
        if let last, last.authentication.session == session,
           last.matches(topic: topic, pushType: pushType, authentication: authentication, environment: environment) {
            return last
        }
        let context = LegacyRecordContext(
            topic: topic, pushType: pushType, authentication: authentication, environment: environment, session: session)
        last = context
        return context
    }
}
