import MockAPNsWire
import MockAPNsCore

/// The record of an HTTP/2 push answered 200 as Apple answers it: a place in a block of
/// fixed-layout entries (`HTTP2RecordBlock`) that the connection fills, with nothing allocated
/// for the request itself. The legacy gateway's accepted notifications are recorded the same way
/// (`CompactLegacyRecord`).
///
/// An entry holds what changes from request to request: the token's text in place, the ids,
/// priority and expiration, the answer's ids, the handling time, and the payload as the request
/// carried it. What a connection's pushes say alike (the topic, the push type, how they
/// authenticated, the environment) is its block's `HTTP2RecordContext`. A request the answer
/// or the record cannot show this way (a refusal, a rule or fault, a token longer than 64
/// bytes, a payload larger than a record keeps) is boxed, as before.
@usableFromInline package struct CompactHTTP2Record: Sendable {
    @usableFromInline let block: HTTP2RecordBlock
    @usableFromInline let index: Int

    @usableFromInline init(block: HTTP2RecordBlock, index: Int) {
        self.block = block
        self.index = index
    }

    /// The entry, in place. Read field by field: a copy of the whole entry would retain its
    /// strings and payload.
    @usableFromInline var entry: UnsafeMutablePointer<HTTP2RecordBlock.Entry> { block.entries.base + index }

    @usableFromInline var deviceToken: String { entry.pointee.token.text }

    /// Every field, as a boxed record holds them.
    @usableFromInline var fields: NotificationRecord.Fields {
        NotificationRecord.Fields(
            transport: .http2, deviceToken: deviceToken, topic: topic, pushType: pushType, requestAPNsID: requestAPNsID,
            priority: priority, expiration: expiration, collapseID: collapseID, legacyIdentifier: nil,
            legacyCommand: nil, payload: entry.pointee.payload.bytes, payloadLength: payloadLength,
            payloadIsJSON: payloadIsJSON, authentication: block.context.authentication, answer: answer,
            dropped: false, problem: nil, handlingMicroseconds: handlingMicroseconds, environment: environment, webPush: nil
        )
    }

    /// The answer as it was sent: a status and the ids written, nothing else.
    @usableFromInline var answer: SentAnswer { entry.pointee.answer }
}

extension CompactHTTP2Record: NotificationLayout {
    // What such a record always says: no sequence, time, connection or stream of its own until
    // its event gives them (as a boxed HTTP/2 record), no legacy fields, problem or web push;
    // the rest from its entry and its block's context.
    @usableFromInline var sequence: UInt64 { 0 }
    @usableFromInline var wallTimeMilliseconds: Int64 { 0 }
    @usableFromInline var connectionID: UInt64? { nil }
    @usableFromInline var streamID: Int32? { nil }
    @usableFromInline var transport: Transport { .http2 }
    @usableFromInline var topic: String? { block.context.topic }
    @usableFromInline var pushType: String? { block.context.pushType }
    @usableFromInline var requestAPNsID: String? { entry.pointee.requestAPNsID }
    @usableFromInline var priority: Int? { entry.pointee.priority }
    @usableFromInline var expiration: Int64? { entry.pointee.expiration }
    @usableFromInline var collapseID: String? { entry.pointee.collapseID }
    @usableFromInline var legacyIdentifier: UInt32? { nil }
    @usableFromInline var legacyCommand: UInt8? { nil }
    @usableFromInline var payloadLength: Int { entry.pointee.payloadLength }
    @usableFromInline var payloadIsJSON: Bool? { entry.pointee.payloadIsJSON }
    @usableFromInline var dropped: Bool { false }
    @usableFromInline var problem: String? { nil }
    @usableFromInline var handlingMicroseconds: Int? { entry.pointee.handlingMicroseconds }
    @usableFromInline var environment: APNsEnvironment? { block.context.environment }
    @usableFromInline var webPush: WebPushDetails? { nil }

    @inlinable func withDeviceTokenUTF8<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        entry.pointee.token.withUTF8(body)
    }

    @inlinable func withPayloadBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        entry.pointee.payload.withUnsafeBytes(body)
    }

    @inlinable func withAuthentication<Result>(_ body: (JournalAuthentication) -> Result) -> Result {
        body(block.context.authentication)
    }

    @inlinable func withAnswer<Result>(_ body: (SentAnswer) -> Result) -> Result {
        body(entry.pointee.answer)
    }
}

