import MockAPNsCore
import MockAPNsJournal
/// Judges each provider's retry logic from the journal: it reads events in sequence order (a
/// live journal's, or a JSONL file's: the same code either way), follows every notification
/// from its first attempt to its acceptance, and says what the provider did wrong, as it
/// happens, plus a report at any moment.
///
/// Pure bookkeeping over journal values: no clock of its own (time comes from the events,
/// `JudgeClock`), no locks, no I/O. The server feeds it off the event loops.
///
/// What it keeps: one small entry per open connection, and one per notification that has not
/// been accepted (accepted ones are counted and forgotten), so memory follows the failures, not
/// the traffic; and every collection has a bound (`StateBounds`), so not even failures without
/// end (a provider resetting every stream, refused again and again) make it grow for ever.
///
/// This type holds that state and reads the events; each rule lives in an extension of its
/// own file, so a rule is read whole in one place: `ProviderJudge+Connections.swift` (who a
/// connection belongs to, churn, reconnect storms, GOAWAY), `ProviderJudge+Notifications.swift`
/// (one attempt at a notification, followed to its acceptance), `ProviderJudge+Retries.swift`
/// (retry timing, backoff, permanent refusals sent again), `ProviderJudge+GoneTokens.swift`
/// (pushes after a 410), `ProviderJudge+ProviderTokens.swift` (provider token renewals),
/// `ProviderJudge+Bounds.swift` (what keeps its memory bounded), `ProviderJudge+Report.swift`
/// (the report's tallies and the notifications lost).
package struct ProviderJudge: Sendable {
    package let settings: VerdictSettings
    private var clock = JudgeClock()
    var connections: [UInt64: ConnectionTrack] = [:]
    /// Each provider's track, found by the slot its identity was given when first seen; a
    /// connection keeps its provider's slot, so a notification's bookkeeping does not hash
    /// the identity (a certificate subject can be long) again.
    var tracks: [ProviderTrack] = []
    var providerSlots: [ProviderIdentity: Int] = [:]
    /// Each slot's provider: what a connection's `providerSlot` names.
    var slotProviders: [ProviderIdentity] = []
    /// The provider token each connection's last notification carried, already counted in its
    /// provider's `tokensSeen`: the next notification with the same token (nearly every one) is
    /// passed by without hashing the provider's identity.
    var lastTokens: [UInt64: (issuedAt: Int64, teamID: String, keyID: String)] = [:]
    /// Notifications tried and not accepted, by what makes them the same notification.
    var chains: [NotificationKey: Chain] = [:]
    /// The same, by the `apns-id` the request carried.
    var chainsByAPNsID: [String: NotificationKey] = [:]
    /// Notifications accepted lately, so one sent again after its acceptance is known.
    var accepted = AcceptedNotifications()
    /// Tokens answered 410, until a push to them is accepted again.
    var goneTokens: [String: GoneToken] = [:]
    /// Findings on connections whose provider is not known yet, given out when it is.
    var pending: [UInt64: PendingFindings] = [:]
    /// Connections with failed notifications whose provider was not known when they failed:
    /// those notifications find their provider through the connection, so it is kept.
    var connectionsOwningChains: Set<UInt64> = []
    /// Notifications forgotten unaccepted to keep `chains` within its bound: not counted as lost.
    package internal(set) var forgottenChains = 0
    /// The sequence of the last event read.
    package private(set) var lastSequence: UInt64 = 0
    /// Events a journal file left out (its gap lines): when not zero, findings may be missing.
    package private(set) var missedEvents: UInt64 = 0
    /// Upstream mode: answers relayed, upstream failures, and the fidelity check's disagreements.
    var upstreamTally = UpstreamTally()

    package init(settings: VerdictSettings = VerdictSettings()) {
        self.settings = settings
    }

    // MARK: Reading events

    /// Reads one event; returns the findings it completes, in the order found. `verdict`
    /// events (the judge's own output) are passed over.
    package mutating func consume(_ event: JournalEvent) -> [ProviderVerdict] {
        if case .verdict = event.kind { return [] }
        lastSequence = max(lastSequence, event.sequence)
        let now = clock.time(of: event)
        var found: [ProviderVerdict] = []
        let connection = event.connectionID
        switch event.kind {
        case .connectionOpened(let transport, _):
            if let connection {
                connections[connection] = ConnectionTrack(transport: transport, openedAt: now)
                lastTokens[connection] = nil
            }
        case .tlsEstablished(let session):
            if let connection, let subject = session.clientCertificateSubject {
                identify(connection, as: .certificate(subject: subject), at: now, into: &found)
            }
        case .notification(let record):
            if let upstream = record.upstream { upstreamTally.count(upstream, record) }
            if let connection { judge(record, sequence: event.sequence, connection: connection, at: now, into: &found) }
        case .connectionClosed(_, let closedBy, _):
            if let connection { close(connection, by: closedBy, at: now, into: &found) }
        case .diagnosis(.http2StreamAfterGoAway, _, let figures):
            if let connection { streamAfterGoAway(connection, stream: event.streamID, figures: figures, into: &found) }
        case .tlsFailed, .http2Frame, .legacyFrame, .fault, .feedbackTuple, .diagnosis, .broadcast, .channelOperation,
             .verdict, .delivery:
            break
        }
        return found
    }

    /// Counts events a journal file left out (its gap lines).
    package mutating func noteGap(_ gap: JournalFileGap) {
        missedEvents += gap.missed
        lastSequence = max(lastSequence, gap.lastSequence)
    }
}

