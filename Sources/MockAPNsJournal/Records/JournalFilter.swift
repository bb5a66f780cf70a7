import MockAPNsCore
import MockAPNsJSON
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
    /// The `apns-push-type` as sent (`alert`, `background`, `liveactivity`...).
    public var pushType: String?
    /// The `apns-priority` as sent (a notification sent without one has none).
    public var priority: Int?
    /// A dotted path into the JSON payload (`aps.alert.title`) that must be there, holding
    /// `payloadValue` when that is given.
    public var payloadPath: String?
    /// What `payloadPath` must hold: a string with this text, or a number, boolean or `null`
    /// written so (`"5"` matches `5` and `"5"`).
    public var payloadValue: String?
    /// Only notifications of this session (`MockAPNsSession.id`). Like the sequence bound, it
    /// says where to look: a failed wait's near misses are never another session's.
    public var session: String?

    /// A filter of the fields given; every field left out matches everything.
    public init(
        deviceToken: String? = nil, topic: String? = nil, transport: Transport? = nil, status: Int? = nil,
        reason: Reason? = nil, accepted: Bool? = nil, connectionID: UInt64? = nil, afterSequence: UInt64? = nil,
        pushType: String? = nil, priority: Int? = nil, payloadPath: String? = nil, payloadValue: String? = nil,
        session: String? = nil
    ) {
        self.session = session
        self.deviceToken = deviceToken
        self.topic = topic
        self.transport = transport
        self.status = status
        self.reason = reason
        self.accepted = accepted
        self.connectionID = connectionID
        self.afterSequence = afterSequence
        self.pushType = pushType
        self.priority = priority
        self.payloadPath = payloadPath
        self.payloadValue = payloadValue
    }

    /// Every notification.
    public static let all = NotificationFilter()

    /// Whether `record` is wanted: every condition the filter sets holds.
    public func matches(_ record: NotificationRecord) -> Bool {
        if let afterSequence, record.sequence <= afterSequence { return false }
        if let session, !record.withAuthentication({ $0.session == session }) { return false }
        for condition in Condition.allCases where !holds(condition, for: record) { return false }
        return true
    }

    /// The conditions the filter sets that `record` fails, each with what was expected and
    /// what the record holds: the same checks `matches` makes, in its order (a failed wait's
    /// near misses are made of them). The sequence bound is not among them: it says where to
    /// look, not what to look for.
    public func differences(from record: NotificationRecord) -> [NotificationNearMiss.Difference] {
        Condition.allCases.compactMap { condition in
            guard !holds(condition, for: record), let expected = expectedText(condition) else { return nil }
            return NotificationNearMiss.Difference(condition: condition.rawValue, expected: expected, actual: actual(condition, of: record))
        }
    }

    /// One thing a notification may be asked to be, named as the control API's query
    /// parameter that sets it.
    package enum Condition: String, CaseIterable, Sendable {
        case token, topic, pushType, priority, status, reason, accepted, `protocol`, connection, payload
    }

    /// Whether `condition` holds for `record`; a condition the filter does not set holds.
    /// The one place each condition is checked.
    package func holds(_ condition: Condition, for record: NotificationRecord) -> Bool {
        switch condition {
        case .token: return deviceToken.map { Self.sameToken($0, record.deviceToken) } ?? true
        case .topic: return topic.map { $0 == record.topic } ?? true
        case .pushType: return pushType.map { $0 == record.pushType } ?? true
        case .priority: return priority.map { $0 == record.priority } ?? true
        case .status: return status.map { $0 == record.status } ?? true
        case .reason: return reason.map { $0 == record.reason } ?? true
        case .accepted: return accepted.map { $0 == record.accepted } ?? true
        case .protocol: return transport.map { $0 == record.transport } ?? true
        case .connection: return connectionID.map { $0 == record.connectionID } ?? true
        case .payload:
            guard let payloadPath else { return true }
            guard let found = Self.payloadValue(at: payloadPath, in: record) else { return false }
            return payloadValue.map { Self.text(of: found) == $0 } ?? true
        }
    }

    /// What the filter asks of `condition`, as text; `nil` when it asks nothing.
    func expectedText(_ condition: Condition) -> String? {
        switch condition {
        case .token: return deviceToken
        case .topic: return topic
        case .pushType: return pushType
        case .priority: return priority.map(String.init)
        case .status: return status.map(String.init)
        case .reason: return reason?.rawValue
        case .accepted: return accepted.map(String.init)
        case .protocol: return transport?.rawValue
        case .connection: return connectionID.map(String.init)
        case .payload:
            guard let payloadPath else { return nil }
            return payloadValue.map { "\(payloadPath) = \($0)" } ?? "\(payloadPath) present"
        }
    }

    /// What `record` holds for `condition`, as text (`none` for a field it lacks).
    private func actual(_ condition: Condition, of record: NotificationRecord) -> String {
        let none = "none"
        switch condition {
        case .token: return record.deviceToken.isEmpty ? none : record.deviceToken
        case .topic: return record.topic ?? none
        case .pushType: return record.pushType ?? none
        case .priority: return record.priority.map(String.init) ?? none
        case .status: return record.status.map(String.init) ?? none
        case .reason: return record.reason?.rawValue ?? none
        case .accepted: return String(record.accepted)
        case .protocol: return record.transport.rawValue
        case .connection: return record.connectionID.map(String.init) ?? none
        case .payload:
            let path = payloadPath ?? ""
            guard let found = Self.payloadValue(at: path, in: record) else { return "\(path) absent" }
            return "\(path) = \(Self.text(of: found))"
        }
    }

    /// The value at a dotted path of the record's JSON payload; `nil` when the payload is not
    /// JSON or the path leads nowhere.
    private static func payloadValue(at path: String, in record: NotificationRecord) -> JSONValue? {
        guard let root = try? JSONParser.parse(String(decoding: record.payload, as: UTF8.self)) else { return nil }
        var current = root.value
        for key in path.split(separator: ".", omittingEmptySubsequences: false) {
            guard case .object(let members) = current, let member = members.first(where: { $0.key == key }) else { return nil }
            current = member.value.value
        }
        return current
    }

    /// A payload value as a condition compares it: a string's own text, any other value as JSON.
    private static func text(of value: JSONValue) -> String {
        if case .string(let text) = value { return text }
        var writer = JSONWriter()
        writer.value(nil, value)
        return writer.text
    }

    private static func sameToken(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.lowercased() == b.lowercased()
    }
}

