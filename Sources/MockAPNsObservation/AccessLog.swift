import MockAPNsCore
import MockAPNsJournal
import MockAPNsBroadcast
import MockAPNsLogging

/// The access log: one `info` line per notification, and one per connection opened (when its
/// TLS handshake ends, so the line can say the TLS version and who the client is) and closed.
///
/// It reads journal events after the fact, in batches, off the event loops: the hot path only
/// hands the journal its compact records, as it does anyway. Lines are appended straight into
/// one buffer per batch (no per-line dictionaries or intermediate strings) and written with a
/// single write, so a full-load run spends little on them.
package struct AccessLog {
    package let format: LogFormat
    package let output: LogOutput

    /// What a later line about a connection needs from its earlier events. A class: counting a
    /// notification is then a lookup, where changing a value in place in the dictionary went
    /// through its modify accessor, which allocated three times per notification.
    private final class Connection {
        let transport: Transport
        let peer: String
        let openedAt: UInt64
        var notifications = 0

        init(transport: Transport, peer: String, openedAt: UInt64) {
            self.transport = transport
            self.peer = peer
            self.openedAt = openedAt
        }
    }

    private var connections: [UInt64: Connection] = [:]
    /// Connections open now (each is forgotten at its close).
    package var connectionsTracked: Int { connections.count }
    private var clock = LogTimestamp()

    package init(format: LogFormat, output: LogOutput) {
        self.format = format
        self.output = output
    }

    /// Writes the lines the feed's events call for.
    package mutating func write(_ events: ActivityEvents) {
        var bytes: [UInt8] = []
        // About a line per event: the buffer is not grown (and copied) a dozen times a batch.
        bytes.reserveCapacity(events.count * 160)
        // Each line carries its event's real time: now, less how long ago it happened.
        let (realNow, monotonicNow) = LogLine.clocks()
        for event in events {
            guard let entry = entry(for: event) else { continue }
            let age = Int64(clamping: monotonicNow &- min(monotonicNow, event.monotonicNanoseconds)) / 1_000_000
            switch format {
            case .text:
                clock.append(millisecondsSince1970: realNow - age, to: &bytes)
                AccessEntry.append(" info ", to: &bytes)
                entry.appendMessage(to: &bytes)
            case .json:
                var time: [UInt8] = []
                clock.append(millisecondsSince1970: realNow - age, to: &time)
                bytes.append(contentsOf: entry.json(time: String(decoding: time, as: UTF8.self)).utf8)
            }
            bytes.append(UInt8(ascii: "\n"))
        }
        if !bytes.isEmpty { output.write(bytes, format: format) }
    }

    /// The entry one event calls for, if any; keeps track of connections on the way.
    package mutating func entry(for event: JournalEvent) -> AccessEntry? {
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
            if let known = connections[id] { known.notifications += 1 }
            return .push(connection: id, stream: event.streamID ?? record.streamID, record: record)
        case .broadcast(let record):
            if let known = connections[id] { known.notifications += 1 }
            return .broadcast(connection: id, stream: event.streamID, record: record)
        case .channelOperation(let record):
            return .channelOperation(connection: id, stream: event.streamID, record: record)
        case .verdict(let verdict):
            return .verdict(connection: event.connectionID, verdict: verdict)
        case .http2Frame, .legacyFrame, .fault, .feedbackTuple, .diagnosis, .delivery:
            return nil
        }
    }

    /// `127.0.0.1:54321` out of NIO's `[IPv4]127.0.0.1/127.0.0.1:54321`.
    package static func address(_ peer: String?) -> String {
        guard let peer else { return "?" }
        return peer.split(separator: "/").last.map(String.init) ?? peer
    }
}

