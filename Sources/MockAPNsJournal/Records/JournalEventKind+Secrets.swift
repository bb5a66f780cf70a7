import MockAPNsCore

extension JournalEventKind {
    /// The event as it may be recorded under `providerTokens`: every text field a client
    /// chose (a request's header values, the device token from its path, what a problem or a
    /// diagnosis quotes) with provider tokens rewritten by their structure, so a JWT sent in
    /// `apns-collapse-id` or `apns-id` is kept no more replayable than one sent where it
    /// belongs. Frames are made recordable by their own recorders (HTTP/2's remembers the
    /// last header list; legacy frames carry bytes, and a token there is 32 bytes of binary),
    /// and payloads are the content a test asserts on, recorded as sent.
    package func recordable(_ providerTokens: ProviderTokenRecording) -> JournalEventKind {
        guard providerTokens != .whole else { return self }
        switch self {
        case .notification(let record):
            return .notification(record.recordable(providerTokens))
        case .diagnosis(let code, let message, let figures):
            let recorded = providerTokens.apply(message)
            return recorded == message ? self : .diagnosis(code: code, message: recorded, figures: figures)
        case .fault(let description):
            let recorded = providerTokens.apply(description)
            return recorded == description ? self : .fault(description: recorded)
        case .connectionClosed(let transport, let closedBy, let reason?):
            let recorded = providerTokens.apply(reason)
            return recorded == reason ? self : .connectionClosed(transport: transport, closedBy: closedBy, reason: recorded)
        case .broadcast(let record):
            var recorded = record
            recorded.channelID = record.channelID.map(providerTokens.apply)
            recorded.topic = record.topic.map(providerTokens.apply)
            recorded.pushType = record.pushType.map(providerTokens.apply)
            recorded.requestAPNsID = record.requestAPNsID.map(providerTokens.apply)
            recorded.requestID = providerTokens.apply(record.requestID)
            recorded.priority = record.priority.map(providerTokens.apply)
            recorded.expiration = record.expiration.map(providerTokens.apply)
            return .broadcast(recorded)
        case .connectionOpened, .connectionClosed, .tlsEstablished, .tlsFailed, .http2Frame, .legacyFrame,
             .feedbackTuple, .channelOperation, .verdict, .delivery:
            return self
        }
    }
}

extension NotificationRecord {
    /// The record with provider tokens in its text fields rewritten as `providerTokens` says.
    /// Each field is looked at in place; the record is copied only when one changes (almost
    /// never: a device token, topic or UUID holds no JWS's structure).
    package func recordable(_ providerTokens: ProviderTokenRecording) -> NotificationRecord {
        // A legacy record's fields are the server's own (the token as hex of its bytes, the
        // certificate's topic); only a problem quoting what was sent needs a look. A compact
        // legacy record has none, and is read no further; a compact HTTP/2 record is made only
        // of texts recorded as they are (`HTTP2RecordWriter`).
        switch storage {
        case .compactHTTP2:
            return self
        case .compactLegacy(let compact):
            if compact.block.context.authentication.detail == nil { return self }
        case .boxed(let box):
            if box.fields.transport == .legacy, box.fields.problem == nil, box.fields.authentication.detail == nil { return self }
        }
        var record = self
        // Fields read and written one by one, not through key paths: this runs for every
        // HTTP/2 and web push notification.
        if let recorded = Self.changed(deviceToken, providerTokens) { record.deviceToken = recorded }
        if let topic, let recorded = Self.changed(topic, providerTokens) { record.topic = recorded }
        if let pushType, let recorded = Self.changed(pushType, providerTokens) { record.pushType = recorded }
        if let requestAPNsID, let recorded = Self.changed(requestAPNsID, providerTokens) { record.requestAPNsID = recorded }
        if let collapseID, let recorded = Self.changed(collapseID, providerTokens) { record.collapseID = recorded }
        if let problem, let recorded = Self.changed(problem, providerTokens) { record.problem = recorded }
        if let detail = authentication.detail, let recorded = Self.changed(detail, providerTokens) {
            record.authentication.detail = recorded
        }
        return record
    }

    /// `value` as it may be recorded, when that differs from it.
    private static func changed(_ value: String, _ providerTokens: ProviderTokenRecording) -> String? {
        let recorded = providerTokens.apply(value)
        return recorded == value ? nil : recorded
    }
}
