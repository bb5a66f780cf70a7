import MockAPNsCore
import MockAPNsWire
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The byte format of a packed journal chunk: variable-length integers, and strings that are
/// written once per chunk and referred to afterwards.
///
/// A string (or byte string) field starts with a tag, a variable-length integer:
/// - `0`: absent (`nil`);
/// - odd: the bytes follow inline, `(tag - 1) / 2` of them;
/// - even: the same bytes as the inline field that starts at chunk offset `tag / 2`.
///
/// A load test sends the same topic, key id, payload and device token again and again; a
/// reference costs two or three bytes where the bytes themselves cost hundreds. References
/// never leave their chunk, and a chunk is freed only with its last event, so they always
/// resolve.
enum JournalBytes {
    /// Fields shorter than this are always written inline: a reference (two or three bytes)
    /// would save nothing. From four bytes on it does: the pseudo-header names, `POST`,
    /// `https`, `alert` and `apns-id` of every request and answer are such fields.
    static let shortestShared = 4
    /// Slots in a chunk's table of recently written fields: 128, enough for the few dozen
    /// distinct fields a load repeats, so they seldom push each other out.
    static let recentSlots = 1 << recentSlotBits
    /// The bits of a slot number.
    static let recentSlotBits = 7

    /// How an identifier field is kept (`JournalByteWriter.identifier`).
    enum IdentifierForm: UInt8 {
        case absent = 0
        /// A string field follows.
        case text = 1
        /// A 16-byte field follows: the UUID's bits, big-endian; its text is lowercase.
        case lowercaseUUID = 2
        /// The same, written back in uppercase.
        case uppercaseUUID = 3
    }
}

/// A chunk's bytes: one block of memory that the writer appends to and readers read in place,
/// with the chunk's table of recently written fields beside it.
///
/// A class with unchecked fields rather than an array: an event appends dozens of bytes and
/// updates a few table slots, and an array checks that its buffer is not shared before each
/// of those writes (a call into the runtime), where this checks only that room is left. The
/// store checks sharing once per event instead (`JournalStore.append`, `copy()`). A chunk is
/// opened with room for all it will hold, so growing (by a new block, the bytes copied) is
/// rare: an event larger than the slack.
package final class JournalChunkBytes: @unchecked Sendable {
    // Touched only under the journal's lock, by one thread at a time: no run-time
    // exclusivity check on each byte.
    @exclusivity(unchecked) private(set) var base: UnsafeMutableRawPointer
    @exclusivity(unchecked) private(set) var count = 0
    @exclusivity(unchecked) private(set) var capacity: Int
    /// Offsets of recently written inline fields, by hash slot (0: empty).
    let recent: UnsafeMutablePointer<UInt32>
    /// The last header list written whole in this chunk, held so that its storage stays its
    /// own, and where it was written: a record carrying that same list (a connection's
    /// repeated request, `RecordedHeaders`) names it rather than writing its fields again.
    @exclusivity(unchecked) var lastHeaderList: (list: [HTTPHeader], offset: Int)?

    package init(capacity: Int) {
        self.capacity = max(1, capacity)
        base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 8)
        recent = UnsafeMutablePointer<UInt32>.allocate(capacity: JournalBytes.recentSlots)
        recent.initialize(repeating: 0, count: JournalBytes.recentSlots)
    }

    deinit {
        base.deallocate()
        recent.deinitialize(count: JournalBytes.recentSlots)
        recent.deallocate()
    }

    /// A copy with the same bytes, table and capacity.
    func copy() -> JournalChunkBytes {
        let copy = JournalChunkBytes(capacity: capacity)
        copy.base.copyMemory(from: base, byteCount: count)
        copy.count = count
        copy.recent.update(from: recent, count: JournalBytes.recentSlots)
        copy.lastHeaderList = lastHeaderList
        return copy
    }

    @inline(__always)
    func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: 1) }
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    func append(contentsOf bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        if capacity - count < bytes.count { grow(toHold: bytes.count) }
        (base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// The byte at `offset`, which must be below `count`.
    subscript(offset: Int) -> UInt8 {
        base.load(fromByteOffset: offset, as: UInt8.self)
    }

    package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Room for `more` bytes after `count`: at least double the capacity, the bytes copied over.
    private func grow(toHold more: Int) {
        let needed = count.addingReportingOverflow(more)
        precondition(!needed.overflow, "a journal chunk cannot hold more than Int.max bytes")
        let grown = max(needed.partialValue, capacity.multipliedReportingOverflow(by: 2).overflow ? needed.partialValue : capacity * 2)
        let block = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 8)
        block.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = block
        capacity = grown
    }
}

