import MockAPNsWire
import MockAPNsCore
/// One thing the server saw or did, as the journal keeps it: a compact value, turned into
/// JSON only when someone reads it.
public struct JournalEvent: Sendable, Equatable {
    /// Position in the journal: 1 for the first event, one more for each event after it.
    /// Never reused, not even after the journal is cleared.
    public var sequence: UInt64
    /// Milliseconds since 1970 by the server clock (which tests may pin or move).
    public var wallTimeMilliseconds: Int64
    /// Nanoseconds of a monotonic clock: durations between events, whatever the server clock does.
    public var monotonicNanoseconds: UInt64
    /// The connection the event belongs to, when it belongs to one.
    public var connectionID: UInt64?
    /// The HTTP/2 stream the event belongs to, when it belongs to one.
    public var streamID: Int32?
    /// What happened.
    package var kind: JournalEventKind

    package init(
        sequence: UInt64, wallTimeMilliseconds: Int64, monotonicNanoseconds: UInt64,
        connectionID: UInt64?, streamID: Int32?, kind: JournalEventKind
    ) {
        self.sequence = sequence
        self.wallTimeMilliseconds = wallTimeMilliseconds
        self.monotonicNanoseconds = monotonicNanoseconds
        self.connectionID = connectionID
        self.streamID = streamID
        self.kind = kind
    }

    /// The notification, when this event is one, stamped with the event's sequence, time,
    /// connection and stream.
    public var notification: NotificationRecord? {
        guard case .notification(let record) = kind else { return nil }
        return record.stamped(
            sequence: sequence, wallTimeMilliseconds: wallTimeMilliseconds, connectionID: connectionID, streamID: streamID
        )
    }

    /// The event's type as the JSON form and the control API name it: `notification`,
    /// `http2Frame`, `tlsEstablished`, `verdict`, `delivery`, ...
    public var name: String { kind.name }

    /// The event as one JSON object, exactly as the control API and each line of the JSONL
    /// file give it: what a test asserts on for kinds without a typed accessor.
    public var json: String { JournalJSON.encode(self) }
}

