import MockAPNsCore
import MockAPNsJournal
/// The verdicts on every provider seen: what `GET /v1/report` answers, `mockapns report`
/// prints, and `MockAPNsServer.verdictReport()` returns.
public struct VerdictReport: Sendable, Equatable {
    /// The thresholds the verdicts used.
    package var settings: VerdictSettings
    /// The sequence of the last journal event judged.
    public var lastSequence: UInt64
    /// Events the judge never saw (a journal file's gaps, events pushed out before they were
    /// read): when not zero, the verdicts may miss something.
    public var missedEvents: UInt64
    /// One report per provider, certificate subjects first, then token teams and keys, then
    /// unidentified clients.
    public var providers: [ProviderReport]
    /// Upstream mode: requests the upstream answered (relayed to the provider unchanged).
    public var relayedToUpstream: Int = 0
    /// Upstream mode: requests the upstream gave no answer to (the provider got 503 or 500).
    public var upstreamFailures: Int = 0
    /// Upstream mode, the fidelity check: how many relayed answers differed from what MockAPNs'
    /// own rules would have answered, by the pair of answers, named
    /// `"upstream 200; MockAPNs 400 BadDeviceToken"` (see `disagreementKey`).
    public var disagreements: [String: Int] = [:]

    package init(settings: VerdictSettings, lastSequence: UInt64, missedEvents: UInt64, providers: [ProviderReport]) {
        self.settings = settings
        self.lastSequence = lastSequence
        self.missedEvents = missedEvents
        self.providers = providers
    }

    /// How `disagreements` names the pair: the upstream's answer, then MockAPNs' own, each as
    /// its status and reason (`"upstream 200; MockAPNs 400 BadDeviceToken"`).
    public static func disagreementKey(upstream: String, mockAPNs: String) -> String {
        "upstream \(upstream); MockAPNs \(mockAPNs)"
    }

    /// Every provider's notifications added up.
    public var totals: NotificationTally {
        providers.reduce(NotificationTally()) { $0 + $1.notifications }
    }

    /// The rules some provider broke.
    public var brokenRules: Set<VerdictRule> {
        Set(providers.flatMap { $0.rules.filter { !$0.passed }.map(\.rule) })
    }

    /// The report for `provider`, if it was seen.
    public func provider(_ provider: ProviderIdentity) -> ProviderReport? {
        providers.first { $0.provider == provider }
    }
}

/// One provider's verdicts.
public struct ProviderReport: Sendable, Equatable {
    /// The provider, by its credentials.
    public var provider: ProviderIdentity
    /// Connections it opened.
    public var connections: Int
    /// What became of the notifications it tried.
    public var notifications: NotificationTally
    /// How long it waited before its retries.
    public var retryDelays: RetryDelays
    /// Every rule, in `VerdictRule.allCases` order.
    public var rules: [RuleOutcome]

    package init(provider: ProviderIdentity, connections: Int, notifications: NotificationTally, retryDelays: RetryDelays, rules: [RuleOutcome]) {
        self.provider = provider
        self.connections = connections
        self.notifications = notifications
        self.retryDelays = retryDelays
        self.rules = rules
    }

    /// The outcome of `rule`.
    public func rule(_ rule: VerdictRule) -> RuleOutcome {
        rules.first { $0.rule == rule } ?? RuleOutcome(rule: rule, findings: 0, examples: [])
    }
}

/// What became of the notifications a provider tried. A notification is one token, topic and
/// payload (or one `apns-id`) however many times it was sent until accepted; one sent again
/// after that is `sentAgainAfterAcceptance` if accepted at once, and otherwise a notification
/// of its own, as identical payloads (silent pushes) are common.
public struct NotificationTally: Sendable, Equatable {
    /// Accepted at the first attempt.
    public var acceptedAtOnce: Int
    /// Accepted after one or more failed attempts.
    public var acceptedAfterRetries: Int
    /// Finally refused with an answer that says not to send it as it was (and not retried to acceptance).
    public var refused: Int
    /// Failed in a retryable way (429, 5xx, reset, dropped, unanswered) and never accepted.
    public var lost: Int
    /// Sends of a notification already accepted that were accepted again at once (its first
    /// answer lost with its connection, say): duplicates the device may show twice, not
    /// counted in `tried`.
    public var sentAgainAfterAcceptance: Int

    package init(acceptedAtOnce: Int = 0, acceptedAfterRetries: Int = 0, refused: Int = 0, lost: Int = 0, sentAgainAfterAcceptance: Int = 0) {
        self.acceptedAtOnce = acceptedAtOnce
        self.acceptedAfterRetries = acceptedAfterRetries
        self.refused = refused
        self.lost = lost
        self.sentAgainAfterAcceptance = sentAgainAfterAcceptance
    }

    /// Every notification tried.
    public var tried: Int { acceptedAtOnce + acceptedAfterRetries + refused + lost }

    package static func + (left: NotificationTally, right: NotificationTally) -> NotificationTally {
        NotificationTally(
            acceptedAtOnce: left.acceptedAtOnce + right.acceptedAtOnce,
            acceptedAfterRetries: left.acceptedAfterRetries + right.acceptedAfterRetries,
            refused: left.refused + right.refused, lost: left.lost + right.lost,
            sentAgainAfterAcceptance: left.sentAgainAfterAcceptance + right.sentAgainAfterAcceptance
        )
    }

