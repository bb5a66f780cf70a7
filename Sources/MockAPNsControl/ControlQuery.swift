import Hummingbird
import MockAPNsCore
import MockAPNsJournal

/// Reads a request's query parameters, refusing unknown ones and bad values with an error
/// that names the parameter.
package struct ControlQuery {
    private let parameters: [String: String]

    /// Reads `request`'s query; any parameter outside `allowed` is an error.
    package init(_ request: Request, allowed: Set<String>) throws(ControlAPIError) {
        var parameters: [String: String] = [:]
        for (key, value) in request.uri.queryParameters {
            let name = String(key)
            guard allowed.contains(name) else {
                throw ControlAPIError(
                    "unknown query parameter \"\(name)\"; known here: \(allowed.sorted().joined(separator: ", "))",
                    parameter: name)
            }
            guard parameters[name] == nil else {
                throw ControlAPIError("query parameter \"\(name)\" given twice", parameter: name)
            }
            parameters[name] = String(value)
        }
        self.parameters = parameters
    }

    package func string(_ name: String) throws(ControlAPIError) -> String? {
        guard let value = parameters[name] else { return nil }
        guard !value.isEmpty else { throw ControlAPIError("\(name) is empty", parameter: name) }
        return value
    }

    package func integer<Value: FixedWidthInteger>(_ name: String, in range: ClosedRange<Value>) throws(ControlAPIError) -> Value? {
        guard let text = parameters[name] else { return nil }
        guard let value = Value(text), range.contains(value) else {
            throw ControlAPIError("\(name) must be an integer from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"", parameter: name)
        }
        return value
    }

    package func bool(_ name: String) throws(ControlAPIError) -> Bool? {
        guard let text = parameters[name] else { return nil }
        switch text {
        case "true": return true
        case "false": return false
        default: throw ControlAPIError("\(name) must be true or false, not \"\(text)\"", parameter: name)
        }
    }

    /// A value of a string enumeration, such as `protocol=http2` or `reason=BadDeviceToken`.
    package func oneOf<Value: RawRepresentable & CaseIterable>(_ name: String, _ type: Value.Type) throws(ControlAPIError) -> Value?
    where Value.RawValue == String {
        guard let text = parameters[name] else { return nil }
        guard let value = Value(rawValue: text) else {
            let known = Value.allCases.map(\.rawValue).joined(separator: ", ")
            throw ControlAPIError("\(name) must be one of \(known), not \"\(text)\"", parameter: name)
        }
        return value
    }

    // MARK: Shared filters

    package static let notificationParameters: Set<String> = [
        "token", "topic", "protocol", "status", "reason", "accepted", "connection", "after", "limit",
        "pushType", "priority", "payloadPath", "payloadValue",
    ]

    /// The notification filter from `token`, `topic`, `protocol`, `status`, `reason`,
    /// `accepted`, `connection`, `after`, `pushType`, `priority`, `payloadPath` and `payloadValue`.
    package func notificationFilter() throws(ControlAPIError) -> NotificationFilter {
        let payloadPath = try string("payloadPath")
        let payloadValue = try string("payloadValue")
        if payloadValue != nil, payloadPath == nil {
            throw ControlAPIError("payloadValue needs payloadPath: the dotted path whose value it is (aps.alert.title)", parameter: "payloadValue")
        }
        return NotificationFilter(
            deviceToken: try string("token"),
            topic: try string("topic"),
            transport: try oneOf("protocol", Transport.self),
            status: try integer("status", in: 100...599),
            reason: try oneOf("reason", Reason.self),
            accepted: try bool("accepted"),
            connectionID: try integer("connection", in: 1...UInt64.max),
            afterSequence: try integer("after", in: 0...UInt64.max),
            pushType: try string("pushType"),
            priority: try integer("priority", in: 0...10),
            payloadPath: payloadPath,
            payloadValue: payloadValue
        )
    }

    /// `limit`, 1 to 100,000; default 1,000.
    package func limit() throws(ControlAPIError) -> Int {
        try integer("limit", in: 1...100_000) ?? 1_000
    }
}

extension ControlQuery {
    /// `type=notification,diagnosis`: the event kinds named, each one the journal knows
    /// (`nil`: the parameter is absent, so every kind).
    package func eventKinds() throws(ControlAPIError) -> Set<String>? {
        guard let types = try string("type") else { return nil }
        let names = Set(types.split(separator: ",").map(String.init))
        if let unknown = names.first(where: { JournalEventKind.Name(text: $0) == nil }) {
            throw ControlAPIError(
                "unknown event type \"\(unknown)\"; known: \(JournalEventKind.Name.texts.joined(separator: ", "))",
                parameter: "type")
        }
        return names
    }
}
