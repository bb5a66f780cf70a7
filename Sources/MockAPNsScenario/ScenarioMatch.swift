import MockAPNsCore
import MockAPNsBroadcast
/// What a request must look like for a rule to fire. Every matcher given must hold; an
/// absent matcher holds for every request. Lists match any of their members.
package struct ScenarioMatch: Sendable, Equatable {
    /// The protocol mouths the rule applies to; `nil` is every one.
    package var protocols: Set<Transport>?
    /// Device tokens (hex, compared case-insensitively).
    package var tokens: Set<String>?
    /// `apns-topic`, or on the legacy gateway the certificate's topic.
    package var topics: Set<String>?
    /// `apns-push-type` values, as sent.
    package var pushTypes: Set<String>?
    /// `apns-priority` values; a request without one counts as 10, Apple's default.
    package var priorities: Set<Int>?
    /// How the connection authenticated.
    package var authentication: AuthenticationMatch?
    /// The payload's size in bytes.
    package var payloadSize: IntegerRange?
    /// Values inside the JSON payload.
    package var payload: [PayloadMatch]
    /// The request's number (1 for the first) in a chosen count.
    package var requestIndex: RequestIndexMatch?
    /// The connection's number (1 for the first of its protocol since the scenario loaded).
    package var connectionIndex: IntegerRange?
    /// The chance the rule fires when everything else matched, drawn from the seeded
    /// generator.
    package var probability: Double?
    /// Broadcast channel ids: a broadcast's `apns-channel-id`, or the channel a management
    /// request names.
    package var channels: Set<String>?
    /// Channel management operations (`create`, `read`, `readAll`, `delete`); requests that
    /// are not management requests never match.
    package var channelOperations: Set<ChannelOperation>?

    package init(
        protocols: Set<Transport>? = nil,
        tokens: Set<String>? = nil,
        topics: Set<String>? = nil,
        pushTypes: Set<String>? = nil,
        priorities: Set<Int>? = nil,
        authentication: AuthenticationMatch? = nil,
        payloadSize: IntegerRange? = nil,
        payload: [PayloadMatch] = [],
        requestIndex: RequestIndexMatch? = nil,
        connectionIndex: IntegerRange? = nil,
        probability: Double? = nil,
        channels: Set<String>? = nil,
        channelOperations: Set<ChannelOperation>? = nil
    ) {
        self.channels = channels
        self.channelOperations = channelOperations
        self.protocols = protocols
        self.tokens = tokens.map { Set($0.map { $0.lowercased() }) }
        self.topics = topics
        self.pushTypes = pushTypes
        self.priorities = priorities
        self.authentication = authentication
        self.payloadSize = payloadSize
        self.payload = payload
        self.requestIndex = requestIndex
        self.connectionIndex = connectionIndex
        self.probability = probability
    }

    /// Whether the matchers that need only the connection (protocol, connection index) hold.
    func matches(connection: ScenarioConnection) -> Bool {
        if let protocols, !protocols.contains(connection.transport) { return false }
        if let connectionIndex, !connectionIndex.contains(connection.index) { return false }
        return true
    }

    /// Whether every deterministic matcher holds (probability is drawn by the engine).
    func matches(_ request: ScenarioRequest, numbers: ScenarioRequestNumbers, connection: ScenarioConnection) -> Bool {
        var payload = ParsedPayload(request)
        return matches(request, numbers: numbers, connection: connection, payload: &payload)
    }

    /// The same, the payload parsed at most once for every rule of the decision (`payload`).
    func matches(
        _ request: ScenarioRequest, numbers: ScenarioRequestNumbers, connection: ScenarioConnection, payload document: inout ParsedPayload
    ) -> Bool {
        if let protocols, !protocols.contains(request.transport) { return false }
        if let connectionIndex, !connectionIndex.contains(connection.index) { return false }
        if let tokens {
            guard let token = request.deviceToken, tokens.contains(token.lowercased()) else { return false }
        }
        if let topics {
            guard let topic = request.topic, topics.contains(topic) else { return false }
        }
        if let pushTypes {
            guard let pushType = request.pushType, pushTypes.contains(pushType) else { return false }
        }
        if let channels {
            guard let channel = request.channelID, channels.contains(channel) else { return false }
        }
        if let channelOperations {
            guard let operation = request.channelOperation, channelOperations.contains(operation) else { return false }
        }
        if let priorities, !priorities.contains(request.priority ?? 10) { return false }
        if let authentication, !authentication.matches(request.authentication) { return false }
        if let payloadSize, !payloadSize.contains(request.payloadSize) { return false }
        if let requestIndex, !requestIndex.matches(numbers) { return false }
        if !payload.isEmpty {
            let value = document.value()
            guard payload.allSatisfy({ $0.matches(value) }) else { return false }
        }
        return true
    }
}

