import MockAPNsCore
import MockAPNsWire
/// The journal's memory: a fixed number of events, oldest first, packed as bytes. When full,
/// each new event pushes the oldest out, and `dropped` counts how many went that way.
///
/// Events are appended to chunks of bytes (`JournalPacking` says how each kind is laid out),
/// with one eight-byte entry per event saying where it starts; a chunk is freed when its last
/// event is pushed out. So a million notifications cost their bytes, not a million records of
/// strings and arrays, and pushing one out frees nothing until a whole chunk goes. Events are
/// turned back into values (`JournalEvent`) only when read.
struct JournalStore: Sendable {
    let capacity: Int
    /// Where each event starts, a ring in sequence order once full.
    private var entries: [Entry] = []
    /// Index in `entries` of the oldest event once the ring is full.
    private var start = 0
    /// The sequence of the oldest event held (meaningful when `entries` is not empty): every
    /// event recorded is stored, so sequences rise by one through the ring.
    private var oldestSequence: UInt64 = 0
    private var chunks: [Chunk] = []
    /// The serial number of `chunks[0]`.
    private var firstChunkSerial: UInt32 = 0
    /// Events of the kinds `JournalPacking` keeps as values, by sequence.
    private var values: [UInt64: JournalEventKind] = [:]
    /// Their sequences, oldest first from `valueOrderStart`: pushing an event out checks the
    /// first, rather than reading the event's kind from a chunk long out of the cache.
    private var valueOrder: [UInt64] = []
    private var valueOrderStart = 0
    private(set) var dropped: UInt64 = 0

    /// A chunk is closed once it holds this many bytes; an event never straddles two chunks.
    static let chunkSize = 256 * 1024
    /// Room reserved beyond `chunkSize`, so the event that closes a chunk rarely makes it grow.
    static let chunkSlack = 16 * 1024

    private struct Entry: Sendable {
        var chunk: UInt32
        var offset: UInt32
    }