/// One access-log line's facts, written as text or as JSON.
package enum AccessEntry {
    case open(connection: UInt64, transport: Transport, peer: String, session: JournalTLSSession)
    case refused(connection: UInt64, transport: Transport, peer: String, failure: JournalTLSFailure)
    case close(connection: UInt64, transport: Transport, closedBy: ClosingSide, milliseconds: UInt64, notifications: Int, reason: String?)
    case push(connection: UInt64, stream: Int32?, record: NotificationRecord)
    case broadcast(connection: UInt64, stream: Int32?, record: BroadcastRecord)
    case channelOperation(connection: UInt64, stream: Int32?, record: ChannelOperationRecord)
    case verdict(connection: UInt64?, verdict: ProviderVerdict)

    /// The line after its time and level:
    /// `open c1 http2 from 127.0.0.1:54321 TLSv1.3 certificate "..."`,
    /// `push c1/s1 http2 token=a1b2c3d4 topic=com.example.app type=alert 200 87us`,
    /// `push c2/s1 http2 token=a1b2c3d4 topic=com.example.app type=alert 403 InvalidProviderToken 40us: iat ... in the future ...`,
    /// `close c1 http2 by client after 0.012s, 1 notifications`,
    /// `broadcast c1/s1 bundle=com.example.app channel=dHVw... 200`,
    /// `channel c2/s1 create bundle=com.example.app channel=dHVw... 201`,
    /// `verdict c3 no-backoff retriedTooSoon provider="token team T key K": retried ... [#12 #15]`.
    /// Push lines, one per notification, are put together byte by byte.
    package func appendMessage(to bytes: inout [UInt8]) {
        switch self {
        case .open(let connection, let transport, let peer, let session):
            var text = "open c\(connection) \(transport.rawValue) from \(peer) \(session.version) "
            if let subject = session.clientCertificateSubject {
                text += "certificate \"\(subject)\""
            } else {
                text += transport == .http2 ? "no certificate (provider tokens)" : "no certificate"
            }
            bytes.append(contentsOf: text.utf8)
        case .refused(let connection, let transport, let peer, let failure):
            bytes.append(contentsOf: "refused c\(connection) \(transport.rawValue) from \(peer): TLS handshake failed: \(failure.reason)".utf8)
        case .close(let connection, let transport, let closedBy, let milliseconds, let notifications, let reason):
            var text = "close c\(connection) \(transport.rawValue) by \(closedBy.rawValue) after \(Self.seconds(milliseconds))s, \(notifications) notifications"
            if let reason { text += " (\(reason))" }
            bytes.append(contentsOf: text.utf8)
        case .push(let connection, let stream, let record):
            Self.append("push c", to: &bytes)
            Self.appendDecimal(connection, to: &bytes)
            if let stream {
                Self.append("/s", to: &bytes)
                Self.appendDecimal(UInt64(clamping: stream), to: &bytes)
            }
            bytes.append(UInt8(ascii: " "))
            Self.append(record.transport.rawValue, to: &bytes)
            Self.append(" token=", to: &bytes)
            record.withDeviceTokenUTF8 { Self.appendPrefix(of: $0, count: 8, orIfEmpty: UInt8(ascii: "-"), to: &bytes) }
            Self.append(" topic=", to: &bytes)
            Self.append(record.topic ?? "-", to: &bytes)
            Self.append(" type=", to: &bytes)
            Self.append(record.pushType ?? "-", to: &bytes)
            bytes.append(UInt8(ascii: " "))
            if let status = record.status {
                Self.appendDecimal(UInt64(clamping: status), to: &bytes)
            } else if record.dropped {
                Self.append("dropped", to: &bytes)
            } else if let legacy = record.legacyStatus {
                Self.append("status ", to: &bytes)
                Self.appendDecimal(UInt64(legacy.rawValue), to: &bytes)
            } else if record.fault == nil {
                Self.append(record.accepted ? "accepted" : "refused", to: &bytes)
            } else {
                Self.append("-", to: &bytes)
            }
            if let reason = record.reason {
                bytes.append(UInt8(ascii: " "))
                Self.append(reason.rawValue, to: &bytes)
            }
            Self.appendScenario(fault: record.fault, rule: record.rule, to: &bytes)
            if let upstream = record.upstream { Self.appendUpstream(upstream, to: &bytes) }
            if let micros = record.handlingMicroseconds {
                bytes.append(UInt8(ascii: " "))
                Self.appendDecimal(UInt64(clamping: micros), to: &bytes)
                Self.append("us", to: &bytes)
            }
            Self.appendCause(record.causeOfAnswer, to: &bytes)
        case .broadcast(let connection, let stream, let record):
            var text = "broadcast c\(connection)\(stream.map { "/s\($0)" } ?? "") bundle=\(record.bundleID ?? "-")"
            text += " channel=\(record.channelID ?? "-") \(record.status.map(String.init) ?? "-")"
            if let reason = record.reason { text += " \(reason.rawValue)" }
            bytes.append(contentsOf: text.utf8)
            Self.appendScenario(fault: record.answer.fault, rule: record.answer.rule, to: &bytes)
            Self.appendCause(record.authentication.detail, to: &bytes)
        case .channelOperation(let connection, let stream, let record):
            var text = "channel c\(connection)\(stream.map { "/s\($0)" } ?? "") \(record.operation?.rawValue ?? "-")"
            text += " bundle=\(record.outcome.bundleID ?? "-") channel=\(record.channelID ?? "-") \(record.status.map(String.init) ?? "-")"
            if let reason = record.reason { text += " \(reason.rawValue)" }
            bytes.append(contentsOf: text.utf8)
            Self.appendScenario(fault: record.answer.fault, rule: record.answer.rule, to: &bytes)
            Self.appendCause(record.authentication.detail, to: &bytes)
        case .verdict(let connection, let verdict):
            var text = "verdict" + (connection.map { " c\($0)" } ?? "") + " \(verdict.rule.rawValue) \(verdict.check.rawValue) provider="
            bytes.append(contentsOf: text.utf8)
            JSONWriter.appendQuoted(verdict.provider.name, to: &bytes)
            text = ": \(verdict.message)"
            if !verdict.notifications.isEmpty {
                text += " [" + verdict.notifications.map { "#\($0)" }.joined(separator: " ") + "]"
            }
            bytes.append(contentsOf: text.utf8)
        }
    }

    /// ` fault=resetStream rule="flaky"`: what a scenario did, when it did anything.
    /// Takes the two fields, not the answer: passing the whole answer copied it, with every
    /// reference it holds, for each line.
    package static func appendScenario(fault: AppliedFault?, rule: String?, to bytes: inout [UInt8]) {
        if let fault {
            append(" fault=", to: &bytes)
            append(fault.name, to: &bytes)
        }
        if let rule {
            append(" rule=", to: &bytes)
            JSONWriter.appendQuoted(rule, to: &bytes)
        }
    }

    /// ` upstream=81ms`, ` upstream=timedOut`, and ` mockapns=400 BadDeviceToken` when
    /// MockAPNs' own answer would have differed: where an answer of upstream mode came from.
    static func appendUpstream(_ upstream: UpstreamRelay, to bytes: inout [UInt8]) {
        append(" upstream=", to: &bytes)
        if let kind = upstream.failureKind {
            append(kind, to: &bytes)
        } else {
            appendDecimal(UInt64(clamping: upstream.latencyMicroseconds / 1000), to: &bytes)
            append("ms", to: &bytes)
        }
        if upstream.disagrees {
            append(" mockapns=", to: &bytes)
            append(UpstreamRelay.describe(status: upstream.ownStatus, reason: upstream.ownReason), to: &bytes)
        }
    }

    /// `: <why>` after a refusal whose record says why: the credentials' refusal detail (a
    /// provider token's cause) or the record's problem.
    package static func appendCause(_ cause: String?, to bytes: inout [UInt8]) {
        guard let cause, !cause.isEmpty else { return }
        append(": ", to: &bytes)
        append(cause, to: &bytes)
    }

    /// A fixed text's bytes, straight from the binary.
    package static func append(_ text: StaticString, to bytes: inout [UInt8]) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// A string's UTF-8 bytes, copied from its contiguous storage in one go (the generic
    /// append over `String.UTF8View` goes byte by byte).
    package static func append(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// The first `count` of `text`'s bytes (the whole of a shorter one), or `empty` when it has none.
    package static func appendPrefix(of text: UnsafeRawBufferPointer, count: Int, orIfEmpty empty: UInt8, to bytes: inout [UInt8]) {
        guard !text.isEmpty else { return bytes.append(empty) }
        bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: text.prefix(count)))
    }

    /// The decimal digits of `value`, without making a string.
    package static func appendDecimal(_ value: UInt64, to bytes: inout [UInt8]) {
        guard value >= 10 else {
            bytes.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        appendDecimal(value / 10, to: &bytes)
        bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    /// One JSON object with the message and a field per value.
    package func json(time: String) -> String {
        var messageBytes: [UInt8] = []
        appendMessage(to: &messageBytes)
        let message = String(decoding: messageBytes, as: UTF8.self)
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
            json.string("fault", record.fault?.name)
            json.string("rule", record.rule)
            if let upstream = record.upstream {
                json.integer("upstreamMicros", upstream.latencyMicroseconds)
                json.string("upstreamFailure", upstream.failureKind)
                if upstream.disagrees { json.string("mockapnsAnswer", UpstreamRelay.describe(status: upstream.ownStatus, reason: upstream.ownReason)) }
            }
            json.string("authentication", record.authentication.kind)
            json.string("authenticationDetail", record.authentication.detail)
            json.string("problem", record.problem)
            json.integer("micros", record.handlingMicroseconds)
        case .broadcast(let connection, let stream, let record):
            json.string("access", "broadcast")
            json.integer("connection", connection)
            json.integer("stream", stream)
            json.string("bundleId", record.bundleID)
            json.string("channelId", record.channelID)
            json.bool("accepted", record.accepted)
            json.integer("status", record.status)
            json.string("reason", record.reason?.rawValue)
            json.string("authentication", record.authentication.kind)
            json.string("authenticationDetail", record.authentication.detail)
        case .channelOperation(let connection, let stream, let record):
            json.string("access", "channelOperation")
            json.integer("connection", connection)
            json.integer("stream", stream)
            json.string("operation", record.operation?.rawValue)
            json.string("bundleId", record.outcome.bundleID)
            json.string("channelId", record.channelID)
            json.integer("status", record.status)
            json.string("reason", record.reason?.rawValue)
            json.string("authentication", record.authentication.kind)
            json.string("authenticationDetail", record.authentication.detail)
        case .verdict(let connection, let verdict):
            json.string("access", "verdict")
            json.integer("connection", connection)
            json.string("rule", verdict.rule.rawValue)
            json.string("check", verdict.check.rawValue)
            json.string("provider", verdict.provider.name)
            json.string("token", verdict.deviceToken.map { String(Self.tokenPrefix($0)) })
            json.beginArray("notifications")
            for sequence in verdict.notifications { json.integer(nil, sequence) }
            json.endArray()
        }
        json.endObject()
        return json.text
    }

    /// The first 8 characters of a token: enough to tell tokens apart in a log.
    package static func tokenPrefix(_ token: String) -> Substring {
        token.isEmpty ? "-" : token.prefix(8)
    }

    /// `0.012` for 12 ms.
    package static func seconds(_ milliseconds: UInt64) -> String {
        let fraction = milliseconds % 1000
        let padded = fraction < 10 ? "00\(fraction)" : fraction < 100 ? "0\(fraction)" : "\(fraction)"
        return "\(milliseconds / 1000).\(padded)"
    }
}

