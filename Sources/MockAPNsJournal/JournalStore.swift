import MockAPNsCore
import MockAPNsWire
/// The journal's memory: the newest events, oldest first, packed as bytes, within two bounds:
/// a number of events (`capacity`) and a number of bytes (`capacityBytes`). Whichever is
/// reached first pushes the oldest events out, and `dropped` counts how many went that way.
///
/// Events are appended to chunks of bytes (`JournalPacking` says how each kind is laid out),
/// with one eight-byte entry per event saying where it starts; a chunk is freed when its last
/// event is pushed out. So a million notifications cost their bytes, not a million records of
/// strings and arrays, and pushing one out frees nothing until a whole chunk goes. Events are
/// turned back into values (`JournalEvent`) only when read.
///
/// The bytes counted are those the store holds: every chunk's allocation, and an estimate of
/// each event kept as a value (`JournalPacking.estimatedBytes`). Chunks go whole, so the bytes
/// held stay within `capacityBytes`, give or take the open chunk's slack; the entries add eight
/// bytes per event held.
struct JournalStore: Sendable {
    let capacity: Int
    let capacityBytes: Int
    /// Where each event starts: a ring of `entries.count` slots, in sequence order from
    /// `start`, of which the first `count` are held. It grows by doubling up to `capacity`.
    private var entries: [Entry] = []
    /// Index in `entries` of the oldest event held.
    private var start = 0
    /// Events held.
    private(set) var count = 0
    /// The sequence of the oldest event held (meaningful when `count` is not zero): every
    /// event recorded is stored, so sequences rise by one through the ring.
    private var oldestSequence: UInt64 = 0
    private var chunks: [Chunk] = []
    /// The serial number of `chunks[0]`.
    private var firstChunkSerial: UInt32 = 0
    /// The allocations of `chunks`, in bytes.
    private var chunkBytes = 0
    /// Events of the kinds `JournalPacking` keeps as values, by sequence.
    private var values: [UInt64: KeptValue] = [:]
    /// The estimated bytes of `values`.
    private var valueBytes = 0
    /// Their sequences, oldest first from `valueOrderStart`: pushing an event out checks the
    /// first, rather than reading the event's kind from a chunk long out of the cache.
    private var valueOrder: [UInt64] = []
    private var valueOrderStart = 0
    /// The transport of each connection whose `connectionOpened` was recorded, for filtering
    /// events by protocol; forgotten when the connection's `connectionClosed` is pushed out,
    /// so a run of many short connections keeps nothing per past connection.
    private var transports: [UInt64: Transport] = [:]
    /// The `connectionClosed` events held, by sequence and connection, oldest first from
    /// `closeOrderStart`: pushing one out forgets its connection without reading the chunk.
    private var closeOrder: [(sequence: UInt64, connection: UInt64)] = []
    private var closeOrderStart = 0
    private(set) var dropped: UInt64 = 0

    /// A chunk is closed once it holds this many bytes; an event never straddles two chunks.
    static let chunkSize = 256 * 1024
    /// Room reserved beyond `chunkSize`, so the event that closes a chunk rarely makes it grow.
    static let chunkSlack = 16 * 1024
    /// The least `capacityBytes`: a few chunks, so the bound never leaves only the newest event.
    static let minimumCapacityBytes = 1 << 20

    private struct Entry: Sendable {
        var chunk: UInt32
        var offset: UInt32
    }

    private struct Chunk: Sendable {
        /// The packed events, with the table of recently written fields.
        var bytes: JournalChunkBytes
        /// The times of the chunk's first event: its events store differences from these.
        var baseWallTime: Int64
        var baseMonotonic: UInt64
    }

    private struct KeptValue: Sendable {
        var kind: JournalEventKind
        var estimatedBytes: Int
    }

    init(capacity: Int, capacityBytes: Int = .max) {
        self.capacity = max(1, capacity)
        self.capacityBytes = max(Self.minimumCapacityBytes, capacityBytes)
    }

    /// The sequence of the newest event held, or `nil` when empty.
    var newestSequence: UInt64? { count == 0 ? nil : oldestSequence + UInt64(count) - 1 }

    /// The sequence of the oldest event held, or `nil` when empty.
    var firstSequence: UInt64? { count == 0 ? nil : oldestSequence }

    /// The bytes counted against `capacityBytes`: the chunks' allocations and the estimated
    /// size of the events kept as values.
    var bytesCounted: Int { chunkBytes + valueBytes }

