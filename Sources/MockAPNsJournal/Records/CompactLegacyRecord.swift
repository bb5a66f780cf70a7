import MockAPNsWire
import MockAPNsCore

/// The record of an accepted legacy notification as the gateway makes it: a place in a block of
/// fixed-layout entries (`LegacyRecordBlock`) that the connection fills, with nothing allocated
/// for the notification itself.
///
/// The gateway reads hundreds of thousands of notifications a second, and a box of fields and a
/// payload array for each were its two allocations per notification. An entry holds instead the
/// notification's own fields in place (the token's hex digits, identifier, expiry, priority,
/// command, and where its payload lies in the connection's arena), and its block what every
/// notification in it shares (`LegacyRecordContext`).
///
/// What the journal's readers read of an entry involves no reference counting: a copy of the
/// record retains its block, and the event loop has stopped writing to a block before the
/// readers get its records. Where the readers instead counted references to the same token
/// string or context as the loop, at the same time, the cache line bounced between the cores
/// and the readers' work per notification grew by a quarter.
@usableFromInline package struct CompactLegacyRecord: Sendable {
    @usableFromInline let block: LegacyRecordBlock
    @usableFromInline let index: Int

    @usableFromInline init(block: LegacyRecordBlock, index: Int) {
        self.block = block
        self.index = index
    }

    /// The entry, in place.
    @usableFromInline var entry: UnsafeMutablePointer<LegacyRecordBlock.Entry> { block.entries.base + index }

    // Read through the pointer field by field: a copy of the whole entry would retain its
    // payload's block.

    /// The token's digits as a string: made when asked (a JSON view, a verdict's message), not
    /// when read per notification (`withDeviceTokenUTF8`).
    @usableFromInline var deviceToken: String { entry.pointee.token.text }

    /// Every field, as a boxed record holds them.
    @usableFromInline var fields: NotificationRecord.Fields {
        let entry = entry
        return NotificationRecord.Fields(
            transport: .legacy, deviceToken: deviceToken, topic: topic, pushType: pushType, requestAPNsID: nil,
            priority: priority, expiration: expiration, collapseID: nil, legacyIdentifier: legacyIdentifier,
            legacyCommand: legacyCommand, payload: entry.pointee.payload.bytes, payloadLength: payloadLength,
            payloadIsJSON: payloadIsJSON, authentication: block.context.authentication, answer: block.context.answer,
            dropped: false, problem: nil, handlingMicroseconds: nil, environment: environment, webPush: nil
        )
    }
}

extension CompactLegacyRecord: NotificationLayout {
    // What an accepted legacy notification's record always says: no sequence, time,
    // connection or stream of its own until its event gives them, no `apns-id`, collapse id,
    // problem, handling time or web push; the rest from its entry and its block's context.
    @usableFromInline var sequence: UInt64 { 0 }
    @usableFromInline var wallTimeMilliseconds: Int64 { 0 }
    @usableFromInline var connectionID: UInt64? { nil }
    @usableFromInline var streamID: Int32? { nil }
    @usableFromInline var transport: Transport { .legacy }
    @usableFromInline var topic: String? { block.context.topic }
    @usableFromInline var pushType: String? { block.context.pushType }
    @usableFromInline var requestAPNsID: String? { nil }
    @usableFromInline var priority: Int? { entry.pointee.priority }
    @usableFromInline var expiration: Int64? { entry.pointee.expiration }
    @usableFromInline var collapseID: String? { nil }
    @usableFromInline var legacyIdentifier: UInt32? { entry.pointee.identifier }
    @usableFromInline var legacyCommand: UInt8? { entry.pointee.command }
    @usableFromInline var payloadLength: Int { Int(entry.pointee.payload.count) }
    @usableFromInline var payloadIsJSON: Bool? { entry.pointee.payloadIsJSON }
    @usableFromInline var dropped: Bool { false }
    @usableFromInline var problem: String? { nil }
    @usableFromInline var handlingMicroseconds: Int? { nil }
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
        body(block.context.answer)
    }
}

