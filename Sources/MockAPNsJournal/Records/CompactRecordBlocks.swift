import MockAPNsCore
import MockAPNsWire

/// What the compact records of both protocols share: fixed-layout entries in blocks that one
/// connection's event loop fills (`RecordEntries`), and the cycle of blocks it writes into
/// (`CompactBlockCycle`). A record is then a block and an index, and making one allocates
/// nothing once the connection has its few blocks.

/// Fixed-layout entries in one allocation, written front to back: the storage of a block.
@usableFromInline struct RecordEntries<Entry> {
    /// The first entry. An entry is written once and stays where it is while its block lives.
    @usableFromInline let base: UnsafeMutablePointer<Entry>
    let capacity: Int
    /// Entries written.
    private(set) var count = 0
    /// The payload bytes the entries keep alive.
    private(set) var payloadBytes = 0

    /// The payload bytes a block takes before it counts as full, however few its entries: a
    /// block lives on while any record in it is held, and its connection keeps a few (the open
    /// one, its spares) while it is idle, so what they hold is bounded in bytes, not only in
    /// entries.
    static var payloadByteLimit: Int { 32 * 1024 }

    init(capacity: Int) {
        self.capacity = capacity
        base = UnsafeMutablePointer<Entry>.allocate(capacity: capacity)
    }

    /// Whether every place is taken.
    var isFilled: Bool { count == capacity }
    /// Whether the next entry goes in another block: every place is taken, or the payloads
    /// reached their limit.
    var isFull: Bool { count == capacity || payloadBytes >= Self.payloadByteLimit }

    /// Writes the next entry, whose payload is `payloadCount` bytes; returns its index.
    mutating func append(_ entry: Entry, payloadCount: Int) -> Int {
        (base + count).initialize(to: entry)
        count += 1
        payloadBytes += payloadCount
        return count - 1
    }

    /// Forgets every entry: only when nothing names the block any more.
    mutating func removeAll() {
        base.deinitialize(count: count)
        count = 0
        payloadBytes = 0
    }

    /// Gives the memory back: from the block's `deinit`.
    func deallocate() {
        base.deinitialize(count: count)
        base.deallocate()
    }
}

/// A block of compact records: its entries, and what every record in it shares (its context, a
/// constant: the readers read it without counting a reference to it, and a block is used again
/// only for the same context).
protocol CompactRecordBlock: AnyObject {
    associatedtype Entry
    associatedtype Context: AnyObject
    init(context: Context, capacity: Int)
    var context: Context { get }
    var entries: RecordEntries<Entry> { get set }
}

/// Entries the largest block holds: a few reads' worth. A connection's first block holds
/// `firstBlockCapacity`, and each next one twice the last, so a connection that sends little
/// holds little.
let largestBlockCapacity = 256
let firstBlockCapacity = 16

/// The blocks one connection writes its compact records into, on its event loop: the open block
/// until it is full, its context changes, or the journal has been handed records of it (the
/// readers may then hold them, and the loop goes on in another block, so it never writes where
/// a reader reads). A block nothing names any more is used again, so under steady load a
/// connection allocates a block now and then, not a record per notification.
struct CompactBlockCycle<Block: CompactRecordBlock> {
    private var open: Block?
    /// The journal hand-over count (`ConnectionJournal.handOvers`) when `open` was started.
    private var openedAt: UInt64 = 0
    /// Blocks handed over, kept to be used again once nothing names them.
    private var spares: [Block] = []
    /// Blocks allocated so far (for tests: under steady load it stops growing).
    private(set) var blocksAllocated = 0

    /// Spares kept at most: blocks the readers still hold are checked again at the next start.
    /// Few: each spare keeps what its entries name (their payloads).
    private static var spareLimit: Int { 2 }

    /// The block the next entry for `context` goes in. `handOvers` is the connection's count of
    /// hand-overs to the journal, now.
    mutating func writableBlock(context: Block.Context, handOvers: UInt64) -> Block {
        if let open, !open.entries.isFull, open.context === context, openedAt == handOvers { return open }
        // A block whose places all filled up is followed by one twice its size; one handed
        // over part full, or full of payload bytes, by one its size.
        var capacity = firstBlockCapacity
        if let open {
            capacity = open.entries.isFilled ? min(largestBlockCapacity, 2 * open.entries.capacity) : open.entries.capacity
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
    private mutating func reusableSpare(context: Block.Context, capacity: Int) -> Block? {
        var index = 0
        while index < spares.count {
            if spares[index].context === context, spares[index].entries.capacity >= capacity,
               isKnownUniquelyReferenced(&spares[index]) {
                let block = spares.remove(at: index)
                block.entries.removeAll()
                return block
            }
            index += 1
        }
        if spares.count > Self.spareLimit { spares.removeFirst() }
        return nil
    }

    private mutating func newBlock(context: Block.Context, capacity: Int) -> Block {
        blocksAllocated += 1
        return Block(context: context, capacity: capacity)
    }
}

/// A device token's text in place, in an entry: at most 64 UTF-8 bytes (a 32-byte token's hex
/// digits). Kept in the entry rather than as the request's string: the connection gives the
/// same string to the next request with the same token, and the event loop and the readers
/// would count references to it at the same time.
@usableFromInline struct InlineToken {
    @usableFromInline let bytes: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
    @usableFromInline let count: UInt8

    /// `nil` for a token longer than the entry holds.
    init?(_ token: String) {
        var bytes: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        let count: Int? = token.utf8.withContiguousStorageIfAvailable { utf8 in
            guard utf8.count <= MemoryLayout.size(ofValue: bytes) else { return nil }
            withUnsafeMutableBytes(of: &bytes) { $0.copyMemory(from: UnsafeRawBufferPointer(utf8)) }
            return utf8.count
        } ?? nil
        guard let count else { return nil }
        self.bytes = bytes
        self.count = UInt8(count)
    }

    @inlinable func withUTF8<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        let count = Int(count)
        return withUnsafeBytes(of: bytes) { body(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
    }

    /// The token as a string: made when asked (a JSON view, a verdict's message), not when read
    /// per notification.
    var text: String { withUTF8 { String(decoding: $0, as: UTF8.self) } }
}

/// A payload an entry keeps whole, with where its bytes lie: readers read them through the
/// pointer, and need not touch the payload's reference (its owner's count would be touched by
/// the event loop and the readers at once).
@usableFromInline struct PayloadInPlace {
    /// Holds the bytes where they are while the entry lives.
    @usableFromInline let bytes: SharedBytes
    @usableFromInline let start: UnsafeRawPointer?
    @usableFromInline let count: Int32

    /// `nil` for a payload longer than a record keeps (`RecordedPayload.limit`): its record keeps
    /// a prefix, in a box.
    init?(_ payload: SharedBytes) {
        guard payload.count <= RecordedPayload.limit else { return nil }
        bytes = payload
        start = payload.withUnsafeBytes { $0.baseAddress }
        count = Int32(payload.count)
    }

    @inlinable func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        body(UnsafeRawBufferPointer(start: start, count: Int(count)))
    }
}
