/// One notification as the journal keeps it: the normalized request, how it authenticated,
/// the verdict, and the answer the client got. What a test asserts on.
public struct NotificationRecord: Sendable, Equatable {
    /// The journal position of the event holding this record (set when it is recorded).
    public var sequence: UInt64 = 0
    /// Milliseconds since 1970 by the server clock (set when it is recorded).
    public var wallTimeMilliseconds: Int64 = 0
    public var connectionID: UInt64?
    /// The HTTP/2 stream (`nil` on the legacy gateway).
    public var streamID: Int32?

    // MARK: The request

    public var transport: Transport
    /// As the request spelled it (legacy tokens as lowercase hex); empty when unknown, as for
    /// a legacy frame dropped unread.
    public var deviceToken: String
    public var topic: String?
    public var pushType: String?
    /// `apns-id` as the request sent it.
    public var requestAPNsID: String?
    public var priority: Int?
    /// `apns-expiration` or the legacy expiry, seconds since 1970.
    public var expiration: Int64?
    public var collapseID: String?
    /// The legacy identifier (commands 1 and 2).
    public var legacyIdentifier: UInt32?
    /// The legacy command byte that framed it (0, 1, 2, or the unknown byte that arrived).
    public var legacyCommand: UInt8?
    /// The payload's first bytes (at most `NotificationRecord.payloadLimit`).
    public var payload: [UInt8]
    /// The true payload length.
    public var payloadLength: Int
    public var authentication: JournalAuthentication

    // MARK: The outcome

    /// What the client was sent, as written: the answer, the fault, the rule that decided.
    public var answer: SentAnswer
    /// Whether it was discarded unexamined (legacy frames after a failure or shutdown, streams
    /// HTTP/2 refused before anyone read them).
    public var dropped: Bool
    /// What the legacy codec found wrong with the frame, in plain words, when it refused the
    /// frame itself (a payload or token of the wrong size, an unknown item, unparseable bytes).
    public var problem: String?
    /// Microseconds from the complete request's arrival to its verdict: the server's own work,
    /// before any scenario delay (HTTP/2 only; `nil` when not measured).
    public var handlingMicroseconds: Int? = nil
    /// The environment of the listener that received it (on a server playing both, which
    /// host the provider sent it to); `nil` when unknown.
    public var environment: APNsEnvironment? = nil

    /// Whether the client was told the notification was accepted (`SentAnswer.accepted`).
    public var accepted: Bool {
        get { answer.accepted }
        set { answer.accepted = newValue }
    }
    /// The Apple reason the answer named.
    public var reason: Reason? {
        get { answer.reason }
        set { answer.reason = newValue }
    }
    /// The HTTP status written (HTTP/2 only; `nil`: no response was written).
    public var status: Int? {
        get { answer.status }
        set { answer.status = newValue }
    }
    /// The `apns-id` the response carried.
    public var responseAPNsID: String? {
        get { answer.apnsID }
        set { answer.apnsID = newValue }
    }
    /// The 410 timestamp, milliseconds since 1970.
    public var timestamp: Int64? {
        get { answer.timestamp }
        set { answer.timestamp = newValue }
    }
    /// The legacy status sent in the error packet (`nil`: none sent).
    public var legacyStatus: LegacyStatus? { answer.legacyPacket?.status }

    /// How many payload bytes a record keeps: enough to read any APNs payload (4 KB, 5 KB
    /// for VoIP) without letting a flood of huge bodies fill memory.
    public static let payloadLimit = 5 * 1024

    /// The bytes of `payload` a record keeps. Slicing only when needed keeps the common case
    /// free of copies.
    static func kept(_ payload: [UInt8]) -> [UInt8] {
        payload.count > payloadLimit ? Array(payload.prefix(payloadLimit)) : payload
    }

    public init(
        transport: Transport, deviceToken: String, topic: String? = nil, pushType: String? = nil,
        requestAPNsID: String? = nil, priority: Int? = nil, expiration: Int64? = nil,
        collapseID: String? = nil, legacyIdentifier: UInt32? = nil, payload: [UInt8],
        authentication: JournalAuthentication, answer: SentAnswer, dropped: Bool = false,
        connectionID: UInt64? = nil, streamID: Int32? = nil
    ) {
        self.transport = transport
        self.deviceToken = deviceToken
        self.topic = topic
        self.pushType = pushType
        self.requestAPNsID = requestAPNsID
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.legacyIdentifier = legacyIdentifier
        self.payloadLength = payload.count
        self.payload = Self.kept(payload)
        self.authentication = authentication
        self.answer = answer
        self.dropped = dropped
        self.connectionID = connectionID
        self.streamID = streamID
    }

