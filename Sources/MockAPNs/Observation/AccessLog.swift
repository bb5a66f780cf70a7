import MockAPNsCore

/// The access log: one `info` line per notification, and one per connection opened (when its
/// TLS handshake ends, so the line can say the TLS version and who the client is) and closed.
///
/// It reads journal events after the fact, in batches, off the event loops: the hot path only
/// hands the journal its compact records, as it does anyway. Lines are appended straight into
/// one buffer per batch (no per-line dictionaries or intermediate strings) and written with a
/// single write, so a full-load run spends little on them.
struct AccessLog {
    let format: LogFormat
    let output: LogOutput

    /// What a later line about a connection needs from its earlier events.
    private struct Connection {
        var transport: Transport
        var peer: String
        var openedAt: UInt64
        var notifications = 0
    }

    private var connections: [UInt64: Connection] = [:]
    private var clock = LogTimestamp()

    init(format: LogFormat, output: LogOutput) {
        self.format = format
        self.output = output
    }

    /// Writes the lines `events` call for.
    mutating func write(_ events: [JournalEvent]) {
        var text = ""
        text.reserveCapacity(events.count * 140)
        // Each line carries its event's real time: now, less how long ago it happened.
        let (realNow, monotonicNow) = LogLine.clocks()
        for event in events {
            guard let entry = entry(for: event) else { continue }
            let age = Int64(clamping: monotonicNow &- min(monotonicNow, event.monotonicNanoseconds)) / 1_000_000
            let time = clock.format(millisecondsSince1970: realNow - age)
            switch format {
            case .text:
                text += time
                text += " info "
                entry.appendMessage(to: &text)
            case .json:
                text += entry.json(time: time)
            }
            text += "\n"
        }
        if !text.isEmpty { output.write(text) }
    }

    /// The entry one event calls for, if any; keeps track of connections on the way.
    mutating func entry(for event: JournalEvent) -> AccessEntry? {
        let id = event.connectionID ?? 0
        switch event.kind {
        case .connectionOpened(let transport, let peer):
            connections[id] = Connection(transport: transport, peer: Self.address(peer), openedAt: event.monotonicNanoseconds)
            return nil
        case .tlsEstablished(let session):
            guard let known = connections[id] else { return nil }
            return .open(connection: id, transport: known.transport, peer: known.peer, session: session)
        case .tlsFailed(let failure):
            guard let known = connections[id] else { return nil }
            return .refused(connection: id, transport: known.transport, peer: known.peer, failure: failure)
        case .connectionClosed(let transport, let closedBy, let reason):
            guard let known = connections.removeValue(forKey: id) else { return nil }
            let milliseconds = (event.monotonicNanoseconds &- known.openedAt) / 1_000_000
            return .close(connection: id, transport: transport, closedBy: closedBy, milliseconds: milliseconds,
                          notifications: known.notifications, reason: reason)
        case .notification(let record):
            connections[id]?.notifications += 1
            return .push(connection: id, stream: event.streamID ?? record.streamID, record: record)
        case .http2Frame, .legacyFrame, .fault, .feedbackTuple, .diagnosis:
            return nil
        }
    }

    /// `127.0.0.1:54321` out of NIO's `[IPv4]127.0.0.1/127.0.0.1:54321`.
    static func address(_ peer: String?) -> String {
        guard let peer else { return "?" }
        return peer.split(separator: "/").last.map(String.init) ?? peer
    }
}

/// One access-log line's facts, written as text or as JSON.
enum AccessEntry {
    case open(connection: UInt64, transport: Transport, peer: String, session: JournalTLSSession)
    case refused(connection: UInt64, transport: Transport, peer: String, failure: JournalTLSFailure)
    case close(connection: UInt64, transport: Transport, closedBy: ClosingSide, milliseconds: UInt64, notifications: Int, reason: String?)
    case push(connection: UInt64, stream: Int32?, record: NotificationRecord)

