/// Every reason string APNs puts in an error response body (`{"reason":"..."}`) or in a
/// GOAWAY's debug data, with the HTTP status Apple pairs it with, the legacy binary-gateway
/// status that expresses the same failure, and Apple's retry advice.
///
/// This is the one table of failures in MockAPNs: the HTTP/2 mouth, the legacy gateway and
/// scenarios all speak in `Reason`s.
public enum Reason: String, CaseIterable, Sendable, Hashable, Codable {
    // 400
    case badCollapseId = "BadCollapseId"
    case badDeviceToken = "BadDeviceToken"
    case badExpirationDate = "BadExpirationDate"
    case badMessageId = "BadMessageId"
    case badPriority = "BadPriority"
    case badTopic = "BadTopic"
    case deviceTokenNotForTopic = "DeviceTokenNotForTopic"
    case duplicateHeaders = "DuplicateHeaders"
    case idleTimeout = "IdleTimeout"
    case invalidPushType = "InvalidPushType"
    case missingDeviceToken = "MissingDeviceToken"
    case missingTopic = "MissingTopic"
    case payloadEmpty = "PayloadEmpty"
    case topicDisallowed = "TopicDisallowed"
    // 400, broadcast push (channel management and broadcast sends; docs/broadcast-protocol.md)
    case badChannelId = "BadChannelId"
    case cannotCreateChannelConfig = "CannotCreateChannelConfig"
    case channelNotRegistered = "ChannelNotRegistered"
    case featureNotEnabled = "FeatureNotEnabled"
    case missingChannelId = "MissingChannelId"
    case missingPushType = "MissingPushType"
    /// Seen from the channel management API for a bundle id the credentials did not cover
    /// (Apple forum, 2024); not in Apple's table.
    case topicMismatch = "TopicMismatch"
    /// Not an Apple reason: Apple names no refusal for a bad `message-storage-policy`.
    /// MockAPNs' default for it, configurable (`BroadcastOptions.badStoragePolicyReason`).
    case badMessageStoragePolicy = "BadMessageStoragePolicy"
    // 403
    case badCertificate = "BadCertificate"
    case badCertificateEnvironment = "BadCertificateEnvironment"
    case expiredProviderToken = "ExpiredProviderToken"
    case forbidden = "Forbidden"
    case invalidProviderToken = "InvalidProviderToken"
    case missingProviderToken = "MissingProviderToken"
    case unrelatedKeyIdInToken = "UnrelatedKeyIdInToken"
    case badEnvironmentKeyIdInToken = "BadEnvironmentKeyIdInToken"
    /// Not in Apple's table; one client library (APNSwift) recorded APNs sending it.
    case badEnvironmentKeyInToken = "BadEnvironmentKeyInToken"
    // 404, 405
    case badPath = "BadPath"
    case methodNotAllowed = "MethodNotAllowed"
    // 410
    case expiredToken = "ExpiredToken"
    case unregistered = "Unregistered"
    // 413
    case payloadTooLarge = "PayloadTooLarge"
    // 429
    case tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
    case tooManyRequests = "TooManyRequests"
    // 5xx
    case internalServerError = "InternalServerError"
    case serviceUnavailable = "ServiceUnavailable"
    case shutdown = "Shutdown"

    /// The HTTP status APNs answers with this reason.
    public var httpStatus: Int {
        switch self {
        case .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority,
             .badTopic, .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType,
             .missingDeviceToken, .missingTopic, .payloadEmpty, .topicDisallowed,
             .badChannelId, .cannotCreateChannelConfig, .channelNotRegistered, .featureNotEnabled,
             .missingChannelId, .missingPushType, .topicMismatch, .badMessageStoragePolicy:
            return 400
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden,
             .invalidProviderToken, .missingProviderToken, .unrelatedKeyIdInToken,
             .badEnvironmentKeyIdInToken, .badEnvironmentKeyInToken:
            return 403
        case .badPath: return 404
        case .methodNotAllowed: return 405
        case .expiredToken, .unregistered: return 410
        case .payloadTooLarge: return 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: return 429
        case .internalServerError: return 500
        case .serviceUnavailable, .shutdown: return 503
        }
    }

    /// The status byte the legacy binary gateway sends for the same failure.
    ///
    /// The binary protocol has far fewer statuses than HTTP/2 has reasons. Token problems of
    /// every kind become `invalidToken` (8), as Apple documents for tokens of the other
    /// environment; server-side failures become `processingError` (1); `Shutdown` is 10;
    /// anything with no binary counterpart is `unknown` (255).
    public var legacyStatus: LegacyStatus {
        switch self {
        case .missingDeviceToken: return .missingDeviceToken
        case .missingTopic: return .missingTopic
        case .payloadEmpty: return .missingPayload
        case .payloadTooLarge: return .invalidPayloadSize
        case .badTopic, .topicDisallowed: return .invalidTopicSize
        case .badDeviceToken, .deviceTokenNotForTopic, .expiredToken, .unregistered:
            return .invalidToken
        case .shutdown: return .shutdown
        case .internalServerError, .serviceUnavailable: return .processingError
        case .badCollapseId, .badExpirationDate, .badMessageId, .badPriority, .duplicateHeaders,
             .idleTimeout, .invalidPushType, .badChannelId, .cannotCreateChannelConfig,
             .channelNotRegistered, .featureNotEnabled, .missingChannelId, .missingPushType, .topicMismatch,
             .badMessageStoragePolicy, .badCertificate, .badCertificateEnvironment, .expiredProviderToken,
             .forbidden, .invalidProviderToken, .missingProviderToken, .unrelatedKeyIdInToken,
             .badEnvironmentKeyIdInToken, .badEnvironmentKeyInToken, .badPath, .methodNotAllowed,
             .tooManyProviderTokenUpdates, .tooManyRequests:
            return .unknown
        }
    }

    /// Apple's advice to the provider about sending the same notification again.
    public var retryAdvice: RetryAdvice {
        switch self {
        case .badDeviceToken, .deviceTokenNotForTopic, .forbidden, .expiredToken, .unregistered,
             .payloadTooLarge:
            return .doNotRetry
        case .tooManyRequests, .tooManyProviderTokenUpdates:
            return .retryAfterDelay
        case .internalServerError, .serviceUnavailable, .shutdown:
            return .retryLater
        case .badCollapseId, .badExpirationDate, .badMessageId, .badPriority, .badTopic, .duplicateHeaders,
             .idleTimeout, .invalidPushType, .missingDeviceToken, .missingTopic, .payloadEmpty,
             .topicDisallowed, .badChannelId, .cannotCreateChannelConfig, .channelNotRegistered,
             .featureNotEnabled, .missingChannelId, .missingPushType, .topicMismatch,
             .badMessageStoragePolicy, .badCertificate, .badCertificateEnvironment, .expiredProviderToken,
             .invalidProviderToken, .missingProviderToken, .unrelatedKeyIdInToken,
             .badEnvironmentKeyIdInToken, .badEnvironmentKeyInToken, .badPath, .methodNotAllowed:
            return .fixRequest
        }
    }

    /// Whether a response with this reason carries `"timestamp"` (only 410 does).
    public var carriesTimestamp: Bool { httpStatus == 410 }
}

/// Apple's guidance on what a provider should do after an error.
public enum RetryAdvice: String, Sendable, Codable {
    /// Correct the request; sending it unchanged fails again.
    case fixRequest
    /// Never send it again (for example, the token is gone).
    case doNotRetry
    /// Retry after backing off.
    case retryAfterDelay
    /// A server-side condition; Apple suggests retrying after about 15 minutes.
    case retryLater
}
