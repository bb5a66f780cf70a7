import MockAPNsCore
extension JournalEventKind.Name {
    /// Whether the journal records this kind once per wire frame: many events per request,
    /// which readers that follow the journal live (the dashboard) leave out unless asked.
    package var isPerFrame: Bool {
        switch self {
        case .http2Frame, .legacyFrame: true
        case .connectionOpened, .connectionClosed, .tlsEstablished, .tlsFailed, .notification, .fault,
             .feedbackTuple, .diagnosis, .broadcast, .channelOperation, .verdict, .delivery:
            false
        }
    }

    /// What an event of this kind records, in one sentence.
    package var meaning: String {
        switch self {
        case .connectionOpened: "A client connected to one of the listeners."
        case .connectionClosed: "A connection closed, with the side that closed it and why."
        case .tlsEstablished: "A TLS handshake completed: version, cipher, ALPN, SNI and the client certificate."
        case .tlsFailed: "A TLS handshake failed, with the alert sent or received and what it means."
        case .http2Frame: "One HTTP/2 frame in either direction, with its decoded headers or settings."
        case .legacyFrame: "One legacy binary gateway frame, with its fields, or its bytes when it was refused."
        case .notification: "One notification to a device, with the answer the client got."
        case .fault: "A fault a scenario injected."
        case .feedbackTuple: "One tuple the feedback service sent."
        case .diagnosis: "A likely provider mistake or a protocol error, explained (see the diagnosis codes)."
        case .broadcast: "One broadcast to a channel on the provider API, with its answer."
        case .channelOperation: "One channel management request (create, read, read all, delete) and its answer."
        case .verdict: "A finding on a provider's retry logic (a push after Unregistered, a retry too soon, a lost notification...), with its evidence."
        case .delivery: "A step in a notification's life after its answer: stored, delivered from storage or a batch, replaced, discarded or expired, and a device going offline or online (a delivery on arrival is not recorded: it is derived from the notification's own event)."
        }
    }
}
