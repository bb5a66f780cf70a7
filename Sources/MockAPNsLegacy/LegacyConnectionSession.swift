import MockAPNsCore
/// How the gateway answers bytes it cannot parse (an unknown command, a frame whose items do
/// not fit it, a frame length no frame can have). Apple's sources disagree, so it is a choice.
package enum LegacyParseErrorPolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Send status 128 (protocol error), as the 2018 status table lists, then close.
    case statusPacket
    /// Close without sending a byte, as Apple's TN2265 describes. The default: it is what
    /// providers met in practice (none of java-apns, node-apn, pushy or NWPusher even knew
    /// status 128), so client code tested against the mock sees what it saw in production.
    case silentClose
}

/// What the gateway does with a notification whose payload is not JSON. Apple's binary
/// documentation names no status for it (its only payload statuses are 4, missing, and 7,
/// size), and the HTTP/2 service is known to accept payloads of the wrong structure; whether
/// the gateway parsed JSON at all is not recorded anywhere MockAPNs could find.
package enum LegacyInvalidJSONPolicy: Sendable, Hashable {
    /// Accept it (the connection stays open) and journal `legacy.payloadNotJSON`. The
    /// default: the most plausible reading of the sources (no status for it exists).
    case accept
    /// Answer this status packet (command 1 and 2; command 0 closes silently), then close.
    case refuse(LegacyStatus)
    /// Close without a packet, as for a frame the gateway cannot parse (TN2265).
    case closeSilently
}

/// How a legacy connection behaves, beyond the sizes it accepts.
package struct LegacySessionOptions: Sendable, Equatable {
    package var limits: LegacyLimits
    /// Default `.silentClose`; see `LegacyParseErrorPolicy`.
    package var parseErrorPolicy: LegacyParseErrorPolicy
    /// Report identifier 0 instead of the real one with status 2 (missing device token), as
    /// pushy's authors saw Apple do. Off by default.
    package var reportsZeroIdentifierForMissingToken: Bool
    /// Whether frames are checked for common provider mistakes.
    package var detectsMistakes: Bool
    /// Default `.accept`; see `LegacyInvalidJSONPolicy`.
    package var invalidJSONPayload: LegacyInvalidJSONPolicy

    package init(
        limits: LegacyLimits = .standard,
        parseErrorPolicy: LegacyParseErrorPolicy = .silentClose,
        reportsZeroIdentifierForMissingToken: Bool = false,
        detectsMistakes: Bool = true,
        invalidJSONPayload: LegacyInvalidJSONPolicy = .accept
    ) {
        self.limits = limits
        self.parseErrorPolicy = parseErrorPolicy
        self.reportsZeroIdentifierForMissingToken = reportsZeroIdentifierForMissingToken
        self.detectsMistakes = detectsMistakes
        self.invalidJSONPayload = invalidJSONPayload
    }
}

/// What the connection must do after the first failure.
package enum LegacyConnectionAction: Sendable, Hashable {
    /// Write the 6-byte packet, then close.
    case sendErrorAndClose(LegacyErrorResponse)
    /// Close without writing anything.
    case closeSilently

    /// The bytes to write before closing (empty for a silent close).
    package var bytes: [UInt8] {
        switch self {
        case .sendErrorAndClose(let response): return response.bytes
        case .closeSilently: return []
        }
    }
}

/// Why a notification or frame failed.
package enum LegacyFailureCause: Sendable, Equatable {
    /// The decision core rejected a well-formed notification.
    case decision(Reason, LegacyNotification)
    /// The codec rejected the frame.
    case frame(LegacyFrameError)
}

/// What happened on a legacy connection, for the journal.
package enum LegacySessionEvent: Sendable, Equatable {
    /// The decision core accepted the notification.
    case accepted(LegacyNotification)
    /// The first failure on the connection; `action` is the answer to it.
    case failed(LegacyFailureCause, action: LegacyConnectionAction)
    /// A notification or frame that arrived after the failure (or after shutdown) and was
    /// discarded unexamined, as Apple does: what was read of it.
    case dropped(LegacyDroppedFrame)
    /// A likely provider mistake.
    case diagnosis(LegacyDiagnosis)
}

