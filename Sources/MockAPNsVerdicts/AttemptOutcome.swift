import MockAPNsWire
import MockAPNsCore
import MockAPNsJournal
/// What one attempt to send a notification came to, as far as the provider's next move is
/// concerned: read from the record of what was sent (`SentAnswer`), never from what a rule
/// meant to send.
enum AttemptOutcome: Sendable, Equatable {
    /// The client was told the notification was accepted.
    case accepted
    /// Refused with a reason Apple says may be retried after a delay (429, 5xx), or one the
    /// provider fixes by renewing its token (`ExpiredProviderToken`).
    case retryable(Reason?, status: Int?)
    /// No answer reached the client: a reset stream, a dropped connection, a GOAWAY that left
    /// the stream unprocessed, a stall, an answer that could not be delivered, a frame dropped.
    case interrupted(Interruption)
    /// Answered 410: the token is gone (`Unregistered`, `ExpiredToken`).
    case gone(Reason)
    /// Refused with a reason Apple says not to retry, or one whose request must be changed first.
    case permanent(Reason)
    /// Refused over the credentials, not the notification (a bad certificate or token): the
    /// provider fixes its credentials, and sending the notification again then is right.
    case credentials(Reason)
    /// Refused with a status and no reason of Apple's (a scripted answer): judged by nothing.
    case refused(status: Int?)

    /// How no answer reached the client.
    enum Interruption: Sendable, Equatable {
        /// The connection went away, or the stream was refused unprocessed: RFC 9113 section
        /// 8.7 says such a request can be retried at once.
        case dropped
        /// The stream was reset, or left unanswered: the server may have worked on it.
        case reset
    }

    /// Whether the provider should send the notification again (after a delay).
    var isRetryable: Bool {
        switch self {
        case .retryable, .interrupted: true
        case .accepted, .gone, .permanent, .credentials, .refused: false
        }
    }

    /// The outcome of the attempt `record` describes.
    init(_ record: NotificationRecord) {
        self = record.withAnswer { answer in Self(answer, dropped: record.dropped) }
    }

    private init(_ answer: SentAnswer, dropped: Bool) {
        if answer.accepted {
            self = .accepted
            return
        }
        if dropped {
            self = .interrupted(.dropped)
            return
        }
        if let reason = answer.reason {
            self = Self.outcome(of: reason, status: answer.status)
            return
        }
        if let status = answer.status {
            self = status == 429 || status >= 500 ? .retryable(nil, status: status) : .refused(status: status)
            return
        }
        if answer.legacyPacket != nil {
            self = .refused(status: nil)
            return
        }
        switch answer.fault {
        case .closeConnection?, .resetConnection?, .sendGarbage?, .goAway?, .shutdown?, .closeAfterBytes?:
            self = .interrupted(.dropped)
        case .resetStream(let code)?:
            self = .interrupted(code == HTTP2ErrorCode.refusedStream ? .dropped : .reset)
        case .stall?, .lowerMaxConcurrentStreams?:
            self = .interrupted(.reset)
        case nil:
            // Nothing was written: an answer that could not be delivered.
            self = .interrupted(answer.undelivered == nil ? .reset : .dropped)
        }
    }

    /// Apple's advice for `reason`, as the verdicts use it.
    static func outcome(of reason: Reason, status: Int?) -> AttemptOutcome {
        if reason.isCredentialRefusal {
            // A token renewed (or a connection no longer blocked) makes the same notification good.
            let renewable = reason == .expiredProviderToken || reason.retryAdvice == .retryAfterDelay
            return renewable ? .retryable(reason, status: status) : .credentials(reason)
        }
        switch reason.retryAdvice {
        case .retryAfterDelay, .retryLater: return .retryable(reason, status: status)
        case .doNotRetry: return reason.httpStatus == 410 ? .gone(reason) : .permanent(reason)
        case .fixRequest: return .permanent(reason)
        }
    }

    /// The answer in a few words for a finding: `503 ServiceUnavailable`, `RST_STREAM`,
    /// `a dropped connection`.
    var words: String {
        switch self {
        case .accepted: "acceptance"
        case .retryable(let reason, let status):
            [status.map(String.init), reason?.rawValue].compactMap { $0 }.joined(separator: " ")
        case .interrupted(.dropped): "a dropped connection or unprocessed stream"
        case .interrupted(.reset): "a reset or unanswered stream"
        case .gone(let reason), .permanent(let reason), .credentials(let reason): "\(reason.httpStatus) \(reason.rawValue)"
        case .refused(let status): status.map { "status \($0)" } ?? "a refusal"
        }
    }
}

extension Reason {
    /// Whether the reason refuses the credentials (certificate or provider token) rather
    /// than the notification: sending the same notification again with good credentials is
    /// what the provider should do.
    var isCredentialRefusal: Bool {
        switch self {
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .invalidProviderToken,
             .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyIdInToken, .badEnvironmentKeyInToken,
             .tooManyProviderTokenUpdates, .badJwtToken:
            return true
        case .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
             .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
             .missingTopic, .payloadEmpty, .topicDisallowed, .badChannelId, .cannotCreateChannelConfig,
             .channelNotRegistered, .featureNotEnabled, .missingChannelId, .missingPushType, .topicMismatch,
             .badMessageStoragePolicy, .forbidden, .badPath, .methodNotAllowed, .expiredToken, .unregistered,
             .payloadTooLarge, .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown,
             .badRequestPayload, .badRequestParams:
            return false
        }
    }
}