/// A block of compact HTTP/2 records, filled front to back by one connection's event loop
/// (`HTTP2RecordWriter`) and read by whoever holds a record in it, as a legacy block is
/// (`LegacyRecordBlock`).
@usableFromInline package final class HTTP2RecordBlock: @unchecked Sendable {
    @usableFromInline struct Entry {
        /// The token as the path spelled it.
        @usableFromInline let token: InlineToken
        /// The payload, as the request's body holds it.
        @usableFromInline let payload: PayloadInPlace
        /// `apns-id` and `apns-collapse-id` as sent: each its request's own string.
        @usableFromInline let requestAPNsID: String?
        @usableFromInline let collapseID: String?
        /// The answer: a status and the `apns-id` and `apns-unique-id` it carried, nothing else
        /// (`isPlainAcceptance`). Kept whole, not as its three parts, so that the readers, who ask
        /// it several things per notification, are lent it rather than sent a new one each time.
        @usableFromInline let answer: SentAnswer
        /// The body's true length (the payload is all of it: a body stored cut short is boxed).
        @usableFromInline let payloadLength: Int
        let expirationValue: Int64
        let handlingValue: Int
        /// Which of the optional fields are present, and what the payload's examination found.
        let flags: UInt8
        /// `apns-priority`; 0 when absent.
        let priorityValue: UInt8

        static let hasExpiration: UInt8 = 1 << 0
        static let hasHandling: UInt8 = 1 << 1
        static let examined: UInt8 = 1 << 2
        static let json: UInt8 = 1 << 3

        @usableFromInline var expiration: Int64? { flags & Self.hasExpiration != 0 ? expirationValue : nil }
        @usableFromInline var handlingMicroseconds: Int? { flags & Self.hasHandling != 0 ? handlingValue : nil }
        @usableFromInline var priority: Int? { priorityValue == 0 ? nil : Int(priorityValue) }
        @usableFromInline var payloadIsJSON: Bool? { flags & Self.examined != 0 ? flags & Self.json != 0 : nil }

        /// Whether `sent` is an answer an entry records: a status and its ids, accepted, as the
        /// server answers a push it accepts by itself.
        static func isPlainAcceptance(_ sent: SentAnswer) -> Bool {
            sent.status != nil && sent == SentAnswer(status: sent.status, apnsID: sent.apnsID, uniqueID: sent.uniqueID, accepted: true)
        }
    }

    /// The entries, written by the connection's event loop alone (`LegacyRecordBlock.entries`).
    @exclusivity(unchecked) @usableFromInline var entries: RecordEntries<Entry>
    /// What every record in the block shares (`CompactRecordBlock`).
    @usableFromInline let context: HTTP2RecordContext

    init(context: HTTP2RecordContext, capacity: Int) {
        self.context = context
        entries = RecordEntries(capacity: capacity)
    }

    deinit {
        entries.deallocate()
    }
}

extension HTTP2RecordBlock: CompactRecordBlock {}

