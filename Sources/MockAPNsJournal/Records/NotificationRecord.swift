import MockAPNsWire
import MockAPNsCore
/// One notification as the journal keeps it: the normalized request, how it authenticated,
/// the verdict, and the answer the client got. What a test asserts on.
public struct NotificationRecord: Sendable, Equatable {
    // The fields live in one reference-counted box: a record is handed from the event loop to
    // the journal, its readers and what they feed, and copying it then costs one retain rather
    // than one for each of its strings and arrays. The box's fields are constants: a reader (the
    // packer, the verdicts, the metrics) can then pass a string or an answer on, or look at its
    // bytes, without retaining it, because nothing can change it meanwhile. A change makes a new
    // box; the request path gives every field when it makes a record, so it never changes one.
    @usableFromInline struct Fields: Sendable {
        @usableFromInline var sequence: UInt64 = 0
        @usableFromInline var wallTimeMilliseconds: Int64 = 0
        @usableFromInline var connectionID: UInt64?
        @usableFromInline var streamID: Int32?
        @usableFromInline var transport: Transport
        @usableFromInline var deviceToken: String
        @usableFromInline var topic: String?
        @usableFromInline var pushType: String?
        @usableFromInline var requestAPNsID: String?
        @usableFromInline var priority: Int?
        @usableFromInline var expiration: Int64?
        @usableFromInline var collapseID: String?
        @usableFromInline var legacyIdentifier: UInt32?
        @usableFromInline var legacyCommand: UInt8?
        @usableFromInline var payload: [UInt8]
        @usableFromInline var payloadLength: Int
        @usableFromInline var payloadIsJSON: Bool?
        @usableFromInline var authentication: JournalAuthentication
        @usableFromInline var answer: SentAnswer
        @usableFromInline var dropped: Bool
        @usableFromInline var problem: String?
        @usableFromInline var handlingMicroseconds: Int?
        @usableFromInline var environment: APNsEnvironment?
        @usableFromInline var webPush: WebPushDetails?
    }

    @usableFromInline final class Storage: Sendable {
        @usableFromInline let fields: Fields

        init(_ fields: Fields) {
            self.fields = fields
        }
    }

    @usableFromInline var storage: Storage

    /// Changes a field: a new box, so no other copy of the record sees the change.
    private mutating func change(_ body: (inout Fields) -> Void) {
        var fields = storage.fields
        body(&fields)
        storage = Storage(fields)
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
        @inlinable get { storage.fields.sequence }
        set { change { $0.sequence = newValue } }
    }
    /// Milliseconds since 1970 by the server clock (set when it is recorded).
    public var wallTimeMilliseconds: Int64 {
        @inlinable get { storage.fields.wallTimeMilliseconds }
        set { change { $0.wallTimeMilliseconds = newValue } }
    }
    /// The connection the journal numbered.
    public var connectionID: UInt64? {
        @inlinable get { storage.fields.connectionID }
        set { change { $0.connectionID = newValue } }
    }
    /// The HTTP/2 stream (`nil` on the legacy gateway).
    public var streamID: Int32? {
        @inlinable get { storage.fields.streamID }
        set { change { $0.streamID = newValue } }
    }

    // MARK: The request

