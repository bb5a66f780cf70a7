import MockAPNsCore
import MockAPNsJournal

/// Provider tokens (JWT): how often a provider starts using a new one across its connections,
/// and what Apple refused about them on one connection (expired, changed too soon).
extension ProviderJudge {
    /// Rule 5: provider tokens renewed too often across the provider's connections, expired
    /// tokens, and too-early updates on one connection.
    mutating func judgeToken(
        _ record: NotificationRecord, outcome: AttemptOutcome, sequence: UInt64, connection id: UInt64, arrivedAt: Int64,
        into found: inout [ProviderVerdict]
    ) {
        // Each reported once per connection: the answers after the first say the same.
        if record.reason == .expiredProviderToken, connections[id]?.reportedExpiredToken == false {
            connections[id]?.reportedExpiredToken = true
            emit(ProviderVerdict(
                check: .expiredProviderToken, provider: .unidentified,
                message: "sent an expired provider token on connection \(id) (ExpiredProviderToken: tokens last an hour)",
                deviceToken: record.deviceToken, notifications: [sequence], connections: [id]
            ), on: id, into: &found)
        } else if record.reason == .tooManyProviderTokenUpdates, connections[id]?.reportedTokenUpdates == false {
            connections[id]?.reportedTokenUpdates = true
            emit(ProviderVerdict(
                check: .tooManyTokenUpdates, provider: .unidentified,
                message: "changed the provider token on connection \(id) too soon after the last (TooManyProviderTokenUpdates)",
                deviceToken: record.deviceToken, notifications: [sequence], connections: [id]
            ), on: id, into: &found)
        }
        // Read in place: most notifications carry no provider token and copy nothing.
        let credentials = record.withAuthentication { authentication -> (issuedAt: Int64, team: String, key: String)? in
            guard let issuedAt = authentication.issuedAt, let team = authentication.teamID, let key = authentication.keyID else {
                return nil
            }
            return (issuedAt, team, key)
        }
        guard let (issuedAt, team, key) = credentials else { return }
        if let last = lastTokens[id], last.issuedAt == issuedAt, last.teamID == team, last.keyID == key { return }
        if connections[id] != nil { lastTokens[id] = (issuedAt, team, key) }
        let provider = ProviderIdentity.providerToken(teamID: team, keyID: key)
        var early: ProviderVerdict?
        let minimum = settings.minimumTokenRenewalSeconds
        update(provider) { track in
            guard track.tokensSeen.insert(issuedAt).inserted else { return }
            if track.tokensSeen.count > StateBounds.tokensPerProvider {
                // The oldest tokens (lowest `iat`) are the ones never sent again.
                for old in track.tokensSeen.sorted().prefix(track.tokensSeen.count / 10) { track.tokensSeen.remove(old) }
            }
            if let last = track.lastRenewal, arrivedAt - last.at < minimum * 1_000_000 {
                let seconds = (arrivedAt - last.at) / 1_000_000
                early = ProviderVerdict(
                    check: .earlyTokenRenewal, provider: provider,
                    message: "started using a new provider token (iat \(issuedAt)) \(seconds) s after the previous new one (iat \(last.issuedAt)); renew at most every \(minimum) s",
                    notifications: [last.sequence, sequence], connections: [id],
                    figures: [JournalFigure("secondsSincePrevious", seconds), JournalFigure("issuedAt", issuedAt),
                              JournalFigure("previousIssuedAt", last.issuedAt)]
                )
            }
            track.lastRenewal = (issuedAt, arrivedAt, sequence)
        }
        if let early { emit(early, into: &found) }
    }
}
