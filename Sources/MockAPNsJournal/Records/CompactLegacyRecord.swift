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
    @usableFromInline var entry: UnsafeMutablePointer<LegacyRecordBlock.Entry> { block.entries + index }

    // Read through the pointer field by field: a copy of the whole entry would retain its
    // payload's block.

    /// The token's digits as a string: made when asked (a JSON view, a verdict's message), not
    /// when read per notification (`withDeviceTokenUTF8`).
    @usableFromInline var deviceToken: String {
        withDeviceTokenUTF8 { String(decoding: $0, as: UTF8.self) }
    }

    /// Every field, as a boxed record holds them.
    @usableFromInline var fields: NotificationRecord.Fields {
        let entry = entry
        return NotificationRecord.Fields(
            transport: .legacy, deviceToken: deviceToken, topic: topic, pushType: pushType, requestAPNsID: nil,
            priority: priority, expiration: expiration, collapseID: nil, legacyIdentifier: legacyIdentifier,
            legacyCommand: legacyCommand, payload: entry.pointee.payload, payloadLength: payloadLength,
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
    @usableFromInline var payloadLength: Int { Int(entry.pointee.payloadCount) }
    @usableFromInline var payloadIsJSON: Bool? { entry.pointee.payloadIsJSON }
    @usableFromInline var dropped: Bool { false }
    @usableFromInline var problem: String? { nil }
    @usableFromInline var handlingMicroseconds: Int? { nil }
    @usableFromInline var environment: APNsEnvironment? { block.context.environment }
    @usableFromInline var webPush: WebPushDetails? { nil }

    @inlinable func withDeviceTokenUTF8<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        let count = Int(entry.pointee.tokenDigitCount)
        return withUnsafeBytes(of: entry.pointee.tokenDigits) { body(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
    }

    @inlinable func withPayloadBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        body(UnsafeRawBufferPointer(start: entry.pointee.payloadStart, count: Int(entry.pointee.payloadCount)))
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
        /// The token's lowercase hex digits, at most 64 (a 32-byte token), in place.
        @usableFromInline let tokenDigits: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
        @usableFromInline let tokenDigitCount: UInt8
        /// The payload, holding its bytes in the connection's arena...
        @usableFromInline let payload: SharedBytes
        /// ...which stay where they are while it does: readers read them here, and need not
        /// touch `payload`'s reference.
        @usableFromInline let payloadStart: UnsafeRawPointer?
        @usableFromInline let payloadCount: Int32
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

    /// Entries the largest block holds: a few reads' worth. A connection's first block holds
    /// `firstCapacity`, and each next one twice the last, so a connection that sends little
    /// holds little.
    static let largestCapacity = 256
    static let firstCapacity = 16

    @usableFromInline let entries: UnsafeMutablePointer<Entry>
    let capacity: Int
    /// What every record in the block shares. A constant: the readers read it without counting
    /// a reference to it, and a block is used again only for the same context.
    @usableFromInline let context: LegacyRecordContext
    /// Entries written; touched only by the writer, and by `deinit` once no record is left.
    @exclusivity(unchecked) private var count = 0

    init(context: LegacyRecordContext, capacity: Int) {
        self.context = context
        self.capacity = capacity
        entries = UnsafeMutablePointer<Entry>.allocate(capacity: capacity)
    }

    deinit {
        entries.deinitialize(count: count)
        entries.deallocate()
    }

    var isFull: Bool { count == capacity }

    /// Writes the next entry; returns its index.
    func append(_ entry: Entry) -> Int {
        (entries + count).initialize(to: entry)
        count += 1
        return count - 1
    }

    /// Empties the block: only when nothing names it any more.
    func reset() {
        entries.deinitialize(count: count)
        count = 0
    }
}

/// Writes one legacy connection's compact records, on its event loop: into the open block
/// until it is full, its context changes, or the journal has been handed records of it (then
/// the readers may hold them, and the loop goes on in another block). A block nothing names any
/// more is used again, so under steady load a connection allocates a block now and then, not a
/// record per notification.
package final class LegacyRecordWriter: @unchecked Sendable {
    private var open: LegacyRecordBlock?
    /// The journal hand-over count (`ConnectionJournal.handOvers`) when `open` was started.
    private var openedAt: UInt64 = 0
    /// Blocks handed over, kept to be used again once nothing names them.
    private var spares: [LegacyRecordBlock] = []
    /// Blocks allocated so far (for tests: under steady load it stops growing).
    package private(set) var blocksAllocated = 0

    /// Spares kept at most: blocks the readers still hold are checked again at the next start.
    /// Few: each spare keeps the payloads its entries name.
    private static let spareLimit = 2

    package init() {}

    /// The compact record of an accepted notification, or `nil` when it does not fit one: a
    /// token longer than 32 bytes (64 digits), or a payload outside the connection's arena
    /// (longer than it copies). `handOvers` is the connection's count of hand-overs to the
    /// journal, now.
    package func record(
        deviceToken: String, payload: SharedBytes, context: LegacyRecordContext, command: UInt8, identifier: UInt32?,
        expiry: UInt32?, priority: Int?, payloadIsJSON: Bool?, handOvers: UInt64
    ) -> NotificationRecord? {
        guard payload.isInArena, payload.count <= RecordedPayload.limit else { return nil }
        var digits: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        let digitCount: Int? = deviceToken.utf8.withContiguousStorageIfAvailable { utf8 in
            guard utf8.count <= MemoryLayout.size(ofValue: digits) else { return nil }
            withUnsafeMutableBytes(of: &digits) { $0.copyMemory(from: UnsafeRawBufferPointer(utf8)) }
            return utf8.count
        } ?? nil
        guard let digitCount else { return nil }
        var flags: UInt8 = 0
        if identifier != nil { flags |= LegacyRecordBlock.Entry.hasIdentifier }
        if expiry != nil { flags |= LegacyRecordBlock.Entry.hasExpiry }
        if let payloadIsJSON {
            flags |= LegacyRecordBlock.Entry.examined
            if payloadIsJSON { flags |= LegacyRecordBlock.Entry.json }
        }
        let block = writableBlock(context: context, handOvers: handOvers)
        let index = block.append(LegacyRecordBlock.Entry(
            tokenDigits: digits, tokenDigitCount: UInt8(digitCount), payload: payload,
            payloadStart: payload.withUnsafeBytes { $0.baseAddress }, payloadCount: Int32(payload.count),
            identifierValue: identifier ?? 0, expiryValue: expiry ?? 0, flags: flags,
            priorityValue: priority.map { UInt8(clamping: $0) } ?? 0, command: command
        ))
        return NotificationRecord(compact: CompactLegacyRecord(block: block, index: index))
    }

    private func writableBlock(context: LegacyRecordContext, handOvers: UInt64) -> LegacyRecordBlock {
        if let open, !open.isFull, open.context === context, openedAt == handOvers { return open }
        // A block that filled up is followed by one twice its size; one handed over part
        // full, by one its size.
        var capacity = LegacyRecordBlock.firstCapacity
        if let open {
            capacity = open.isFull ? min(LegacyRecordBlock.largestCapacity, 2 * open.capacity) : open.capacity
            spares.append(open)
        }
        open = nil
        let block = reusableSpare(context: context, capacity: capacity) ?? newBlock(context: context, capacity: capacity)
        open = block
        openedAt = handOvers
        return block
    }

    /// A spare for `context`, holding `capacity` entries or more, that nothing names any more,
    /// emptied; spares still held wait, up to `spareLimit` of them (beyond that the oldest is
    /// let go).
    private func reusableSpare(context: LegacyRecordContext, capacity: Int) -> LegacyRecordBlock? {
        var index = 0
        while index < spares.count {
            if spares[index].context === context, spares[index].capacity >= capacity, isKnownUniquelyReferenced(&spares[index]) {
                let block = spares.remove(at: index)
                block.reset()
                return block
            }
            index += 1
        }
        if spares.count > Self.spareLimit { spares.removeFirst() }
        return nil
    }

    private func newBlock(context: LegacyRecordContext, capacity: Int) -> LegacyRecordBlock {
        blocksAllocated += 1
        return LegacyRecordBlock(context: context, capacity: capacity)
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

    package init(topic: String?, pushType: String?, authentication: AuthenticationResult, environment: APNsEnvironment?) {
        self.topic = topic
        self.pushType = pushType
        self.authenticationResult = authentication
        self.authentication = JournalAuthentication(authentication)
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