    /// The protocol it came by: HTTP/2 or the legacy binary gateway.
    public var transport: Transport {
        @inlinable get { storage.fields.transport }
        set { change { $0.transport = newValue } }
    }
    /// As the request spelled it (legacy tokens as lowercase hex); empty when unknown, as for
    /// a legacy frame dropped unread.
    public var deviceToken: String {
        @inlinable _read { yield storage.fields.deviceToken }
        set { change { $0.deviceToken = newValue } }
    }
    /// The `apns-topic` as sent (HTTP/2); `nil` when none was.
    public var topic: String? {
        @inlinable _read { yield storage.fields.topic }
        set { change { $0.topic = newValue } }
    }
    /// The `apns-push-type` as sent (`alert`, `background`, ...).
    public var pushType: String? {
        @inlinable _read { yield storage.fields.pushType }
        set { change { $0.pushType = newValue } }
    }
    /// `apns-id` as the request sent it.
    public var requestAPNsID: String? {
        @inlinable _read { yield storage.fields.requestAPNsID }
        set { change { $0.requestAPNsID = newValue } }
    }
    /// The `apns-priority` (10, 5 or 1), or the legacy priority item.
    public var priority: Int? {
        @inlinable get { storage.fields.priority }
        set { change { $0.priority = newValue } }
    }
    /// `apns-expiration` or the legacy expiry, seconds since 1970.
    public var expiration: Int64? {
        @inlinable get { storage.fields.expiration }
        set { change { $0.expiration = newValue } }
    }
    /// The `apns-collapse-id` as sent.
    public var collapseID: String? {
        @inlinable _read { yield storage.fields.collapseID }
        set { change { $0.collapseID = newValue } }
    }
    /// The legacy identifier (commands 1 and 2).
    public var legacyIdentifier: UInt32? {
        @inlinable get { storage.fields.legacyIdentifier }
        set { change { $0.legacyIdentifier = newValue } }
    }
    /// The legacy command byte that framed it (0, 1, 2, or the unknown byte that arrived).
    public var legacyCommand: UInt8? {
        @inlinable get { storage.fields.legacyCommand }
        set { change { $0.legacyCommand = newValue } }
    }
    /// The payload's first bytes (at most `NotificationRecord.payloadLimit`).
    public var payload: [UInt8] {
        @inlinable _read { yield storage.fields.payload }
        set { change { $0.payload = newValue } }
    }
    /// The true payload length.
    public var payloadLength: Int {
        @inlinable get { storage.fields.payloadLength }
        set { change { $0.payloadLength = newValue } }
    }
    /// Whether the payload is one JSON value, as the request's one examination of it found
    /// (`PayloadJSON.isJSON`); `nil` when none was made (a body stored cut short, a record
    /// read back from a file). The delivery view reads this instead of parsing the payload.
    package var payloadIsJSON: Bool? {
        @inlinable get { storage.fields.payloadIsJSON }
        set { change { $0.payloadIsJSON = newValue } }
    }
    package var authentication: JournalAuthentication {
        // Borrowed, as `answer` is: readers ask for one field of it per notification.
        @inlinable _read { yield storage.fields.authentication }
        set { change { $0.authentication = newValue } }
    }

    // MARK: The outcome

    /// What the client was sent, as written: the answer, the fault, the rule that decided.
    package var answer: SentAnswer {
        // Borrowed, not copied: readers ask for one field of it (`record.answer.fault`) per
        // notification, and a copy would retain every reference the answer holds.
        @inlinable _read { yield storage.fields.answer }
        set { change { $0.answer = newValue } }
    }
    /// Whether it was discarded unexamined (legacy frames after a failure or shutdown, streams
    /// HTTP/2 refused before anyone read them).
    public var dropped: Bool {
        @inlinable get { storage.fields.dropped }
        set { change { $0.dropped = newValue } }
    }
    /// What the legacy codec found wrong with the frame, in plain words, when it refused the
    /// frame itself (a payload or token of the wrong size, an unknown item, unparseable bytes).
    public var problem: String? {
        @inlinable _read { yield storage.fields.problem }
        set { change { $0.problem = newValue } }
    }
    /// Microseconds from the complete request's arrival to its verdict: the server's own work,
    /// before any scenario delay (HTTP/2 only; `nil` when not measured).
    public var handlingMicroseconds: Int? {
        @inlinable get { storage.fields.handlingMicroseconds }
        set { change { $0.handlingMicroseconds = newValue } }
    }
    /// The environment of the listener that received it (on a server playing both, which
    /// host the provider sent it to); `nil` when unknown.
    public var environment: APNsEnvironment? {
        @inlinable get { storage.fields.environment }
        set { change { $0.environment = newValue } }
    }
    /// What a web push request carried besides the common fields (`transport == .webPush`):
    /// its headers, VAPID claims and the decrypted message; `nil` on every other transport.
    public var webPush: WebPushDetails? {
        @inlinable _read { yield storage.fields.webPush }
        set { change { $0.webPush = newValue } }
    }