/// Appends one event's fields to the open chunk.
package struct JournalByteWriter {
    /// The chunk's bytes so far, with its table of recent fields; fields are appended here.
    let bytes: JournalChunkBytes

    package init(bytes: JournalChunkBytes) {
        self.bytes = bytes
    }

    package mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    /// Where the next byte goes, from the chunk's start.
    var offset: Int { bytes.count }

    mutating func bool(_ value: Bool) {
        bytes.append(value ? 1 : 0)
    }

    package mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: rest))
    }

    /// A signed number, zigzag-encoded so small negative numbers stay short.
    package mutating func signed(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    mutating func int(_ value: Int) {
        signed(Int64(value))
    }

    mutating func optionalInt(_ value: Int?) {
        guard let value else { return byte(0) }
        byte(1)
        signed(Int64(value))
    }

    mutating func optionalInt64(_ value: Int64?) {
        guard let value else { return byte(0) }
        byte(1)
        signed(value)
    }

    package mutating func string(_ value: String?) {
        guard var value else { return varint(0) }
        value.withUTF8 { field(UnsafeRawBufferPointer($0)) }
    }

    mutating func data(_ value: [UInt8]?) {
        guard let value else { return varint(0) }
        value.withUnsafeBytes { field($0) }
    }

    /// A string or byte string field (the same layout) from bytes in place: a compact
    /// record's token digits or payload.
    mutating func text(_ bytes: UnsafeRawBufferPointer) {
        field(bytes)
    }

    /// An identifier (`apns-id`, `apns-unique-id`): a form byte (`JournalBytes.IdentifierForm`),
    /// then a canonical UUID with letters of one case as its 16 bytes, or anything else as a
    /// string. Every id the server makes, and every id Apple sends, is such a UUID: 17 bytes
    /// where the text takes 37, and two of them come with every answer.
    mutating func identifier(_ value: String?) {
        guard let value else { return byte(JournalBytes.IdentifierForm.absent.rawValue) }
        guard let bits = UUIDBits(value) else {
            byte(JournalBytes.IdentifierForm.text.rawValue)
            return string(value)
        }
        identifier(bits)
    }

    /// An answer's id: a made one from its bits as they are, one given as text as `identifier`
    /// of that text writes it.
    mutating func identifier(_ value: MessageID?) {
        switch value {
        case .uuid(let bits)?: identifier(bits)
        case .text(let text)?: identifier(text)
        case nil: byte(JournalBytes.IdentifierForm.absent.rawValue)
        }
    }

    private mutating func identifier(_ bits: UUIDBits) {
        byte((bits.uppercase ? JournalBytes.IdentifierForm.uppercaseUUID : .lowercaseUUID).rawValue)
        withUnsafeBytes(of: (bits.high.bigEndian, bits.low.bigEndian)) { field($0) }
    }

    /// Writes `field` as a reference when the chunk already holds the same bytes in a recent
    /// field, inline otherwise.
    private mutating func field(_ field: UnsafeRawBufferPointer) {
        let count = field.count
        guard count >= JournalBytes.shortestShared, bytes.count < Int(UInt32.max) else {
            varint(UInt64(count) << 1 | 1)
            bytes.append(contentsOf: field)
            return
        }
        let recent = bytes.recent
        // Two slots per field, so two fields that share one slot do not take turns pushing
        // each other out; a new field replaces the older of its two.
        let (first, second) = Self.slots(of: field)
        if let earlier = earlierCopy(of: field, in: first) ?? earlierCopy(of: field, in: second) {
            varint(UInt64(earlier) << 1)
            return
        }
        recent[recent[first] <= recent[second] ? first : second] = UInt32(bytes.count)
        varint(UInt64(count) << 1 | 1)
        bytes.append(contentsOf: field)
    }

    /// The offset of the inline field remembered in `slot`, when it holds `field`'s bytes.
    private func earlierCopy(of field: UnsafeRawBufferPointer, in slot: Int) -> Int? {
        let earlier = Int(bytes.recent[slot])
        return earlier != 0 && matches(field, at: earlier) ? earlier : nil
    }

    /// Whether the inline field at `offset` holds exactly `field`'s bytes.
    private func matches(_ field: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        bytes.withUnsafeBytes { chunk in
            var reader = JournalByteReader(chunk, at: offset)
            let tag = reader.varint()
            guard !reader.failed, tag & 1 == 1, (tag >> 1) == UInt64(field.count) else { return false }
            let start = reader.position
            guard start + field.count <= chunk.count, let mine = field.baseAddress, let theirs = chunk.baseAddress else {
                return false
            }
            return memcmp(mine, theirs + start, field.count) == 0
        }
    }

    /// Two slots from a cheap hash of the length and the first and last eight bytes (four, for
    /// a field shorter than eight): enough to tell the few distinct fields of a load apart; a
    /// collision only costs an inline copy. `field` has at least `shortestShared` bytes.
    private static func slots(of field: UnsafeRawBufferPointer) -> (Int, Int) {
        let head: UInt64
        let tail: UInt64
        if field.count >= 8 {
            head = field.loadUnaligned(as: UInt64.self)
            tail = field.loadUnaligned(fromByteOffset: field.count - 8, as: UInt64.self)
        } else {
            head = UInt64(field.loadUnaligned(as: UInt32.self))
            tail = UInt64(field.loadUnaligned(fromByteOffset: field.count - 4, as: UInt32.self))
        }
        var hash = (head ^ (tail &* 0x9E37_79B9_7F4A_7C15)) &+ UInt64(field.count)
        hash = (hash ^ (hash >> 29)) &* 0xBF58_476D_1CE4_E5B9
        let mask = UInt64(JournalBytes.recentSlots - 1)
        let bits = UInt64(JournalBytes.recentSlotBits)
        return (Int(truncatingIfNeeded: (hash >> (64 - bits)) & mask), Int(truncatingIfNeeded: (hash >> (64 - 2 * bits)) & mask))
    }
}