/// A frame discarded unexamined after the connection's failure or shutdown, as far as the
/// codec read it: its real command, identifier and token.
package enum LegacyDroppedFrame: Sendable, Equatable {
    /// A well-formed notification the decision core never saw.
    case notification(LegacyNotification)
    /// A frame the codec could not have accepted either.
    case invalid(LegacyFrameError)

    package var command: UInt8 {
        switch self {
        case .notification(let notification): notification.command.rawValue
        case .invalid(let error): error.command
        }
    }

    package var identifier: UInt32? {
        switch self {
        case .notification(let notification): notification.identifier
        case .invalid(let error): error.identifier
        }
    }

    /// The token bytes, when the frame was read far enough to find them.
    package var token: [UInt8]? {
        switch self {
        case .notification(let notification): notification.token
        case .invalid(let error): error.token
        }
    }
}

/// Everything one `receive` produced, for callers that prefer a value to a callback.
package struct LegacySessionOutput: Sendable, Equatable {
    package var events: [LegacySessionEvent]
    /// Set by the call in which the connection failed, and only by that one.
    package var action: LegacyConnectionAction?
}

/// The legacy gateway's rules for one connection, without any networking.
///
/// Notifications are judged one by one as they are decoded. Nothing is sent for a success.
/// The first failure produces the connection's only answer (an error packet or a silent
/// close); from then on every frame is dropped and counted, because Apple discards whatever
/// follows a bad notification and the provider must resend it.
package struct LegacyConnectionSession: Sendable {
    package let options: LegacySessionOptions
    private var decoder: LegacyFrameDecoder

    /// The answer given, once the connection has failed or been shut down.
    package private(set) var action: LegacyConnectionAction?
    /// Notifications the decision core accepted.
    package private(set) var acceptedCount = 0
    /// Notifications and frames discarded after the failure.
    package private(set) var droppedCount = 0
    /// Of those, the frames that could not be parsed at all (no notification in them).
    package private(set) var unparseableDroppedCount = 0
    /// The identifier of the last accepted notification that had one (command 0 has none).
    package private(set) var lastAcceptedIdentifier: UInt32?

    package init(options: LegacySessionOptions = LegacySessionOptions()) {
        self.options = options
        self.decoder = LegacyFrameDecoder(limits: options.limits, detectsMistakes: options.detectsMistakes)
    }

    /// Whether the connection has failed or been shut down and only drops frames now.
    package var isClosing: Bool { action != nil }

    /// Bytes received but never decoded (skipped payloads, or everything after the stream
    /// became unparseable).
    package var discardedByteCount: Int { decoder.discardedByteCount }

    /// The frame begun and not yet complete while notifications are still judged; `nil`
    /// between frames and once the connection is closing (then nothing is judged any more).
    package var incompleteFrame: LegacyIncompleteFrame? {
        isClosing ? nil : decoder.incompleteFrame
    }

    /// Frames decided so far: a frame that completes and another that begins in one read
    /// are told apart by this count.
    package var framesDecided: Int { decoder.framesSeen }

    /// Handles bytes from the connection. `decide` judges each notification (`nil` accepts),
    /// given its payload's examination when one was made (by the mistake detector or the
    /// `invalidJSONPayload` policy), so the decision does not scan the payload again;
    /// `observe` sees every event in order. Returns the action if the connection failed
    /// during this call; a failure is answered once only.
    package mutating func receive(
        _ bytes: UnsafeRawBufferPointer,
        decide: (PushRequest, PayloadJSON?) -> Reason?,
        observe: (LegacySessionEvent) -> Void
    ) -> LegacyConnectionAction? {
        let wasClosing = isClosing
        // The decoder is moved out while it runs, because each event it emits updates this
        // session; an empty placeholder takes its place (no allocation, no buffer copy).
        var decoder = LegacyFrameDecoder(limits: options.limits, detectsMistakes: options.detectsMistakes)
        swap(&decoder, &self.decoder)
        decoder.feed(bytes) { event, examined in
            handle(event, examined: examined, decide: decide, observe: observe)
        }
        swap(&decoder, &self.decoder)
        return wasClosing ? nil : action
    }

    /// Handles bytes and collects what happened.
    package mutating func receive(_ bytes: [UInt8], decide: (PushRequest, PayloadJSON?) -> Reason?) -> LegacySessionOutput {
        var events: [LegacySessionEvent] = []
        let action = bytes.withUnsafeBytes { raw in
            receive(raw, decide: decide) { events.append($0) }
        }
        return LegacySessionOutput(events: events, action: action)
    }

    /// The server is going away: the status-10 packet naming the last accepted notification
    /// (0 if none), after which everything is dropped. `nil` if the connection already failed.
    package mutating func shutdown() -> LegacyErrorResponse? {
        guard !isClosing else { return nil }
        let response = LegacyErrorResponse(status: .shutdown, identifier: lastAcceptedIdentifier ?? 0)
        action = .sendErrorAndClose(response)
        return response
    }

    private mutating func handle(
        _ event: LegacyDecoderEvent,
        examined: PayloadJSON?,
        decide: (PushRequest, PayloadJSON?) -> Reason?,
        observe: (LegacySessionEvent) -> Void
    ) {
        switch event {
        case .diagnosis(let diagnosis):
            // After the failure nothing is examined, so there is nothing to diagnose.
            if !isClosing { observe(.diagnosis(diagnosis)) }
        case .notification(let notification):
            guard !isClosing else { return drop(.notification(notification), observe) }
            let json = examined ?? (options.invalidJSONPayload == .accept ? nil : PayloadJSON(notification.payload))
            if options.invalidJSONPayload != .accept, let problem = json?.problem {
                let offset: Int?
                switch problem {
                case .badByte(let at): offset = at
                case .incomplete: offset = nil
                }
                return fail(.frame(LegacyFrameError(
                    command: notification.command.rawValue, identifier: notification.identifier,
                    problem: .payloadNotJSON(offset: offset), token: notification.token, payloadLength: notification.payload.count,
                    payload: notification.payload.array
                )), observe)
            }
            if let reason = decide(notification.pushRequest(), json) {
                fail(.decision(reason, notification), observe)
            } else {
                acceptedCount += 1
                if let identifier = notification.identifier { lastAcceptedIdentifier = identifier }
                observe(.accepted(notification))
            }
        case .invalidFrame(let error):
            guard !isClosing else { return drop(.invalid(error), observe) }
            fail(.frame(error), observe)
        }
    }

    private mutating func drop(_ frame: LegacyDroppedFrame, _ observe: (LegacySessionEvent) -> Void) {
        droppedCount += 1
        if case .invalid(let error) = frame, error.status == nil { unparseableDroppedCount += 1 }
        observe(.dropped(frame))
    }

    private mutating func fail(_ cause: LegacyFailureCause, _ observe: (LegacySessionEvent) -> Void) {
        let action = answer(to: cause)
        self.action = action
        observe(.failed(cause, action: action))
    }

    /// The packet Apple sends for a failure, or a silent close.
    private func answer(to cause: LegacyFailureCause) -> LegacyConnectionAction {
        switch cause {
        case .decision(let reason, let notification):
            return packet(command: notification.command.rawValue, status: reason.legacyStatus, identifier: notification.identifier)
        case .frame(let error):
            if case .payloadNotJSON = error.problem {
                switch options.invalidJSONPayload {
                case .refuse(let status): return packet(command: error.command, status: status, identifier: error.identifier)
                case .closeSilently, .accept: return .closeSilently
                }
            }
            if let status = error.status {
                return packet(command: error.command, status: status, identifier: error.identifier)
            }
            switch options.parseErrorPolicy {
            case .silentClose: return .closeSilently
            case .statusPacket: return packet(command: error.command, status: .protocolError, identifier: error.identifier)
            }
        }
    }

    private func packet(command: UInt8, status: LegacyStatus, identifier: UInt32?) -> LegacyConnectionAction {
        // Command 0 carries no identifier, and Apple closes such connections without a word.
        guard command != LegacyCommand.simple.rawValue else { return .closeSilently }
        let reported: UInt32
        switch status {
        case .shutdown: reported = lastAcceptedIdentifier ?? 0
        case .missingDeviceToken where options.reportsZeroIdentifierForMissingToken: reported = 0
        default: reported = identifier ?? 0
        }
        return .sendErrorAndClose(LegacyErrorResponse(status: status, identifier: reported))
    }
}
