import MockAPNsCore

/// What one legacy gateway or feedback connection writes to the journal: each frame, each
/// notification with its outcome, diagnoses, and feedback tuples sent.
struct LegacyJournaling {
    let journal: Journal?
    let connectionID: UInt64

    /// Records what the codec and the decision core made of the connection's bytes.
    func observe(_ event: LegacySessionEvent, authentication: AuthenticationResult) {
        guard let journal else { return }
        switch event {
        case .accepted(let notification):
            record(notification, authentication: authentication, reason: nil, action: nil, in: journal)
        case .failed(.decision(let reason, let notification), let action):
            record(notification, authentication: authentication, reason: reason, action: action, in: journal)
        case .failed(.frame(let error), let action):
            journal.record(.legacyFrame(JournalLegacyFrame(
                command: error.command, identifier: error.identifier, problem: describe(error, action),
                rawBytes: error.leadingBytes
            )), connection: connectionID)
        case .dropped(let identifier):
            journal.record(.legacyFrame(JournalLegacyFrame(command: 0xFF, identifier: identifier, dropped: true)), connection: connectionID)
            journal.record(.notification(NotificationRecord(
                transport: .legacy, deviceToken: "", legacyIdentifier: identifier, payload: [],
                authentication: JournalAuthentication(authentication), accepted: false, dropped: true
            )), connection: connectionID)
        case .diagnosis:
            break  // The handler reports every diagnosis, its own included, through `diagnosis(_:)`.
        }
    }

    func diagnosis(_ diagnosis: LegacyDiagnosis) {
        journal?.record(.diagnosis(code: "legacy.\(diagnosis.code)", message: diagnosis.message), connection: connectionID)
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

    private func record(
        _ notification: LegacyNotification, authentication: AuthenticationResult, reason: Reason?,
        action: LegacyConnectionAction?, in journal: Journal
    ) {
        var request = notification.pushRequest()
        if case .certificate(_, let defaultTopic, _) = authentication {
            // Legacy frames name no topic: the certificate's is the one the push went to.
            request.topic = defaultTopic
        }
        journal.record(.legacyFrame(JournalLegacyFrame(
            command: notification.command.rawValue, identifier: notification.identifier,
            deviceToken: request.deviceToken, payloadLength: notification.payload.count,
            frameLength: notification.frameLength
        )), connection: connectionID)
        var record = NotificationRecord(
            transport: .legacy, deviceToken: request.deviceToken, topic: request.topic,
            expiration: request.expiration, legacyIdentifier: notification.identifier,
            payload: notification.payload, authentication: JournalAuthentication(authentication),
            accepted: reason == nil, reason: reason
        )
        record.priority = request.priority?.rawValue
        if case .sendErrorAndClose(let response)? = action { record.legacyStatus = response.status }
        journal.record(.notification(record), connection: connectionID)
    }

    private func describe(_ error: LegacyFrameError, _ action: LegacyConnectionAction) -> String {
        switch action {
        case .sendErrorAndClose(let response): return "\(error.problem) (status \(response.status.rawValue) sent)"
        case .closeSilently: return "\(error.problem) (closed without a packet)"
        }
    }
}