    /// A record from the outcome's parts, as older code and tests spell them.
    public init(
        transport: Transport, deviceToken: String, topic: String? = nil, pushType: String? = nil,
        requestAPNsID: String? = nil, priority: Int? = nil, expiration: Int64? = nil,
        collapseID: String? = nil, legacyIdentifier: UInt32? = nil, payload: [UInt8],
        authentication: JournalAuthentication, accepted: Bool, reason: Reason? = nil,
        status: Int? = nil, responseAPNsID: String? = nil, timestamp: Int64? = nil,
        legacyStatus: LegacyStatus? = nil, dropped: Bool = false,
        connectionID: UInt64? = nil, streamID: Int32? = nil
    ) {
        let packet = legacyStatus.map { LegacyErrorResponse(status: $0, identifier: legacyIdentifier ?? 0) }
        self.init(
            transport: transport, deviceToken: deviceToken, topic: topic, pushType: pushType,
            requestAPNsID: requestAPNsID, priority: priority, expiration: expiration, collapseID: collapseID,
            legacyIdentifier: legacyIdentifier, payload: payload, authentication: authentication,
            answer: SentAnswer(
                status: status, reason: reason, apnsID: responseAPNsID, timestamp: timestamp,
                legacyPacket: packet, accepted: accepted
            ),
            dropped: dropped, connectionID: connectionID, streamID: streamID
        )
    }

    /// A record of `request` answered with `answer`. `payloadLength` is the true size of the
    /// payload when the request's bytes were stored cut short.
    public init(
        _ request: PushRequest, answer: SentAnswer, authentication: JournalAuthentication, payloadLength: Int? = nil
    ) {
        self.init(
            transport: request.transport, deviceToken: request.deviceToken, topic: request.topic,
            pushType: request.pushType?.rawValue, requestAPNsID: request.apnsID,
            priority: request.priority?.rawValue, expiration: request.expiration,
            collapseID: request.collapseID, legacyIdentifier: request.legacyIdentifier,
            payload: request.payload, authentication: authentication, answer: answer
        )
        if let payloadLength { self.payloadLength = max(payloadLength, self.payloadLength) }
    }

    /// The payload as text, when its kept bytes are valid UTF-8.
    public var payloadText: String? {
        String(validating: payload, as: UTF8.self)
    }
}

/// How a notification authenticated, as far as the journal tells it.
public struct JournalAuthentication: Sendable, Equatable {
    /// `certificate`, `providerToken`, `none` (authentication off), `missing`, or `rejected`.
    public var kind: String
    public var teamID: String?
    public var keyID: String?
    /// The reason the credentials were refused.
    public var refusal: Reason?
    /// The `iat` of the provider token that authenticated the request, in seconds since 1970:
    /// which token a provider used, so a token renewed too often can be told across
    /// connections. Not a secret: the token cannot be rebuilt from it.
    public var issuedAt: Int64?
    /// Why the credentials were refused, in plain words: the provider token's cause (an
    /// unknown key id, a bad signature, `iss` not the key's team, `iat` in the future, ...) or
    /// why a client certificate is not trusted. Apple sends only the reason; this is for the
    /// provider's developer. Never holds a token's signature or any key.
    public var detail: String?

    public init(
        kind: String, teamID: String? = nil, keyID: String? = nil, refusal: Reason? = nil, issuedAt: Int64? = nil,
        detail: String? = nil
    ) {
        self.kind = kind
        self.teamID = teamID
        self.keyID = keyID
        self.refusal = refusal
        self.issuedAt = issuedAt
        self.detail = detail
    }

    /// The longest `detail` kept, in UTF-8 bytes: a cause quotes what the client sent (a key
    /// id, an issuer), which a hostile client may make as long as a header allows.
    public static let maximumDetailBytes = 300

    /// `text` cut to `maximumDetailBytes` at a character boundary, marked with "…" when cut.
    public static func boundedDetail(_ text: String) -> String {
        guard text.utf8.count > maximumDetailBytes else { return text }
        var kept = ""
        var bytes = 0
        for character in text {
            let size = character.utf8.count
            guard bytes + size <= maximumDetailBytes - 3 else { break }
            kept.append(character)
            bytes += size
        }
        return kept + "…"
    }

    /// What the journal says about `result`.
    public init(_ result: AuthenticationResult) {
        switch result {
        case .notRequired: self.init(kind: "none")
        case .unauthenticated: self.init(kind: "missing")
        case .certificate: self.init(kind: "certificate")
        case .providerToken(let team, let key, _): self.init(kind: "providerToken", teamID: team, keyID: key)
        case .rejected(let reason): self.init(kind: "rejected", refusal: reason)
        }
    }
}
