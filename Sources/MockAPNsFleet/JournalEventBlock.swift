import MockAPNsJSON
import MockAPNsJournal

/// Events packed as the journal packs them (`JournalPacking`), in one block that holds all it
/// needs to be read back anywhere: what a fleet replica ships to PostgreSQL. Packing costs what
/// the journal's own store pays; JSON would cost several times more per event.
///
/// A block is: a version byte; its first event's sequence, wall time and monotonic time; then
/// each event: its kind, a flags byte (bit 0: a connection follows, bit 1: a stream follows),
/// its sequence, wall and monotonic times as differences from the block's first, the
/// connection and stream, then the kind's packed fields, or for the kinds the journal keeps as
/// values (handshakes, broadcasts, channel operations, verdicts) the kind's JSON. Fields
/// repeated within a block (a token, a payload, a header list) are written once and referred to.
package enum JournalEventBlock {
    static let version: UInt8 = 1

    /// `events` as one block.
    package static func pack(_ events: [JournalEvent]) -> [UInt8] {
        let bytes = JournalChunkBytes(capacity: max(256, events.count * 96))
        var writer = JournalByteWriter(bytes: bytes)
        let first = events.first
        let baseSequence = first?.sequence ?? 0
        let baseWall = first?.wallTimeMilliseconds ?? 0
        let baseMonotonic = first?.monotonicNanoseconds ?? 0
        writer.byte(version)
        writer.varint(baseSequence)
        writer.signed(baseWall)
        writer.varint(baseMonotonic)
        for event in events {
            let name = event.kind.type
            writer.byte(name.rawValue)
            writer.byte((event.connectionID == nil ? 0 : 1) | (event.streamID == nil ? 0 : 2))
            writer.varint(event.sequence &- baseSequence)
            writer.signed(event.wallTimeMilliseconds &- baseWall)
            writer.signed(Int64(bitPattern: event.monotonicNanoseconds &- baseMonotonic))
            if let connection = event.connectionID { writer.varint(connection) }
            if let stream = event.streamID { writer.signed(Int64(stream)) }
            if JournalPacking.isKeptAsValue(name) {
                // The kind alone: the event's place is in the block's own fields above.
                var json = JSONWriter()
                JournalJSON.write(
                    JournalEvent(sequence: 0, wallTimeMilliseconds: 0, monotonicNanoseconds: 0, connectionID: nil, streamID: nil, kind: event.kind),
                    into: &json
                )
                writer.string(json.text)
            } else {
                let header = JournalPacking.EventHeader(
                    wallTime: event.wallTimeMilliseconds, connection: event.connectionID, stream: event.streamID
                )
                JournalPacking.pack(event.kind, header: header, into: &writer)
            }
        }
        return bytes.withUnsafeBytes { Array($0) }
    }

    /// The events of a block, in order; `nil` when the bytes are not a block this version
    /// reads (never a trap: a damaged block is refused whole).
    package static func unpack(_ block: [UInt8]) -> [JournalEvent]? {
        block.withUnsafeBytes { bytes -> [JournalEvent]? in
            var reader = JournalByteReader(bytes, at: 0)
            guard reader.byte() == version else { return nil }
            let baseSequence = reader.varint()
            let baseWall = reader.signed()
            let baseMonotonic = reader.varint()
            var events: [JournalEvent] = []
            while reader.position < bytes.count {
                guard let name = JournalEventKind.Name(rawValue: reader.byte()) else { return nil }
                let flags = reader.byte()
                let sequence = baseSequence &+ reader.varint()
                let wallTime = baseWall &+ reader.signed()
                let monotonic = baseMonotonic &+ UInt64(bitPattern: reader.signed())
                let connection = flags & 1 != 0 ? reader.varint() : nil
                let stream = flags & 2 != 0 ? Int32(truncatingIfNeeded: reader.signed()) : nil
                let kind: JournalEventKind?
                if JournalPacking.isKeptAsValue(name) {
                    kind = (try? JournalJSON.decode(reader.text()))?.kind
                } else {
                    let header = JournalPacking.EventHeader(wallTime: wallTime, connection: connection, stream: stream)
                    kind = JournalPacking.unpack(name, header: header, from: &reader)
                }
                guard let kind, !reader.failed else { return nil }
                events.append(JournalEvent(
                    sequence: sequence, wallTimeMilliseconds: wallTime, monotonicNanoseconds: monotonic,
                    connectionID: connection, streamID: stream, kind: kind
                ))
            }
            return events
        }
    }
}