    /// Whether the client was told the notification was accepted (`SentAnswer.accepted`).
    public var accepted: Bool {
        @inlinable get { storage.fields.answer.accepted }
        set { change { $0.answer.accepted = newValue } }
    }
    /// The Apple reason the answer named.
    public var reason: Reason? {
        @inlinable get { storage.fields.answer.reason }
        set { change { $0.answer.reason = newValue } }
    }
    /// The HTTP status written (HTTP/2 only; `nil`: no response was written).
    public var status: Int? {
        @inlinable get { storage.fields.answer.status }
        set { change { $0.answer.status = newValue } }
    }
    /// The `apns-id` the response carried.
    public var responseAPNsID: String? {
        get { storage.fields.answer.apnsID?.text }
        set { change { $0.answer.apnsID = newValue.map(MessageID.text) } }
    }
    /// The 410 timestamp, milliseconds since 1970.
    public var timestamp: Int64? {
        @inlinable get { storage.fields.answer.timestamp }
        set { change { $0.answer.timestamp = newValue } }
    }
    /// The legacy status sent in the error packet (`nil`: none sent).
    package var legacyStatus: LegacyStatus? { storage.fields.answer.legacyPacket?.status }
    /// The fault a scenario rule carried out (`answer.fault`), read without copying the answer:
    /// another module reading `answer.fault` copies the whole answer first.
    @inlinable package var fault: AppliedFault? { storage.fields.answer.fault }
    /// The scenario rule that decided the answer (`answer.rule`), read the same way.
    @inlinable public var rule: String? { storage.fields.answer.rule }
    /// Upstream mode: where the answer came from (or why the upstream gave none) and what
    /// MockAPNs' own rules made of the request; `nil` when MockAPNs answered by itself.
    public var upstream: UpstreamRelay? { storage.fields.answer.upstream }

    /// How many payload bytes a record keeps (`RecordedPayload.limit`).
    package static let payloadLimit = RecordedPayload.limit

    static func kept(_ payload: [UInt8]) -> [UInt8] {
        RecordedPayload.kept(payload)
    }

    /// A record of what was sent and answered, everything it says given at once (the request
    /// path changes nothing afterwards: a change makes a new box). `payloadLength` is the
    /// payload's true length, when the bytes kept are not all of it.
    package init(
        transport: Transport, deviceToken: String, topic: String? = nil, pushType: String? = nil,
        requestAPNsID: String? = nil, priority: Int? = nil, expiration: Int64? = nil,
        collapseID: String? = nil, legacyIdentifier: UInt32? = nil, legacyCommand: UInt8? = nil, payload: [UInt8],
        payloadLength: Int? = nil, payloadIsJSON: Bool? = nil,
        authentication: JournalAuthentication, answer: SentAnswer, dropped: Bool = false, problem: String? = nil,
        handlingMicroseconds: Int? = nil, environment: APNsEnvironment? = nil, webPush: WebPushDetails? = nil,
        connectionID: UInt64? = nil, streamID: Int32? = nil, sequence: UInt64 = 0, wallTimeMilliseconds: Int64 = 0
    ) {
        storage = Storage(Fields(
            sequence: sequence, wallTimeMilliseconds: wallTimeMilliseconds, connectionID: connectionID, streamID: streamID,
            transport: transport, deviceToken: deviceToken, topic: topic, pushType: pushType, requestAPNsID: requestAPNsID,
            priority: priority, expiration: expiration, collapseID: collapseID, legacyIdentifier: legacyIdentifier,
            legacyCommand: legacyCommand, payload: Self.kept(payload), payloadLength: payloadLength ?? payload.count,
            payloadIsJSON: payloadIsJSON, authentication: authentication, answer: answer, dropped: dropped, problem: problem,
            handlingMicroseconds: handlingMicroseconds, environment: environment, webPush: webPush
        ))
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
        _ request: PushRequest, answer: SentAnswer, authentication: JournalAuthentication, payloadLength: Int? = nil,
        payloadIsJSON: Bool? = nil, problem: String? = nil, handlingMicroseconds: Int? = nil,
        environment: APNsEnvironment? = nil
    ) {
        self.init(
            transport: request.transport, deviceToken: request.deviceToken, topic: request.topic,
            pushType: request.pushType?.rawValue, requestAPNsID: request.apnsID,
            priority: request.priority?.rawValue, expiration: request.expiration,
            collapseID: request.collapseID, legacyIdentifier: request.legacyIdentifier,
            payload: request.payload, payloadLength: max(payloadLength ?? 0, request.payload.count),
            payloadIsJSON: payloadIsJSON,
            authentication: authentication, answer: answer, problem: problem,
            handlingMicroseconds: handlingMicroseconds, environment: environment
        )
    }

    /// The payload as text, when its kept bytes are valid UTF-8.
    public var payloadText: String? {
        String(validating: payload, as: UTF8.self)
    }
}