/// Every kind of event the journal records.
///
/// An event is copied on its way to every reader, so its size matters: the kinds that are rare
/// and large (handshakes, broadcasts, channel operations, verdicts) are `indirect`, kept in a
/// box, so every event is the size of the largest common kind rather than of a broadcast's
/// record.
package enum JournalEventKind: Sendable, Equatable {
    /// A client connected.
    case connectionOpened(transport: Transport, peer: String?)
    /// A connection closed; `closedBy` says which side closed it, `reason` why, when known.
    case connectionClosed(transport: Transport, closedBy: ClosingSide, reason: String?)
    /// The TLS handshake completed.
    indirect case tlsEstablished(JournalTLSSession)
    /// The TLS handshake failed.
    indirect case tlsFailed(JournalTLSFailure)
    /// One HTTP/2 frame, in either direction.
    case http2Frame(HTTP2FrameRecord)
    /// One legacy binary-gateway frame.
    case legacyFrame(JournalLegacyFrame)
    /// One notification with its verdict and the answer sent.
    case notification(NotificationRecord)
    /// A fault a scenario injected.
    case fault(description: String)
    /// One tuple the feedback service sent.
    case feedbackTuple(deviceToken: String, timestampMilliseconds: Int64)
    /// A likely client mistake or a protocol error, explained; `figures` are the numbers
    /// that triggered it, by name (empty when the message says it all).
    case diagnosis(code: DiagnosisCode, message: String, figures: [JournalFigure] = [])
    /// One broadcast send on the provider API, with its verdict.
    indirect case broadcast(BroadcastRecord)
    /// One channel management request (create, read, read all, delete) and its answer.
    indirect case channelOperation(ChannelOperationRecord)
    /// A finding about a provider's retry logic (`ProviderJudge`), with the notifications and
    /// connections it rests on.
    indirect case verdict(ProviderVerdict)
    /// One step of the delivery model: an accepted notification stored, replaced, expired,
    /// discarded or delivered, or a device going online or offline.
    case delivery(DeliveryRecord)

    /// Every kind by name, without its values, in the order of their bits. The name used in
    /// JSON (`"type"`) and in event filters is the case's own name.
    package enum Name: UInt8, CaseIterable, Sendable, Hashable {
        case connectionOpened, connectionClosed, tlsEstablished, tlsFailed, http2Frame, legacyFrame
        case notification, fault, feedbackTuple, diagnosis, broadcast, channelOperation, verdict, delivery

        /// The name as JSON and filters spell it.
        package var text: String { Self.texts[Int(rawValue)] }

        /// One bit per kind: the journal's readers say which kinds they want with these.
        package var bit: UInt32 { 1 << UInt32(rawValue) }

        /// The kind named `text`, if there is one.
        package init?(text: String) {
            guard let index = Self.texts.firstIndex(of: text), let name = Name(rawValue: UInt8(index)) else { return nil }
            self = name
        }

        /// Every name, in bit order.
        package static let texts: [String] = allCases.map { String(describing: $0) }
    }

    /// Which kind this is.
    package var type: Name {
        switch self {
        case .connectionOpened: .connectionOpened
        case .connectionClosed: .connectionClosed
        case .tlsEstablished: .tlsEstablished
        case .tlsFailed: .tlsFailed
        case .http2Frame: .http2Frame
        case .legacyFrame: .legacyFrame
        case .notification: .notification
        case .fault: .fault
        case .feedbackTuple: .feedbackTuple
        case .diagnosis: .diagnosis
        case .broadcast: .broadcast
        case .channelOperation: .channelOperation
        case .verdict: .verdict
        case .delivery: .delivery
        }
    }

    /// The name used in JSON (`"type"`) and in event filters.
    package var name: String { type.text }

    /// This kind's bit (`Name.bit`).
    package var bit: UInt32 { type.bit }

    /// Every kind's bit.
    package static let allBits: UInt32 = (1 << UInt32(Name.allCases.count)) - 1

    /// The bits of the kinds named (unknown names add nothing).
    package static func bits(named names: some Sequence<String>) -> UInt32 {
        names.reduce(0) { $0 | (Name(text: $1)?.bit ?? 0) }
    }

    /// The bits of the kinds given.
    package static func bits(_ names: Name...) -> UInt32 {
        names.reduce(0) { $0 | $1.bit }
    }

    /// The broadcast channel the event concerns: a broadcast's `apns-channel-id`, or the
    /// channel a management request created or named.
    package var channelID: String? {
        switch self {
        case .broadcast(let record): record.channelID
        case .channelOperation(let record): record.channelID
        case .connectionOpened, .connectionClosed, .tlsEstablished, .tlsFailed, .http2Frame, .legacyFrame,
             .notification, .fault, .feedbackTuple, .diagnosis, .verdict, .delivery:
            nil
        }
    }

    /// The session whose credentials a record's request carried (`JournalAuthentication.session`);
    /// `nil` for the default session's records and for every event that is not a request's record.
    package var session: String? {
        switch self {
        case .notification(let record): record.withAuthentication { $0.session }
        case .broadcast(let record): record.authentication.session
        case .channelOperation(let record): record.authentication.session
        case .connectionOpened, .connectionClosed, .tlsEstablished, .tlsFailed, .http2Frame, .legacyFrame,
             .fault, .feedbackTuple, .diagnosis, .verdict, .delivery:
            nil
        }
    }
}

extension JournalEventKind {
    /// An answer in a few words: `429 TooManyRequests apns-id=...`, `status 8 Unregistered`,
    /// `accepted`, `RST_STREAM REFUSED_STREAM (rule "flaky")`.
    static func summary(of answer: SentAnswer) -> String {
        var words: [String] = []
        if let status = answer.status { words.append(String(status)) }
        if let packet = answer.legacyPacket { words.append("status \(packet.status.rawValue)") }
        if answer.accepted {
            words.append("accepted")
        } else if let reason = answer.reason {
            words.append(reason.rawValue)
        } else if answer.status == nil, answer.legacyPacket == nil, answer.fault == nil {
            words.append("nothing sent")
        }
        if let id = answer.apnsID { words.append("apns-id=\(id)") }
        if let fault = answer.fault { words.append(fault.summary) }
        if let undelivered = answer.undelivered { words.append("(not sent: \(undelivered))") }
        if let rule = answer.rule { words.append("(rule \"\(rule)\")") }
        return words.joined(separator: " ")
    }
}

extension AppliedFault {
    /// The fault in wire terms: `RST_STREAM REFUSED_STREAM`, `GOAWAY NO_ERROR`, `TCP RST`.
    package var summary: String {
        switch self {
        case .closeConnection: "connection closed (FIN)"
        case .resetConnection: "connection reset (RST)"
        case .goAway(let code, let last):
            "GOAWAY \(HTTP2ErrorCode.name(of: code))" + (last.map { " last stream \($0)" } ?? "")
        case .resetStream(let code): "RST_STREAM \(HTTP2ErrorCode.name(of: code))"
        case .stall: "never answered"
        case .lowerMaxConcurrentStreams(let limit): "SETTINGS_MAX_CONCURRENT_STREAMS \(limit)"
        case .sendGarbage(let length, let insideTLS): "\(length) garbage bytes " + (insideTLS ? "inside TLS" : "on the socket")
        case .closeAfterBytes(let bytes): "closed after \(bytes) more bytes"
        case .shutdown: "going away (GOAWAY NO_ERROR / status 10)"
        }
    }
}