    private struct Chunk: Sendable {
        var bytes: [UInt8]
        /// Offsets of recently written inline fields (`JournalByteWriter.recent`).
        var recent: [UInt32]
        /// The times of the chunk's first event: its events store differences from these.
        var baseWallTime: Int64
        var baseMonotonic: UInt64
    }

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        entries.reserveCapacity(min(self.capacity, 1 << 20))
    }

    var count: Int { entries.count }

    /// The sequence of the newest event held, or `nil` when empty.
    var newestSequence: UInt64? { entries.isEmpty ? nil : oldestSequence + UInt64(entries.count) - 1 }

    /// The sequence of the oldest event held, or `nil` when empty.
    var firstSequence: UInt64? { entries.isEmpty ? nil : oldestSequence }

    /// Stores an event. `sequence` must be one more than the newest held (any value when empty).
    mutating func append(
        sequence: UInt64, wallTime: Int64, monotonic: UInt64, connection: UInt64?, stream: Int32?,
        kind: JournalEventKind
    ) {
        if entries.isEmpty { oldestSequence = sequence }
        if entries.count == capacity { removeOldest() }

        if chunks.isEmpty || chunks[chunks.count - 1].bytes.count >= Self.chunkSize {
            openChunk(wallTime: wallTime, monotonic: monotonic)
        }
        guard var chunk = chunks.popLast() else { return }
        let serial = firstChunkSerial &+ UInt32(truncatingIfNeeded: chunks.count)
        let offset = UInt32(truncatingIfNeeded: chunk.bytes.count)
        var writer = JournalByteWriter(bytes: chunk.bytes, recent: chunk.recent)
        chunk.bytes = []
        chunk.recent = []

        let name = kind.type
        writer.byte(name.rawValue)
        writer.byte((connection == nil ? 0 : 1) | (stream == nil ? 0 : 2))
        writer.signed(wallTime &- chunk.baseWallTime)
        writer.signed(Int64(bitPattern: monotonic &- chunk.baseMonotonic))
        if let connection { writer.varint(connection) }
        if let stream { writer.signed(Int64(stream)) }
        if JournalPacking.isKeptAsValue(name) {
            values[sequence] = kind
            valueOrder.append(sequence)
        } else {
            JournalPacking.pack(kind, into: &writer)
        }

        chunk.bytes = writer.bytes
        chunk.recent = writer.recent
        chunks.append(chunk)
        let entry = Entry(chunk: serial, offset: offset)
        if entries.count < capacity {
            entries.append(entry)
        } else {
            // `removeOldest` advanced `start` past the slot this entry now takes.
            let slot = start == 0 ? capacity - 1 : start - 1
            entries[slot] = entry
        }
    }

    private mutating func openChunk(wallTime: Int64, monotonic: UInt64) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.chunkSize + Self.chunkSlack)
        chunks.append(Chunk(
            bytes: bytes, recent: Array(repeating: 0, count: JournalBytes.recentSlots),
            baseWallTime: wallTime, baseMonotonic: monotonic
        ))
    }

    /// Pushes the oldest event out, and frees the chunks no event points into any more.
    private mutating func removeOldest() {
        guard !entries.isEmpty else { return }
        if valueOrderStart < valueOrder.count, valueOrder[valueOrderStart] == oldestSequence {
            values[oldestSequence] = nil
            valueOrderStart += 1
            if valueOrderStart >= 1024, valueOrderStart * 2 >= valueOrder.count {
                valueOrder.removeFirst(valueOrderStart)
                valueOrderStart = 0
            }
        }
        start = (start + 1) % capacity
        oldestSequence += 1
        dropped += 1
        let next = entries[start]
        let freed = Int(next.chunk &- firstChunkSerial)
        if freed > 0, freed <= chunks.count {
            chunks.removeFirst(freed)
            firstChunkSerial = next.chunk
        }
    }

    // MARK: Reading

    /// The event at `position` (0: the oldest held).
    func event(at position: Int) -> JournalEvent {
        let entry = entries[(start + position) % entries.count]
        let sequence = oldestSequence + UInt64(position)
        guard let index = chunkIndex(of: entry) else { return Self.unreadable(sequence) }
        let chunk = chunks[index]
        return chunk.bytes.withUnsafeBytes { bytes in
            var reader = JournalByteReader(bytes, at: Int(entry.offset))
            guard let name = JournalEventKind.Name(rawValue: reader.byte()) else { return Self.unreadable(sequence) }
            let flags = reader.byte()
            let wallTime = chunk.baseWallTime &+ reader.signed()
            let monotonic = chunk.baseMonotonic &+ UInt64(bitPattern: reader.signed())
            let connection = flags & 1 != 0 ? reader.varint() : nil
            let stream = flags & 2 != 0 ? Int32(truncatingIfNeeded: reader.signed()) : nil
            let kind = JournalPacking.isKeptAsValue(name) ? values[sequence] : JournalPacking.unpack(name, from: &reader)
            guard let kind, !reader.failed else { return Self.unreadable(sequence) }
            return JournalEvent(
                sequence: sequence, wallTimeMilliseconds: wallTime, monotonicNanoseconds: monotonic,
                connectionID: connection, streamID: stream, kind: kind
            )
        }
    }

    /// The kind of the event at `position`, read without unpacking the event.
    func kindName(at position: Int) -> JournalEventKind.Name? {
        let entry = entries[(start + position) % entries.count]
        guard let index = chunkIndex(of: entry) else { return nil }
        return kindName(inChunk: index, at: entry.offset)
    }

    /// The position of the first event whose sequence is above `sequence`.
    func position(after sequence: UInt64) -> Int {
        guard !entries.isEmpty, sequence >= oldestSequence else { return 0 }
        return Int(min(sequence - oldestSequence, UInt64(entries.count) - 1) + 1)
    }

    /// Calls `body` on each event from the oldest whose sequence is above `after`, until it
    /// returns `false`.
    func forEach(after: UInt64, _ body: (JournalEvent) -> Bool) {
        var position = position(after: after)
        while position < entries.count {
            guard body(event(at: position)) else { return }
            position += 1
        }
    }

    /// The bytes the packed events take (the values beside them not counted).
    var bytesHeld: Int { chunks.reduce(0) { $0 + $1.bytes.count } }

    /// Events held as values rather than packed.
    var valuesHeld: Int { values.count }

    /// The oldest event kept.
    var first: JournalEvent? { entries.isEmpty ? nil : event(at: 0) }

    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        chunks.removeAll()
        values.removeAll()
        valueOrder.removeAll()
        valueOrderStart = 0
        start = 0
        dropped = 0
        firstChunkSerial = 0
    }

    // MARK: Chunks

    private func chunkIndex(of entry: Entry) -> Int? {
        let index = Int(entry.chunk &- firstChunkSerial)
        return index < chunks.count ? index : nil
    }

    private func kindName(inChunk index: Int, at offset: UInt32) -> JournalEventKind.Name? {
        let offset = Int(offset)
        guard offset < chunks[index].bytes.count else { return nil }
        return JournalEventKind.Name(rawValue: chunks[index].bytes[offset])
    }

    /// What a reader gets if an event's bytes cannot be read back, which would be a bug here:
    /// the event is reported rather than skipped.
    private static func unreadable(_ sequence: UInt64) -> JournalEvent {
        JournalEvent(
            sequence: sequence, wallTimeMilliseconds: 0, monotonicNanoseconds: 0, connectionID: nil, streamID: nil,
            kind: .fault(description: "journal event \(sequence) could not be read back")
        )
    }
}