/// A block of compact legacy records, filled front to back by one connection's event loop
/// (`LegacyRecordWriter`) and read by whoever holds a record in it. An entry is written once,
/// before its record is made, and never again while any record names the block; the loop moves
/// on to another block once the journal has been handed this one's records.
@usableFromInline package final class LegacyRecordBlock: @unchecked Sendable {
    @usableFromInline struct Entry {
        /// The token's lowercase hex digits, at most 64 (a 32-byte token).
        @usableFromInline let token: InlineToken
        /// The payload, in the connection's arena.
        @usableFromInline let payload: PayloadInPlace
        let identifierValue: UInt32
        let expiryValue: UInt32
        /// Which of the optional fields are present, and what the payload's examination found.
        let flags: UInt8
        /// The priority item's value; 0 when absent.
        let priorityValue: UInt8
        @usableFromInline let command: UInt8

        static let hasIdentifier: UInt8 = 1 << 0
        static let hasExpiry: UInt8 = 1 << 1
        static let examined: UInt8 = 1 << 2
        static let json: UInt8 = 1 << 3

        @usableFromInline var identifier: UInt32? { flags & Self.hasIdentifier != 0 ? identifierValue : nil }
        @usableFromInline var expiration: Int64? { flags & Self.hasExpiry != 0 ? Int64(expiryValue) : nil }
        @usableFromInline var priority: Int? { priorityValue == 0 ? nil : Int(priorityValue) }
        @usableFromInline var payloadIsJSON: Bool? { flags & Self.examined != 0 ? flags & Self.json != 0 : nil }

    }

    /// The entries, written by the connection's event loop alone (the run-time exclusivity
    /// check is skipped: the readers only read entries written before they got them).
    @exclusivity(unchecked) @usableFromInline var entries: RecordEntries<Entry>
    /// What every record in the block shares (`CompactRecordBlock`).
    @usableFromInline let context: LegacyRecordContext

    init(context: LegacyRecordContext, capacity: Int) {
        self.context = context
        entries = RecordEntries(capacity: capacity)
    }

    deinit {
        entries.deallocate()
    }
}

extension LegacyRecordBlock: CompactRecordBlock {}

/// Writes one legacy connection's compact records, on its event loop, into its cycle of blocks
/// (`CompactBlockCycle`).
package final class LegacyRecordWriter: @unchecked Sendable {
    private var blocks = CompactBlockCycle<LegacyRecordBlock>()
    /// Blocks allocated so far (for tests: under steady load it stops growing).
    package var blocksAllocated: Int { blocks.blocksAllocated }

    package init() {}

    /// The compact record of an accepted notification, or `nil` when it does not fit one: a
    /// token longer than 32 bytes (64 digits), or a payload outside the connection's arena
    /// (longer than it copies). `handOvers` is the connection's count of hand-overs to the
    /// journal, now.
    package func record(
        deviceToken: String, payload: SharedBytes, context: LegacyRecordContext, command: UInt8, identifier: UInt32?,
        expiry: UInt32?, priority: Int?, payloadIsJSON: Bool?, handOvers: UInt64
    ) -> NotificationRecord? {
        guard payload.isInArena, let token = InlineToken(deviceToken), let payload = PayloadInPlace(payload) else { return nil }
        var flags: UInt8 = 0
        if identifier != nil { flags |= LegacyRecordBlock.Entry.hasIdentifier }
        if expiry != nil { flags |= LegacyRecordBlock.Entry.hasExpiry }
        if let payloadIsJSON {
            flags |= LegacyRecordBlock.Entry.examined
            if payloadIsJSON { flags |= LegacyRecordBlock.Entry.json }
        }
        let block = blocks.writableBlock(context: context, handOvers: handOvers)
        let index = block.entries.append(LegacyRecordBlock.Entry(
            token: token, payload: payload,
            identifierValue: identifier ?? 0, expiryValue: expiry ?? 0, flags: flags,
            priorityValue: priority.map { UInt8(clamping: $0) } ?? 0, command: command
        ), payloadCount: Int(payload.count))
        return NotificationRecord(compact: CompactLegacyRecord(block: block, index: index))
    }
}

/// What every accepted notification of a legacy connection says alike: where the certificate
/// routes it, how the connection authenticated, the environment, and the answer (accepted: the
/// gateway answers with silence). Made once for a connection and kept while these stay the
/// same (`matches`).
@usableFromInline package final class LegacyRecordContext: Sendable {
    @usableFromInline package let topic: String?
    @usableFromInline package let pushType: String?
    @usableFromInline package let authentication: JournalAuthentication
    @usableFromInline package let environment: APNsEnvironment?
    @usableFromInline package let answer: SentAnswer
    /// What the authentication was made from, to tell whether a later read's is the same.
    private let authenticationResult: AuthenticationResult

    package init(
        topic: String?, pushType: String?, authentication: AuthenticationResult, environment: APNsEnvironment?, session: String? = nil
    ) {
        self.topic = topic
        self.pushType = pushType
        self.authenticationResult = authentication
        var recorded = JournalAuthentication(authentication)
        recorded.session = session
        self.authentication = recorded
        self.environment = environment
        answer = SentAnswer(accepted: true)
    }

    /// Whether a read with these facts can share this context.
    package func matches(
        topic: String?, pushType: String?, authentication: AuthenticationResult, environment: APNsEnvironment?
    ) -> Bool {
        self.topic == topic && self.pushType == pushType && self.environment == environment
            && authenticationResult == authentication
    }
}
