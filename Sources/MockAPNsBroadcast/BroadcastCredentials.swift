import MockAPNsCore
/// Whether a connection's credentials let it manage or broadcast on a bundle id's channels:
/// the provider API's authentication rules, applied to the bundle id of the path.
///
/// Authentication comes before anything else the request says: "APNs validates the request
/// using either the provided authentication token or your server's certificate. If
/// authentication succeeds, APNs then validates the channel ID" ("Sending broadcast push
/// notification requests to APNs").
enum BroadcastCredentials {
    /// `nil` when the credentials are valid in `environment`; otherwise the 403 refusal:
    /// none at all (`MissingProviderToken`), refused ones (their reason), or a certificate
    /// of the other environment (`BadCertificateEnvironment`).
    /// A provider token refused only because its key does not cover the bundle id
    /// (`TopicDisallowed`, the device push answer) passes here: `coverageRefusal` answers it.
    static func authenticationRefusal(_ authentication: AuthenticationResult, environment: APNsEnvironment) -> Reason? {
        switch authentication {
        case .notRequired, .providerToken:
            return nil
        case .unauthenticated:
            return .missingProviderToken
        case .rejected(.topicDisallowed):
            return nil
        case .rejected(let reason):
            return reason
        case .certificate(_, _, let environments):
            return environments.contains(environment) ? nil : .badCertificateEnvironment
        }
    }

    /// `nil` when the credentials cover `bundleID`; otherwise `notCovered` (Apple:
    /// `TopicMismatch`, "The bundle IDs parsed from your token or certificate don't include
    /// the topic present in the path").
    /// - A certificate covers the bundle ids it names as its subject or in its topics, and
    ///   the bundle ids whose Live Activity topic it lists.
    /// - A topic-specific provider key covers its topics the same way; a team-scoped key
    ///   covers every bundle id.
    static func coverageRefusal(_ authentication: AuthenticationResult, bundleID: String, notCovered: Reason) -> Reason? {
        let liveActivityTopic = bundleID + (PushType.liveactivity.topicSuffix ?? "")
        switch authentication {
        case .rejected(.topicDisallowed):
            // The provider token verifier found the key does not cover the path's bundle id.
            return notCovered
        case .notRequired, .unauthenticated, .rejected:
            return nil
        case .certificate(let topics, let defaultTopic, _):
            let covered = defaultTopic == bundleID || topics.contains(bundleID) || topics.contains(liveActivityTopic)
            return covered ? nil : notCovered
        case .providerToken(_, _, let allowedTopics):
            guard let allowedTopics else { return nil }
            let covered = allowedTopics.contains(bundleID) || allowedTopics.contains(liveActivityTopic)
            return covered ? nil : notCovered
        }
    }

    /// Whether `bundleID` ends with one of Apple's push-type topic suffixes that no bundle id
    /// ends with in practice (`.push-type.liveactivity`, `.push-type.widgets`,
    /// `.push-type.controls`, `.pushkit.fileprovider`, `.location-query`, `.voip-ptt`):
    /// `TopicDisallowed`, "Ensure that no push type suffix is added to the bundle ID"
    /// ("Handling error responses from Apple Push Notification service"). `.voip` and
    /// `.complication` are left alone: real bundle ids end with those words.
    static func hasPushTypeSuffix(_ bundleID: String) -> Bool {
        switch TopicRules.suffix(of: bundleID)?.type {
        case .liveactivity?, .widgets?, .controls?, .fileprovider?, .location?, .pushtotalk?:
            return true
        case nil, .alert?, .background?, .voip?, .complication?, .mdm?:
            return false
        }
    }
}