/// Formats log times, reusing the date and time up to the second while it stays the same:
/// a busy second's lines then cost only their milliseconds.
package struct LogTimestamp {
    private var second: Int64 = -1
    /// `2026-01-01T09:14:03.`
    private var prefix: [UInt8] = []

    package mutating func append(millisecondsSince1970 value: Int64, to bytes: inout [UInt8]) {
        let whole = value / 1000
        if whole != second {
            second = whole
            prefix = Array(LogLine.format(millisecondsSince1970: whole * 1000).utf8.dropLast(4))
        }
        bytes.append(contentsOf: prefix)
        let hundreds = UInt8(clamping: value % 1000 / 100), tens = UInt8(clamping: value % 100 / 10), units = UInt8(clamping: value % 10)
        bytes.append(UInt8(ascii: "0") + hundreds)
        bytes.append(UInt8(ascii: "0") + tens)
        bytes.append(UInt8(ascii: "0") + units)
        bytes.append(UInt8(ascii: "Z"))
    }
}

extension NotificationRecord {
    /// Why the notification was answered as it was, for the log line: the credentials' cause
    /// when the answer is their refusal (or there is no other), otherwise the request's own
    /// problem. A request refused for its path says so, not why its credentials were wrong.
    var causeOfAnswer: String? {
        guard let reason else { return withAuthentication { $0.detail } ?? problem }
        guard reason != withAuthentication({ $0.refusal }) else { return withAuthentication { $0.detail } ?? problem }
        return problem
    }
}
