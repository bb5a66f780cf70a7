import MockAPNsCore
/// The six things MockAPNs judges about a provider's retry logic. Each is one test case per
/// provider in a JUnit report, and the names are what `mockapns report --fail-on` takes.
public enum VerdictRule: String, CaseIterable, Sendable, Hashable, Codable {
    /// Pushed to a device token after being told 410 for it.
    case unregisteredToken = "unregistered-token"
    /// Sent a notification again after an answer Apple says not to retry.
    case permanentRetry = "permanent-retry"
    /// Retried a failed notification too soon, or without the delay growing.
    case noBackoff = "no-backoff"
    /// Opened streams after GOAWAY, reconnected in a storm, or used a connection per notification.
    case connectionMisuse = "connection-misuse"
    /// Renewed its provider token more often than Apple allows, or sent an expired one.
    case tokenMisuse = "token-misuse"
    /// Notifications that failed in a retryable way and were never accepted afterwards.
    case lost

    /// The rule broken, in a few words, for reports.
    public var title: String {
        switch self {
        case .unregisteredToken: "Kept pushing to an unregistered token"
        case .permanentRetry: "Retried a permanent refusal"
        case .noBackoff: "No backoff between retries"
        case .connectionMisuse: "Ignored GOAWAY, reconnect storm or connection churn"
        case .tokenMisuse: "Provider token renewed too often, or expired"
        case .lost: "Notifications lost"
        }
    }

    /// What the rule checked, as a report says it when the provider kept it: what held, never
    /// what would have gone wrong (`title` says that, for a broken rule).
    public var passedTitle: String {
        switch self {
        case .unregisteredToken: "Stopped pushing to tokens APNs called unregistered"
        case .permanentRetry: "Sent no permanently refused notification again"
        case .noBackoff: "Waited longer before each retry"
        case .connectionMisuse: "Heeded GOAWAY, reconnected calmly and reused connections"
        case .tokenMisuse: "Renewed provider tokens no more often than allowed, none expired"
        case .lost: "No notification lost"
        }
    }

    /// The title a report gives the rule: `passedTitle` when it held, else `title`.
    public func title(passed: Bool) -> String { passed ? passedTitle : title }
}

/// One particular finding within a rule: what exactly the provider did.
public enum VerdictCheck: String, CaseIterable, Sendable, Hashable {
    /// A push to a token answered 410 (`Unregistered`, `ExpiredToken`) earlier.
    case pushAfterUnregistered
    /// The same notification again after a refusal whose reason Apple says not to retry.
    case retriedPermanentRefusal
    /// A retry sooner after the failure than `VerdictSettings.minimumRetryDelayMilliseconds`.
    case retriedTooSoon
    /// A run of retries of one notification whose delays do not grow.
    case backoffDoesNotGrow
    /// A new stream on a connection after the server's GOAWAY.
    case streamAfterGoAway
    /// Too many new connections just after a connection was dropped.
    case reconnectStorm
    /// Connections that each carried a single notification.
    case connectionChurn
    /// A new provider token sooner than `VerdictSettings.minimumTokenRenewalSeconds` after the last.
    case earlyTokenRenewal
    /// Requests refused `ExpiredProviderToken`.
    case expiredProviderToken
    /// Requests refused `TooManyProviderTokenUpdates` (a new token on the same connection too soon).
    case tooManyTokenUpdates
    /// A notification that failed retryably and was never accepted afterwards.
    case lostNotification

    /// The rule the check belongs to.
    public var rule: VerdictRule {
        switch self {
        case .pushAfterUnregistered: .unregisteredToken
        case .retriedPermanentRefusal: .permanentRetry
        case .retriedTooSoon, .backoffDoesNotGrow: .noBackoff
        case .streamAfterGoAway, .reconnectStorm, .connectionChurn: .connectionMisuse
        case .earlyTokenRenewal, .expiredProviderToken, .tooManyTokenUpdates: .tokenMisuse
        case .lostNotification: .lost
        }
    }
}

/// Who a provider is: the subject of its client certificate, or the team and key of its
/// provider tokens. Connections that never showed either (no credentials, refused ones, a
/// failed handshake) are `unidentified`.
public enum ProviderIdentity: Sendable, Hashable, Comparable {
    /// A provider with a client certificate, by its subject.
    case certificate(subject: String)
    /// A provider with provider tokens, by the team and key that signed them.
    case providerToken(teamID: String, keyID: String)
    /// A web push application server, by the VAPID public key (`k=`) its accepted pushes
    /// were signed with.
    case vapidKey(String)
    /// Connections that never showed credentials.
    case unidentified

    /// `certificate UID=com.example.app,CN=...`, `token team TEAM00000A key SANDBOX001`,
    /// `unidentified clients`.
    public var name: String {
        switch self {
        case .certificate(let subject): "certificate \(subject)"
        case .providerToken(let team, let key): "token team \(team) key \(key)"
        case .vapidKey(let key): "web push key \(key.prefix(16))…"
        case .unidentified: "unidentified clients"
        }
    }

    /// The JSON `kind`: `certificate`, `providerToken`, `vapidKey` or `unidentified`.
    public var kind: String {
        switch self {
        case .certificate: "certificate"
        case .providerToken: "providerToken"
        case .vapidKey: "vapidKey"
        case .unidentified: "unidentified"
        }
    }
}

/// One finding about a provider's behaviour, with the journal entries it rests on: what the
/// `verdict` journal event holds, and what a report lists as evidence.
public struct ProviderVerdict: Sendable, Equatable {
    /// What was found (each check belongs to one rule).
    public var check: VerdictCheck
    /// The provider it was found of.
    public var provider: ProviderIdentity
    /// What happened, in a sentence that names the figures.
    public var message: String
    /// The device token concerned, when one is.
    public var deviceToken: String?
    /// Journal sequences of the notification records the finding rests on, oldest first.
    public var notifications: [UInt64]
    /// The connections concerned.
    public var connections: [UInt64]
    /// The numbers behind the finding, by name (`delayMilliseconds: 3`).
    package var figures: [JournalFigure]

    package init(
        check: VerdictCheck, provider: ProviderIdentity, message: String, deviceToken: String? = nil,
        notifications: [UInt64] = [], connections: [UInt64] = [], figures: [JournalFigure] = []
    ) {
        self.check = check
        self.provider = provider
        self.message = message
        self.deviceToken = deviceToken
        self.notifications = notifications
        self.connections = connections
        self.figures = figures
    }

    /// The rule the finding breaks.
    public var rule: VerdictRule { check.rule }

    /// The value of the figure named `name`, if the finding has one.
    package func figure(_ name: String) -> Int64? {
        figures.first { $0.name == name }?.value
    }
}
