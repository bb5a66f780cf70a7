import MockAPNsCore
import MockAPNsJournal

/// Connections and who they belong to: a connection is its provider's from the first identity
/// it shows; the connections a provider opens and drops feed the churn and reconnect-storm rules,
/// and a drop is why an acceptance's answer may have been lost.
extension ProviderJudge {
    /// The connection is now known to be `provider`'s (the first identity shown wins).
    mutating func identify(_ id: UInt64, as provider: ProviderIdentity, at now: Int64, into found: inout [ProviderVerdict]) {
        var connection = connections[id] ?? ConnectionTrack(transport: .http2, openedAt: now)
        guard connection.providerSlot == nil else { return }
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

    mutating func close(_ id: UInt64, by side: ClosingSide, at now: Int64, into found: inout [ProviderVerdict]) {
        if provider(ofConnection: id) == nil { identify(id, as: .unidentified, at: now, into: &found) }
        guard let connection = connections[id], let provider = provider(of: connection) else { return }
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
        lastTokens[id] = nil
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

    mutating func streamAfterGoAway(_ id: UInt64, stream: Int32?, figures: [JournalFigure], into found: inout [ProviderVerdict]) {
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

    /// Whether the server dropped the connection that carried an acceptance, so its answer
    /// may not have reached the provider.
    func answerMayHaveBeenLost(_ connection: UInt64, provider: ProviderIdentity?) -> Bool {
        guard let provider, let slot = providerSlots[provider] else { return false }
        return tracks[slot].drops.contains { $0.connection == connection }
    }

    /// Nanoseconds for the churn detector, low enough that it may add its window.
    private static func nanoseconds(_ microseconds: Int64) -> UInt64 {
        min(UInt64(clamping: microseconds), UInt64.max / 4000) * 1000
    }
}