/// A notification that a failed wait's filter almost matched, and how it differed.
public struct NotificationNearMiss: Sendable, Equatable {
    /// The notification as recorded.
    public var record: NotificationRecord
    /// Each condition it failed, in the filter's order.
    public var differences: [Difference]

    /// One condition a notification failed.
    public struct Difference: Sendable, Equatable, CustomStringConvertible {
        /// The condition, named as the control API's query parameter (`token`, `topic`,
        /// `pushType`, `priority`, `status`, `reason`, `accepted`, `protocol`, `connection`,
        /// `payload`).
        public var condition: String
        /// What the filter asked for.
        public var expected: String
        /// What the notification holds.
        public var actual: String

        /// `status: expected 410, got 200`.
        public var description: String { "\(condition): expected \(expected), got \(actual)" }
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
    /// Only the records of this session: its notifications, broadcasts and channel operations.
    public var session: String?

    /// A filter of the fields given; every field left out matches everything.
    public init(
        kinds: Set<String>? = nil, connectionID: UInt64? = nil, streamID: Int32? = nil,
        afterSequence: UInt64? = nil, transport: Transport? = nil, channelID: String? = nil, session: String? = nil
    ) {
        self.channelID = channelID
        self.session = session
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
        if let session, event.kind.session != session { return false }
        if let transport {
            guard let connection = event.connectionID, transportOf(connection) == transport else { return false }
        }
        return true
    }
}
