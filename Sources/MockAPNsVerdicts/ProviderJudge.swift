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
package struct ProviderJudge: Sendable {
    package let settings: VerdictSettings
    private var clock = JudgeClock()
    private var connections: [UInt64: ConnectionTrack] = [:]
    /// Each provider's track, found by the slot its identity was given when first seen; a
    /// connection keeps its provider's slot, so a notification's bookkeeping does not hash
    /// the identity (a certificate subject can be long) again.
    private var tracks: [ProviderTrack] = []
    private var providerSlots: [ProviderIdentity: Int] = [:]
    /// Notifications tried and not accepted, by what makes them the same notification.
    private var chains: [NotificationKey: Chain] = [:]
    /// The same, by the `apns-id` the request carried.
    private var chainsByAPNsID: [String: NotificationKey] = [:]
    /// Notifications accepted lately (at most `acceptedMemory`), so one accepted again after
    /// its acceptance (its answer lost with its connection, say) counts as sent again, not as
    /// a new one. A refusal of it is judged as any, unless it carries the accepted request's
    /// own `apns-id`: the provider named it the same notification, whatever answer it meets.
    private var recentlyAccepted: [NotificationKey: Acceptance] = [:]
    private var acceptedOrder: [NotificationKey] = []
    private var acceptedOrderStart = 0
    private static let acceptedMemory = 100_000
    /// Tokens answered 410, until a push to them is accepted again.
    private var goneTokens: [String: GoneToken] = [:]
    /// Findings on connections whose provider is not known yet, given out when it is.
    private var pending: [UInt64: PendingFindings] = [:]
    /// Connections with failed notifications whose provider was not known when they failed:
    /// those notifications find their provider through the connection, so it is kept.
    private var connectionsOwningChains: Set<UInt64> = []
    /// Notifications forgotten unaccepted to keep `chains` within its bound: not counted as lost.
    package private(set) var forgottenChains = 0
    /// The sequence of the last event read.
    package private(set) var lastSequence: UInt64 = 0
    /// Events a journal file left out (its gap lines): when not zero, findings may be missing.
    package private(set) var missedEvents: UInt64 = 0
    /// Upstream mode: answers relayed, upstream failures, and the fidelity check's disagreements.
    private var relayedToUpstream = 0
    private var upstreamFailures = 0
    private var disagreements: [String: Int] = [:]

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
            if let connection { connections[connection] = ConnectionTrack(transport: transport, openedAt: now) }
        case .tlsEstablished(let session):
            if let connection, let subject = session.clientCertificateSubject {
                identify(connection, as: .certificate(subject: subject), at: now, into: &found)
            }
        case .notification(let record):
            if let upstream = record.upstream { countRelay(upstream, record) }
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

    /// Upstream mode: one relayed request, answered by the upstream or not, and whether its
    /// answer differed from MockAPNs' own.
    private mutating func countRelay(_ upstream: UpstreamRelay, _ record: NotificationRecord) {
        guard upstream.failureKind == nil, let status = record.status else {
            upstreamFailures += 1
            return
        }
        relayedToUpstream += 1
        if upstream.disagrees {
            let key = VerdictReport.disagreementKey(
                upstream: UpstreamRelay.describe(status: status, reason: record.reason),
                mockAPNs: UpstreamRelay.describe(status: upstream.ownStatus, reason: upstream.ownReason)
            )
            disagreements[key, default: 0] += 1
        }
    }

    /// Counts events a journal file left out (its gap lines).
    package mutating func noteGap(_ gap: JournalFileGap) {
        missedEvents += gap.missed
        lastSequence = max(lastSequence, gap.lastSequence)
    }

    // MARK: Connections and providers

    private struct ConnectionTrack: Sendable {
        var transport: Transport
        var openedAt: Int64
        var provider: ProviderIdentity?
        /// `provider`'s index in `tracks`, set with it.
        var providerSlot: Int?
        var notifications = 0
        var reportedExpiredToken = false
        var reportedTokenUpdates = false
        var reportedStreamAfterGoAway = false
        /// A scenario fault dropped it: the drop counts from then, not from its close.
        var dropped = false
        /// Closed, and kept only because a failed notification names its provider through it.
        var closed = false
        /// The provider token its last notification carried, already counted in its provider's
        /// `tokensSeen`: the next notification with the same token (nearly every one) is
        /// passed by without hashing the provider's identity.
        var lastToken: (issuedAt: Int64, teamID: String, keyID: String)?
    }

    private struct ProviderTrack: Sendable {
        var connections = 0
        var acceptedAtOnce = 0
        var acceptedAfterRetries = 0
        var sentAgainAfterAcceptance = 0
        /// Every retry delay observed, in the order seen (at most `delayLimit` kept).
        var retryDelays: [Int64] = []
        var findings: [VerdictRule: Int] = [:]
        var examples: [VerdictRule: [ProviderVerdict]] = [:]
        var churn: HTTP2ChurnDetector
        var drops: [Drop] = []
        var stormQuietUntil: Int64 = .min
        /// Provider tokens seen (`iat`), and when the newest new one was first used.
        var tokensSeen: Set<Int64> = []
        var lastRenewal: (issuedAt: Int64, at: Int64, sequence: UInt64)?

        /// Keeps the most recent `StateBounds.dropsPerProvider` drops (junk on a port is a
        /// drop a connection, hundreds a second).
        mutating func addDrop(_ drop: Drop) {
            drops.append(drop)
            if drops.count > StateBounds.dropsPerProvider { drops.removeFirst(drops.count / 10) }
        }
    }

    /// A connection the server closed, and the connections the provider opened after it.
    private struct Drop: Sendable {
        var connection: UInt64
        var at: Int64
        /// The first connections opened after it (at most `reconnectionsKept`: they are the
        /// evidence), and how many there were.
        var reconnections: [UInt64] = []
        var reconnectionCount = 0

        static let reconnectionsKept = 50

        mutating func reconnected(_ id: UInt64) {
            reconnectionCount += 1
            if reconnections.count < Self.reconnectionsKept { reconnections.append(id) }
        }
    }

    private static let delayLimit = 10_000

    /// How much of each kind of state is kept at most. When a bound is passed, the oldest
    /// tenth goes at once (sorted by age), so keeping it costs O(log n) per entry, not a scan
    /// per request.
    enum StateBounds {
        /// Notifications tried and not accepted (`chains`), and tokens answered 410.
        static let notifications = 100_000
        /// Closed connections kept because a failed notification names its provider through them.
        static let connectionsOwningChains = 10_000
        /// Provider tokens (`iat`) remembered per provider.
        static let tokensPerProvider = 10_000
        /// Connections the server dropped, remembered per provider for the reconnect-storm rule.
        static let dropsPerProvider = 1_000
    }

    /// The numbers of entries in each part of the judge's state, for tests of its bounds.
    package struct StateCounts: Equatable, Sendable {
        package var connections: Int
        package var chains: Int
        package var chainsByAPNsID: Int
        package var chainDelays: Int
        package var goneTokens: Int
        package var pendingFindings: Int
        package var connectionsOwningChains: Int
        package var tokensSeen: Int
        package var drops: Int
        package var dropReconnections: Int
    }

    package var stateCounts: StateCounts {
        StateCounts(
            connections: connections.count, chains: chains.count, chainsByAPNsID: chainsByAPNsID.count,
            chainDelays: chains.values.reduce(0) { $0 + $1.delays.count + $1.unattributedDelays.count },
            goneTokens: goneTokens.count,
            pendingFindings: pending.values.reduce(0) { $0 + $1.kept.count + $1.counted.count },
            connectionsOwningChains: connectionsOwningChains.count,
            tokensSeen: tracks.reduce(0) { $0 + $1.tokensSeen.count },
            drops: tracks.reduce(0) { $0 + $1.drops.count },
            dropReconnections: tracks.reduce(0) { $0 + $1.drops.reduce(0) { $0 + $1.reconnections.count } }
        )
    }

    private func provider(ofConnection id: UInt64) -> ProviderIdentity? {
        connections[id]?.provider
    }

    /// `provider`'s index in `tracks`, its track made on first use.
    private mutating func slot(of provider: ProviderIdentity) -> Int {
        if let slot = providerSlots[provider] { return slot }
        tracks.append(ProviderTrack(churn: HTTP2ChurnDetector(
            threshold: settings.churnConnections, windowSeconds: settings.churnWindowSeconds
        )))
        providerSlots[provider] = tracks.count - 1
        return tracks.count - 1
    }

    /// Changes `provider`'s track in place (made on first use): its arrays and sets are never
    /// copied, however long they grow.
    private mutating func update(_ provider: ProviderIdentity, _ change: (inout ProviderTrack) -> Void) {
        change(&tracks[slot(of: provider)])
    }

    /// The connection is now known to be `provider`'s (the first identity shown wins).
    private mutating func identify(_ id: UInt64, as provider: ProviderIdentity, at now: Int64, into found: inout [ProviderVerdict]) {
        var connection = connections[id] ?? ConnectionTrack(transport: .http2, openedAt: now)
        guard connection.provider == nil else { return }
        connection.provider = provider
        connection.providerSlot = slot(of: provider)
        connections[id] = connection
        let openedAt = connection.openedAt
        var storm: ProviderVerdict?
        var churn: HTTP2Churn?
        let window = settings.reconnectStormWindowMilliseconds * 1000
        let limit = settings.reconnectStormConnections
        update(provider) { track in
            track.connections += 1
            // Web push is HTTP/1.1 as often as HTTP/2, where a connection per request is the norm.
            if connection.transport != .webPush { churn = track.churn.connectionOpened(id, at: Self.nanoseconds(openedAt)) }
            for index in track.drops.indices {
                let drop = track.drops[index]
                guard drop.connection != id, drop.at <= openedAt, openedAt <= drop.at + window else { continue }
                track.drops[index].reconnected(id)
                let count = track.drops[index].reconnectionCount
                if count > limit, openedAt >= track.stormQuietUntil, storm == nil {
                    track.stormQuietUntil = drop.at + window
                    storm = ProviderVerdict(
                        check: .reconnectStorm, provider: provider,
                        message: "\(count) new connections within \(window / 1000) ms after connection \(drop.connection) was dropped (more than \(limit))",
                        connections: [drop.connection] + track.drops[index].reconnections,
                        figures: [JournalFigure("connections", Int64(count)), JournalFigure("windowMilliseconds", window / 1000),
                                  JournalFigure("limit", Int64(limit))]
                    )
                }
            }
        }
        if let churn { emit(Self.churnVerdict(churn, provider: provider, connection: id), into: &found) }
        if let storm { emit(storm, into: &found) }
        if let waiting = pending.removeValue(forKey: id) {
            for kept in waiting.kept {
                var verdict = kept
                verdict.provider = provider
                emit(verdict, into: &found)
            }
            // Findings past the kept examples were counted only.
            update(provider) { track in
                for (rule, count) in waiting.counted { track.findings[rule, default: 0] += count }
            }
        }
    }

    private mutating func close(_ id: UInt64, by side: ClosingSide, at now: Int64, into found: inout [ProviderVerdict]) {
        if provider(ofConnection: id) == nil { identify(id, as: .unidentified, at: now, into: &found) }
        guard let connection = connections[id], let provider = connection.provider else { return }
        var churn: HTTP2Churn?
        let keep = settings.reconnectStormWindowMilliseconds * 1000 + 60_000_000
        update(provider) { track in
            if connection.transport != .webPush {
                churn = track.churn.connectionClosed(id, requests: connection.notifications, at: Self.nanoseconds(now))
            }
            track.drops.removeAll { $0.at + keep < now }
            if side == .server, !connection.dropped { track.addDrop(Drop(connection: id, at: now)) }
        }
        if let churn { emit(Self.churnVerdict(churn, provider: provider, connection: id), into: &found) }
        // Forget the closed connection, so a long run keeps nothing per past connection,
        // unless a notification still needs it to name its provider.
        if !connectionsOwningChains.contains(id) {
            connections[id] = nil
        } else {
            connections[id]?.closed = true
        }
    }

    private static func churnVerdict(_ churn: HTTP2Churn, provider: ProviderIdentity, connection: UInt64) -> ProviderVerdict {
        ProviderVerdict(
            check: .connectionChurn, provider: provider,
            message: "\(churn.connections) connections in \(churn.windowSeconds) s each carried a single notification; keep connections open and reuse them",
            connections: [connection], figures: churn.figures
        )
    }

    private mutating func streamAfterGoAway(_ id: UInt64, stream: Int32?, figures: [JournalFigure], into found: inout [ProviderVerdict]) {
        guard connections[id]?.reportedStreamAfterGoAway != true else { return }
        connections[id, default: ConnectionTrack(transport: .http2, openedAt: 0)].reportedStreamAfterGoAway = true
        let last = figures.first { $0.name == "lastStreamID" }?.value
        var message = "opened stream \(stream.map(String.init) ?? "?") on connection \(id) after the server's GOAWAY"
        if let last { message += " (last stream \(last))" }
        emit(ProviderVerdict(
            check: .streamAfterGoAway, provider: .unidentified, message: message + "; a GOAWAY means: open a new connection",
            connections: [id], figures: figures
        ), on: id, into: &found)
    }

    // MARK: Notifications

    /// One attempt at a notification: the record of what was sent for it.
    private mutating func judge(
        _ record: NotificationRecord, sequence: UInt64, connection id: UInt64, at answeredAt: Int64,
        into found: inout [ProviderVerdict]
    ) {
        let authentication = record.authentication
        if authentication.kind == "providerToken", let team = authentication.teamID, let key = authentication.keyID {
            identify(id, as: .providerToken(teamID: team, keyID: key), at: answeredAt, into: &found)
        } else if authentication.kind == "vapid", authentication.refusal == nil, let key = authentication.keyID {
            identify(id, as: .vapidKey(key), at: answeredAt, into: &found)
        } else if authentication.kind == "none" {
            identify(id, as: .unidentified, at: answeredAt, into: &found)
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
        guard !record.deviceToken.isEmpty else { return }
        if record.isLegacyFrameDroppedAfterAnError, refusedOnItsConnection(record, connection: id) { return }

        // The answer went out `delayMilliseconds` plus the server's own handling after arrival.
        // Clamped: a journal file is input, and its numbers may be anything.
        let delay = Int64(clamping: record.answer.delayMilliseconds ?? 0).multipliedReportingOverflow(by: 1000)
        let held = (delay.overflow ? JudgeClock.limit : delay.partialValue)
            .addingReportingOverflow(Int64(clamping: record.handlingMicroseconds ?? 0))
        let arrivedAt = answeredAt - min(max(0, held.overflow ? JudgeClock.limit : held.partialValue), answeredAt)
        let outcome = AttemptOutcome(record)
        if record.answer.fault?.dropsConnection == true, let provider = connections[id]?.provider, connections[id]?.dropped == false {
            // The server dropped the connection here; the client may reconnect before the
            // close is recorded, so the drop counts from the fault.
            connections[id]?.dropped = true
            update(provider) { $0.addDrop(Drop(connection: id, at: answeredAt)) }
        }
        judgeToken(record, outcome: outcome, sequence: sequence, connection: id, arrivedAt: arrivedAt, into: &found)

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
            // Remembered whatever the attempt is judged as below: every later push to the token is one after it.
            goneTokens[record.deviceToken] = GoneToken(record, reason: reason, answeredAt: answeredAt, sequence: sequence, connection: id)
            if goneTokens.count > StateBounds.notifications {
                for token in Self.oldestTenth(of: goneTokens, by: \.sequence) { goneTokens[token] = nil }
            }
        }

        let key = NotificationKey(record)
        let chainKey = record.requestAPNsID.flatMap { chainsByAPNsID[$0] }.flatMap { chains[$0] == nil ? nil : $0 } ?? key
        if chains[chainKey] == nil, let acceptance = recentlyAccepted[key],
           outcome == .accepted || acceptance.named(by: record)
            || (!outcome.isGone && answerMayHaveBeenLost(acceptance.connection, provider: connection.provider ?? provider(ofConnection: id))) {
            // Sent again after its acceptance, and accepted again at once, or with the
            // accepted request's own `apns-id`, or after the server dropped the connection
            // that carried the acceptance (its answer may never have reached the provider,
            // which then rightly sends it again): a duplicate of one delivered, not a new
            // notification. Any other repeat is judged below as a new notification: identical
            // payloads are common (silent pushes), and a refusal of one is as much the
            // provider's to handle. A 410 always is: whatever was resent, the provider must
            // now stop pushing to the token, and the report counts it as a refusal.
            if let provider = connection.provider ?? provider(ofConnection: id) {
                update(provider) { $0.sentAgainAfterAcceptance += 1 }
            }
            return
        }
        if var chain = chains[chainKey] {
            judgeRetry(of: &chain, record: record, shape: RequestShape(record), outcome: outcome, sequence: sequence, connection: id,
                       arrivedAt: arrivedAt, answeredAt: answeredAt, into: &found)
            finish(chain, key: chainKey, outcome: outcome, connection: id)
        } else if outcome == .accepted {
            // Accepted at the first attempt, nearly every notification: what `finish` does
            // with a one-attempt chain, without making the chain.
            let slot = connection.providerSlot ?? slot(of: connection.provider ?? .unidentified)
            countAcceptance(key: key, apnsID: record.requestAPNsID, connection: id, slot: slot, atFirstAttempt: true)
        } else {
            let shape = RequestShape(record)
            let chain = Chain(
                deviceToken: record.deviceToken, topic: record.topic, apnsID: record.requestAPNsID, provider: connection.provider,
                connections: [id], sequences: [sequence], attempts: 1, outcome: outcome, answeredAt: answeredAt, shape: shape
            )
            if connection.provider == nil, outcome != .accepted, connectionsOwningChains.insert(id).inserted {
                boundConnectionsOwningChains()
            }
            finish(chain, key: key, outcome: outcome, connection: id)
        }
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

    // MARK: Bounds

    /// The keys of the oldest tenth of `entries` by `age` (at least one).
    private static func oldestTenth<Key, Value>(of entries: [Key: Value], by age: (Value) -> UInt64) -> [Key] {
        let aged = entries.map { (key: $0.key, age: age($0.value)) }.sorted { $0.age < $1.age }
        return aged.prefix(max(1, aged.count / 10)).map(\.key)
    }

    /// Forgets the oldest tenth of the notifications tried and not accepted (by their first
    /// attempt): what a run of failures without end would otherwise keep for ever.
    private mutating func forgetOldestChains() {
        for key in Self.oldestTenth(of: chains, by: { $0.sequences.first ?? 0 }) {
            guard let chain = chains.removeValue(forKey: key) else { continue }
            if let id = chain.apnsID, chainsByAPNsID[id] == key { chainsByAPNsID[id] = nil }
            forgottenChains += 1
        }
    }

    /// Keeps the closed connections kept for their failed notifications within their bound,
    /// forgetting the oldest (connection ids rise with time).
    private mutating func boundConnectionsOwningChains() {
        guard connectionsOwningChains.count > StateBounds.connectionsOwningChains else { return }
        let closed = connectionsOwningChains.filter { connections[$0]?.closed ?? true }.sorted()
        for id in closed.prefix(max(1, closed.count / 10)) {
            connectionsOwningChains.remove(id)
            connections[id] = nil
        }
    }

    /// An accepted notification counted for the provider in `slot` and remembered, so a send
    /// of it again is known for a duplicate.
    private mutating func countAcceptance(key: NotificationKey, apnsID: String?, connection: UInt64, slot: Int, atFirstAttempt: Bool) {
        if let apnsID, chainsByAPNsID[apnsID] == key { chainsByAPNsID[apnsID] = nil }
        remember(key, acceptance: Acceptance(connection: connection, apnsID: apnsID))
        if atFirstAttempt { tracks[slot].acceptedAtOnce += 1 } else { tracks[slot].acceptedAfterRetries += 1 }
    }

    /// Whether the server dropped the connection that carried an acceptance, so its answer
    /// may not have reached the provider.
    private func answerMayHaveBeenLost(_ connection: UInt64, provider: ProviderIdentity?) -> Bool {
        guard let provider, let slot = providerSlots[provider] else { return false }
        return tracks[slot].drops.contains { $0.connection == connection }
    }

    private mutating func remember(_ key: NotificationKey, acceptance: Acceptance) {
        guard recentlyAccepted.updateValue(acceptance, forKey: key) == nil else { return }
        acceptedOrder.append(key)
        if acceptedOrder.count - acceptedOrderStart > Self.acceptedMemory {
            recentlyAccepted[acceptedOrder[acceptedOrderStart]] = nil
            acceptedOrderStart += 1
            if acceptedOrderStart >= Self.acceptedMemory {
                acceptedOrder.removeFirst(acceptedOrderStart)
                acceptedOrderStart = 0
            }
        }
    }

    /// A notification sent again: was it allowed, and how long did the provider wait?
    private mutating func judgeRetry(
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

    /// Rule 5: provider tokens renewed too often across the provider's connections, expired
    /// tokens, and too-early updates on one connection.
    private mutating func judgeToken(
        _ record: NotificationRecord, outcome: AttemptOutcome, sequence: UInt64, connection id: UInt64, arrivedAt: Int64,
        into found: inout [ProviderVerdict]
    ) {
        switch record.reason {
        case .expiredProviderToken? where connections[id]?.reportedExpiredToken == false:
            connections[id]?.reportedExpiredToken = true
            emit(ProviderVerdict(
                check: .expiredProviderToken, provider: .unidentified,
                message: "sent an expired provider token on connection \(id) (ExpiredProviderToken: tokens last an hour)",
                deviceToken: record.deviceToken, notifications: [sequence], connections: [id]
            ), on: id, into: &found)
        case .tooManyProviderTokenUpdates? where connections[id]?.reportedTokenUpdates == false:
            connections[id]?.reportedTokenUpdates = true
            emit(ProviderVerdict(
                check: .tooManyTokenUpdates, provider: .unidentified,
                message: "changed the provider token on connection \(id) too soon after the last (TooManyProviderTokenUpdates)",
                deviceToken: record.deviceToken, notifications: [sequence], connections: [id]
            ), on: id, into: &found)
        default:
            break
        }
        guard let issuedAt = record.authentication.issuedAt, let team = record.authentication.teamID,
              let key = record.authentication.keyID else { return }
        if let last = connections[id]?.lastToken, last.issuedAt == issuedAt, last.teamID == team, last.keyID == key { return }
        connections[id]?.lastToken = (issuedAt, team, key)
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

    // MARK: Findings

    /// Gives out a finding for connection `id`'s provider, or keeps it until that is known.
    private mutating func emit(_ verdict: ProviderVerdict, on id: UInt64, into found: inout [ProviderVerdict]) {
        guard let provider = provider(ofConnection: id) else {
            // Kept whole up to the examples a rule keeps; past them, only counted.
            pending[id, default: PendingFindings()].add(verdict, keepingPerRule: settings.examplesPerRule)
            return
        }
        var verdict = verdict
        verdict.provider = provider
        emit(verdict, into: &found)
    }

    private mutating func emit(_ verdict: ProviderVerdict, into found: inout [ProviderVerdict]) {
        let limit = settings.examplesPerRule
        update(verdict.provider) { track in
            track.findings[verdict.rule, default: 0] += 1
            if track.examples[verdict.rule, default: []].count < limit { track.examples[verdict.rule, default: []].append(verdict) }
        }
        found.append(verdict)
    }

    // MARK: The report

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
        report.relayedToUpstream = relayedToUpstream
        report.upstreamFailures = upstreamFailures
        report.disagreements = disagreements
        return report
    }

    // MARK: Helpers

    /// Nanoseconds for the churn detector, low enough that it may add its window.
    private static func nanoseconds(_ microseconds: Int64) -> UInt64 {
        min(UInt64(clamping: microseconds), UInt64.max / 4000) * 1000
    }

    /// `a1b2c3d4…`: enough of a token to tell it apart in a sentence.
    static func short(_ token: String) -> String {
        token.count > 8 ? token.prefix(8) + "…" : token
    }

    /// `250 ms` for microseconds.
    static func milliseconds(_ microseconds: Int64) -> String {
        "\(microseconds / 1000) ms"
    }
}

extension AppliedFault {
    /// Whether the fault ends the connection (a provider then has to reconnect).
    var dropsConnection: Bool {
        switch self {
        case .closeConnection, .resetConnection, .sendGarbage, .closeAfterBytes, .shutdown: true
        case .goAway, .resetStream, .stall, .lowerMaxConcurrentStreams: false
        }
    }
}

extension NotificationRecord {
    /// Whether these are legacy bytes that start no frame (a command byte other than 0, 1 or
    /// 2), such as the tail of a payload whose length field counted characters: they hold no
    /// notification, as the server's own churn diagnosis counts them.
    var startsNoLegacyFrame: Bool {
        guard transport == .legacy, let command = legacyCommand else { return false }
        return LegacyCommand(rawValue: command) == nil
    }
}

/// What makes two requests the same notification: token, topic and payload, as a 64-bit
/// FNV-1a fingerprint of their bytes. Cheaper to make, keep and hash than the strings and
/// bytes; two different notifications share one with a chance of about one in 2^64 per pair.
struct NotificationKey: Hashable, Sendable {
    var fingerprint: UInt64

    init(_ record: NotificationRecord) {
        var hash = Fingerprint()
        hash.add(record.deviceToken.utf8)
        // 0xFF never occurs in UTF-8: it separates the fields unambiguously.
        hash.add(UInt8(0xFF))
        hash.add((record.topic ?? "").utf8)
        hash.add(UInt8(record.topic == nil ? 0xFE : 0xFF))
        hash.add(word: UInt64(record.payloadLength))
        hash.add(record.payload)
        fingerprint = hash.finished
    }
}

/// Where a notification was accepted, and the `apns-id` its provider gave it, as a fingerprint
/// (kept for up to `acceptedMemory` notifications, so not as a string).
struct Acceptance: Sendable {
    var connection: UInt64
    /// The fingerprint of the accepted request's `apns-id`; nil when it carried none.
    var apnsID: UInt64?

    init(connection: UInt64, apnsID: String?) {
        self.connection = connection
        self.apnsID = apnsID.map(Self.fingerprint)
    }

    /// Whether `record` carries the accepted request's own `apns-id`.
    func named(by record: NotificationRecord) -> Bool {
        guard let apnsID, let sent = record.requestAPNsID else { return false }
        return Self.fingerprint(sent) == apnsID
    }

    private static func fingerprint(_ apnsID: String) -> UInt64 {
        var hash = Fingerprint()
        hash.add(apnsID.utf8)
        return hash.finished
    }
}

/// A 64-bit fingerprint of bytes, eight at a time (a payload of 200 bytes is 25 steps, not
/// 200): multiply-and-fold mixing, not cryptographic, as the judge needs only to tell
/// notifications apart.
struct Fingerprint {
    private var value: UInt64 = 0xcbf2_9ce4_8422_2325
    private var pending: UInt64 = 0
    private var pendingBytes: UInt64 = 0

    mutating func add(word: UInt64) {
        flush()
        mix(word)
    }

    mutating func add(_ byte: UInt8) {
        pending |= UInt64(byte) << (pendingBytes &* 8)
        pendingBytes += 1
        if pendingBytes == 8 {
            // A whole word, as the contiguous path mixes it.
            mix(pending)
            pending = 0
            pendingBytes = 0
        }
    }

    mutating func add<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            var index = 0
            if pendingBytes == 0 {
                let raw = UnsafeRawBufferPointer(buffer)
                while index + 8 <= raw.count {
                    mix(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
                    index += 8
                }
            }
            while index < buffer.count {
                add(buffer[index])
                index += 1
            }
        }
        if done == nil {
            for byte in bytes { add(byte) }
        }
    }

    private mutating func flush() {
        guard pendingBytes > 0 else { return }
        // The count of bytes goes in too, so a short tail differs from the same bytes padded.
        mix(pending ^ (pendingBytes << 59))
        pending = 0
        pendingBytes = 0
    }

    private mutating func mix(_ word: UInt64) {
        value = (value ^ word) &* 0x9E37_79B9_7F4A_7C15
        value ^= value >> 29
    }

    /// The fingerprint of everything added.
    var finished: UInt64 {
        var copy = self
        copy.flush()
        return copy.value
    }
}

/// The request fields besides token, topic and payload that a refusal may concern: sending the
/// request again with one of them changed is a fix, not a retry.
struct RequestShape: Equatable, Sendable {
    var pushType: String?
    var priority: Int?
    var expiration: Int64?
    var collapseID: String?
    var apnsID: String?
    /// What the record says made the request wrong where its fields cannot show it (a header
    /// sent twice, a path no endpoint serves): a request without that problem was fixed.
    var problem: String?

    init(_ record: NotificationRecord) {
        pushType = record.pushType
        priority = record.priority
        expiration = record.expiration
        collapseID = record.collapseID
        apnsID = record.requestAPNsID
        problem = record.problem
    }
}

/// A notification tried and not yet accepted: its attempts so far.
struct Chain: Sendable {
    static let sequenceLimit = 50

    var deviceToken: String
    var topic: String?
    var apnsID: String?
    var provider: ProviderIdentity?
    var connections: [UInt64]
    /// The journal sequences of its attempts (the first `sequenceLimit - 1`, and the latest).
    var sequences: [UInt64]
    var attempts: Int
    /// The latest attempt's outcome and when its answer went out.
    var outcome: AttemptOutcome
    var answeredAt: Int64
    var shape: RequestShape
    /// Delays before each retry that followed a retryable failure, in milliseconds.
    var delays: [Int64] = []
    /// Delays seen before the provider was known.
    var unattributedDelays: [Int64] = []
    var dropsInARow = 0
    var reportedFlatBackoff = false

    init(
        deviceToken: String, topic: String?, apnsID: String?, provider: ProviderIdentity?, connections: [UInt64],
        sequences: [UInt64], attempts: Int, outcome: AttemptOutcome, answeredAt: Int64, shape: RequestShape
    ) {
        self.deviceToken = deviceToken
        self.topic = topic
        self.apnsID = apnsID
        self.provider = provider
        self.connections = connections
        self.sequences = sequences
        self.attempts = attempts
        self.outcome = outcome
        self.answeredAt = answeredAt
        self.shape = shape
        self.dropsInARow = outcome == .interrupted(.dropped) ? 1 : 0
    }
}

/// Findings on one connection whose provider is not known yet: the first few of each rule
/// kept whole, the rest counted.
struct PendingFindings: Sendable {
    var kept: [ProviderVerdict] = []
    var keptPerRule: [VerdictRule: Int] = [:]
    var counted: [VerdictRule: Int] = [:]

    mutating func add(_ verdict: ProviderVerdict, keepingPerRule limit: Int) {
        let rule = verdict.rule
        if keptPerRule[rule, default: 0] < limit {
            keptPerRule[rule, default: 0] += 1
            kept.append(verdict)
        } else {
            counted[rule, default: 0] += 1
        }
    }
}
