import MockAPNsCore
import MockAPNsJournal

/// The report: per provider, what it tried, what got through, and each rule's findings, with
/// the notifications still failing counted as lost.
extension ProviderJudge {
    /// The notifications never accepted although the failure said to retry: one finding
    /// each, oldest first. A live server records them when it stops.
    package func lostNotifications() -> [ProviderVerdict] {
        chains.values.filter(\.outcome.isRetryable).sorted { ($0.sequences.first ?? 0) < ($1.sequences.first ?? 0) }.map { chain in
            ProviderVerdict(
                check: .lostNotification, provider: owner(of: chain),
                message: "the notification for token \(Self.short(chain.deviceToken))\(chain.topic.map { " (\($0))" } ?? "") was tried \(chain.attempts) time\(chain.attempts == 1 ? "" : "s"), last answered with \(chain.outcome.words), and never accepted",
                deviceToken: chain.deviceToken, notifications: chain.sequences, connections: chain.connections,
                figures: [JournalFigure("attempts", Int64(chain.attempts))]
            )
        }
    }

    private func owner(of chain: Chain) -> ProviderIdentity {
        chain.provider ?? chain.connections.lazy.compactMap { provider(ofConnection: $0) }.first ?? .unidentified
    }

    /// The verdicts so far, per provider: what each tried, what got through, and each rule's
    /// findings with examples. Notifications still failing count as lost.
    package func report() -> VerdictReport {
        var tracks = providerSlots.mapValues { self.tracks[$0] }
        var refused: [ProviderIdentity: Int] = [:]
        var extraDelays: [ProviderIdentity: [Int64]] = [:]
        for chain in chains.values {
            let provider = owner(of: chain)
            if tracks[provider] == nil { tracks[provider] = ProviderTrack(churn: HTTP2ChurnDetector()) }
            if !chain.outcome.isRetryable { refused[provider, default: 0] += 1 }
            extraDelays[provider, default: []].append(contentsOf: chain.unattributedDelays)
        }
        var lost: [ProviderIdentity: [ProviderVerdict]] = [:]
        for verdict in lostNotifications() { lost[verdict.provider, default: []].append(verdict) }

        let reports = tracks.keys.sorted().compactMap { provider -> ProviderReport? in
            guard let track = tracks[provider] else { return nil }
            let lostHere = lost[provider] ?? []
            let tally = NotificationTally(
                acceptedAtOnce: track.acceptedAtOnce, acceptedAfterRetries: track.acceptedAfterRetries,
                refused: refused[provider] ?? 0, lost: lostHere.count, sentAgainAfterAcceptance: track.sentAgainAfterAcceptance
            )
            let rules = VerdictRule.allCases.map { rule -> RuleOutcome in
                if rule == .lost {
                    return RuleOutcome(rule: rule, findings: lostHere.count, examples: Array(lostHere.prefix(settings.examplesPerRule)))
                }
                return RuleOutcome(rule: rule, findings: track.findings[rule] ?? 0, examples: track.examples[rule] ?? [])
            }
            return ProviderReport(
                provider: provider, connections: track.connections, notifications: tally,
                retryDelays: RetryDelays(track.retryDelays + (extraDelays[provider] ?? [])), rules: rules
            )
        }
        var report = VerdictReport(settings: settings, lastSequence: lastSequence, missedEvents: missedEvents, providers: reports)
        report.relayedToUpstream = upstreamTally.relayed
        report.upstreamFailures = upstreamTally.failures
        report.disagreements = upstreamTally.disagreements
        return report
    }
}
