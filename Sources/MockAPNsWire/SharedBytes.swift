/// Bytes a request carried, shared rather than owned: an array, or a range of a block that a
/// connection's `ByteArena` copied them into.
///
/// A legacy gateway connection copies each payload once, into its arena; the notification,
/// the decision and the record then share that block. So a notification costs no allocation
/// of its own for its payload, where an array cost one each. An HTTP/2 body, gathered into an
/// array, is carried as that array.
@usableFromInline package struct SharedBytes: Sendable, RandomAccessCollection {
    @usableFromInline enum Storage: Sendable {
        case array([UInt8])
        /// `count` bytes of `block` from `offset`, written before this value was made and
        /// never written again.
        case block(ByteArenaBlock, offset: UInt32, count: UInt32)
    }

    @usableFromInline let storage: Storage

    package init(_ array: [UInt8] = []) {
        storage = .array(array)
    }

    init(block: ByteArenaBlock, offset: Int, count: Int) {
        storage = .block(block, offset: UInt32(truncatingIfNeeded: offset), count: UInt32(truncatingIfNeeded: count))
    }

    @usableFromInline package var startIndex: Int { 0 }

    @usableFromInline package var endIndex: Int {
        switch storage {
        case .array(let array): array.count
        case .block(_, _, let count): Int(count)
        }
    }

    @usableFromInline package subscript(position: Int) -> UInt8 {
        switch storage {
        case .array(let array):
            return array[position]
        case .block(let block, let offset, let count):
            precondition(position >= 0 && position < Int(count), "SharedBytes index out of range")
            return block.base.load(fromByteOffset: Int(offset) + position, as: UInt8.self)
        }
    }

    /// Calls `body` with the bytes, in place.
    @inlinable
    package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        switch storage {
        case .array(let array):
            return try array.withUnsafeBytes(body)
        case .block(let block, let offset, let count):
            return try withExtendedLifetime(block) {
                try body(UnsafeRawBufferPointer(start: block.base + Int(offset), count: Int(count)))
            }
        }
    }

    @usableFromInline package func withContiguousStorageIfAvailable<Result>(
        _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result? {
        try withUnsafeBytes { raw in try body(raw.bindMemory(to: UInt8.self)) }
    }

    /// The bytes as an array: the array itself when they are one, else a copy.
    package var array: [UInt8] {
        switch storage {
        case .array(let array): array
        case .block: withUnsafeBytes { [UInt8]($0) }
        }
    }

    /// Whether these bytes live in an arena's block (a copy made by `ByteArena`).
    package var isInArena: Bool {
        switch storage {
        case .array: false
        case .block: true
        }
    }
}

extension SharedBytes: Equatable {
    @usableFromInline package static func == (left: SharedBytes, right: SharedBytes) -> Bool {
        left.withUnsafeBytes { leftBytes in
            right.withUnsafeBytes { rightBytes in
                leftBytes.count == rightBytes.count && leftBytes.elementsEqual(rightBytes)
            }
        }
    }
}

/// A block of memory a `ByteArena` copies bytes into. Each range of it is written once,
/// before the `SharedBytes` that names it is made, and only read after; the block is freed
/// with the last value naming a range of it.
@usableFromInline package final class ByteArenaBlock: @unchecked Sendable {
    @usableFromInline let base: UnsafeMutableRawPointer
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
    }

    deinit {
        base.deallocate()
    }
}

/// Where one connection copies the bytes its requests carry, so they can be shared: blocks
/// filled front to back. A full block is used again from its start when nothing names a range
/// of it any more (the records of its notifications have been read), else a new one is
/// allocated: under steady load a connection goes round two or three blocks, and allocates
/// nothing per request.
///
/// Blocks start small and double, up to `blockSize`: a connection that sends a notification
/// now and then holds a few KiB, one under load 64 KiB blocks. Bytes longer than a quarter of
/// the largest block get an array of their own, so one long payload does not pin a block. A
/// value is used by one connection, on its event loop.
package struct ByteArena: Sendable {
    /// The largest block.
    package static let blockSize = 64 * 1024
    /// The first block.
    package static let firstBlockSize = 4 * 1024

    private var block: ByteArenaBlock?
    /// Bytes of `block` already handed out.
    private var used = 0
    /// A full block kept for when nothing names its ranges any more.
    private var spare: ByteArenaBlock?
    /// Blocks allocated so far: under steady load it stops growing.
    package private(set) var blocksAllocated = 0

    package init() {}

    /// The bytes the arena's blocks hold (the current one and the spare).
    package var bytesHeld: Int { (block?.capacity ?? 0) + (spare?.capacity ?? 0) }

    /// A shared copy of `bytes`.
    package mutating func copy(_ bytes: UnsafeRawBufferPointer) -> SharedBytes {
        let count = bytes.count
        guard count > 0 else { return SharedBytes() }
        guard count <= Self.blockSize / 4 else { return SharedBytes([UInt8](bytes)) }
        if used + count > (block?.capacity ?? 0) { startBlock(holding: count) }
        guard let block, let source = bytes.baseAddress else { return SharedBytes([UInt8](bytes)) }
        (block.base + used).copyMemory(from: source, byteCount: count)
        let shared = SharedBytes(block: block, offset: used, count: count)
        used += count
        return shared
    }

    /// Moves on to an empty block with room for `count` bytes: the spare, if nothing names its
    /// ranges any more and it is as large as the next block would be, else a new one, twice
    /// the size of the last (up to `blockSize`). The full block becomes the spare.
    private mutating func startBlock(holding count: Int) {
        let size = min(Self.blockSize, max(Self.firstBlockSize, 2 * (block?.capacity ?? 0), count))
        var next: ByteArenaBlock?
        if (spare?.capacity ?? 0) >= size, isKnownUniquelyReferenced(&spare) {
            next = spare
        }
        spare = block
        if next == nil {
            next = ByteArenaBlock(capacity: size)
            blocksAllocated += 1
        }
        block = next
        used = 0
    }
}