/// Reads fields back from a chunk. Running past the end or meeting a malformed field sets
/// `failed` and yields zeros and empty values, never a trap.
package struct JournalByteReader {
    let chunk: UnsafeRawBufferPointer
    package private(set) var position: Int
    package private(set) var failed = false

    package init(_ chunk: UnsafeRawBufferPointer, at position: Int) {
        self.chunk = chunk
        self.position = position
    }

    package mutating func byte() -> UInt8 {
        guard position < chunk.count else {
            failed = true
            return 0
        }
        defer { position += 1 }
        return chunk[position]
    }

    mutating func bool() -> Bool {
        byte() != 0
    }

    package mutating func varint() -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while shift < 64 {
            let next = byte()
            value |= UInt64(next & 0x7F) << shift
            if next & 0x80 == 0 { return value }
            shift += 7
        }
        failed = true
        return 0
    }

    package mutating func signed() -> Int64 {
        let raw = varint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    mutating func int() -> Int {
        Int(truncatingIfNeeded: signed())
    }

    mutating func optionalInt() -> Int? {
        byte() == 0 ? nil : int()
    }

    mutating func optionalInt64() -> Int64? {
        byte() == 0 ? nil : signed()
    }

    mutating func string() -> String? {
        field { String(decoding: $0, as: UTF8.self) }
    }

    /// A string that is never absent (an absent one reads as empty).
    package mutating func text() -> String {
        string() ?? ""
    }

    mutating func data() -> [UInt8]? {
        field { Array($0) }
    }

    /// An identifier as `JournalByteWriter.identifier` wrote it, its text exactly as it was.
    mutating func identifier() -> String? {
        messageID()?.text
    }

    /// An id written by `identifier(_:)`: a UUID as its bits (its text made only if read),
    /// text as text.
    mutating func messageID() -> MessageID? {
        let uppercase: Bool
        switch JournalBytes.IdentifierForm(rawValue: byte()) {
        case .absent?:
            return nil
        case .text?:
            return string().map(MessageID.text)
        case .lowercaseUUID?:
            uppercase = false
        case .uppercaseUUID?:
            uppercase = true
        case nil:
            failed = true
            return nil
        }
        // A UUID's field holds exactly 16 bytes; anything else is a damaged chunk.
        let bits: UUIDBits?? = field { raw in
            guard raw.count == 16 else { return nil }
            let high = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
            let low = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            return UUIDBits(high: high, low: low, uppercase: uppercase)
        }
        guard let bits, let bits else {
            failed = true
            return nil
        }
        return .uuid(bits)
    }

    private mutating func field<Value>(_ make: (UnsafeRawBufferPointer) -> Value) -> Value? {
        let tag = varint()
        if tag == 0 { return nil }
        if tag & 1 == 1 {
            return inline(length: tag >> 1, make)
        }
        // A reference: the inline field it names lies earlier in the chunk.
        let target = tag >> 1
        guard target < UInt64(position) else {
            failed = true
            return nil
        }
        var earlier = JournalByteReader(chunk, at: Int(target))
        let earlierTag = earlier.varint()
        guard earlierTag & 1 == 1 else {
            failed = true
            return nil
        }
        let value = earlier.inline(length: earlierTag >> 1, make)
        if earlier.failed { failed = true }
        return value
    }

    private mutating func inline<Value>(length: UInt64, _ make: (UnsafeRawBufferPointer) -> Value) -> Value? {
        guard length <= UInt64(chunk.count - position) else {
            failed = true
            return nil
        }
        let count = Int(length)
        defer { position += count }
        return make(UnsafeRawBufferPointer(rebasing: chunk[position..<(position + count)]))
    }
}