/// An inclusive range of integers; either end may be open.
package struct IntegerRange: Sendable, Equatable {
    package var min: Int?
    package var max: Int?

    package init(min: Int? = nil, max: Int? = nil) {
        self.min = min
        self.max = max
    }

    /// Exactly `value`.
    package static func exactly(_ value: Int) -> IntegerRange { IntegerRange(min: value, max: value) }

    package func contains(_ value: Int) -> Bool {
        if let min, value < min { return false }
        if let max, value > max { return false }
        return true
    }
}

/// How the connection authenticated, as a rule may require it.
package struct AuthenticationMatch: Sendable, Equatable {
    package enum Kind: String, Sendable, Equatable, CaseIterable {
        /// A TLS client certificate.
        case certificate
        /// A verified provider token (JWT).
        case providerToken
        /// Credentials the authentication layer refused.
        case rejected
        /// No credentials (or a server running without authentication).
        case none
    }

    package var kind: Kind?
    /// The provider token's team (`iss`).
    package var teamID: String?
    /// The provider token's key (`kid`).
    package var keyID: String?

    package init(kind: Kind? = nil, teamID: String? = nil, keyID: String? = nil) {
        self.kind = kind
        self.teamID = teamID
        self.keyID = keyID
    }

    func matches(_ result: AuthenticationResult) -> Bool {
        let actualKind: Kind
        var team: String?
        var key: String?
        switch result {
        case .certificate: actualKind = .certificate
        case .providerToken(let teamID, let keyID, _):
            actualKind = .providerToken
            team = teamID
            key = keyID
        case .rejected: actualKind = .rejected
        case .notRequired, .unauthenticated: actualKind = .none
        }
        if let kind, kind != actualKind { return false }
        if let teamID, teamID != team { return false }
        if let keyID, keyID != key { return false }
        return true
    }
}

/// A value at a simple dotted path in the JSON payload (`aps.alert.title`).
package struct PayloadMatch: Sendable, Equatable {
    /// Object keys separated by dots.
    package var path: [String]
    /// The value must equal this (compared as JSON: `1` and `1.0` differ, as in the text).
    package var equals: JSONValue?
    /// The path must exist (`true`) or be absent (`false`).
    package var exists: Bool?

    package init(path: String, equals: JSONValue? = nil, exists: Bool? = nil) {
        self.path = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        self.equals = equals
        self.exists = exists
    }

    func matches(_ document: JSONValue?) -> Bool {
        let found = document.flatMap { lookup($0) }
        if let exists, exists != (found != nil) { return false }
        if let equals {
            guard let found, found == equals else { return false }
        }
        return true
    }

    private func lookup(_ root: JSONValue) -> JSONValue? {
        var current = root
        for key in path {
            guard case .object(let members) = current,
                  let member = members.first(where: { $0.key == key }) else { return nil }
            current = member.value.value
        }
        return current
    }
}

/// A request's number in one of three counts.
package struct RequestIndexMatch: Sendable, Equatable {
    package enum Scope: String, Sendable, Equatable, CaseIterable {
        /// Every request the scenario has seen, on every connection and protocol.
        case global
        /// Requests on the same connection.
        case connection
        /// Requests to the same device token.
        case token
    }

    package var scope: Scope
    package var range: IntegerRange
    /// Only every n-th number in the range (`every: 10` with `min: 10`: 10, 20, 30 ...).
    package var every: Int?

    package init(scope: Scope, range: IntegerRange, every: Int? = nil) {
        self.scope = scope
        self.range = range
        self.every = every
    }

    func matches(_ numbers: ScenarioRequestNumbers) -> Bool {
        let number: Int
        switch scope {
        case .global: number = numbers.global
        case .connection: number = numbers.connection
        case .token: number = numbers.token
        }
        guard range.contains(number) else { return false }
        if let every, every > 0 {
            return (number - (range.min ?? 1)) % every == 0
        }
        return true
    }
}
