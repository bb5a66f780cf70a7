/// One tuple waiting for the legacy feedback service: a token that became unregistered.
package struct FeedbackEntry: Sendable, Hashable {
    /// The device token, lowercase hex.
    package var deviceToken: String
    /// When the token became unregistered, in milliseconds since 1970.
    package var timestamp: Int64
    /// The topic the token was unregistered for; `nil` when it was unregistered for every
    /// topic and bound to none, in which case any certificate may collect it.
    package var topic: String?
    /// The environment the token belongs to; `nil` when unknown (any environment collects it).
    package var environment: APNsEnvironment?

    package init(deviceToken: String, timestamp: Int64, topic: String?, environment: APNsEnvironment?) {
        self.deviceToken = deviceToken
        self.timestamp = timestamp
        self.topic = topic
        self.environment = environment
    }

    /// The timestamp in whole seconds, as the feedback tuple carries it.
    package var secondsSince1970: Int64 { timestamp / 1000 }

    /// Whether a certificate for `topics` in `environment` collects this entry.
    func belongs(toTopics topics: Set<String>, environment: APNsEnvironment) -> Bool {
        (topic.map(topics.contains) ?? true) && (self.environment.map { $0 == environment } ?? true)
    }
}
