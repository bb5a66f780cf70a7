import Foundation
import MockAPNsJournal
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The journal's records on their way to PostgreSQL: a reader of the journal that keeps every
/// event but the per-frame ones (what the fleet's reads and its verdicts use), and the spool
/// file it writes them to, which `FleetRecordShipper` ships from.
///
/// The journal hands events over on its recording thread, which only appends them here. The
/// store's writer task turns them into the spool's lines (`drain`), off the event loops. The
/// spool is the outbox that outlives an absent PostgreSQL: what it holds is shipped when
/// PostgreSQL returns, however long it was away. Its backlog in memory is bounded: past
/// `highWater` events the outbox closes the server's read gate, as the JSONL file does, so
/// the server reads more slowly rather than losing a record.
package final class FleetRecordOutbox: JournalReader {
    /// Every kind but the per-frame ones.
    package let wantedKinds: UInt32 = JournalEventKind.Name.allCases
        .filter { !$0.isPerFrame }
        .reduce(0) { $0 | $1.bit }
    /// The events waiting to be written before the read gate closes.
    package static let highWater = 65_536

    package let path: String
    private let pending = Mutex<[JournalEvent]>([])
    private let gate: JournalReadGate?
    private let descriptor: Int32

    /// An outbox writing to a new spool file at `path`.
    package init(path: String, gate: JournalReadGate?) throws(FleetOutboxError) {
        self.path = path
        self.gate = gate
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FleetOutboxError(path: path, message: String(cString: strerror(errno))) }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The events handed over and not yet written to the spool.
    package var pendingCount: Int { pending.withLock { $0.count } }

    package func read(_ batch: [JournalEvent]) {
        let wanted = wantedKinds
        let full = pending.withLock { pending in
            for event in batch where event.kind.bit & wanted != 0 { pending.append(event) }
            return pending.count >= Self.highWater
        }
        if full { gate?.close(.fleet) }
    }

    /// Writes the events handed over so far to the spool as one record: a 48-byte head
    /// (`FleetSpoolHead`: the length of the block, its events, its first and last sequence, its
    /// earliest and latest time) and the events packed in one block (`JournalEventBlock`). Returns how
    /// many events it wrote.
    @discardableResult
    func drain() throws(FleetOutboxError) -> Int {
        let events = pending.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        guard let first = events.first, let last = events.last else { return 0 }
        let block = JournalEventBlock.pack(events)
        var times = (earliest: first.wallTimeMilliseconds, latest: first.wallTimeMilliseconds)
        for event in events {
            times.earliest = min(times.earliest, event.wallTimeMilliseconds)
            times.latest = max(times.latest, event.wallTimeMilliseconds)
        }
        let head = FleetSpoolHead(
            length: UInt64(block.count), events: UInt64(events.count), firstSequence: first.sequence, lastSequence: last.sequence,
            earliest: times.earliest, latest: times.latest
        )
        var bytes = head.bytes
        bytes.append(contentsOf: block)
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress.map { $0 + written }, buffer.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw FleetOutboxError(path: path, message: String(cString: strerror(errno)))
            }
            written += result
        }
        gate?.open(.fleet)
        return events.count
    }
}

/// The head of a record in the spool: six little-endian 64-bit numbers.
struct FleetSpoolHead: Equatable {
    static let size = 48
    var length: UInt64
    var events: UInt64
    var firstSequence: UInt64
    var lastSequence: UInt64
    var earliest: Int64
    var latest: Int64

    var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.size)
        for value in [length, events, firstSequence, lastSequence, UInt64(bitPattern: earliest), UInt64(bitPattern: latest)] {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        return bytes
    }

    /// The head at the start of `bytes`, when they hold one.
    init?(_ bytes: ArraySlice<UInt8>) {
        guard bytes.count >= Self.size else { return nil }
        var values: [UInt64] = []
        var index = bytes.startIndex
        for _ in 0..<6 {
            var value: UInt64 = 0
            for shift in 0..<8 { value |= UInt64(bytes[index + shift]) << (8 * UInt64(shift)) }
            values.append(value)
            index += 8
        }
        self.init(
            length: values[0], events: values[1], firstSequence: values[2], lastSequence: values[3],
            earliest: Int64(bitPattern: values[4]), latest: Int64(bitPattern: values[5])
        )
    }

    init(length: UInt64, events: UInt64, firstSequence: UInt64, lastSequence: UInt64, earliest: Int64, latest: Int64) {
        self.length = length
        self.events = events
        self.firstSequence = firstSequence
        self.lastSequence = lastSequence
        self.earliest = earliest
        self.latest = latest
    }
}

/// The spool could not be opened or written.
package struct FleetOutboxError: Error, Sendable, CustomStringConvertible {
    package let path: String
    package let message: String
    package var description: String { "the fleet's outbox \(path): \(message)" }
}