/// Writes one HTTP/2 connection's compact records, on its event loop, into its cycle of blocks
/// (`CompactBlockCycle`), and keeps the context its records share while it stays the same.
package final class HTTP2RecordWriter: @unchecked Sendable {
    private var blocks = CompactBlockCycle<HTTP2RecordBlock>()
    private var context: HTTP2RecordContext?
    /// The session the connection's credentials belong to (`JournalAuthentication.session`),
    /// once known; every record the connection makes from then on says it.
    package var session: String?
    /// Blocks allocated so far (for tests: under steady load it stops growing).
    package var blocksAllocated: Int { blocks.blocksAllocated }

    package init() {}

    /// The compact record of `request` answered `sent`, or `nil` when it does not fit one: an
    /// answer other than an acceptance with its ids (a refusal, a rule's, a fault, a relayed
    /// one), a token longer than 64 bytes, a body stored cut short or
    /// longer than a record keeps, or text `providerTokens` would rewrite (a compact record is
    /// recorded as it is). `handOvers` is the connection's count of hand-overs to the journal,
    /// now.
    package func record(
        _ request: PushRequest, sent: SentAnswer, payloadLength: Int, payloadIsJSON: Bool?,
        authentication: AuthenticationResult, tokenIssuedAt: Int64?, authenticationDetail: String?,
        environment: APNsEnvironment, handlingMicroseconds: Int?, providerTokens: ProviderTokenRecording, handOvers: UInt64
    ) -> NotificationRecord? {
        guard request.transport == .http2, payloadLength == request.payload.count,
              HTTP2RecordBlock.Entry.isPlainAcceptance(sent),
              let token = InlineToken(request.deviceToken), let payload = PayloadInPlace(request.payload),
              Self.recordedAsSent(request.deviceToken, providerTokens),
              Self.recordedAsSent(request.apnsID, providerTokens), Self.recordedAsSent(request.collapseID, providerTokens)
        else { return nil }
        guard let context = context(
            topic: request.topic, pushType: request.pushType?.rawValue, authentication: authentication,
            issuedAt: tokenIssuedAt, detail: authenticationDetail, environment: environment, providerTokens: providerTokens
        ) else { return nil }
        var flags: UInt8 = 0
        if request.expiration != nil { flags |= HTTP2RecordBlock.Entry.hasExpiration }
        if handlingMicroseconds != nil { flags |= HTTP2RecordBlock.Entry.hasHandling }
        if let payloadIsJSON {
            flags |= HTTP2RecordBlock.Entry.examined
            if payloadIsJSON { flags |= HTTP2RecordBlock.Entry.json }
        }
        let block = blocks.writableBlock(context: context, handOvers: handOvers)
        let index = block.entries.append(HTTP2RecordBlock.Entry(
            token: token, payload: payload, requestAPNsID: request.apnsID, collapseID: request.collapseID,
            answer: sent, payloadLength: payloadLength,
            expirationValue: request.expiration ?? 0, handlingValue: handlingMicroseconds ?? 0, flags: flags,
            priorityValue: request.priority.map { UInt8(clamping: $0.rawValue) } ?? 0
        ), payloadCount: Int(payload.count))
        return NotificationRecord(compact: CompactHTTP2Record(block: block, index: index))
    }

    /// The context for these facts: the last one, while they stay the same; `nil` when one of
    /// its texts is one `providerTokens` would rewrite.
    private func context(
        topic: String?, pushType: String?, authentication: AuthenticationResult, issuedAt: Int64?, detail: String?,
        environment: APNsEnvironment, providerTokens: ProviderTokenRecording
    ) -> HTTP2RecordContext? {
        if let context, context.matches(
            topic: topic, pushType: pushType, authentication: authentication, issuedAt: issuedAt, detail: detail,
            environment: environment, session: session
        ) {
            return context
        }
        guard Self.recordedAsSent(topic, providerTokens), Self.recordedAsSent(pushType, providerTokens),
              Self.recordedAsSent(detail, providerTokens) else { return nil }
        let made = HTTP2RecordContext(
            topic: topic, pushType: pushType, authentication: authentication, issuedAt: issuedAt, detail: detail,
            environment: environment, session: session
        )
        context = made
        return made
    }

    /// Whether `text` is recorded as it is (`NotificationRecord.recordable`).
    private static func recordedAsSent(_ text: String?, _ providerTokens: ProviderTokenRecording) -> Bool {
        guard let text else { return true }
        return providerTokens.apply(text) == text
    }
}

/// What the compact records of an HTTP/2 connection's pushes say alike: the topic and push type
/// as the core routed them, how they authenticated (the provider token's `iat` and any detail
/// included), and the environment. Made when the first push needs it and kept while these stay
/// the same (`matches`).
@usableFromInline package final class HTTP2RecordContext: Sendable {
    @usableFromInline let topic: String?
    @usableFromInline let pushType: String?
    @usableFromInline let authentication: JournalAuthentication
    @usableFromInline let environment: APNsEnvironment?
    /// What `authentication` was made from, to tell whether a later push's is the same.
    private let authenticationResult: AuthenticationResult

    init(
        topic: String?, pushType: String?, authentication: AuthenticationResult, issuedAt: Int64?, detail: String?,
        environment: APNsEnvironment, session: String?
    ) {
        self.topic = topic
        self.pushType = pushType
        authenticationResult = authentication
        var recorded = JournalAuthentication(authentication)
        recorded.issuedAt = issuedAt
        recorded.detail = detail
        recorded.session = session
        self.authentication = recorded
        self.environment = environment
    }

    func matches(
        topic: String?, pushType: String?, authentication: AuthenticationResult, issuedAt: Int64?, detail: String?,
        environment: APNsEnvironment, session: String?
    ) -> Bool {
        self.topic == topic && self.pushType == pushType && self.environment == environment
            && self.authentication.issuedAt == issuedAt && self.authentication.detail == detail
            && self.authentication.session == session && authenticationResult == authentication
    }
}
