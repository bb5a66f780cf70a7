import MockAPNsWire
import MockAPNsCore
/// One notification as the journal keeps it: the normalized request, how it authenticated,
/// the verdict, and the answer the client got. What a test asserts on.
public struct NotificationRecord: Sendable, Equatable {
    // The fields live in one reference-counted box: a record is handed from the event loop to
    // the journal, its readers and what they feed, and copying it then costs one retain rather
    // than one for each of its strings and arrays. Writes copy the box when it is shared.
    // Unchecked: a box is written only while this record holds its one reference. For the
    // same reason its fields skip the run-time exclusivity check, which the packer and every
    // reader would otherwise pay on each field they read: no access to a field overlaps another.
    @usableFromInline final class Storage: @unchecked Sendable {
        @usableFromInline @exclusivity(unchecked) var sequence: UInt64 = 0
        @usableFromInline @exclusivity(unchecked) var wallTimeMilliseconds: Int64 = 0
        @usableFromInline @exclusivity(unchecked) var connectionID: UInt64?
        @usableFromInline @exclusivity(unchecked) var streamID: Int32?
        @usableFromInline @exclusivity(unchecked) var transport: Transport
        @usableFromInline @exclusivity(unchecked) var deviceToken: String
        @usableFromInline @exclusivity(unchecked) var topic: String?
        @usableFromInline @exclusivity(unchecked) var pushType: String?
        @usableFromInline @exclusivity(unchecked) var requestAPNsID: String?
        @usableFromInline @exclusivity(unchecked) var priority: Int?
        @usableFromInline @exclusivity(unchecked) var expiration: Int64?
        @usableFromInline @exclusivity(unchecked) var collapseID: String?
        @usableFromInline @exclusivity(unchecked) var legacyIdentifier: UInt32?
        @usableFromInline @exclusivity(unchecked) var legacyCommand: UInt8?
        @usableFromInline @exclusivity(unchecked) var payload: [UInt8]
        @usableFromInline @exclusivity(unchecked) var payloadLength: Int
        @usableFromInline @exclusivity(unchecked) var payloadIsJSON: Bool? = nil
        @usableFromInline @exclusivity(unchecked) var authentication: JournalAuthentication
        @usableFromInline @exclusivity(unchecked) var answer: SentAnswer
        @usableFromInline @exclusivity(unchecked) var dropped: Bool
        @usableFromInline @exclusivity(unchecked) var problem: String?
        @usableFromInline @exclusivity(unchecked) var handlingMicroseconds: Int? = nil
        @usableFromInline @exclusivity(unchecked) var environment: APNsEnvironment? = nil
        @usableFromInline @exclusivity(unchecked) var webPush: WebPushDetails? = nil

        init(transport: Transport, deviceToken: String, payload: [UInt8], payloadLength: Int,
             authentication: JournalAuthentication, answer: SentAnswer, dropped: Bool) {
            self.transport = transport
            self.deviceToken = deviceToken
            self.payload = payload
            self.payloadLength = payloadLength
            self.authentication = authentication
            self.answer = answer
            self.dropped = dropped
        }

        func copy() -> Storage {
            let copy = Storage(transport: transport, deviceToken: deviceToken, payload: payload, payloadLength: payloadLength,
                               authentication: authentication, answer: answer, dropped: dropped)
            copy.sequence = sequence
            copy.wallTimeMilliseconds = wallTimeMilliseconds
            copy.connectionID = connectionID
            copy.streamID = streamID
            copy.topic = topic
            copy.pushType = pushType
            copy.requestAPNsID = requestAPNsID
            copy.priority = priority
            copy.expiration = expiration
            copy.collapseID = collapseID
            copy.legacyIdentifier = legacyIdentifier
            copy.legacyCommand = legacyCommand
            copy.problem = problem
            copy.handlingMicroseconds = handlingMicroseconds
            copy.environment = environment
            copy.webPush = webPush
            copy.payloadIsJSON = payloadIsJSON
            return copy
        }
    }

    @usableFromInline var storage: Storage

