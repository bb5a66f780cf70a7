import MockAPNsWire
import Synchronization

/// The server's knowledge of device tokens, shared by every connection and both protocols,
/// and the queue behind the legacy feedback service.
///
/// By default every well-formed token is deliverable on every topic in both environments.
/// Tokens can then be bound to an environment or to topics, expired, or unregistered. An
/// HTTP/2 push to an unregistered token gets `410 Unregistered` with the unregistration time;
/// the legacy gateway answers status 8; and the feedback service reports the token once.
///
/// A server playing both environments binds each token to the environment its first push
/// reached (`bindsEnvironmentOnFirstPush`): a later push to the other one gets
/// `BadDeviceToken`, as Apple answers a token of the other environment.
///
/// Pushes can be limited per token (`limitPushes`) or server-wide (`rateWindow`): a push over
/// the window gets `429 TooManyRequests`.
///
/// Tokens are compared case-insensitively: they are stored in lowercase.
public final class DeviceRegistry: Sendable {
    private struct State: Sendable {
        var records: [String: TokenRecord] = [:]
        var feedback: [FeedbackEntry] = []
        /// Every token's count in its current rate window (its own window or the server-wide one).
        var rateCounts: [String: RateCount] = [:]
        /// Counts whose windows ended are swept out when the table reaches this size.
        var nextRateSweep = 1024
        /// The server-wide rate window; `nil` means none.
        var rateWindow: RateWindow?
    }

    private let state: Mutex<State>
    /// Told of each rate window given to a token (`observeRateWindows`).
    private let windowObserver = Mutex<(@Sendable (String, RateWindow) -> Void)?>(nil)
    /// Whether the first push to an unbound token binds it to the environment it reached.
    package let bindsEnvironmentOnFirstPush: Bool

    /// An empty registry: every token is deliverable. `rateWindow` limits every token that
    /// has no window of its own; `bindsEnvironmentOnFirstPush` is for a server playing both
    /// environments.
    package init(rateWindow: RateWindow? = nil, bindsEnvironmentOnFirstPush: Bool = false) {
        self.state = Mutex(State(rateWindow: rateWindow))
        self.bindsEnvironmentOnFirstPush = bindsEnvironmentOnFirstPush
    }

    // MARK: - What the decision core asks

