extension Reason {
    /// What Apple's documentation says the reason means, in one sentence (paraphrased from
    /// "Handling notification responses from APNs"), for people reading a refusal.
    public var meaning: String {
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
        case .topicDisallowed: "Pushing to this topic is not allowed."
        case .badCertificate: "The client certificate is invalid."
        case .badCertificateEnvironment: "The client certificate is for the other environment."
        case .expiredProviderToken: "The provider token is stale (issued more than an hour ago); sign a new one."
        case .forbidden: "The action is not allowed."
        case .invalidProviderToken: "The provider token is not valid, or its signature cannot be verified."
        case .missingProviderToken: "No client certificate and no provider token: there is no way to authenticate."
        case .unrelatedKeyIdInToken: "The token's key id is not related to the team or topic."
        case .badEnvironmentKeyIdInToken: "The token's key is not enabled for this environment."
        case .badEnvironmentKeyInToken: "The token's key is not enabled for this environment (a variant spelling seen from APNs)."
        case .badPath: "The request path is not /3/device/<token>."
        case .methodNotAllowed: "Only POST is supported."
        case .expiredToken: "The device token has expired."
        case .unregistered: "The device token is no longer active for the topic (the app was removed or notifications were turned off)."
        case .payloadTooLarge: "The payload is larger than the push type allows (4 KB, 5 KB for VoIP)."
        case .tooManyProviderTokenUpdates: "The provider token is being updated too often; change it at most once every 20 minutes."
        case .tooManyRequests: "Too many requests were sent to the same device token in a short time."
        case .internalServerError: "An internal server error occurred; retry later."
        case .serviceUnavailable: "The service is unavailable; retry later."
        case .shutdown: "The server is shutting down; reconnect elsewhere."
        }
    }
}