    private mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    public static func == (left: NotificationRecord, right: NotificationRecord) -> Bool {
        if left.storage === right.storage { return true }
        return left.sequence == right.sequence
            && left.wallTimeMilliseconds == right.wallTimeMilliseconds
            && left.connectionID == right.connectionID
            && left.streamID == right.streamID
            && left.transport == right.transport
            && left.deviceToken == right.deviceToken
            && left.topic == right.topic
            && left.pushType == right.pushType
            && left.requestAPNsID == right.requestAPNsID
            && left.priority == right.priority
            && left.expiration == right.expiration
            && left.collapseID == right.collapseID
            && left.legacyIdentifier == right.legacyIdentifier
            && left.legacyCommand == right.legacyCommand
            && left.payload == right.payload
            && left.payloadLength == right.payloadLength
            && left.payloadIsJSON == right.payloadIsJSON
            && left.authentication == right.authentication
            && left.answer == right.answer
            && left.dropped == right.dropped
            && left.problem == right.problem
            && left.handlingMicroseconds == right.handlingMicroseconds
            && left.environment == right.environment
            && left.webPush == right.webPush
    }
    /// The journal position of the event holding this record (set when it is recorded).
    public var sequence: UInt64 {
        @inlinable get { storage.sequence }
        set { uniqueStorage().sequence = newValue }
    }
    /// Milliseconds since 1970 by the server clock (set when it is recorded).
    public var wallTimeMilliseconds: Int64 {
        @inlinable get { storage.wallTimeMilliseconds }
        set { uniqueStorage().wallTimeMilliseconds = newValue }
    }
    /// The connection the journal numbered.
    public var connectionID: UInt64? {
        @inlinable get { storage.connectionID }
        set { uniqueStorage().connectionID = newValue }
    }
    /// The HTTP/2 stream (`nil` on the legacy gateway).
    public var streamID: Int32? {
        @inlinable get { storage.streamID }
        set { uniqueStorage().streamID = newValue }
    }

    // MARK: The request

    /// The protocol it came by: HTTP/2 or the legacy binary gateway.
    public var transport: Transport {
        @inlinable get { storage.transport }
        set { uniqueStorage().transport = newValue }
    }
    /// As the request spelled it (legacy tokens as lowercase hex); empty when unknown, as for
    /// a legacy frame dropped unread.
    public var deviceToken: String {
        @inlinable get { storage.deviceToken }
        set { uniqueStorage().deviceToken = newValue }
    }
    /// The `apns-topic` as sent (HTTP/2); `nil` when none was.
    public var topic: String? {
        @inlinable get { storage.topic }
        set { uniqueStorage().topic = newValue }
    }
    /// The `apns-push-type` as sent (`alert`, `background`, ...).
    public var pushType: String? {
        @inlinable get { storage.pushType }
        set { uniqueStorage().pushType = newValue }
    }
    /// `apns-id` as the request sent it.
    public var requestAPNsID: String? {
        @inlinable get { storage.requestAPNsID }
        set { uniqueStorage().requestAPNsID = newValue }
    }
    /// The `apns-priority` (10, 5 or 1), or the legacy priority item.
    public var priority: Int? {
        @inlinable get { storage.priority }
        set { uniqueStorage().priority = newValue }
    }
    /// `apns-expiration` or the legacy expiry, seconds since 1970.
    public var expiration: Int64? {
        @inlinable get { storage.expiration }
        set { uniqueStorage().expiration = newValue }
    }
    /// The `apns-collapse-id` as sent.
    public var collapseID: String? {
        @inlinable get { storage.collapseID }
        set { uniqueStorage().collapseID = newValue }
    }
    /// The legacy identifier (commands 1 and 2).
    public var legacyIdentifier: UInt32? {
        @inlinable get { storage.legacyIdentifier }
        set { uniqueStorage().legacyIdentifier = newValue }
    }
    /// The legacy command byte that framed it (0, 1, 2, or the unknown byte that arrived).
    public var legacyCommand: UInt8? {
        @inlinable get { storage.legacyCommand }
        set { uniqueStorage().legacyCommand = newValue }
    }
    /// The payload's first bytes (at most `NotificationRecord.payloadLimit`).
    public var payload: [UInt8] {
        @inlinable get { storage.payload }
        set { uniqueStorage().payload = newValue }
    }
    /// The true payload length.
    public var payloadLength: Int {
        @inlinable get { storage.payloadLength }
        set { uniqueStorage().payloadLength = newValue }
    }
    /// Whether the payload is one JSON value, as the request's one examination of it found
    /// (`PayloadJSON.isJSON`); `nil` when none was made (a body stored cut short, a record
    /// read back from a file). The delivery view reads this instead of parsing the payload.
    package var payloadIsJSON: Bool? {
        @inlinable get { storage.payloadIsJSON }
        set { uniqueStorage().payloadIsJSON = newValue }
    }
    package var authentication: JournalAuthentication {
        // Borrowed, as `answer` is: readers ask for one field of it per notification.
        @inlinable _read { yield storage.authentication }
        set { uniqueStorage().authentication = newValue }
    }

    // MARK: The outcome

