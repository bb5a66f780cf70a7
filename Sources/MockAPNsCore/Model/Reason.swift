/// Every reason string APNs puts in an error response body (`{"reason":"..."}`) or in a
/// GOAWAY's debug data, with the HTTP status Apple pairs it with, the legacy binary-gateway
/// status that expresses the same failure, and Apple's retry advice.
///
/// This is the one table of failures in MockAPNs: the HTTP/2 mouth, the legacy gateway and
/// scenarios all speak in `Reason`s.
public enum Reason: String, CaseIterable, Sendable, Hashable, Codable {
    // 400
    /// The `apns-collapse-id` is longer than 64 bytes.
    case badCollapseId = "BadCollapseId"
    /// The device token is malformed, or belongs to the other environment.
    case badDeviceToken = "BadDeviceToken"
    /// The `apns-expiration` value is not a number.
    case badExpirationDate = "BadExpirationDate"
    /// The `apns-id` is not a UUID in its canonical form.
    case badMessageId = "BadMessageId"
    /// The `apns-priority` is not 10, 5 or 1.
    case badPriority = "BadPriority"
    /// The `apns-topic` is not valid.
    case badTopic = "BadTopic"
    /// The device token does not belong to the `apns-topic`.
    case deviceTokenNotForTopic = "DeviceTokenNotForTopic"
    /// A header was sent more than once.
    case duplicateHeaders = "DuplicateHeaders"
    /// The connection was idle too long (a GOAWAY reason).
    case idleTimeout = "IdleTimeout"
    /// The `apns-push-type` is not one APNs knows.
    case invalidPushType = "InvalidPushType"
    /// The path names no device token.
    case missingDeviceToken = "MissingDeviceToken"
    /// No `apns-topic`, where the certificate covers more than one topic.
    case missingTopic = "MissingTopic"
    /// The request has no payload.
    case payloadEmpty = "PayloadEmpty"
    /// Pushing to this topic is not allowed.
    case topicDisallowed = "TopicDisallowed"
    // 400, broadcast push (channel management and broadcast sends): the table of "Handling
    // error responses from Apple Push Notification service"
    // (developer.apple.com/documentation/usernotifications/handling-error-responses-from-apns);
    // docs/broadcast-protocol.md
    /// Broadcast push: the channel id is not valid.
    case badChannelId = "BadChannelId"
    /// Broadcast push: the app has reached its limit of channels.
    case cannotCreateChannelConfig = "CannotCreateChannelConfig"
    /// Broadcast push: no channel has this id.
    case channelNotRegistered = "ChannelNotRegistered"
    /// Broadcast push: broadcast is not enabled for the bundle id.
    case featureNotEnabled = "FeatureNotEnabled"
    /// Broadcast push: the request names no channel id.
    case missingChannelId = "MissingChannelId"
    /// Broadcast push: the request carries no `apns-push-type`.
    case missingPushType = "MissingPushType"
    /// The JSON request body is unparseable.
    case badRequestPayload = "BadRequestPayload"
    /// The JSON request body has an attribute APNs does not recognize.
    case badRequestParams = "BadRequestParams"
    /// Not an Apple reason: Apple names no refusal for a bad `message-storage-policy`.
    /// Available for `BroadcastOptions.badStoragePolicyReason` (MockAPNs' default there is
    /// Apple's `BadRequestParams`).
    case badMessageStoragePolicy = "BadMessageStoragePolicy"
    // 403
    /// The client certificate is not valid.
    case badCertificate = "BadCertificate"
    /// The client certificate is for the other environment.
    case badCertificateEnvironment = "BadCertificateEnvironment"
    /// The provider token is older than an hour: sign a new one.
    case expiredProviderToken = "ExpiredProviderToken"
    /// The action is not allowed.
    case forbidden = "Forbidden"
    /// The provider token is not valid, or its signature does not verify.
    case invalidProviderToken = "InvalidProviderToken"
    /// No provider token and no client certificate.
    case missingProviderToken = "MissingProviderToken"
    /// The token's key id does not belong to the topic's team.
    case unrelatedKeyIdInToken = "UnrelatedKeyIdInToken"
    /// The token's key is not enabled for this environment.
    case badEnvironmentKeyIdInToken = "BadEnvironmentKeyIdInToken"
    /// Not in Apple's table; one client library (APNSwift) recorded APNs sending it.
    case badEnvironmentKeyInToken = "BadEnvironmentKeyInToken"
    /// Broadcast push: the bundle ids the token or certificate covers do not include the
    /// path's (403 in Apple's broadcast error table; also seen on a forum, 2024).
    case topicMismatch = "TopicMismatch"
    /// Web push (Safari, web.push.apple.com): the VAPID JWT is missing, signed with the wrong
    /// private key, or its `sub`, `aud` or `exp` is not acceptable — the one refusal Apple
    /// documents in "Sending web push notifications in web apps and browsers"
    /// (developer.apple.com/documentation/usernotifications/sending-web-push-notifications-in-web-apps-and-browsers).
    case badJwtToken = "BadJwtToken"
    // 404, 405
    /// The request path is not one APNs serves.
    case badPath = "BadPath"
    /// The method is not POST.
    case methodNotAllowed = "MethodNotAllowed"
    // 410
    /// The device token has expired (410, with a timestamp).
    case expiredToken = "ExpiredToken"
    /// The device token is no longer active for the topic (410, with a timestamp).
    case unregistered = "Unregistered"
    // 413
    /// The payload is larger than APNs takes for the push type.
    case payloadTooLarge = "PayloadTooLarge"
    // 429
    /// The provider token was changed too often.
    case tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
    /// Too many requests to the same device token.
    case tooManyRequests = "TooManyRequests"
    // 5xx
    /// An internal server error (500).
    case internalServerError = "InternalServerError"
    /// The service is unavailable (503).
    case serviceUnavailable = "ServiceUnavailable"
    /// The server is shutting down (a GOAWAY reason).
    case shutdown = "Shutdown"

