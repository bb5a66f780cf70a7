/// Everything the registry was told about one token. A token with no record is deliverable
/// everywhere.
struct TokenRecord: Sendable {
    /// The only environment the token works in; `nil` means both.
    var environment: APNsEnvironment?
    /// How `environment` was decided, for the journal's account of a refusal.
    var environmentSource: EnvironmentSource = .set
    /// The only topics the token may receive; `nil` means any topic.
    var topics: Set<String>?
    /// Since when the token is unregistered for every topic.
    var unregisteredEverywhereSince: Int64?
    /// Since when the token is unregistered, per topic.
    var unregisteredSince: [String: Int64] = [:]
    /// Since when the token is expired.
    var expiredSince: Int64?
    /// The token's own rate window; `nil` means the server-wide one, if any.
    var rateWindow: RateWindow?

    /// How a token came to belong to one environment.
    enum EnvironmentSource: Sendable {
        /// The control API, a scenario or the Swift API said so.
        case set
        /// Its first push reached this environment's listener (a server playing both).
        case firstPush
    }

    /// Applies the record's rules in a fixed order: environment (`BadDeviceToken`), topic
    /// binding (`DeviceTokenNotForTopic`, or `TopicDisallowed`), expiry (`ExpiredToken`), then
    /// unregistration (`Unregistered`).
    func status(topic: String?, environment serverEnvironment: APNsEnvironment) -> TokenStatus {
        if let environment, environment != serverEnvironment {
            return .refused(.badDeviceToken, timestamp: nil)
        }
        if let topic, let topics, !topics.contains(topic) {
            return .refused(Self.reasonForUnboundTopic(topic, boundTopics: topics), timestamp: nil)
        }
        if let expiredSince {
            return .refused(.expiredToken, timestamp: expiredSince)
        }
        if let since = unregisteredEverywhereSince ?? topic.flatMap({ unregisteredSince[$0] }) {
            return .refused(.unregistered, timestamp: since)
        }
        return .deliverable
    }

    /// A token bound to `com.x.voip` pushed on the bare bundle topic `com.x` was seen to get
    /// `TopicDisallowed` (node-apn #658); every other foreign topic gets
    /// `DeviceTokenNotForTopic` (PyAPNs2 #134).
    private static func reasonForUnboundTopic(_ topic: String, boundTopics: Set<String>) -> Reason {
        let isBareBundleOfABoundTopic = boundTopics.contains { bound in
            bound != topic && TopicRules.bundleID(of: bound) == topic[...]
        }
        return isBareBundleOfABoundTopic ? .topicDisallowed : .deviceTokenNotForTopic
    }
}