    /// What the client was sent, as written: the answer, the fault, the rule that decided.
    package var answer: SentAnswer {
        // Borrowed, not copied: readers ask for one field of it (`record.answer.fault`) per
        // notification, and a copy would retain every reference the answer holds.
        @inlinable _read { yield storage.answer }
        set { uniqueStorage().answer = newValue }
    }
    /// Whether it was discarded unexamined (legacy frames after a failure or shutdown, streams
    /// HTTP/2 refused before anyone read them).
    public var dropped: Bool {
        @inlinable get { storage.dropped }
        set { uniqueStorage().dropped = newValue }
    }
    /// What the legacy codec found wrong with the frame, in plain words, when it refused the
    /// frame itself (a payload or token of the wrong size, an unknown item, unparseable bytes).
    public var problem: String? {
        @inlinable get { storage.problem }
        set { uniqueStorage().problem = newValue }
    }
    /// Microseconds from the complete request's arrival to its verdict: the server's own work,
    /// before any scenario delay (HTTP/2 only; `nil` when not measured).
    public var handlingMicroseconds: Int? {
        @inlinable get { storage.handlingMicroseconds }
        set { uniqueStorage().handlingMicroseconds = newValue }
    }
    /// The environment of the listener that received it (on a server playing both, which
    /// host the provider sent it to); `nil` when unknown.
    public var environment: APNsEnvironment? {
        @inlinable get { storage.environment }
        set { uniqueStorage().environment = newValue }
    }
    /// What a web push request carried besides the common fields (`transport == .webPush`):
    /// its headers, VAPID claims and the decrypted message; `nil` on every other transport.
    public var webPush: WebPushDetails? {
        @inlinable get { storage.webPush }
        set { uniqueStorage().webPush = newValue }
    }

    /// Whether the client was told the notification was accepted (`SentAnswer.accepted`).
    public var accepted: Bool {
        @inlinable get { storage.answer.accepted }
        set { uniqueStorage().answer.accepted = newValue }
    }
    /// The Apple reason the answer named.
    public var reason: Reason? {
        @inlinable get { storage.answer.reason }
        set { uniqueStorage().answer.reason = newValue }
    }
    /// The HTTP status written (HTTP/2 only; `nil`: no response was written).
    public var status: Int? {
        @inlinable get { storage.answer.status }
        set { uniqueStorage().answer.status = newValue }
    }
    /// The `apns-id` the response carried.
    public var responseAPNsID: String? {
        get { storage.answer.apnsID?.text }
        set { uniqueStorage().answer.apnsID = newValue.map(MessageID.text) }
    }
    /// The 410 timestamp, milliseconds since 1970.
    public var timestamp: Int64? {
        @inlinable get { storage.answer.timestamp }
        set { uniqueStorage().answer.timestamp = newValue }
    }
    /// The legacy status sent in the error packet (`nil`: none sent).
    package var legacyStatus: LegacyStatus? { storage.answer.legacyPacket?.status }
    /// The fault a scenario rule carried out (`answer.fault`), read without copying the answer:
    /// another module reading `answer.fault` copies the whole answer first.
    @inlinable package var fault: AppliedFault? { storage.answer.fault }
    /// The scenario rule that decided the answer (`answer.rule`), read the same way.
    @inlinable public var rule: String? { storage.answer.rule }
    /// Upstream mode: where the answer came from (or why the upstream gave none) and what
    /// MockAPNs' own rules made of the request; `nil` when MockAPNs answered by itself.
    public var upstream: UpstreamRelay? { storage.answer.upstream }

    /// How many payload bytes a record keeps (`RecordedPayload.limit`).
    package static let payloadLimit = RecordedPayload.limit

    static func kept(_ payload: [UInt8]) -> [UInt8] {
        RecordedPayload.kept(payload)
    }

    package init(
        transport: Transport, deviceToken: String, topic: String? = nil, pushType: String? = nil,
        requestAPNsID: String? = nil, priority: Int? = nil, expiration: Int64? = nil,
        collapseID: String? = nil, legacyIdentifier: UInt32? = nil, payload: [UInt8],
        authentication: JournalAuthentication, answer: SentAnswer, dropped: Bool = false,
        connectionID: UInt64? = nil, streamID: Int32? = nil
    ) {
        storage = Storage(
            transport: transport, deviceToken: deviceToken, payload: Self.kept(payload), payloadLength: payload.count,
            authentication: authentication, answer: answer, dropped: dropped
        )
        storage.topic = topic
        storage.pushType = pushType
        storage.requestAPNsID = requestAPNsID
        storage.priority = priority
        storage.expiration = expiration
        storage.collapseID = collapseID
        storage.legacyIdentifier = legacyIdentifier
        storage.connectionID = connectionID
        storage.streamID = streamID
    }

    /// A record from the outcome's parts, as older code and tests spell them.
    package init(
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
                status: status, reason: reason, apnsID: responseAPNsID.map(MessageID.text), timestamp: timestamp,
                legacyPacket: packet, accepted: accepted
            ),
            dropped: dropped, connectionID: connectionID, streamID: streamID
        )
    }

    /// A record of `request` answered with `answer`. `payloadLength` is the true size of the
    /// payload when the request's bytes were stored cut short.
    package init(
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