    /// The HTTP status APNs answers with this reason.
    public var httpStatus: Int {
        switch self {
        case .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority,
             .badTopic, .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType,
             .missingDeviceToken, .missingTopic, .payloadEmpty, .topicDisallowed,
             .badChannelId, .cannotCreateChannelConfig, .channelNotRegistered, .featureNotEnabled,
             .missingChannelId, .missingPushType, .badRequestPayload, .badRequestParams, .badMessageStoragePolicy:
            return 400
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden,
             .invalidProviderToken, .missingProviderToken, .unrelatedKeyIdInToken,
             .badEnvironmentKeyIdInToken, .badEnvironmentKeyInToken, .topicMismatch, .badJwtToken:
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
    package var legacyStatus: LegacyStatus {
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
             .badRequestPayload, .badRequestParams, .badMessageStoragePolicy, .badCertificate, .badCertificateEnvironment, .expiredProviderToken,
             .forbidden, .invalidProviderToken, .missingProviderToken, .unrelatedKeyIdInToken,
             .badEnvironmentKeyIdInToken, .badEnvironmentKeyInToken, .badPath, .methodNotAllowed,
             .tooManyProviderTokenUpdates, .tooManyRequests:
            return .unknown
        // Web push has no binary-gateway counterpart; the closest failure there, a provider
        // token refused, has no status byte of its own either.
        case .badJwtToken:
            return .unknown
        }
    }

    /// Apple's advice to the provider about sending the same notification again.
    package var retryAdvice: RetryAdvice {
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
             .featureNotEnabled, .missingChannelId, .missingPushType, .topicMismatch, .badRequestPayload,
             .badRequestParams, .badMessageStoragePolicy, .badCertificate, .badCertificateEnvironment, .expiredProviderToken,
             .invalidProviderToken, .missingProviderToken, .unrelatedKeyIdInToken,
             .badEnvironmentKeyIdInToken, .badEnvironmentKeyInToken, .badPath, .methodNotAllowed,
             .badJwtToken:
            return .fixRequest
        }
    }

    /// Whether a response with this reason carries `"timestamp"` (only 410 does).
    package var carriesTimestamp: Bool { httpStatus == 410 }
}

