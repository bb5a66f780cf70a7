import MockAPNsCore
import MockAPNsJournal

/// One attempt at a notification, followed from its first attempt to its acceptance: who sent
/// it, when it arrived, whether it is one already accepted, and the chain of its failed attempts
/// that the retry rules read.
extension ProviderJudge {
    /// One attempt at a notification: the record of what was sent for it.
    mutating func judge(
        _ record: NotificationRecord, sequence: UInt64, connection id: UInt64, at answeredAt: Int64,
        into found: inout [ProviderVerdict]
    ) {
        // Once a connection's provider is known, nothing of its credentials is read again.
        // Read in place: a certificate connection's provider is not known this way, and its
        // every notification looks again.
        if connections[id]?.providerSlot == nil, let provider = record.withAuthentication(Self.provider(authenticatedBy:)) {
            identify(id, as: provider, at: answeredAt, into: &found)
        }
        var connection = connections[id] ?? ConnectionTrack(transport: record.transport, openedAt: answeredAt)
        // Bytes that start no legacy frame (a mis-framed payload's tail) are no notification:
        // counted, they would make a connection that carried one look reused.
        let isNotification = !record.startsNoLegacyFrame
        if isNotification { connection.notifications += 1 }
        connections[id] = connection
        if isNotification, let slot = connection.providerSlot, connection.notifications <= 2 {
            if connection.notifications == 1 { tracks[slot].churn.idleAfterFirstRequest(id) }
            if connection.notifications == 2 { tracks[slot].churn.reused(id) }
        }
        guard !record.deviceTokenIsEmpty else { return }
        if record.isLegacyFrameDroppedAfterAnError, refusedOnItsConnection(record, connection: id) { return }

        // The answer went out `delayMilliseconds` plus the server's own handling after arrival.
        // Clamped: a journal file is input, and its numbers may be anything.
        let delay = Int64(clamping: record.withAnswer { $0.delayMilliseconds } ?? 0).multipliedReportingOverflow(by: 1000)
        let held = (delay.overflow ? JudgeClock.limit : delay.partialValue)
            .addingReportingOverflow(Int64(clamping: record.handlingMicroseconds ?? 0))
        let arrivedAt = answeredAt - min(max(0, held.overflow ? JudgeClock.limit : held.partialValue), answeredAt)
        let outcome = AttemptOutcome(record)
        if record.fault?.dropsConnection == true, let provider = provider(ofConnection: id), connections[id]?.dropped == false {
            // The server dropped the connection here; the client may reconnect before the
            // close is recorded, so the drop counts from the fault.
            connections[id]?.dropped = true
            update(provider) { $0.addDrop(Drop(connection: id, at: answeredAt)) }
        }
        judgeToken(record, outcome: outcome, sequence: sequence, connection: id, arrivedAt: arrivedAt, into: &found)
        judgePushAfterGone(record, outcome: outcome, sequence: sequence, connection: id, arrivedAt: arrivedAt,
                           answeredAt: answeredAt, into: &found)

        let key = NotificationKey(record)
        let chainKey = record.requestAPNsID.flatMap { chainsByAPNsID[$0] }.flatMap { chains[$0] == nil ? nil : $0 } ?? key
        if chains[chainKey] == nil, let acceptance = accepted[key],
           outcome == .accepted || acceptance.named(by: record)
            || (!outcome.isGone && answerMayHaveBeenLost(acceptance.connection, provider: provider(of: connection) ?? provider(ofConnection: id))) {
            // Sent again after its acceptance, and accepted again at once, or with the
            // accepted request's own `apns-id`, or after the server dropped the connection
            // that carried the acceptance (its answer may never have reached the provider,
            // which then rightly sends it again): a duplicate of one delivered, not a new
            // notification. Any other repeat is judged below as a new notification: identical
            // payloads are common (silent pushes), and a refusal of one is as much the
            // provider's to handle. A 410 always is: whatever was resent, the provider must
            // now stop pushing to the token, and the report counts it as a refusal.
            // By the slot the connection keeps: the identity (a certificate subject can be
            // long) is not hashed again for each copy a provider sends.
            if let slot = connection.providerSlot { tracks[slot].sentAgainAfterAcceptance += 1 }
            return
        }
        if var chain = chains[chainKey] {
            judgeRetry(of: &chain, record: record, shape: RequestShape(record), outcome: outcome, sequence: sequence, connection: id,
                       arrivedAt: arrivedAt, answeredAt: answeredAt, into: &found)
            finish(chain, key: chainKey, outcome: outcome, connection: id)
        } else if outcome == .accepted {
            // Accepted at the first attempt, nearly every notification: what `finish` does
            // with a one-attempt chain, without making the chain.
            let slot = connection.providerSlot ?? slot(of: .unidentified)
            countAcceptance(key: key, apnsID: record.requestAPNsID, connection: id, slot: slot, atFirstAttempt: true)
        } else {
            let shape = RequestShape(record)
            let chain = Chain(
                deviceToken: record.deviceToken, topic: record.topic, apnsID: record.requestAPNsID, provider: provider(of: connection),
                connections: [id], sequences: [sequence], attempts: 1, outcome: outcome, answeredAt: answeredAt, shape: shape
            )
            if connection.providerSlot == nil, outcome != .accepted, connectionsOwningChains.insert(id).inserted {
                boundConnectionsOwningChains()
            }
            finish(chain, key: key, outcome: outcome, connection: id)
        }
    }

