/// Whether a connection's credentials let it manage or broadcast on a bundle id's channels:
/// the provider API's authentication rules, applied to the bundle id of the path.
enum BroadcastCredentials {
    /// `nil` when allowed; otherwise the refusal.
    /// - A certificate must be valid in this environment (`BadCertificateEnvironment`) and
    ///   name the bundle id, or its Live Activity topic, as its subject or in its topics.
    /// - A topic-specific provider key must list the bundle id or its Live Activity topic; a
    ///   team-scoped key covers every bundle id.
    static func refusal(
        _ authentication: AuthenticationResult, bundleID: String, environment: APNsEnvironment,
        notCovered: Reason
    ) -> Reason? {
        let liveActivityTopic = bundleID + (PushType.liveactivity.topicSuffix ?? "")
        switch authentication {
        case .notRequired:
            return nil
        case .unauthenticated:
            return .missingProviderToken
        case .rejected(let reason):
            return reason
        case .certificate(let topics, let defaultTopic, let environments):
            guard environments.contains(environment) else { return .badCertificateEnvironment }
            let covered = defaultTopic == bundleID || topics.contains(bundleID) || topics.contains(liveActivityTopic)
            return covered ? nil : notCovered
        case .providerToken(_, _, let allowedTopics):
            guard let allowedTopics else { return nil }
            let covered = allowedTopics.contains(bundleID) || allowedTopics.contains(liveActivityTopic)
            return covered ? nil : notCovered
        }
    }
}
