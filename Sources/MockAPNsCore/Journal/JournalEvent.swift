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
    public var kind: JournalEventKind

    public init(
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
        guard case .notification(var record) = kind else { return nil }
        record.sequence = sequence
        record.wallTimeMilliseconds = wallTimeMilliseconds
        record.connectionID = connectionID ?? record.connectionID
        record.streamID = streamID ?? record.streamID
        return record
    }
}

/// Every kind of event the journal records.
public enum JournalEventKind: Sendable, Equatable {
    /// A client connected.
    case connectionOpened(transport: Transport, peer: String?)
    /// A connection closed; `closedBy` says which side closed it, `reason` why, when known.
    case connectionClosed(transport: Transport, closedBy: ClosingSide, reason: String?)
    /// The TLS handshake completed.
    case tlsEstablished(JournalTLSSession)
    /// The TLS handshake failed.
    case tlsFailed(JournalTLSFailure)
    /// One HTTP/2 frame, in either direction.
    case http2Frame(JournalHTTP2Frame)
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
    case diagnosis(code: String, message: String, figures: [JournalFigure] = [])
    /// One broadcast send on the provider API, with its verdict.
    case broadcast(BroadcastRecord)
    /// One channel management request (create, read, read all, delete) and its answer.
    case channelOperation(ChannelOperationRecord)

    /// The name used in JSON (`"type"`) and in event filters.
    public var name: String {
        switch self {
        case .connectionOpened: "connectionOpened"
        case .connectionClosed: "connectionClosed"
        case .tlsEstablished: "tlsEstablished"
        case .tlsFailed: "tlsFailed"
        case .http2Frame: "http2Frame"
        case .legacyFrame: "legacyFrame"
        case .notification: "notification"
        case .fault: "fault"
        case .feedbackTuple: "feedbackTuple"
        case .diagnosis: "diagnosis"
        case .broadcast: "broadcast"
        case .channelOperation: "channelOperation"
        }
    }

    /// One bit per kind, at the kind's place in `allNames` (a test checks the two agree):
    /// the journal's sinks say which kinds they want with these.
    public var bit: UInt32 {
        switch self {
        case .connectionOpened: 1 << 0
        case .connectionClosed: 1 << 1
        case .tlsEstablished: 1 << 2
        case .tlsFailed: 1 << 3
        case .http2Frame: 1 << 4
        case .legacyFrame: 1 << 5
        case .notification: 1 << 6
        case .fault: 1 << 7
        case .feedbackTuple: 1 << 8
        case .diagnosis: 1 << 9
        case .broadcast: 1 << 10
        case .channelOperation: 1 << 11
        }
    }

    /// Every kind's bit.
    public static let allBits: UInt32 = (1 << UInt32(allNames.count)) - 1

    /// The bits of the kinds named (names from `allNames`; unknown names add nothing).
    public static func bits(named names: some Sequence<String>) -> UInt32 {
        var bits: UInt32 = 0
        for name in names {
            if let index = allNames.firstIndex(of: name) { bits |= 1 << UInt32(index) }
        }
        return bits
    }

    /// Every name `name` can take.
    public static let allNames: [String] = [
        "connectionOpened", "connectionClosed", "tlsEstablished", "tlsFailed", "http2Frame",
        "legacyFrame", "notification", "fault", "feedbackTuple", "diagnosis", "broadcast",
        "channelOperation",
    ]

    /// The broadcast channel the event concerns: a broadcast's `apns-channel-id`, or the
    /// channel a management request created or named.
    public var channelID: String? {
        switch self {
        case .broadcast(let record): record.channelID
        case .channelOperation(let record): record.channelID
        case .connectionOpened, .connectionClosed, .tlsEstablished, .tlsFailed, .http2Frame, .legacyFrame,
             .notification, .fault, .feedbackTuple, .diagnosis:
            nil
        }
    }
}

/// One named number in a diagnosis: `connections: 10`.
public struct JournalFigure: Sendable, Equatable {
    public var name: String
    public var value: Int64

    public init(_ name: String, _ value: Int64) {
        self.name = name
        self.value = value
    }
}

/// Which side ended a connection.
public enum ClosingSide: String, Sendable, Hashable, Codable {
    case client, server
}
