import Foundation
import MockAPNsJSON
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

    package func read(_ batch: [JournalEvent]) {
        let wanted = wantedKinds
        let full = pending.withLock { pending in
            for event in batch where event.kind.bit & wanted != 0 { pending.append(event) }
            return pending.count >= Self.highWater
        }
        if full { gate?.close(.fleet) }
    }

    /// Writes the events handed over so far to the spool, one line each:
    /// `seq TAB time TAB type TAB session TAB json` (the JSON the journal's file would hold), so
    /// the shipper reads its columns without parsing the JSON. Returns how many it wrote.
    @discardableResult
    func drain() throws(FleetOutboxError) -> Int {
        let events = pending.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        guard !events.isEmpty else { return 0 }
        var text = ""
        text.reserveCapacity(events.count * 512)
        for event in events {
            text += "\(event.sequence)\t\(event.wallTimeMilliseconds)\t\(event.kind.name)\t\(event.kind.session ?? "")\t"
            var writer = JSONWriter()
            JournalJSON.write(event, into: &writer)
            text += writer.text
            text += "\n"
        }
        var bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeMutableBytes { buffer in
                write(descriptor, buffer.baseAddress.map { $0 + written }, buffer.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw FleetOutboxError(path: path, message: String(cString: strerror(errno)))
            }
            written += result
        }
        bytes.removeAll()
        gate?.open(.fleet)
        return events.count
    }
}

/// The spool could not be opened or written.
package struct FleetOutboxError: Error, Sendable, CustomStringConvertible {
    package let path: String
    package let message: String
    package var description: String { "the fleet's outbox \(path): \(message)" }
}
