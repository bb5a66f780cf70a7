import Crypto
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Decides whether a request's provider token (`authorization: bearer <JWT>`) lets it through,
/// as APNs does for token-based connections.
///
/// One verifier serves every connection; each connection keeps its own
/// `ProviderTokenConnectionState` and passes it in. Checks run in this order, and the first
/// that fails decides the reason:
///
///  1. `authorization` absent, empty, or `bearer` with nothing after it → MissingProviderToken.
///  2. Present but not `bearer <token>` (another scheme, a bare JWT, extra words) →
///     InvalidProviderToken: something was sent, and it is not a usable token.
///  3. `apns-topic` absent or empty → MissingTopic (token connections always need a topic).
///  4. The connection is refusing requests after a too-early token update →
///     TooManyProviderTokenUpdates (see `ProviderTokenPolicy.earlyUpdateBlocksConnection`).
///  5. The same token string as the connection's current token: steps 6–14 were passed
///     before, so only the expiry (11) and the topic (16) are checked again. No crypto. The
///     same `authorization` value and topic as the last request it authenticated: only steps 4
///     and 11 are checked again, which depend on the time.
///  6. Not an ES256 JWT with `kid`, `iss` and `iat` (segments, base64url, JSON, `alg`) →
///     InvalidProviderToken. `typ` is optional; `iat` may be a number or a numeric string.
///  7. `kid` not registered → InvalidProviderToken.
///  8. Signature (raw `r‖s` or DER) does not verify → InvalidProviderToken.
///  9. `iss` is not the key's team → InvalidProviderToken.
/// 10. `iat` more than the tolerance in the future → InvalidProviderToken.
/// 11. `iat` an hour old or more → ExpiredProviderToken.
/// 12. The key does not serve this server's environment → BadEnvironmentKeyIdInToken. This also
///     covers "a key from the other environment" in Apple's key-mixing rules, because the
///     connection's first key served this environment too.
/// 13. The connection is tied to another team → `policy.otherTeamReason` (InvalidProviderToken).
/// 14. Key mixing: after a team-scoped first key, a topic-scoped key; after a topic-scoped first
///     key, a team-scoped key or a topic key not related to it → UnrelatedKeyIdInToken.
///     "Related" is the mock's choice: same team and exactly the same topics (a rotation).
/// 15. A different token less than 20 minutes after the current one was adopted →
///     TooManyProviderTokenUpdates. Only tokens that passed 6–14 count as updates: a broken
///     token is reported as broken. Otherwise the token becomes the connection's current one.
/// 16. The topic's bundle id (suffixes such as `.voip` stripped) is not covered by the key, or
///     by the connection's first key → TopicDisallowed.
/// 17. Authenticated. The first authenticated push ties the connection to its team and key.
package final class ProviderTokenVerifier: Sendable {
    package let policy: ProviderTokenPolicy
    private let clock: ServerClock
    // Guarded because the embedding API may register keys while connections authenticate.
    // Only new tokens read it; the repeated-token path never takes the lock.
    private let registry: Mutex<ProviderKeyRegistry>

    package init(registry: ProviderKeyRegistry, clock: ServerClock, policy: ProviderTokenPolicy = ProviderTokenPolicy()) {
        self.registry = Mutex(registry)
        self.clock = clock
        self.policy = policy
    }

    /// Adds or replaces a key; new tokens naming it are verified with it from now on.
    package func register(_ key: ProviderKey) {
        registry.withLock { $0.register(key) }
    }

    /// Removes a key; new tokens naming it are refused from now on.
    @discardableResult
    package func removeKey(id keyID: String) -> ProviderKey? {
        registry.withLock { $0.remove(keyID: keyID) }
    }

    /// The keys currently registered, ordered by Key ID.
    package var keys: [ProviderKey] {
        registry.withLock { $0.keys }
    }

    /// Authenticates one request on a connection. See the type's documentation for the order
    /// of checks.
    package func authenticate(
        authorization: String?,
        topic: String?,
        serverEnvironment: APNsEnvironment,
        state: inout ProviderTokenConnectionState
    ) -> ProviderTokenOutcome {
        do {
            return .authenticated(try identity(authorization: authorization, topic: topic,
                                               serverEnvironment: serverEnvironment, state: &state))
        } catch {
            return .rejected(error)
        }
    }

    private func identity(
        authorization: String?,
        topic: String?,
        serverEnvironment: APNsEnvironment,
        state: inout ProviderTokenConnectionState
    ) throws(ProviderTokenRejection) -> ProviderTokenIdentity {
        if let last = state.current?.lastRequest, let authorization, let topic,
           Self.sameBytes(authorization, last.authorization), Self.sameBytes(topic, last.topic) {
            // Steps 1–3, 5 (the same token) and 16 (the same topic, key and first key) passed
            // for exactly these values; only what depends on the time can have changed.
            let nowMilliseconds = clock.millisecondsSince1970
            try checkNotRefusing(state: &state, nowMilliseconds: nowMilliseconds)
            try checkAge(issuedAt: last.identity.issuedAt, now: nowMilliseconds / 1000, isNew: false)
            var identity = last.identity
            identity.servedFromCache = true
            return identity
        }
        let token = try Self.bearerToken(authorization)
        guard let topic, !topic.isEmpty else {
            throw ProviderTokenRejection(.missingTopic, "token authentication needs apns-topic")
        }
        let nowMilliseconds = clock.millisecondsSince1970
        let now = nowMilliseconds / 1000
        try checkNotRefusing(state: &state, nowMilliseconds: nowMilliseconds)

        let current: ProviderTokenConnectionState.CurrentToken
        let servedFromCache: Bool
        if let cached = state.current, Self.sameBytes(cached.token, token) {
            try checkAge(issuedAt: cached.issuedAt, now: now, isNew: false)
            current = cached
            servedFromCache = true
        } else {
            current = try verifyNewToken(token, serverEnvironment: serverEnvironment, now: now,
                                         nowMilliseconds: nowMilliseconds, state: &state)
            state.current = current
            servedFromCache = false
        }

        try checkTopic(topic, key: current.key, firstKey: state.firstKey)
        if state.firstKey == nil {
            state.firstKey = current.key
        }
        let identity = ProviderTokenIdentity(teamID: current.key.teamID, keyID: current.key.keyID,
                                             issuedAt: current.issuedAt,
                                             allowedTopics: Self.allowedTopics(current.key, firstKey: state.firstKey),
                                             notes: current.notes, servedFromCache: servedFromCache)
        if let authorization { state.current?.lastRequest = (authorization, topic, identity) }
        return identity
    }

    /// Steps 6–15 for a token the connection has not verified yet.
    private func verifyNewToken(
        _ token: Substring,
        serverEnvironment: APNsEnvironment,
        now: Int64,
        nowMilliseconds: Int64,
        state: inout ProviderTokenConnectionState
    ) throws(ProviderTokenRejection) -> ProviderTokenConnectionState.CurrentToken {
        let decoded = try DecodedProviderToken(token)
        let key: ProviderKey
        var takenOnTrust = false
        if let known = registry.withLock({ $0.key(id: decoded.keyID) }), Self.sameBytes(known.keyID, decoded.keyID) {
            key = known
        } else if policy.trustsUnknownKeys, let trusted = Self.keyTakenOnTrust(decoded) {
            key = trusted
            takenOnTrust = true
        } else {
            throw ProviderTokenRejection(.invalidProviderToken, "no key registered with kid \"\(decoded.keyID)\"; \(knownKeys())")
        }
        state.signatureVerificationCount += 1
        guard takenOnTrust || decoded.isSigned(by: key.publicKey) else {
            throw ProviderTokenRejection(
                .invalidProviderToken,
                "signature does not verify with key \(key.keyID): the token was signed with another private key "
                    + "(an AuthKey_\(key.keyID).p8 of another credentials folder?)")
        }
        guard Self.sameBytes(decoded.issuer, key.teamID) else {
            throw ProviderTokenRejection(.invalidProviderToken,
                                         "iss \"\(decoded.issuer)\" is not key \(key.keyID)'s team \(key.teamID)")
        }
        try checkAge(issuedAt: decoded.issuedAt, now: now, isNew: true)
        guard key.environment.covers(serverEnvironment) else {
            throw ProviderTokenRejection(.badEnvironmentKeyIdInToken,
                                         "key \(key.keyID) serves \(key.environment.rawValue), this server is \(serverEnvironment.rawValue)")
        }
        if let firstKey = state.firstKey {
            try checkMixing(key, after: firstKey)
        }
        if let previous = state.current {
            let seconds = policy.minimumTokenUpdateIntervalSeconds
            let interval = seconds > Int64.max / 1000 ? .max : seconds < Int64.min / 1000 ? .min : seconds * 1000
            let allowedFrom = saturating(previous.adoptedAtMilliseconds.addingReportingOverflow(interval))
            if nowMilliseconds < allowedFrom {
                if policy.earlyUpdateBlocksConnection {
                    state.refusingUntilMilliseconds = allowedFrom
                }
                throw ProviderTokenRejection(
                    .tooManyProviderTokenUpdates,
                    "new token \(saturating(nowMilliseconds.subtractingReportingOverflow(previous.adoptedAtMilliseconds)) / 1000) s after the previous one; allowed after \(policy.minimumTokenUpdateIntervalSeconds) s")
            }
        }
        return ProviderTokenConnectionState.CurrentToken(
            token: String(token), key: key, issuedAt: decoded.issuedAt, notes: decoded.notes,
            adoptedAtMilliseconds: nowMilliseconds)
    }

    /// Stands in for the public half of keys taken on trust (never used to verify): a key
    /// nobody holds the private half of.
    private static let unverifiableKey = P256.Signing.PrivateKey().publicKey

    /// A key this server does not know, as upstream mode takes it: the team the token names,
    /// every environment and topic. `nil` when the token's `kid` or `iss` is not an
    /// identifier Apple issues (10 upper-case letters or digits): that token is refused as usual.
    private static func keyTakenOnTrust(_ decoded: DecodedProviderToken) -> ProviderKey? {
        try? ProviderKey(keyID: decoded.keyID, teamID: decoded.issuer, environment: .both, scope: .team, topics: nil,
                         publicKey: unverifiableKey)
    }

    /// The key ids a token may name, for a token that named another: a few, then how many more.
    private func knownKeys() -> String {
        let ids = registry.withLock { $0.keys.map(\.keyID) }
        guard !ids.isEmpty else { return "this server has no provider keys (keys.json in its key directory)" }
        let shown = ids.prefix(8).joined(separator: ", ")
        return "this server's keys: \(shown)" + (ids.count > 8 ? " and \(ids.count - 8) more" : "")
    }

    private func checkNotRefusing(state: inout ProviderTokenConnectionState, nowMilliseconds: Int64) throws(ProviderTokenRejection) {
        guard let until = state.refusingUntilMilliseconds else { return }
        if nowMilliseconds < until {
            throw ProviderTokenRejection(.tooManyProviderTokenUpdates,
                                         "connection refuses requests for \(saturating(until.subtractingReportingOverflow(nowMilliseconds)) / 1000) s more after a too-early token update")
        }
        state.refusingUntilMilliseconds = nil
    }

    private func checkAge(issuedAt: Int64, now: Int64, isNew: Bool) throws(ProviderTokenRejection) {
        // Seconds `iat` lies ahead of the clock (negative: its age). Only a hostile `iat` near
        // Int64's limits overflows the subtraction; saturate instead of trapping.
        let ahead = saturating(issuedAt.subtractingReportingOverflow(now))
        if isNew && ahead > policy.futureIssuedAtToleranceSeconds {
            throw ProviderTokenRejection(
                .invalidProviderToken,
                "iat \(issuedAt) is \(ahead) s in the future; tolerance \(policy.futureIssuedAtToleranceSeconds) s")
        }
        let age = ahead == .min ? .max : -ahead
        if age >= policy.maximumTokenAgeSeconds {
            throw ProviderTokenRejection(
                .expiredProviderToken,
                "iat \(issuedAt) is \(age) s old; tokens last \(policy.maximumTokenAgeSeconds) s")
        }
    }

    /// Apple's key-mixing rules for a connection whose first push used `firstKey`. The
    /// environment half of those rules is step 12.
    private func checkMixing(_ key: ProviderKey, after firstKey: ProviderKey) throws(ProviderTokenRejection) {
        guard key.teamID == firstKey.teamID else {
            throw ProviderTokenRejection(policy.otherTeamReason,
                                         "connection belongs to team \(firstKey.teamID); this token is from team \(key.teamID)")
        }
        guard key.keyID != firstKey.keyID else { return }
        switch (firstKey.scope, key.scope) {
        case (.team, .team):
            return
        case (.topic, .topic) where key.topics == firstKey.topics:
            return
        default:
            throw ProviderTokenRejection(
                .unrelatedKeyIdInToken,
                "key \(key.keyID) (\(key.scope.rawValue)-scoped) is unrelated to the connection's first key \(firstKey.keyID) (\(firstKey.scope.rawValue)-scoped)")
        }
    }

    private func checkTopic(_ topic: String, key: ProviderKey, firstKey: ProviderKey?) throws(ProviderTokenRejection) {
        if !Self.covers(key, topic: topic) {
            throw ProviderTokenRejection(.topicDisallowed, "topic \"\(topic)\" is not among key \(key.keyID)'s topics")
        }
        if let firstKey, !Self.covers(firstKey, topic: topic) {
            throw ProviderTokenRejection(.topicDisallowed,
                                         "topic \"\(topic)\" is not among the connection's first key \(firstKey.keyID)'s topics")
        }
    }

    /// A key covers a topic if it lists the topic itself or the bundle id under its push-type
    /// suffix (`com.example.app.voip` → `com.example.app`), the same rule the push decider uses.
    static func covers(_ key: ProviderKey, topic: String) -> Bool {
        key.covers(bundleID: topic) || key.covers(bundleID: String(TopicRules.bundleID(of: topic)))
    }

    /// The bundle ids both the token's key and the connection's first key allow.
    static func allowedTopics(_ key: ProviderKey, firstKey: ProviderKey?) -> Set<String>? {
        switch (key.topics, firstKey?.topics) {
        case (nil, nil): return nil
        case (let topics?, nil), (nil, let topics?): return topics
        case (let current?, let first?): return current.intersection(first)
        }
    }

    /// Steps 1–2: the JWT of `authorization: bearer <JWT>`. The scheme is matched without regard
    /// to case, as HTTP authentication schemes are. Works on UTF-8 bytes: this runs on every
    /// request, and only ASCII spaces and tabs separate the parts.
    static func bearerToken(_ authorization: String?) throws(ProviderTokenRejection) -> Substring {
        guard let field = AuthorizationField(Substring(authorization ?? "")) else {
            throw ProviderTokenRejection(.missingProviderToken, "no authorization header")
        }
        guard field.hasScheme("bearer") else {
            throw ProviderTokenRejection(.invalidProviderToken, "authorization is not \"bearer <token>\"")
        }
        guard !field.credentials.isEmpty else {
            throw ProviderTokenRejection(.missingProviderToken, "authorization \"bearer\" carries no token")
        }
        guard !field.credentialsHaveBlank else {
            throw ProviderTokenRejection(.invalidProviderToken, "authorization has more than one word after \"bearer\"")
        }
        return field.credentials
    }

    /// Byte-for-byte equality. String's `==` compares canonical equivalents equal, and a KELVIN
    /// SIGN must not pass for the letter K of a verified token or a registered Key ID. Compares
    /// the contiguous UTF-8 buffers when it can: this is the whole cost of a repeated token.
    static func sameBytes(_ lhs: some StringProtocol, _ rhs: some StringProtocol) -> Bool {
        let fast = lhs.utf8.withContiguousStorageIfAvailable { left -> Bool? in
            rhs.utf8.withContiguousStorageIfAvailable { right -> Bool in
                // memcmp: this runs for every request of a token connection.
                guard left.count == right.count else { return false }
                guard let l = left.baseAddress, let r = right.baseAddress else { return true }
                return memcmp(l, r, left.count) == 0
            }
        }
        if let fast = fast ?? nil { return fast }
        return lhs.utf8.elementsEqual(rhs.utf8)
    }
}

/// The value of an addition or subtraction, clamped to Int64's range instead of trapping on overflow.
/// Times come from a clock the control API may set anywhere, and intervals from configuration.
private func saturating(_ result: (partialValue: Int64, overflow: Bool)) -> Int64 {
    guard result.overflow else { return result.partialValue }
    // An overflowing sum or difference wraps to the sign opposite to the true result's.
    return result.partialValue < 0 ? .max : .min
}