    /// The provider the authentication names, when it names one.
    private static func provider(authenticatedBy authentication: JournalAuthentication) -> ProviderIdentity? {
        if authentication.kind == "providerToken", let team = authentication.teamID, let key = authentication.keyID {
            return .providerToken(teamID: team, keyID: key)
        }
        if authentication.kind == "vapid", authentication.refusal == nil, let key = authentication.keyID { return .vapidKey(key) }
        if authentication.kind == "none" { return .unidentified }
        return nil
    }

    /// Whether the error that ended `record`'s connection already refused its token for good
    /// or this very notification: the dropped frame repeats what that error answered, written
    /// before the provider could read it, so it is neither a push after the refusal nor a
    /// notification to send again.
    private func refusedOnItsConnection(_ record: NotificationRecord, connection id: UInt64) -> Bool {
        if let gone = goneTokens[record.deviceToken], gone.connection == id { return true }
        guard let chain = chains[NotificationKey(record)] else { return false }
        return chain.connections.last == id && !chain.outcome.isRetryable
    }

    /// Counts an accepted notification and forgets it, or keeps a failed one for its retries.
    private mutating func finish(_ chain: Chain, key: NotificationKey, outcome: AttemptOutcome, connection: UInt64) {
        if outcome == .accepted {
            chains[key] = nil
            let slot = connections[connection]?.providerSlot ?? slot(of: chain.provider ?? .unidentified)
            countAcceptance(key: key, apnsID: chain.apnsID, connection: connection, slot: slot, atFirstAttempt: chain.attempts <= 1)
            if !chain.unattributedDelays.isEmpty {
                let room = max(0, Self.delayLimit - tracks[slot].retryDelays.count)
                tracks[slot].retryDelays.append(contentsOf: chain.unattributedDelays.prefix(room))
            }
        } else {
            chains[key] = chain
            if let id = chain.apnsID { chainsByAPNsID[id] = key }
            if chains.count > StateBounds.notifications { forgetOldestChains() }
        }
    }

    /// An accepted notification counted for the provider in `slot` and remembered, so a send
    /// of it again is known for a duplicate.
    private mutating func countAcceptance(key: NotificationKey, apnsID: String?, connection: UInt64, slot: Int, atFirstAttempt: Bool) {
        if let apnsID, chainsByAPNsID[apnsID] == key { chainsByAPNsID[apnsID] = nil }
        accepted.remember(key, acceptance: Acceptance(connection: connection, apnsID: apnsID))
        if atFirstAttempt { tracks[slot].acceptedAtOnce += 1 } else { tracks[slot].acceptedAfterRetries += 1 }
    }
}
