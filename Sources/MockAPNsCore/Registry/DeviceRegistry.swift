import Synchronization

/// The server's knowledge of device tokens, shared by every connection and both protocols,
/// and the queue behind the legacy feedback service.
///
/// By default every well-formed token is deliverable on every topic in both environments.
/// Tokens can then be bound to an environment or to topics, expired, or unregistered. An
/// HTTP/2 push to an unregistered token gets `410 Unregistered` with the unregistration time;
/// the legacy gateway answers status 8; and the feedback service reports the token once.
///
/// Tokens are compared case-insensitively: they are stored in lowercase.
public final class DeviceRegistry: Sendable {
    private struct State: Sendable {
        var records: [String: TokenRecord] = [:]
        var feedback: [FeedbackEntry] = []
    }

    private let state = Mutex(State())

    /// An empty registry: every token is deliverable.
    public init() {}

    // MARK: - What the decision core asks

    /// Whether a push to `token` on `topic` in `environment` can be delivered, without
    /// counting it against any push budget. `topic` may be `nil` when the request has none;
    /// topic bindings are then not checked.
    public func status(
        of token: String,
        topic: String?,
        environment: APNsEnvironment
    ) -> TokenStatus {
        state.withLock { state in
            // The usual case for load tests: nothing configured, nothing to hash.
            guard !state.records.isEmpty,
                  let record = state.records[Self.canonical(token)] else { return .deliverable }
            return record.status(topic: topic, environment: environment)
        }
    }

    /// Counts a push to `token` and says whether it can be delivered: `status(of:topic:environment:)`,
    /// then the token's push budget, if it has one (`TooManyRequests`). Only pushes that pass
    /// every other registry rule count against the budget. `now` is read only for tokens
    /// with a budget.
    public func admit(
        _ token: String,
        topic: String?,
        environment: APNsEnvironment,
        at now: @autoclosure () -> Int64
    ) -> TokenStatus {
        state.withLock { state in
            guard !state.records.isEmpty else { return .deliverable }
            let token = Self.canonical(token)
            guard let record = state.records[token] else { return .deliverable }
            let status = record.status(topic: topic, environment: environment)
            guard status == .deliverable, record.budget != nil else { return status }
            let fits = state.records[token]?.budget?.admit(at: now()) ?? true
            return fits ? .deliverable : .refused(.tooManyRequests, timestamp: nil)
        }
    }

    // MARK: - What the control API and scenarios change

    /// Restricts `token` to `environment`; in the other one it is `BadDeviceToken`.
    public func bind(_ token: String, to environment: APNsEnvironment) {
        update(token) { $0.environment = environment }
    }

    /// Restricts `token` to `topics`; other topics get `DeviceTokenNotForTopic`.
    public func bind(_ token: String, toTopics topics: Set<String>) {
        update(token) { $0.topics = topics }
    }

    /// Marks `token` unregistered since `timestamp` (milliseconds since 1970), for one topic
    /// or, when `topic` is `nil`, for every topic.
    ///
    /// The first time a token becomes unregistered in a scope, a feedback entry is queued:
    /// one per bound topic when it is unregistered everywhere and bound to topics, else one
    /// for `topic` (`nil`: any certificate collects it). Marking it again in the same scope
    /// only moves the timestamp (Apple reports the last time it confirmed the token invalid)
    /// and queues nothing.
    public func markUnregistered(_ token: String, since timestamp: Int64, topic: String? = nil) {
        let token = Self.canonical(token)
        state.withLock { state in
            var record = state.records[token] ?? TokenRecord()
            let isNew: Bool
            if let topic {
                isNew = record.unregisteredEverywhereSince == nil
                    && record.unregisteredSince[topic] == nil
                record.unregisteredSince[topic] = timestamp
            } else {
                isNew = record.unregisteredEverywhereSince == nil
                record.unregisteredEverywhereSince = timestamp
            }
            state.records[token] = record
            guard isNew else { return }

            let feedbackTopics: [String?] = topic.map { [$0] }
                ?? record.topics.map { $0.sorted() } ?? [nil]
            for feedbackTopic in feedbackTopics {
                state.feedback.append(FeedbackEntry(
                    deviceToken: token,
                    timestamp: timestamp,
                    topic: feedbackTopic,
                    environment: record.environment
                ))
            }
        }
    }

