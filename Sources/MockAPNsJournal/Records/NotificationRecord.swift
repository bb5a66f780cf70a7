import MockAPNsWire
import MockAPNsCore
/// One notification as the journal keeps it: the normalized request, how it authenticated,
/// the verdict, and the answer the client got. What a test asserts on.
public struct NotificationRecord: Sendable, Equatable {
    // A record has one of two layouts. Most are a reference-counted box of fields: a record is
    // handed from the event loop to the journal, its readers and what they feed, and copying
    // it then costs one retain rather than one for each of its strings and arrays. The box's
    // fields are constants; a change makes a new box.
    //
    // The hot paths' records are compact entries instead: an accepted legacy notification
    // (`CompactLegacyRecord`) and an HTTP/2 push answered as Apple answers an acceptance
    // (`CompactHTTP2Record`). Each is a place in a block of fixed-layout entries its connection
    // fills (the token's text, the few numbers, where the payload lies), beside what every
    // record of the block says alike (its context). Making one allocates nothing, and the
    // readers read it where it is.
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
        @usableFromInline var payload: SharedBytes
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

    @usableFromInline final class Box: Sendable {
        @usableFromInline let fields: Fields

        init(_ fields: Fields) {
            self.fields = fields
        }
    }

    @usableFromInline enum Storage: Sendable {
        case boxed(Box)
        case compactLegacy(CompactLegacyRecord)
        case compactHTTP2(CompactHTTP2Record)
    }

    /// Which layout `object` is.
    @usableFromInline enum Layout: UInt8, Sendable {
        case boxed
        case compactLegacy
        case compactHTTP2
    }

    // Held as one reference, an index and a tag rather than as `Storage` itself: a record is
    // copied several times on its way to the readers, and an enum of references and pairs costs
    // each copy a call that chooses between them; this costs a retain, as a box alone did.
    @usableFromInline var object: AnyObject & Sendable
    /// The entry's place in its block (0 for a box).
    @usableFromInline var compactIndex: Int32
    @usableFromInline var layout: Layout

    /// The layout, for reading.
    @inlinable var storage: Storage {
        get {
            switch layout {
            case .boxed: .boxed(unsafeDowncast(object, to: Box.self))
            case .compactLegacy:
                .compactLegacy(CompactLegacyRecord(block: unsafeDowncast(object, to: LegacyRecordBlock.self), index: Int(compactIndex)))
            case .compactHTTP2:
                .compactHTTP2(CompactHTTP2Record(block: unsafeDowncast(object, to: HTTP2RecordBlock.self), index: Int(compactIndex)))
            }
        }
        set { self = NotificationRecord(storage: newValue) }
    }

    /// Every field, as a box holds them (a compact record's made from its entry).
    @usableFromInline var fields: Fields {
        switch storage {
        case .boxed(let box): box.fields
        case .compactLegacy(let compact): compact.fields
        case .compactHTTP2(let compact): compact.fields
        }
    }

    /// The record with its event's sequence, time, connection and stream (those it lacks
    /// kept), in one new box.
    func stamped(sequence: UInt64, wallTimeMilliseconds: Int64, connectionID: UInt64?, streamID: Int32?) -> NotificationRecord {
        var fields = self.fields
        fields.sequence = sequence
        fields.wallTimeMilliseconds = wallTimeMilliseconds
        fields.connectionID = connectionID ?? fields.connectionID
        fields.streamID = streamID ?? fields.streamID
        return NotificationRecord(storage: .boxed(Box(fields)))
    }

    @usableFromInline init(storage: Storage) {
        switch storage {
        case .boxed(let box):
            object = box
            compactIndex = 0
            layout = .boxed
        case .compactLegacy(let compact):
            object = compact.block
            compactIndex = Int32(truncatingIfNeeded: compact.index)
            layout = .compactLegacy
        case .compactHTTP2(let compact):
            object = compact.block
            compactIndex = Int32(truncatingIfNeeded: compact.index)
            layout = .compactHTTP2
        }
    }

    /// Changes a field: a new box, so no other copy of the record sees the change.
    private mutating func change(_ body: (inout Fields) -> Void) {
        var fields = self.fields
        body(&fields)
        storage = .boxed(Box(fields))
    }

