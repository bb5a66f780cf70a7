import Logging
import MockAPNsCore

/// The access log: one `info` line per notification, and one per connection opened (when its
/// TLS handshake ends, so the line can say the TLS version and who the client is) and closed.
///
/// It reads journal events after the fact, in batches, off the event loops: the hot path only
/// hands the journal its compact records, as it does anyway. Lines of one batch are written
/// with a single write.
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

    init(format: LogFormat, output: LogOutput) {
        self.format = format
        self.output = output
    }

    /// Writes the lines `events` call for.
    mutating func write(_ events: [JournalEvent]) {
        var text = ""
        // Each line carries its event's real time: now, less how long ago it happened.
        let (realNow, monotonicNow) = LogLine.clocks()
        for event in events {
            guard var line = line(for: event) else { continue }
            let age = Int64(clamping: monotonicNow &- min(monotonicNow, event.monotonicNanoseconds)) / 1_000_000
            line.time = LogLine.format(millisecondsSince1970: realNow - age)
            text += format == .json ? line.json(label: "mockapns.access") : line.text
            text += "\n"
        }
        if !text.isEmpty { output.write(text) }
    }

    /// The line one event calls for, if any; keeps track of connections on the way.
    mutating func line(for event: JournalEvent) -> LogLine? {
        let id = event.connectionID ?? 0
        let connection = "c\(id)"
        switch event.kind {
        case .connectionOpened(let transport, let peer):
            connections[id] = Connection(transport: transport, peer: Self.address(peer), openedAt: event.monotonicNanoseconds)
            return nil
        case .tlsEstablished(let session):
            guard let known = connections[id] else { return nil }
            let who = session.clientCertificateSubject.map { "certificate \"\($0)\"" }
                ?? (known.transport == .http2 ? "no certificate (provider tokens)" : "no certificate")
            return entry(event, "open \(connection) \(known.transport.rawValue) from \(known.peer) \(session.version) \(who)", [
                "access": "open", "connection": .stringConvertible(id), "protocol": "\(known.transport.rawValue)",
                "peer": "\(known.peer)", "tls": "\(session.version)", "alpn": "\(session.negotiatedALPN ?? "")",
                "certificate": "\(session.clientCertificateSubject ?? "")",
            ])
        case .tlsFailed(let failure):
            guard let known = connections[id] else { return nil }
            return entry(event, "refused \(connection) \(known.transport.rawValue) from \(known.peer): TLS handshake failed: \(failure.reason)", [
                "access": "refused", "connection": .stringConvertible(id), "protocol": "\(known.transport.rawValue)",
                "peer": "\(known.peer)", "reason": "\(failure.reason)", "alert": "\(failure.alertSent ?? "")",
            ])
        case .connectionClosed(let transport, let closedBy, let reason):
            guard let known = connections.removeValue(forKey: id) else { return nil }
            let seconds = Double(event.monotonicNanoseconds &- known.openedAt) / 1e9
            let duration = (seconds * 1000).rounded() / 1000
            var message = "close \(connection) \(transport.rawValue) by \(closedBy.rawValue) after \(duration)s, \(known.notifications) notifications"
            if let reason { message += " (\(reason))" }
            return entry(event, message, [
                "access": "close", "connection": .stringConvertible(id), "protocol": "\(transport.rawValue)",
                "closedBy": "\(closedBy.rawValue)", "seconds": "\(duration)",
                "notifications": .stringConvertible(known.notifications), "reason": "\(reason ?? "")",
            ])
        case .notification:
            guard let record = event.notification else { return nil }
            connections[id]?.notifications += 1
            return entry(event, Self.pushMessage(record, connection: connection), Self.pushFields(record, connection: id))
        case .http2Frame, .legacyFrame, .fault, .feedbackTuple, .diagnosis:
            return nil
        }
    }

    /// `push c3/s1 http2 token=a1b2c3d4 topic=com.example.app type=alert 200 87us`
    static func pushMessage(_ record: NotificationRecord, connection: String) -> String {
        var message = "push \(connection)"
        if let stream = record.streamID { message += "/s\(stream)" }
        message += " \(record.transport.rawValue) token=\(tokenPrefix(record.deviceToken))"
        message += " topic=\(record.topic ?? "-") type=\(record.pushType ?? "-") "
        message += outcome(record)
        if let micros = record.handlingMicroseconds { message += " \(micros)us" }
        return message
    }

    /// `200`, `400 BadDeviceToken`, `accepted`, `status 8 InvalidToken`, `dropped`.
    static func outcome(_ record: NotificationRecord) -> String {
        var words: [String] = []
        if let status = record.status {
            words.append("\(status)")
        } else if record.dropped {
            words.append("dropped")
        } else if let legacy = record.legacyStatus {
            words.append("status \(legacy.rawValue)")
        } else {
            words.append(record.accepted ? "accepted" : "refused")
        }
        if let reason = record.reason { words.append(reason.rawValue) }
        return words.joined(separator: " ")
    }

    private static func pushFields(_ record: NotificationRecord, connection: UInt64) -> Logger.Metadata {
        var fields: Logger.Metadata = [
            "access": "push", "connection": .stringConvertible(connection), "protocol": "\(record.transport.rawValue)",
            "token": "\(tokenPrefix(record.deviceToken))", "topic": "\(record.topic ?? "")",
            "pushType": "\(record.pushType ?? "")", "accepted": .stringConvertible(record.accepted),
            "reason": "\(record.reason?.rawValue ?? "")", "authentication": "\(record.authentication.kind)",
        ]
        if let stream = record.streamID { fields["stream"] = .stringConvertible(stream) }
        if let status = record.status { fields["status"] = .stringConvertible(status) }
        if let legacy = record.legacyStatus { fields["legacyStatus"] = .stringConvertible(Int(legacy.rawValue)) }
        if let micros = record.handlingMicroseconds { fields["micros"] = .stringConvertible(micros) }
        return fields
    }

    /// The first 8 characters of a token: enough to tell tokens apart in a log.
    static func tokenPrefix(_ token: String) -> String {
        token.isEmpty ? "-" : String(token.prefix(8))
    }

    /// `127.0.0.1:54321` out of NIO's `[IPv4]127.0.0.1/127.0.0.1:54321`.
    static func address(_ peer: String?) -> String {
        guard let peer else { return "?" }
        return peer.split(separator: "/").last.map(String.init) ?? peer
    }

    private func entry(_ event: JournalEvent, _ message: String, _ fields: Logger.Metadata) -> LogLine {
        LogLine(time: "", level: "info", message: message, fields: fields)
    }
}