    /// Queues one feedback tuple for `token` (for `topic`, or any certificate when `nil`) and
    /// marks it unregistered since `timestamp`, as a tuple in the feedback service says.
    ///
    /// Explicit and idempotent per delivery: the tuple is queued unless one for the same
    /// token and topic is already waiting (then only its timestamp moves); once the feedback
    /// service has handed a tuple out, the next call queues a new one. Returns whether a
    /// tuple was added.
    @discardableResult
    public func queueFeedback(_ token: String, since timestamp: Int64, topic: String? = nil) -> Bool {
        let token = Self.canonical(token)
        return state.withLock { state in
            var record = state.records[token] ?? TokenRecord()
            if let topic {
                record.unregisteredSince[topic] = timestamp
            } else {
                record.unregisteredEverywhereSince = timestamp
            }
            state.records[token] = record
            if let pending = state.feedback.firstIndex(where: { $0.deviceToken == token && $0.topic == topic }) {
                state.feedback[pending].timestamp = timestamp
                return false
            }
            state.feedback.append(FeedbackEntry(
                deviceToken: token, timestamp: timestamp, topic: topic, environment: record.environment
            ))
            return true
        }
    }

    /// Marks `token` expired since `timestamp` (milliseconds since 1970): `410 ExpiredToken`.
    /// Expiry does not feed the feedback service, which reports uninstalled apps only.
    public func markExpired(_ token: String, since timestamp: Int64) {
        update(token) { $0.expiredSince = timestamp }
    }

    /// Allows at most `maximum` pushes to `token` in each window of `period` milliseconds;
    /// further pushes in the window get `429 TooManyRequests`. Apple publishes no numbers.
    public func limitPushes(_ token: String, to maximum: Int, perMilliseconds period: Int64) {
        update(token) { $0.budget = PushBudget(maximum: maximum, periodMilliseconds: period) }
    }

    /// Removes the push limit of `token`.
    public func removePushLimit(_ token: String) {
        update(token) { $0.budget = nil }
    }

    /// Makes `token` deliverable again (clears unregistration and expiry), keeping its
    /// environment and topic bindings, and removes its feedback tuples still waiting: a
    /// token the app registered again must not be reported as uninstalled.
    public func reactivate(_ token: String) {
        let token = Self.canonical(token)
        state.withLock { state in
            var record = state.records[token] ?? TokenRecord()
            record.unregisteredEverywhereSince = nil
            record.unregisteredSince = [:]
            record.expiredSince = nil
            state.records[token] = record
            state.feedback.removeAll { $0.deviceToken == token }
        }
    }

    /// Forgets everything about `token` except its queued feedback entries.
    public func forget(_ token: String) {
        let token = Self.canonical(token)
        state.withLock { _ = $0.records.removeValue(forKey: token) }
    }

    /// Forgets every token and every queued feedback entry; says how many of each there were.
    @discardableResult
    public func removeAll() -> (tokens: Int, feedbackEntries: Int) {
        state.withLock { state in
            defer { state = State() }
            return (state.records.count, state.feedback.count)
        }
    }

    // MARK: - Feedback service

    /// Returns and removes the queued entries a certificate for `topics` in `environment`
    /// collects, oldest first. Entries without a topic or environment match any.
    public func drainFeedback(topics: Set<String>, environment: APNsEnvironment) -> [FeedbackEntry] {
        state.withLock { state in
            var drained: [FeedbackEntry] = []
            state.feedback.removeAll { entry in
                guard entry.belongs(toTopics: topics, environment: environment) else { return false }
                drained.append(entry)
                return true
            }
            return drained
        }
    }

    /// Every queued entry, oldest first, without removing any (for the control API).
    public var pendingFeedback: [FeedbackEntry] {
        state.withLock { $0.feedback }
    }

    // MARK: - Helpers

    private func update(_ token: String, _ change: (inout TokenRecord) -> Void) {
        let token = Self.canonical(token)
        state.withLock { state in
            change(&state.records[token, default: TokenRecord()])
        }
    }

    /// The stored spelling of a token: ASCII letters lowercased, nothing else touched.
    static func canonical(_ token: String) -> String {
        guard token.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
            return token
        }
        return String(decoding: token.utf8.map { byte in
            byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
        }, as: UTF8.self)
    }
}