    /// `of 600 notifications tried, 569 accepted at once, 29 after retries, 0 refused, 2 lost`,
    /// then, when there were any, the duplicates, which `tried` does not count: `; besides,
    /// 3 duplicates (notifications already accepted, sent and accepted again)`. With nothing
    /// tried but duplicates, it says so first: `no new notification tried; 1 duplicate (...)`.
    public var headline: String {
        let duplicates = "\(sentAgainAfterAcceptance) duplicate\(sentAgainAfterAcceptance == 1 ? "" : "s") "
            + "(\(sentAgainAfterAcceptance == 1 ? "a notification" : "notifications") already accepted, sent and accepted again)"
        if tried == 0, sentAgainAfterAcceptance > 0 { return "no new notification tried; \(duplicates)" }
        return "of \(tried) notification\(tried == 1 ? "" : "s") tried, \(acceptedAtOnce) accepted at once, "
            + "\(acceptedAfterRetries) after retries, \(refused) refused, \(lost) lost"
            + (sentAgainAfterAcceptance > 0 ? "; besides, \(duplicates)" : "")
    }
}

/// The delays a provider waited before retrying failed notifications, in milliseconds.
public struct RetryDelays: Sendable, Equatable {
    /// How many retries were measured.
    public var count: Int
    /// The shortest delay, milliseconds (`nil`: no retries).
    public var minimum: Int64?
    /// The median delay, milliseconds.
    public var median: Int64?
    /// The longest delay, milliseconds.
    public var maximum: Int64?
    /// The first delays observed, in order (at most `RetryDelays.listed`).
    public var first: [Int64]

    /// How many delays a report lists.
    package static let listed = 50

    package init(count: Int, minimum: Int64?, median: Int64?, maximum: Int64?, first: [Int64]) {
        self.count = count
        self.minimum = minimum
        self.median = median
        self.maximum = maximum
        self.first = first
    }

    /// The summary of `delays`, in the order observed.
    package init(_ delays: [Int64]) {
        let sorted = delays.sorted()
        self.init(
            count: delays.count, minimum: sorted.first, median: sorted.isEmpty ? nil : sorted[sorted.count / 2],
            maximum: sorted.last, first: Array(delays.prefix(Self.listed))
        )
    }
}

/// One rule's outcome for one provider.
public struct RuleOutcome: Sendable, Equatable {
    /// The rule.
    public var rule: VerdictRule
    /// How many findings (for `lost`: lost notifications).
    public var findings: Int
    /// The first findings, as evidence (at most `VerdictSettings.examplesPerRule`).
    public var examples: [ProviderVerdict]

    package init(rule: VerdictRule, findings: Int, examples: [ProviderVerdict]) {
        self.rule = rule
        self.findings = findings
        self.examples = examples
    }

    /// Whether nothing broke the rule.
    public var passed: Bool { findings == 0 }
}

// MARK: Text

extension VerdictReport {
    /// A short summary for people: each provider's headline, retry delays, and one line per
    /// rule, with a few findings under each broken one.
    public func summary(examples: Int = 3) -> String {
        var lines: [String] = []
        let providerWord = providers.count == 1 ? "provider" : "providers"
        lines.append("MockAPNs verdicts: \(providers.count) \(providerWord), journal events up to #\(lastSequence)")
        if missedEvents > 0 {
            lines.append("  warning: \(missedEvents) journal event(s) were not seen; the verdicts may miss something")
        }
        if providers.isEmpty { lines.append("  no provider connected") }
        for report in providers {
            lines.append("")
            lines.append("\(report.provider.name) (\(report.connections) connection\(report.connections == 1 ? "" : "s"))")
            lines.append("  " + report.notifications.headline)
            let delays = report.retryDelays
            if let minimum = delays.minimum, let median = delays.median, let maximum = delays.maximum {
                lines.append("  retry delays: \(delays.count) measured, \(minimum)–\(maximum) ms, median \(median) ms")
            }
            for outcome in report.rules {
                let mark = outcome.passed ? "PASS" : "FAIL"
                let count = outcome.passed ? "" : " (\(outcome.findings))"
                lines.append("  \(mark) \(outcome.rule.rawValue)\(count): \(outcome.rule.title(passed: outcome.passed))")
                for example in outcome.examples.prefix(examples) {
                    let where_ = example.notifications.isEmpty ? "" : " [" + example.notifications.map { "#\($0)" }.joined(separator: " ") + "]"
                    lines.append("       \(example.message)\(where_)")
                }
            }
        }
        if relayedToUpstream + upstreamFailures > 0 {
            let total = disagreements.values.reduce(0, +)
            lines.append("")
            lines.append("Upstream: \(relayedToUpstream) answered, \(upstreamFailures) unanswered (503/500); "
                + "\(total) answer\(total == 1 ? "" : "s") differed from MockAPNs' own")
            for (key, count) in disagreements.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
                lines.append("  \(count) × \(key)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
