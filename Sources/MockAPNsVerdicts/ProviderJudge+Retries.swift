import MockAPNsCore
import MockAPNsJournal

/// Retries: how long a provider waited before sending a failed notification again, whether
/// its waits grew, and whether it sent again what Apple refused for good.
extension ProviderJudge {
    /// A notification sent again: was it allowed, and how long did the provider wait?
    mutating func judgeRetry(
        of chain: inout Chain, record: NotificationRecord, shape: RequestShape, outcome: AttemptOutcome, sequence: UInt64,
        connection id: UInt64, arrivedAt: Int64, answeredAt: Int64, into found: inout [ProviderVerdict]
    ) {
        // Sent before the earlier attempt's answer went out: a duplicate, not a reaction to it.
        let afterAnswer = arrivedAt >= chain.answeredAt
        let previous = chain.outcome
        let delay = arrivedAt - chain.answeredAt
        let token = Self.short(record.deviceToken)
        switch previous {
        case .permanent(let reason) where afterAnswer:
            if reason.retryAdvice == .doNotRetry || shape == chain.shape {
                let what = reason.retryAdvice == .doNotRetry ? "Apple says not to retry it" : "the request was sent again unchanged"
                emit(ProviderVerdict(
                    check: .retriedPermanentRefusal, provider: .unidentified,
                    message: "sent the notification for token \(token) again \(Self.milliseconds(delay)) after it was refused \(reason.httpStatus) \(reason.rawValue); \(what)",
                    deviceToken: record.deviceToken, notifications: Array(chain.sequences.suffix(1)) + [sequence], connections: [id],
                    figures: [JournalFigure("millisecondsAfter", delay / 1000)]
                ), on: id, into: &found)
            }
        case .retryable, .interrupted:
            guard afterAnswer else { break }
            let delayMilliseconds = delay / 1000
            // Only the latest run of delays is ever read (the backoff check).
            chain.delays.append(delayMilliseconds)
            if chain.delays.count > settings.backoffRunLength { chain.delays.removeFirst(chain.delays.count - settings.backoffRunLength) }
            let provider = provider(ofConnection: id) ?? chain.provider
            if let provider {
                update(provider) { track in
                    if track.retryDelays.count < Self.delayLimit { track.retryDelays.append(delayMilliseconds) }
                }
            } else if chain.unattributedDelays.count < Self.delayLimit {
                chain.unattributedDelays.append(delayMilliseconds)
            }
            let exempt = settings.immediateRetryAfterDrop && previous == .interrupted(.dropped) && chain.dropsInARow == 1
            if !exempt, delayMilliseconds < settings.minimumRetryDelayMilliseconds {
                emit(ProviderVerdict(
                    check: .retriedTooSoon, provider: .unidentified,
                    message: "retried the notification for token \(token) \(delayMilliseconds) ms after \(previous.words) (minimum \(settings.minimumRetryDelayMilliseconds) ms)",
                    deviceToken: record.deviceToken, notifications: Array(chain.sequences.suffix(1)) + [sequence], connections: [id],
                    figures: [JournalFigure("delayMilliseconds", delayMilliseconds),
                              JournalFigure("minimumMilliseconds", settings.minimumRetryDelayMilliseconds)]
                ), on: id, into: &found)
            }
            let run = settings.backoffRunLength
            if !chain.reportedFlatBackoff, chain.delays.count >= run {
                let recent = Array(chain.delays.suffix(run))
                // A step grows when it is the factor longer and at least the minimum delay:
                // retries that never wait the minimum are noise around zero, not a backoff.
                let minimum = settings.minimumRetryDelayMilliseconds
                let grew = zip(recent, recent.dropFirst()).contains { before, after in
                    Double(after) >= Double(before) * settings.backoffGrowthFactor && after > before && after >= minimum
                }
                if !grew {
                    chain.reportedFlatBackoff = true
                    emit(ProviderVerdict(
                        check: .backoffDoesNotGrow, provider: .unidentified,
                        message: "retried the notification for token \(token) \(run) times with delays \(recent.map { "\($0) ms" }.joined(separator: ", ")): none grew \(VerdictSettings.decimal(settings.backoffGrowthFactor))×",
                        deviceToken: record.deviceToken, notifications: Array(chain.sequences.suffix(run)) + [sequence],
                        connections: [id], figures: recent.enumerated().map { JournalFigure("delay\($0.offset + 1)Milliseconds", $0.element) }
                    ), on: id, into: &found)
                }
            }
        case .permanent, .accepted, .gone, .credentials, .refused:
            break
        }
        chain.attempts += 1
        chain.outcome = outcome
        chain.answeredAt = max(chain.answeredAt, answeredAt)
        chain.shape = shape
        chain.dropsInARow = outcome == .interrupted(.dropped) ? chain.dropsInARow + 1 : 0
        if chain.sequences.count < Chain.sequenceLimit { chain.sequences.append(sequence) } else { chain.sequences[Chain.sequenceLimit - 1] = sequence }
        if !chain.connections.contains(id), chain.connections.count < Chain.sequenceLimit { chain.connections.append(id) }
        if chain.provider == nil { chain.provider = provider(ofConnection: id) }
        if chain.apnsID == nil { chain.apnsID = record.requestAPNsID }
    }
}