extension ProviderJudge {
    // MARK: Providers

    func provider(ofConnection id: UInt64) -> ProviderIdentity? {
        connections[id]?.providerSlot.map { slotProviders[$0] }
    }

    /// The provider of a connection's track, once known.
    func provider(of connection: ConnectionTrack) -> ProviderIdentity? {
        connection.providerSlot.map { slotProviders[$0] }
    }

    /// `provider`'s index in `tracks`, its track made on first use.
    mutating func slot(of provider: ProviderIdentity) -> Int {
        if let slot = providerSlots[provider] { return slot }
        tracks.append(ProviderTrack(churn: HTTP2ChurnDetector(
            threshold: settings.churnConnections, windowSeconds: settings.churnWindowSeconds
        )))
        providerSlots[provider] = tracks.count - 1
        slotProviders.append(provider)
        return tracks.count - 1
    }

    /// Changes `provider`'s track in place (made on first use): its arrays and sets are never
    /// copied, however long they grow.
    mutating func update(_ provider: ProviderIdentity, _ change: (inout ProviderTrack) -> Void) {
        change(&tracks[slot(of: provider)])
    }

    // MARK: Findings

    /// Gives out a finding for connection `id`'s provider, or keeps it until that is known.
    mutating func emit(_ verdict: ProviderVerdict, on id: UInt64, into found: inout [ProviderVerdict]) {
        guard let provider = provider(ofConnection: id) else {
            // Kept whole up to the examples a rule keeps; past them, only counted.
            pending[id, default: PendingFindings()].add(verdict, keepingPerRule: settings.examplesPerRule)
            return
        }
        var verdict = verdict
        verdict.provider = provider
        emit(verdict, into: &found)
    }

    mutating func emit(_ verdict: ProviderVerdict, into found: inout [ProviderVerdict]) {
        let limit = settings.examplesPerRule
        update(verdict.provider) { track in
            track.findings[verdict.rule, default: 0] += 1
            if track.examples[verdict.rule, default: []].count < limit { track.examples[verdict.rule, default: []].append(verdict) }
        }
        found.append(verdict)
    }

    // MARK: Wording

    /// `a1b2c3d4…`: enough of a token to tell it apart in a sentence.
    static func short(_ token: String) -> String {
        token.count > 8 ? token.prefix(8) + "…" : token
    }

    /// `250 ms` for microseconds.
    static func milliseconds(_ microseconds: Int64) -> String {
        "\(microseconds / 1000) ms"
    }
}