    /// The line after its time and level:
    /// `open c1 http2 from 127.0.0.1:54321 TLSv1.3 certificate "..."`,
    /// `push c1/s1 http2 token=a1b2c3d4 topic=com.example.app type=alert 200 87us`,
    /// `close c1 http2 by client after 0.012s, 1 notifications`.
    func appendMessage(to text: inout String) {
        switch self {
        case .open(let connection, let transport, let peer, let session):
            text += "open c\(connection) \(transport.rawValue) from \(peer) \(session.version) "
            if let subject = session.clientCertificateSubject {
                text += "certificate \"\(subject)\""
            } else {
                text += transport == .http2 ? "no certificate (provider tokens)" : "no certificate"
            }
        case .refused(let connection, let transport, let peer, let failure):
            text += "refused c\(connection) \(transport.rawValue) from \(peer): TLS handshake failed: \(failure.reason)"
        case .close(let connection, let transport, let closedBy, let milliseconds, let notifications, let reason):
            text += "close c\(connection) \(transport.rawValue) by \(closedBy.rawValue) after \(Self.seconds(milliseconds))s, \(notifications) notifications"
            if let reason { text += " (\(reason))" }
        case .push(let connection, let stream, let record):
            text += "push c\(connection)"
            if let stream { text += "/s\(stream)" }
            text += " \(record.transport.rawValue) token="
            text += Self.tokenPrefix(record.deviceToken)
            text += " topic="
            text += record.topic ?? "-"
            text += " type="
            text += record.pushType ?? "-"
            text += " "
            Self.appendOutcome(record, to: &text)
            if let micros = record.handlingMicroseconds { text += " \(micros)us" }
        }
    }

    /// One JSON object with the message and a field per value.
    func json(time: String) -> String {
        var message = ""
        appendMessage(to: &message)
        var json = JSONWriter()
        json.beginObject()
        json.string("time", time)
        json.string("level", "info")
        json.string("label", "mockapns.access")
        json.string("message", message)
        switch self {
        case .open(let connection, let transport, let peer, let session):
            json.string("access", "open")
            json.integer("connection", connection)
            json.string("protocol", transport.rawValue)
            json.string("peer", peer)
            json.string("tls", session.version)
            json.string("alpn", session.negotiatedALPN)
            json.string("certificate", session.clientCertificateSubject)
        case .refused(let connection, let transport, let peer, let failure):
            json.string("access", "refused")
            json.integer("connection", connection)
            json.string("protocol", transport.rawValue)
            json.string("peer", peer)
            json.string("reason", failure.reason)
            json.string("alert", failure.alertSent)
        case .close(let connection, let transport, let closedBy, let milliseconds, let notifications, let reason):
            json.string("access", "close")
            json.integer("connection", connection)
            json.string("protocol", transport.rawValue)
            json.string("closedBy", closedBy.rawValue)
            json.integer("milliseconds", milliseconds)
            json.integer("notifications", notifications)
            json.string("reason", reason)
        case .push(let connection, let stream, let record):
            json.string("access", "push")
            json.integer("connection", connection)
            json.integer("stream", stream)
            json.string("protocol", record.transport.rawValue)
            json.string("token", String(Self.tokenPrefix(record.deviceToken)))
            json.string("topic", record.topic)
            json.string("pushType", record.pushType)
            json.bool("accepted", record.accepted)
            json.integer("status", record.status)
            json.integer("legacyStatus", record.legacyStatus?.rawValue)
            json.string("reason", record.reason?.rawValue)
            json.string("authentication", record.authentication.kind)
            json.integer("micros", record.handlingMicroseconds)
        }
        json.endObject()
        return json.text
    }

    /// `200`, `400 BadDeviceToken`, `accepted`, `status 8 InvalidToken`, `dropped`.
    static func appendOutcome(_ record: NotificationRecord, to text: inout String) {
        if let status = record.status {
            text += "\(status)"
        } else if record.dropped {
            text += "dropped"
        } else if let legacy = record.legacyStatus {
            text += "status \(legacy.rawValue)"
        } else {
            text += record.accepted ? "accepted" : "refused"
        }
        if let reason = record.reason {
            text += " "
            text += reason.rawValue
        }
    }

    /// The first 8 characters of a token: enough to tell tokens apart in a log.
    static func tokenPrefix(_ token: String) -> Substring {
        token.isEmpty ? "-" : token.prefix(8)
    }

    /// `0.012` for 12 ms.
    static func seconds(_ milliseconds: UInt64) -> String {
        let fraction = milliseconds % 1000
        let padded = fraction < 10 ? "00\(fraction)" : fraction < 100 ? "0\(fraction)" : "\(fraction)"
        return "\(milliseconds / 1000).\(padded)"
    }
}

/// Formats log times, reusing the date and time up to the second while it stays the same:
/// a busy second's lines then cost only their milliseconds.
struct LogTimestamp {
    private var second: Int64 = -1
    private var prefix = ""

    mutating func format(millisecondsSince1970 value: Int64) -> String {
        let whole = value / 1000
        if whole != second {
            second = whole
            let full = LogLine.format(millisecondsSince1970: whole * 1000)
            prefix = String(full.dropLast(4))  // "2026-01-01T09:14:03" + "."
        }
        let millis = Int(value % 1000)
        return prefix + (millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)") + "Z"
    }
}