/// Which side ended a connection.
package enum ClosingSide: String, CaseIterable, Sendable, Hashable, Codable {
    case client, server
}

extension JournalEventKind {
    /// What happened, in one line for people: the `journal` command's timeline.
    package var summary: String {
        switch self {
        case .connectionOpened(let transport, let peer):
            return "\(transport.rawValue) connection opened from \(peer ?? "?")"
        case .connectionClosed(let transport, let closedBy, let reason):
            return "\(transport.rawValue) connection closed by \(closedBy.rawValue)" + (reason.map { ": \($0)" } ?? "")
        case .tlsEstablished(let session):
            var line = "TLS \(session.version) \(session.cipher)"
            if let alpn = session.negotiatedALPN { line += " ALPN \(alpn)" }
            if let offered = session.offeredALPN { line += " (offered \(offered.joined(separator: ",")))" }
            if let name = session.serverName { line += " SNI \(name)" }
            if let subject = session.clientCertificateSubject { line += " client \(subject)" }
            return line
        case .tlsFailed(let failure):
            var line = "TLS failed: \(failure.reason)"
            if let alert = failure.alertSent { line += " (sent \(alert))" }
            if let alert = failure.alertReceived { line += " (received \(alert))" }
            return line
        case .http2Frame(let frame):
            var line = "\(frame.direction == .inbound ? "<-" : "->") \(frame.type) flags=0x\(String(frame.flags, radix: 16)) length=\(frame.length)"
            switch frame.details {
            case .empty: break
            case .headers, .response:
                line += " " + (frame.details.headerList ?? []).map { "\($0.name): \($0.value)" }.joined(separator: ", ")
            case .settings(let settings): line += " " + settings.map(\.description).joined(separator: " ")
            case .rstStream(let code): line += " error=\(HTTP2ErrorCode.name(of: code))"
            case .goaway(let code, let lastStream, let debugData):
                line += " error=\(HTTP2ErrorCode.name(of: code)) lastStream=\(lastStream)"
                if !debugData.isEmpty { line += " debug=\(String(decoding: debugData, as: UTF8.self))" }
            case .windowUpdate(let increment): line += " increment=\(increment)"
            case .ping(let data): line += " data=\(JournalJSON.hex(data))"
            }
            return line
        case .legacyFrame(let frame):
            var line = "legacy command \(frame.command)"
            if let identifier = frame.identifier { line += " id=\(identifier)" }
            if let token = frame.deviceToken { line += " token=\(token)" }
            if let length = frame.payloadLength { line += " payload=\(length)B" }
            if let problem = frame.problem { line += " REFUSED: \(problem)" }
            if let raw = frame.rawBytes { line += " bytes=\(JournalJSON.hex(raw))" }
            if frame.dropped { line += " (dropped)" }
            return line
        case .notification(let push):
            var line = "push \(push.transport.rawValue) token=\(push.deviceToken)"
            if let topic = push.topic { line += " topic=\(topic)" }
            if let type = push.pushType { line += " type=\(type)" }
            line += " => " + Self.summary(of: push.answer)
            if push.dropped { line += " (dropped)" }
            if let problem = push.problem { line += ": \(problem)" }
            return line
        case .fault(let description):
            return "FAULT \(description)"
        case .feedbackTuple(let token, let timestamp):
            return "feedback tuple token=\(token) time=\(timestamp)"
        case .diagnosis(let code, let message, let figures):
            var line = "diagnosis \(code.rawValue): \(message)"
            if !figures.isEmpty { line += " [" + figures.map { "\($0.name)=\($0.value)" }.joined(separator: " ") + "]" }
            return line
        case .broadcast(let sent):
            var line = "broadcast \(sent.bundleID ?? "?") channel=\(sent.channelID ?? "?") => "
            line += Self.summary(of: sent.answer)
            return line
        case .channelOperation(let operation):
            var line = "channel \(operation.operation?.rawValue ?? "?") \(operation.outcome.bundleID ?? "?")"
            if let channel = operation.channelID { line += " channel=\(channel)" }
            line += " => " + Self.summary(of: operation.answer)
            return line
        case .verdict(let verdict):
            return "VERDICT \(verdict.rule.rawValue) \(verdict.provider.name): \(verdict.message)"
        case .delivery(let delivery):
            return delivery.summary
        }
    }
}

extension Diagnosis {
    /// The journal event that records it.
    package var event: JournalEventKind {
        .diagnosis(code: code, message: message, figures: figures)
    }
}
