import MockAPNsCore
import MockAPNsJournal

/// Pushes after a 410: a token refused for good (HTTP/2's 410, the legacy gateway's status 8) is
/// remembered until a push to it is accepted again, and every push to it before that is a finding.
extension ProviderJudge {
    /// Judges a push to a token answered 410 before, and remembers the token when this one is.
    mutating func judgePushAfterGone(
        _ record: NotificationRecord, outcome: AttemptOutcome, sequence: UInt64, connection id: UInt64, arrivedAt: Int64,
        answeredAt: Int64, into found: inout [ProviderVerdict]
    ) {
        if !goneTokens.isEmpty, let gone = goneTokens[record.deviceToken], arrivedAt >= gone.answeredAt {
            if outcome == .accepted {
                // Accepted: the device registered again, so the provider may push to it.
                goneTokens[record.deviceToken] = nil
            } else {
                emit(ProviderVerdict(
                    check: .pushAfterUnregistered, provider: .unidentified,
                    message: "pushed to token \(Self.short(record.deviceToken)) \(Self.milliseconds(arrivedAt - gone.answeredAt)) after it was answered \(gone.answer)",
                    deviceToken: record.deviceToken, notifications: [gone.sequence, sequence], connections: [id],
                    figures: [JournalFigure("millisecondsAfter", (arrivedAt - gone.answeredAt) / 1000)]
                ), on: id, into: &found)
            }
        }

        if case .gone(let reason) = outcome {
            // Remembered whatever `judge` then makes of the attempt: every later push to the token is one after it.
            goneTokens[record.deviceToken] = GoneToken(record, reason: reason, answeredAt: answeredAt, sequence: sequence, connection: id)
            if goneTokens.count > StateBounds.notifications {
                for token in Self.oldestTenth(of: goneTokens, by: \.sequence) { goneTokens[token] = nil }
            }
        }
    }
}