/// Apple's guidance on what a provider should do after an error.
package enum RetryAdvice: String, Sendable, Codable {
    /// Correct the request; sending it unchanged fails again.
    case fixRequest
    /// Never send it again (for example, the token is gone).
    case doNotRetry
    /// Retry after backing off.
    case retryAfterDelay
    /// A server-side condition; Apple suggests retrying after about 15 minutes.
    case retryLater
}

extension Reason {
    /// What Apple's documentation says the reason means, in one sentence (paraphrased from
    /// "Handling notification responses from APNs"), for people reading a refusal.
    package var meaning: String {
        switch self {
        case .badCollapseId: "The collapse identifier exceeds the maximum allowed size."
        case .badDeviceToken: "The device token is invalid, or was issued for the other environment (sandbox versus production)."
        case .badExpirationDate: "The apns-expiration value is invalid."
        case .badMessageId: "The apns-id value is not a valid UUID."
        case .badPriority: "The apns-priority value is not 1, 5 or 10."
        case .badTopic: "The apns-topic value is invalid."
        case .deviceTokenNotForTopic: "The device token does not match the specified topic."
        case .duplicateHeaders: "One or more headers are repeated."
        case .idleTimeout: "The connection was idle too long and is being closed."
        case .invalidPushType: "The apns-push-type value is not one Apple knows."
        case .missingDeviceToken: "The request path has no device token."
        case .missingTopic: "The apns-topic header is required here (the certificate covers several topics) and is missing."
        case .payloadEmpty: "The message payload is empty."
        case .topicDisallowed: "Pushing to this topic is not allowed (on the broadcast APIs: the bundle id carries a push-type suffix)."
        case .badChannelId: "The apns-channel-id is not properly encoded, or is longer than allowed."
        case .cannotCreateChannelConfig: "The app has reached the maximum number of broadcast channels."
        case .channelNotRegistered: "No broadcast channel with this id exists for the app in this environment."
        case .featureNotEnabled: "Broadcast push is not enabled for this topic."
        case .missingChannelId: "The request needs an apns-channel-id header and has none."
        case .missingPushType: "The request needs a push type and has none."
        case .topicMismatch: "The bundle ids the token or certificate covers do not include the one in the path."
        case .badJwtToken: "Web push: the VAPID JWT is missing, signed with the wrong private key, or its subject, audience or expiration is not acceptable."
        case .badRequestPayload: "The JSON request body cannot be parsed."
        case .badRequestParams: "The JSON request body has an attribute APNs does not recognize."
        case .badMessageStoragePolicy: "The message storage policy is missing or not 0 or 1 (a MockAPNs reason: Apple names none)."
        case .badCertificate: "The client certificate is invalid."
        case .badCertificateEnvironment: "The client certificate is for the other environment."
        case .expiredProviderToken: "The provider token is stale (issued more than an hour ago); sign a new one."
        case .forbidden: "The action is not allowed."
        case .invalidProviderToken: "The provider token is not valid, or its signature cannot be verified."
        case .missingProviderToken: "No client certificate and no provider token: there is no way to authenticate."
        case .unrelatedKeyIdInToken: "The token's key id is not related to the team or topic."
        case .badEnvironmentKeyIdInToken: "The token's key is not enabled for this environment."
        case .badEnvironmentKeyInToken: "The token's key is not enabled for this environment (a variant spelling seen from APNs)."
        case .badPath: "The request path is not one APNs serves (/3/device/<token>, /4/broadcasts/apps/<bundle id>, /1/apps/<bundle id>/channels)."
        case .methodNotAllowed: "The :method is not one the path takes (POST for pushes and broadcasts)."
        case .expiredToken: "The device token has expired."
        case .unregistered: "The device token is no longer active for the topic (the app was removed or notifications were turned off)."
        case .payloadTooLarge: "The payload is larger than allowed (4 KB; 5 KB for VoIP pushes and broadcasts)."
        case .tooManyProviderTokenUpdates: "The provider token is being updated too often; change it at most once every 20 minutes."
        case .tooManyRequests: "Too many requests were sent to the same device token in a short time."
        case .internalServerError: "An internal server error occurred; retry later."
        case .serviceUnavailable: "The service is unavailable; retry later."
        case .shutdown: "The server is shutting down; reconnect elsewhere."
        }
    }
}
