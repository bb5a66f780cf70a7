import MockAPNsCore
/// Which notifications a query or a wait wants. Every field left `nil` matches everything.
public struct NotificationFilter: Sendable, Equatable {
    /// Device token, compared without regard to letter case.
    public var deviceToken: String?
    /// The `apns-topic` (HTTP/2) or the certificate's topic (legacy).
    public var topic: String?
    /// The protocol: HTTP/2 or the legacy binary gateway.
    public var transport: Transport?
    /// The HTTP status answered (200, 400, 410...).
    public var status: Int?
    /// The refusal reason (`BadDeviceToken`).
    public var reason: Reason?
    /// Only accepted (`true`) or only refused (`false`) notifications.
    public var accepted: Bool?
    /// The connection the journal numbered.
    public var connectionID: UInt64?
    /// Only notifications recorded after this sequence number.
    public var afterSequence: UInt64?

    /// A filter of the fields given; every field left out matches everything.
    public init(
        deviceToken: String? = nil, topic: String? = nil, transport: Transport? = nil, status: Int? = nil,
        reason: Reason? = nil, accepted: Bool? = nil, connectionID: UInt64? = nil, afterSequence: UInt64? = nil
    ) {
        self.deviceToken = deviceToken
        self.topic = topic
        self.transport = transport
        self.status = status
        self.reason = reason
        self.accepted = accepted
        self.connectionID = connectionID
        self.afterSequence = afterSequence
    }

    /// Every notification.
    public static let all = NotificationFilter()

    /// Whether `record` is wanted.
    public func matches(_ record: NotificationRecord) -> Bool {
        if let afterSequence, record.sequence <= afterSequence { return false }
        if let transport, record.transport != transport { return false }
        if let status, record.status != status { return false }
        if let reason, record.reason != reason { return false }
        if let accepted, record.accepted != accepted { return false }
        if let connectionID, record.connectionID != connectionID { return false }
        if let topic, record.topic != topic { return false }
        if let deviceToken, !Self.sameToken(deviceToken, record.deviceToken) { return false }
        return true
    }

    private static func sameToken(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.lowercased() == b.lowercased()
    }
}

/// Which events a query wants. Every field left `nil` matches everything.
public struct JournalEventFilter: Sendable, Equatable {
    /// Event kinds by name (`JournalEventKind.name`): `http2Frame`, `notification`...
    public var kinds: Set<String>?
    /// The connection the journal numbered.
    public var connectionID: UInt64?
    /// The HTTP/2 stream.
    public var streamID: Int32?
    /// Only events after this sequence number.
    public var afterSequence: UInt64?
    /// Which protocol mouth: events of connections of this transport, and notifications of it.
    public var transport: Transport?
    /// Only broadcasts and channel operations concerning this channel id.
    public var channelID: String?

    /// A filter of the fields given; every field left out matches everything.
    public init(
        kinds: Set<String>? = nil, connectionID: UInt64? = nil, streamID: Int32? = nil,
        afterSequence: UInt64? = nil, transport: Transport? = nil, channelID: String? = nil
    ) {
        self.channelID = channelID
        self.kinds = kinds
        self.connectionID = connectionID
        self.streamID = streamID
        self.afterSequence = afterSequence
        self.transport = transport
    }

    /// Every event.
    public static let all = JournalEventFilter()

    /// Whether `event` is wanted. `transport` is judged by `transportOf`, which knows which
    /// transport each connection used.
    package func matches(_ event: JournalEvent, transportOf: (UInt64) -> Transport?) -> Bool {
        if let afterSequence, event.sequence <= afterSequence { return false }
        if let kinds, !kinds.contains(event.kind.name) { return false }
        if let connectionID, event.connectionID != connectionID { return false }
        if let streamID, event.streamID != streamID { return false }
        if let channelID, event.kind.channelID != channelID { return false }
        if let transport {
            guard let connection = event.connectionID, transportOf(connection) == transport else { return false }
        }
        return true
    }
}
