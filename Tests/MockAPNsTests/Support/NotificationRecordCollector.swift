import MockAPNsJournal
import Synchronization

/// Keeps the notification records of the batches the journal hands its readers, and tells
/// how many it holds after each batch.
final class NotificationRecordCollector: JournalReader {
    let wantedKinds: UInt32 = JournalEventKind.bits(.notification)
    private let records = Mutex<[NotificationRecord]>([])
    private let counts: AsyncStream<Int>
    private let continuation: AsyncStream<Int>.Continuation

    init() {
        (counts, continuation) = AsyncStream.makeStream()
    }

    func read(_ batch: [JournalEvent]) {
        let notifications = batch.compactMap { event -> NotificationRecord? in
            guard case .notification(let record) = event.kind else { return nil }
            return record
        }
        continuation.yield(records.withLock { $0 += notifications; return $0.count })
    }

    /// The records, once the readers have been handed `count` of them, or once `finish()`
    /// ends the count (then what came).
    func collected(count: Int) async -> [NotificationRecord] {
        for await total in counts where total >= count { break }
        return records.withLock { $0 }
    }

    /// Ends the count: after unsubscribing, so nothing waits for batches that will not come.
    func finish() { continuation.finish() }
}