    /// Whether the record is a compact entry rather than a box (for tests of the hot paths).
    package var isCompact: Bool {
        switch layout {
        case .boxed: false
        case .compactLegacy, .compactHTTP2: true
        }
    }

    public static func == (left: NotificationRecord, right: NotificationRecord) -> Bool {
        if case .boxed(let leftBox) = left.storage, case .boxed(let rightBox) = right.storage, leftBox === rightBox { return true }
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
            && left.payloadBytes == right.payloadBytes
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
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.sequence
            case .compactLegacy(let compact): compact.sequence
            case .compactHTTP2(let compact): compact.sequence
            }
        }
        set { change { $0.sequence = newValue } }
    }
    /// Milliseconds since 1970 by the server clock (set when it is recorded).
    public var wallTimeMilliseconds: Int64 {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.wallTimeMilliseconds
            case .compactLegacy(let compact): compact.wallTimeMilliseconds
            case .compactHTTP2(let compact): compact.wallTimeMilliseconds
            }
        }
        set { change { $0.wallTimeMilliseconds = newValue } }
    }
    /// The connection the journal numbered.
    public var connectionID: UInt64? {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.connectionID
            case .compactLegacy(let compact): compact.connectionID
            case .compactHTTP2(let compact): compact.connectionID
            }
        }
        set { change { $0.connectionID = newValue } }
    }
    /// The HTTP/2 stream (`nil` on the legacy gateway).
    public var streamID: Int32? {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.streamID
            case .compactLegacy(let compact): compact.streamID
            case .compactHTTP2(let compact): compact.streamID
            }
        }
        set { change { $0.streamID = newValue } }
    }

    // MARK: The request

    /// The protocol it came by: HTTP/2 or the legacy binary gateway.
    public var transport: Transport {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.transport
            case .compactLegacy(let compact): compact.transport
            case .compactHTTP2(let compact): compact.transport
            }
        }
        set { change { $0.transport = newValue } }
    }
    /// As the request spelled it (legacy tokens as lowercase hex); empty when unknown, as for
    /// a legacy frame dropped unread.
    public var deviceToken: String {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.deviceToken
            case .compactLegacy(let compact): compact.deviceToken
            case .compactHTTP2(let compact): compact.deviceToken
            }
        }
        set { change { $0.deviceToken = newValue } }
    }
    /// The `apns-topic` as sent (HTTP/2); `nil` when none was.
    public var topic: String? {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.topic
            case .compactLegacy(let compact): compact.topic
            case .compactHTTP2(let compact): compact.topic
            }
        }
        set { change { $0.topic = newValue } }
    }
    /// The `apns-push-type` as sent (`alert`, `background`, ...).
    public var pushType: String? {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.pushType
            case .compactLegacy(let compact): compact.pushType
            case .compactHTTP2(let compact): compact.pushType
            }
        }
        set { change { $0.pushType = newValue } }
    }
    /// `apns-id` as the request sent it.
    public var requestAPNsID: String? {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.requestAPNsID
            case .compactLegacy(let compact): compact.requestAPNsID
            case .compactHTTP2(let compact): compact.requestAPNsID
            }
        }
        set { change { $0.requestAPNsID = newValue } }
    }
    /// The `apns-priority` (10, 5 or 1), or the legacy priority item.
    public var priority: Int? {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.priority
            case .compactLegacy(let compact): compact.priority
            case .compactHTTP2(let compact): compact.priority
            }
        }
        set { change { $0.priority = newValue } }
    }
    /// `apns-expiration` or the legacy expiry, seconds since 1970.
    public var expiration: Int64? {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.expiration
            case .compactLegacy(let compact): compact.expiration
            case .compactHTTP2(let compact): compact.expiration
            }
        }
        set { change { $0.expiration = newValue } }
    }
    /// The `apns-collapse-id` as sent.
    public var collapseID: String? {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.collapseID
            case .compactLegacy(let compact): compact.collapseID
            case .compactHTTP2(let compact): compact.collapseID
            }
        }
        set { change { $0.collapseID = newValue } }
    }
    /// The legacy identifier (commands 1 and 2).
    public var legacyIdentifier: UInt32? {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.legacyIdentifier
            case .compactLegacy(let compact): compact.legacyIdentifier
            case .compactHTTP2(let compact): compact.legacyIdentifier
            }
        }
        set { change { $0.legacyIdentifier = newValue } }
    }
    /// The legacy command byte that framed it (0, 1, 2, or the unknown byte that arrived).
    public var legacyCommand: UInt8? {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.legacyCommand
            case .compactLegacy(let compact): compact.legacyCommand
            case .compactHTTP2(let compact): compact.legacyCommand
            }
        }
        set { change { $0.legacyCommand = newValue } }
    }
    /// The payload's first bytes (at most `NotificationRecord.payloadLimit`).
    public var payload: [UInt8] {
        get { payloadBytes.array }
        set { change { $0.payload = SharedBytes(newValue) } }
    }
    /// The same bytes, shared: a reader that only looks at them (the packer, a fingerprint)
    /// reads them in place, with no array made for a compact record's.
    package var payloadBytes: SharedBytes {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.payload
            case .compactLegacy(let compact): compact.entry.pointee.payload.bytes
            case .compactHTTP2(let compact): compact.entry.pointee.payload.bytes
            }
        }
    }
    /// The true payload length.
    public var payloadLength: Int {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.payloadLength
            case .compactLegacy(let compact): compact.payloadLength
            case .compactHTTP2(let compact): compact.payloadLength
            }
        }
        set { change { $0.payloadLength = newValue } }
    }
    /// Whether the payload is one JSON value, as the request's one examination of it found
    /// (`PayloadJSON.isJSON`); `nil` when none was made (a body stored cut short, a record
    /// read back from a file). The delivery view reads this instead of parsing the payload.
    package var payloadIsJSON: Bool? {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.payloadIsJSON
            case .compactLegacy(let compact): compact.payloadIsJSON
            case .compactHTTP2(let compact): compact.payloadIsJSON
            }
        }
        set { change { $0.payloadIsJSON = newValue } }
    }
    /// How the request authenticated: a copy. A reader that asks for a field of it per
    /// notification reads it in place (`withAuthentication`).
    package var authentication: JournalAuthentication {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.authentication
            case .compactLegacy(let compact): compact.block.context.authentication
            case .compactHTTP2(let compact): compact.block.context.authentication
            }
        }
        set { change { $0.authentication = newValue } }
    }

    // MARK: The outcome

    /// What the client was sent, as written: the answer, the fault, the rule that decided: a
    /// copy. The accessors below, and a reader that asks for a field of it per notification,
    /// read it in place (`withAnswer`).
    @usableFromInline package var answer: SentAnswer {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.answer
            case .compactLegacy(let compact): compact.block.context.answer
            case .compactHTTP2(let compact): compact.answer
            }
        }
        set { change { $0.answer = newValue } }
    }
    /// Whether it was discarded unexamined (legacy frames after a failure or shutdown, streams
    /// HTTP/2 refused before anyone read them).
    public var dropped: Bool {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.dropped
            case .compactLegacy(let compact): compact.dropped
            case .compactHTTP2(let compact): compact.dropped
            }
        }
        set { change { $0.dropped = newValue } }
    }
    /// What the legacy codec found wrong with the frame, in plain words, when it refused the
    /// frame itself (a payload or token of the wrong size, an unknown item, unparseable bytes).
    public var problem: String? {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.problem
            case .compactLegacy(let compact): compact.problem
            case .compactHTTP2(let compact): compact.problem
            }
        }
        set { change { $0.problem = newValue } }
    }
    /// Microseconds from the complete request's arrival to its verdict: the server's own work,
    /// before any scenario delay (HTTP/2 only; `nil` when not measured).
    public var handlingMicroseconds: Int? {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.handlingMicroseconds
            case .compactLegacy(let compact): compact.handlingMicroseconds
            case .compactHTTP2(let compact): compact.handlingMicroseconds
            }
        }
        set { change { $0.handlingMicroseconds = newValue } }
    }
    /// The environment of the listener that received it (on a server playing both, which
    /// host the provider sent it to); `nil` when unknown.
    public var environment: APNsEnvironment? {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.environment
            case .compactLegacy(let compact): compact.environment
            case .compactHTTP2(let compact): compact.environment
            }
        }
        set { change { $0.environment = newValue } }
    }
    /// What a web push request carried besides the common fields (`transport == .webPush`):
    /// its headers, VAPID claims and the decrypted message; `nil` on every other transport.
    public var webPush: WebPushDetails? {
        @inlinable get {
            switch storage {
            case .boxed(let box): box.fields.webPush
            case .compactLegacy(let compact): compact.webPush
            case .compactHTTP2(let compact): compact.webPush
            }
        }
        set { change { $0.webPush = newValue } }
    }

    // The accessors return copies, and these calls lend a field in place instead. A record's
    // accessors were `_read` coroutines, which lend without a copy; but a coroutine that is not
    // inlined keeps its frame in a small buffer of its caller's, and with layouts to choose
    // between the frame outgrew it: every read allocated one (four per notification). A copy of
    // a token string costs a retain and a release instead, and, where the token repeats, the
    // event loop and the readers would count references to the same string at the same time:
    // so the fields a reader reads per notification are lent.

    /// Calls `body` with the answer where the record holds it, not copied.
    @inlinable package func withAnswer<Result>(_ body: (SentAnswer) -> Result) -> Result {
        switch storage {
        case .boxed(let box): box.withAnswer(body)
        case .compactLegacy(let compact): compact.withAnswer(body)
        case .compactHTTP2(let compact): compact.withAnswer(body)
        }
    }

    /// Calls `body` with the device token's UTF-8 bytes where the record holds them, not copied:
    /// a compact record keeps the digits, not a string.
    @inlinable package func withDeviceTokenUTF8<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        switch storage {
        case .boxed(let box): box.withDeviceTokenUTF8(body)
        case .compactLegacy(let compact): compact.withDeviceTokenUTF8(body)
        case .compactHTTP2(let compact): compact.withDeviceTokenUTF8(body)
        }
    }

    /// Whether the record has no device token (a legacy frame dropped unread).
    @inlinable package var deviceTokenIsEmpty: Bool {
        switch storage {
        case .boxed(let box): box.fields.deviceToken.isEmpty
        case .compactLegacy(let compact): compact.entry.pointee.token.count == 0
        case .compactHTTP2(let compact): compact.entry.pointee.token.count == 0
        }
    }

    /// Calls `body` with the payload's bytes where the record holds them, not copied.
    @inlinable package func withPayloadBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        switch storage {
        case .boxed(let box): box.withPayloadBytes(body)
        case .compactLegacy(let compact): compact.withPayloadBytes(body)
        case .compactHTTP2(let compact): compact.withPayloadBytes(body)
        }
    }

    /// Calls `body` with the authentication where the record holds it, not copied.
    @inlinable package func withAuthentication<Result>(_ body: (JournalAuthentication) -> Result) -> Result {
        switch storage {
        case .boxed(let box): box.withAuthentication(body)
        case .compactLegacy(let compact): compact.withAuthentication(body)
        case .compactHTTP2(let compact): compact.withAuthentication(body)
        }
    }

    /// Whether the client was told the notification was accepted (`SentAnswer.accepted`).
    public var accepted: Bool {
        @inlinable get { withAnswer { $0.accepted } }
        set { change { $0.answer.accepted = newValue } }
    }
    /// The Apple reason the answer named.
    public var reason: Reason? {
        @inlinable get { withAnswer { $0.reason } }
        set { change { $0.answer.reason = newValue } }
    }
    /// The HTTP status written (HTTP/2 only; `nil`: no response was written).
    public var status: Int? {
        @inlinable get { withAnswer { $0.status } }
        set { change { $0.answer.status = newValue } }
    }
    /// The `apns-id` the response carried.
    public var responseAPNsID: String? {
        get { withAnswer { $0.apnsID?.text } }
        set { change { $0.answer.apnsID = newValue.map(MessageID.text) } }
    }
    /// The 410 timestamp, milliseconds since 1970.
    public var timestamp: Int64? {
        @inlinable get { withAnswer { $0.timestamp } }
        set { change { $0.answer.timestamp = newValue } }
    }
    /// The legacy status sent in the error packet (`nil`: none sent).
    package var legacyStatus: LegacyStatus? { withAnswer { $0.legacyPacket?.status } }
    /// The fault a scenario rule carried out (`answer.fault`), read without copying the answer.
    @inlinable package var fault: AppliedFault? { withAnswer { $0.fault } }
    /// The scenario rule that decided the answer (`answer.rule`), read the same way.
    @inlinable public var rule: String? { withAnswer { $0.rule } }
    /// Upstream mode: where the answer came from (or why the upstream gave none) and what
    /// MockAPNs' own rules made of the request; `nil` when MockAPNs answered by itself.
    public var upstream: UpstreamRelay? { withAnswer { $0.upstream } }

    /// How many payload bytes a record keeps (`RecordedPayload.limit`).
    package static let payloadLimit = RecordedPayload.limit

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
        self.init(payloadBytes: SharedBytes(payload), transport: transport, deviceToken: deviceToken, topic: topic, pushType: pushType,
            requestAPNsID: requestAPNsID, priority: priority, expiration: expiration, collapseID: collapseID,
            legacyIdentifier: legacyIdentifier, legacyCommand: legacyCommand, payloadLength: payloadLength,
            payloadIsJSON: payloadIsJSON, authentication: authentication, answer: answer, dropped: dropped, problem: problem,
            handlingMicroseconds: handlingMicroseconds, environment: environment, webPush: webPush,
            connectionID: connectionID, streamID: streamID, sequence: sequence, wallTimeMilliseconds: wallTimeMilliseconds)
    }

    /// The same, with the payload's bytes shared (a request's, as it carried them).
    package init(
        payloadBytes payload: SharedBytes, transport: Transport, deviceToken: String, topic: String? = nil,
        pushType: String? = nil, requestAPNsID: String? = nil, priority: Int? = nil, expiration: Int64? = nil,
        collapseID: String? = nil, legacyIdentifier: UInt32? = nil, legacyCommand: UInt8? = nil,
        payloadLength: Int? = nil, payloadIsJSON: Bool? = nil,
        authentication: JournalAuthentication, answer: SentAnswer, dropped: Bool = false, problem: String? = nil,
        handlingMicroseconds: Int? = nil, environment: APNsEnvironment? = nil, webPush: WebPushDetails? = nil,
        connectionID: UInt64? = nil, streamID: Int32? = nil, sequence: UInt64 = 0, wallTimeMilliseconds: Int64 = 0
    ) {
        self.init(storage: .boxed(Box(Fields(
            sequence: sequence, wallTimeMilliseconds: wallTimeMilliseconds, connectionID: connectionID, streamID: streamID,
            transport: transport, deviceToken: deviceToken, topic: topic, pushType: pushType, requestAPNsID: requestAPNsID,
            priority: priority, expiration: expiration, collapseID: collapseID, legacyIdentifier: legacyIdentifier,
            legacyCommand: legacyCommand, payload: RecordedPayload.kept(payload), payloadLength: payloadLength ?? payload.count,
            payloadIsJSON: payloadIsJSON, authentication: authentication, answer: answer, dropped: dropped, problem: problem,
            handlingMicroseconds: handlingMicroseconds, environment: environment, webPush: webPush
        ))))
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
            payloadBytes: request.payload, transport: request.transport, deviceToken: request.deviceToken, topic: request.topic,
            pushType: request.pushType?.rawValue, requestAPNsID: request.apnsID,
            priority: request.priority?.rawValue, expiration: request.expiration,
            collapseID: request.collapseID, legacyIdentifier: request.legacyIdentifier,
            payloadLength: max(payloadLength ?? 0, request.payload.count),
            payloadIsJSON: payloadIsJSON,
            authentication: authentication, answer: answer, problem: problem,
            handlingMicroseconds: handlingMicroseconds, environment: environment
        )
    }

    /// The payload as text, when its kept bytes are valid UTF-8.
    public var payloadText: String? {
        payloadBytes.withUnsafeBytes { String(validating: $0, as: UTF8.self) }
    }

    /// A compact record of an accepted legacy notification (see `CompactLegacyRecord`).
    init(compact: CompactLegacyRecord) {
        self.init(storage: .compactLegacy(compact))
    }

    /// A compact record of an HTTP/2 push answered as an acceptance (see `CompactHTTP2Record`).
    init(compact: CompactHTTP2Record) {
        self.init(storage: .compactHTTP2(compact))
    }
}

