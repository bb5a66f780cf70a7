import MockAPNsCore

/// What one legacy gateway or feedback connection writes to the journal: each frame, each
/// notification with its outcome (accepted, refused by the core, refused by the codec, or
/// dropped unexamined), diagnoses, and feedback tuples sent.
struct LegacyJournaling {
    let journal: Journal?
    let connectionID: UInt64
    /// Routes each notification to the topic the decision uses (the certificate's).
    var decider: PushDecider? = nil
    var environment: APNsEnvironment = .sandbox

    /// Records what the codec and the decision core made of the connection's bytes.
    /// `decided` is the notification's request as the decision read it, routed
    /// (its topic and push type the ones its certificate sends it to), when the caller has it: a decided notification's
    /// event follows its decision at once, so the request need not be built twice.
    func observe(_ event: LegacySessionEvent, authentication: AuthenticationResult, decided: PushRequest? = nil) {
        guard let journal else { return }
        switch event {
        case .accepted(let notification):
            let request = decided ?? routedRequest(notification.pushRequest(), authentication: authentication)
            record(notification, request: request, authentication: authentication, reason: nil, action: nil, in: journal)
        case .failed(.decision(let reason, let notification), let action):
            let request = decided ?? routedRequest(notification.pushRequest(), authentication: authentication)
            record(notification, request: request, authentication: authentication, reason: reason, action: action, in: journal)
        case .failed(.frame(let error), let action):
            record(error, authentication: authentication, action: action, in: journal)
        case .dropped(let frame):
            recordDropped(frame, authentication: authentication, in: journal)
        case .diagnosis:
            break  // The handler reports every diagnosis, its own included, through `diagnosis(_:)`.
        }
    }

    func diagnosis(_ diagnosis: LegacyDiagnosis) {
        journal?.record(
            .diagnosis(code: "legacy.\(diagnosis.code)", message: diagnosis.message, figures: diagnosis.figures),
            connection: connectionID
        )
    }

    /// A deadline of the connection's that passed (`timeout.*`), with the figures behind it.
    func timeout(code: String, message: String, figures: [JournalFigure]) {
        journal?.record(.diagnosis(code: code, message: message, figures: figures), connection: connectionID)
    }

    func feedbackTuple(_ entry: FeedbackEntry) {
        journal?.record(.feedbackTuple(deviceToken: entry.deviceToken, timestampMilliseconds: entry.timestamp), connection: connectionID)
    }

    /// A queued feedback entry that cannot be written as a tuple, and why.
    func feedbackSkipped(_ entry: FeedbackEntry, reason: String) {
        journal?.record(
            .diagnosis(code: "feedback.tupleSkipped", message: "feedback entry for \(entry.deviceToken) not sent: \(reason)"),
            connection: connectionID
        )
    }

    /// The request as the decision core reads it: legacy frames name no topic, so the
    /// certificate's is the one the push goes to.
    private func routedRequest(_ request: PushRequest, authentication: AuthenticationResult) -> PushRequest {
        guard let decider else { return request }
        return decider.route(request, context: DecisionContext(environment: environment, authentication: authentication))
    }

    private func record(
        _ notification: LegacyNotification, request: PushRequest, authentication: AuthenticationResult, reason: Reason?,
        action: LegacyConnectionAction?, in journal: Journal
    ) {
        let frame = JournalLegacyFrame(
            command: notification.command.rawValue, identifier: notification.identifier,
            deviceToken: request.deviceToken, payloadLength: notification.payload.count,
            frameLength: notification.frameLength
        )
        var record = NotificationRecord(
            transport: .legacy, deviceToken: request.deviceToken, topic: request.topic,
            pushType: request.pushType?.rawValue, expiration: request.expiration,
            legacyIdentifier: notification.identifier, payload: notification.payload,
            authentication: JournalAuthentication(authentication), accepted: reason == nil, reason: reason
        )
        record.legacyCommand = notification.command.rawValue
        record.priority = request.priority?.rawValue
        record.legacyStatus = Self.status(action)
        journal.record(.legacyFrame(frame), then: .notification(record), connection: connectionID)
    }

    /// A frame the codec refused: its frame event, then a notification record with the
    /// status sent (none for a silent close), the nearest APNs reason, and the problem.
    private func record(
        _ error: LegacyFrameError, authentication: AuthenticationResult, action: LegacyConnectionAction,
        in journal: Journal
    ) {
        let token = error.token.map { JournalJSON.hex($0) }
        let problem = describe(error, action)
        journal.record(.legacyFrame(JournalLegacyFrame(
            command: error.command, identifier: error.identifier, deviceToken: token,
            payloadLength: error.payloadLength, problem: problem, rawBytes: error.leadingBytes
        )), connection: connectionID)
        var record = NotificationRecord(
            transport: .legacy, deviceToken: token ?? "", legacyIdentifier: error.identifier, payload: [],
            authentication: JournalAuthentication(authentication), accepted: false, reason: error.problem.reason
        )
        record.topic = routedRequest(PushRequest(transport: .legacy, deviceToken: "", payload: []), authentication: authentication).topic
        record.payloadLength = error.payloadLength ?? 0
        record.legacyCommand = error.command
        record.legacyStatus = Self.status(action)
        record.problem = error.problem.description
        journal.record(.notification(record), connection: connectionID)
    }

    /// A frame discarded unexamined after the failure or shutdown, with what was read of it.
    private func recordDropped(_ frame: LegacyDroppedFrame, authentication: AuthenticationResult, in journal: Journal) {
        let token = frame.token.map { JournalJSON.hex($0) }
        var payload: [UInt8] = []
        var payloadLength: Int?
        var frameLength: Int?
        var problem: String?
        switch frame {
        case .notification(let notification):
            payload = notification.payload
            payloadLength = notification.payload.count
            frameLength = notification.frameLength
        case .invalid(let error):
            payloadLength = error.payloadLength
            problem = error.problem.description
        }
        journal.record(.legacyFrame(JournalLegacyFrame(
            command: frame.command, identifier: frame.identifier, deviceToken: token, payloadLength: payloadLength,
            frameLength: frameLength, problem: problem, dropped: true
        )), connection: connectionID)
        var record = NotificationRecord(
            transport: .legacy, deviceToken: token ?? "", legacyIdentifier: frame.identifier, payload: payload,
            authentication: JournalAuthentication(authentication), accepted: false, dropped: true
        )
        record.topic = routedRequest(PushRequest(transport: .legacy, deviceToken: "", payload: []), authentication: authentication).topic
        if let payloadLength { record.payloadLength = max(record.payloadLength, payloadLength) }
        record.legacyCommand = frame.command
        record.problem = problem
        journal.record(.notification(record), connection: connectionID)
    }

    private static func status(_ action: LegacyConnectionAction?) -> LegacyStatus? {
        if case .sendErrorAndClose(let response)? = action { return response.status }
        return nil
    }

    private func describe(_ error: LegacyFrameError, _ action: LegacyConnectionAction) -> String {
        switch action {
        case .sendErrorAndClose(let response): return "\(error.problem) (status \(response.status.rawValue) sent)"
        case .closeSilently: return "\(error.problem) (closed without a packet)"
        }
    }
}