    /// Stores an event. `sequence` must be one more than the newest held (any value when empty).
    mutating func append(
        sequence: UInt64, wallTime: Int64, monotonic: UInt64, connection: UInt64?, stream: Int32?,
        kind: JournalEventKind
    ) {
        if count == 0 { oldestSequence = sequence }
        if count == capacity { removeOldest() }
        if let connection {
            switch kind {
            case .connectionOpened(let transport, _): transports[connection] = transport
            case .connectionClosed: closeOrder.append((sequence, connection))
            case .tlsEstablished, .tlsFailed, .http2Frame, .legacyFrame, .notification, .fault, .feedbackTuple, .diagnosis,
                 .broadcast, .channelOperation, .verdict, .delivery:
                break
            }
        }

        if chunks.isEmpty || chunks[chunks.count - 1].bytes.count >= Self.chunkSize {
            openChunk(wallTime: wallTime, monotonic: monotonic)
        }
        let last = chunks.count - 1
        // A copy of the store (a reader's snapshot) may share the open chunk's bytes: written
        // to, they are this store's own first.
        if !isKnownUniquelyReferenced(&chunks[last].bytes) { chunks[last].bytes = chunks[last].bytes.copy() }
        let chunk = chunks[last]
        let serial = firstChunkSerial &+ UInt32(truncatingIfNeeded: last)
        let offset = UInt32(truncatingIfNeeded: chunk.bytes.count)
        let allocated = chunk.bytes.capacity
        var writer = JournalByteWriter(bytes: chunk.bytes)

        let name = kind.type
        writer.byte(name.rawValue)
        writer.byte((connection == nil ? 0 : 1) | (stream == nil ? 0 : 2))
        writer.signed(wallTime &- chunk.baseWallTime)
        writer.signed(Int64(bitPattern: monotonic &- chunk.baseMonotonic))
        if let connection { writer.varint(connection) }
        if let stream { writer.signed(Int64(stream)) }
        if JournalPacking.isKeptAsValue(name) {
            let estimate = JournalPacking.estimatedBytes(of: kind)
            values[sequence] = KeptValue(kind: kind, estimatedBytes: estimate)
            valueBytes += estimate
            valueOrder.append(sequence)
        } else {
            JournalPacking.pack(kind, header: JournalPacking.EventHeader(wallTime: wallTime, connection: connection, stream: stream), into: &writer)
        }

        chunkBytes += chunk.bytes.capacity - allocated
        pushEntry(Entry(chunk: serial, offset: offset))
        // The byte bound: the oldest go until the rest fits (a whole chunk at a time, as
        // chunks are freed whole), always keeping the newest event.
        while count > 1, bytesCounted > capacityBytes { removeOldest() }
    }

    private mutating func pushEntry(_ entry: Entry) {
        if count == entries.count {
            // Grow by doubling (up to `capacity`), the held entries moved to the front.
            let slots = min(capacity, max(1024, entries.count * 2))
            var grown: [Entry] = []
            grown.reserveCapacity(slots)
            for position in 0..<count { grown.append(entries[(start + position) % entries.count]) }
            grown.append(contentsOf: repeatElement(Entry(chunk: 0, offset: 0), count: slots - count))
            entries = grown
            start = 0
        }
        entries[(start + count) % entries.count] = entry
        count += 1
    }

    private mutating func openChunk(wallTime: Int64, monotonic: UInt64) {
        let bytes = JournalChunkBytes(capacity: Self.chunkSize + Self.chunkSlack)
        chunkBytes += bytes.capacity
        chunks.append(Chunk(bytes: bytes, baseWallTime: wallTime, baseMonotonic: monotonic))
    }

    /// Pushes the oldest event out, and frees the chunks no event points into any more.
    private mutating func removeOldest() {
        guard count > 0 else { return }
        if valueOrderStart < valueOrder.count, valueOrder[valueOrderStart] == oldestSequence {
            if let kept = values.removeValue(forKey: oldestSequence) { valueBytes -= kept.estimatedBytes }
            valueOrderStart += 1
            if valueOrderStart >= 1024, valueOrderStart * 2 >= valueOrder.count {
                valueOrder.removeFirst(valueOrderStart)
                valueOrderStart = 0
            }
        }
        if closeOrderStart < closeOrder.count, closeOrder[closeOrderStart].sequence == oldestSequence {
            transports[closeOrder[closeOrderStart].connection] = nil
            closeOrderStart += 1
            if closeOrderStart >= 1024, closeOrderStart * 2 >= closeOrder.count {
                closeOrder.removeFirst(closeOrderStart)
                closeOrderStart = 0
            }
        }
        start = (start + 1) % entries.count
        count -= 1
        oldestSequence += 1
        dropped += 1
        // Every chunk before the one the next oldest event is in is freed; with no event
        // left, every chunk but the open one.
        let freed = count > 0 ? Int(entries[start].chunk &- firstChunkSerial) : chunks.count - 1
        if freed > 0, freed <= chunks.count {
            for chunk in chunks[..<freed] { chunkBytes -= chunk.bytes.capacity }
            chunks.removeFirst(freed)
            firstChunkSerial = firstChunkSerial &+ UInt32(truncatingIfNeeded: freed)
        }
    }

    /// The transport of a connection whose opening is remembered.
    func transport(ofConnection id: UInt64) -> Transport? { transports[id] }

    /// Connections whose transport is remembered.
    var transportsHeld: Int { transports.count }

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
            let header = JournalPacking.EventHeader(wallTime: wallTime, connection: connection, stream: stream)
            let kind = JournalPacking.isKeptAsValue(name) ? values[sequence]?.kind : JournalPacking.unpack(name, header: header, from: &reader)
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
        guard count > 0, sequence >= oldestSequence else { return 0 }
        return Int(min(sequence - oldestSequence, UInt64(count) - 1) + 1)
    }

    /// Calls `body` on each event from the oldest whose sequence is above `after`, until it
    /// returns `false`.
    func forEach(after: UInt64, _ body: (JournalEvent) -> Bool) {
        var position = position(after: after)
        while position < count {
            guard body(event(at: position)) else { return }
            position += 1
        }
    }

    /// The bytes the packed events take (the values beside them not counted).
    var bytesHeld: Int { chunks.reduce(0) { $0 + $1.bytes.count } }

    /// Events held as values rather than packed.
    var valuesHeld: Int { values.count }

    /// The oldest event kept.
    var first: JournalEvent? { count == 0 ? nil : event(at: 0) }

    /// Forgets every event. The transports of connections still open stay: events still to
    /// come on them are filtered by them.
    mutating func removeAll() {
        for closed in closeOrder[closeOrderStart...] { transports[closed.connection] = nil }
        closeOrder.removeAll()
        closeOrderStart = 0
        entries.removeAll()
        count = 0
        chunks.removeAll()
        chunkBytes = 0
        values.removeAll()
        valueBytes = 0
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