    /// Whether a push to `token` on `topic` in `environment` can be delivered, without
    /// counting it against any push budget. `topic` may be `nil` when the request has none;
    /// topic bindings are then not checked.
    package func status(
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
    /// then the token's rate window (its own, else the server-wide one): `TooManyRequests`.
    /// Only pushes that pass every other registry rule count against the window. `now` is
    /// read only when a window applies.
    package func admit(
        _ token: String,
        topic: String?,
        environment: APNsEnvironment,
        at now: @autoclosure () -> Int64
    ) -> TokenStatus {
        admission(token, topic: topic, environment: environment, at: now()).status
    }

    /// What `admit` decides, with the diagnosis the journal records when the registry refused
    /// for a reason the answer alone does not tell: a token of the other environment, or a
    /// full rate window (with its figures).
    package func admission(
        _ token: String,
        topic: String?,
        environment: APNsEnvironment,
        at now: @autoclosure () -> Int64
    ) -> RegistryAdmission {
        let binds = bindsEnvironmentOnFirstPush
        return state.withLock { state in
            // The usual case for load tests: nothing configured, nothing to hash.
            guard !state.records.isEmpty || state.rateWindow != nil || binds else { return RegistryAdmission(.deliverable) }
            let token = Self.canonical(token)
            var record = state.records[token]
            if binds, record?.environment == nil {
                var bound = record ?? TokenRecord()
                bound.environment = environment
                bound.environmentSource = .firstPush
                state.records[token] = bound
                record = bound
            }
            if let record {
                let status = record.status(topic: topic, environment: environment)
                guard status == .deliverable else {
                    guard let tokenEnvironment = record.environment, tokenEnvironment != environment else {
                        return RegistryAdmission(status)
                    }
                    return RegistryAdmission(status, Self.otherEnvironment(
                        token: token, belongsTo: tokenEnvironment, source: record.environmentSource, reached: environment))
                }
            }
            guard let window = record?.rateWindow ?? state.rateWindow else { return RegistryAdmission(.deliverable) }
            let isServerWide = record?.rateWindow == nil
            let time = now()
            if state.rateCounts.count >= state.nextRateSweep { Self.sweepRateCounts(&state, at: time) }
            let number = state.rateCounts[token, default: RateCount()].count(at: time, in: window)
            guard number > window.pushes else { return RegistryAdmission(.deliverable) }
            let start = state.rateCounts[token]?.windowStart ?? time
            let (end, overflow) = start.addingReportingOverflow(window.perMilliseconds)
            let refusal = RateRefusal(
                window: window, isServerWide: isServerWide, pushNumber: number, windowStart: start,
                millisecondsLeft: overflow ? 0 : max(0, end - time)
            )
            return RegistryAdmission(.refused(.tooManyRequests, timestamp: nil), refusal.diagnosis(token: token))
        }
    }

    /// The environment `token` belongs to, if it belongs to one.
    public func environment(of token: String) -> APNsEnvironment? {
        state.withLock { $0.records[Self.canonical(token)]?.environment }
    }

    private static func otherEnvironment(
        token: String, belongsTo tokenEnvironment: APNsEnvironment, source: TokenRecord.EnvironmentSource,
        reached environment: APNsEnvironment
    ) -> Diagnosis {
        let how: String
        switch source {
        case .set: how = "set through the control API, a scenario or the Swift API"
        case .firstPush: how = "its first push reached the \(tokenEnvironment.rawValue) listener"
        }
        return Diagnosis(
            .registryTokenInOtherEnvironment,
            "Token \(token) belongs to the \(tokenEnvironment.rawValue) environment (\(how)); this push reached the "
                + "\(environment.rawValue) listener. APNs answers BadDeviceToken for a token of the other environment: "
                + "the provider sent a \(tokenEnvironment.rawValue) token to the \(environment.rawValue) host. Do not "
                + "disable the device: send its pushes to \(tokenEnvironment == .sandbox ? "api.sandbox.push.apple.com" : "api.push.apple.com")."
        )
    }

    /// Forgets the counts whose windows have ended, and sets the next sweep at twice what is
    /// left, so sweeping costs a constant share of admissions however many tokens there are.
    private static func sweepRateCounts(_ state: inout State, at now: Int64) {
        let records = state.records
        let serverWide = state.rateWindow
        state.rateCounts = state.rateCounts.filter { token, count in
            guard let window = records[token]?.rateWindow ?? serverWide else { return false }
            return !count.hasEnded(at: now, in: window)
        }
        state.nextRateSweep = max(1024, state.rateCounts.count * 2)
    }

    // MARK: - What the control API and scenarios change

    /// Restricts `token` to `environment`; in the other one it is `BadDeviceToken`.
    public func bind(_ token: String, to environment: APNsEnvironment) {
        update(token) { record in
            record.environment = environment
            record.environmentSource = .set
        }
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
    package func queueFeedback(_ token: String, since timestamp: Int64, topic: String? = nil) -> Bool {
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
        limitPushes(token, to: RateWindow(pushes: maximum, perMilliseconds: period))
    }

    /// Gives `token` its own rate window. Setting the window it already has changes nothing,
    /// so a scenario rule that sets it on every push does not restart the count; a different
    /// window starts a fresh count.
    public func limitPushes(_ token: String, to window: RateWindow) {
        limitPushes(token, to: window, announcing: true)
    }

    /// `limitPushes(_:to:)`; `announcing: false` keeps the change from the observer (one
    /// another replica of a fleet made).
    package func limitPushes(_ token: String, to window: RateWindow, announcing: Bool) {
        let token = Self.canonical(token)
        let changed = state.withLock { state in
            guard state.records[token]?.rateWindow != window else { return false }
            state.records[token, default: TokenRecord()].rateWindow = window
            state.rateCounts[token] = nil
            return true
        }
        if changed, announcing { windowObserver.withLock { $0 }?(token, window) }
    }

    /// Tells `observer` of every rate window given to a token from now on (by the control API
    /// or a scenario's `limitRate` rule), after the change and outside the registry's lock.
    package func observeRateWindows(_ observer: @escaping @Sendable (_ token: String, _ window: RateWindow) -> Void) {
        windowObserver.withLock { $0 = observer }
    }

    /// Removes the push limit of `token`: the server-wide window applies again, if any.
    public func removePushLimit(_ token: String) {
        let token = Self.canonical(token)
        state.withLock { state in
            guard state.records[token]?.rateWindow != nil else { return }
            state.records[token]?.rateWindow = nil
            state.rateCounts[token] = nil
        }
    }

    /// How many tokens have a count in a rate window (for tests of the sweep).
    var rateCountsForTests: Int { state.withLock { $0.rateCounts.count } }

    /// Whether `token` has a rate window of its own.
    package func hasOwnRateWindow(_ token: String) -> Bool {
        state.withLock { $0.records[Self.canonical(token)]?.rateWindow != nil }
    }

    /// The rate window of `token`: its own, else the server-wide one.
    public func rateWindow(of token: String) -> RateWindow? {
        state.withLock { $0.records[Self.canonical(token)]?.rateWindow ?? $0.rateWindow }
    }

    /// The server-wide rate window (`registry.rateLimit`), for every token without its own;
    /// `nil` removes it.
    package var rateWindow: RateWindow? {
        get { state.withLock { $0.rateWindow } }
        set {
            state.withLock { state in
                state.rateWindow = newValue
                state.rateCounts = state.rateCounts.filter { state.records[$0.key]?.rateWindow != nil }
            }
        }
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
        state.withLock { state in
            state.records[token] = nil
            state.rateCounts[token] = nil
        }
    }

    /// Forgets every token and every queued feedback entry; says how many of each there were.
    /// The server-wide rate window stays: it is configuration, not state.
    @discardableResult
    package func removeAll() -> (tokens: Int, feedbackEntries: Int) {
        state.withLock { state in
            defer { state = State(rateWindow: state.rateWindow) }
            return (state.records.count, state.feedback.count)
        }
    }

    // MARK: - Feedback service

    /// Returns and removes the queued entries a certificate for `topics` in `environment`
    /// collects, oldest first. Entries without a topic or environment match any.
    package func drainFeedback(topics: Set<String>, environment: APNsEnvironment) -> [FeedbackEntry] {
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
    package var pendingFeedback: [FeedbackEntry] {
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
    package static func canonical(_ token: String) -> String {
        token.asciiLowercased
    }
}
