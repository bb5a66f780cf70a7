import MockAPNsCore
import MockAPNsJournal
import Synchronization
import MockAPNsDelivery

/// What the delivery model reads from the journal, in journal order: accepted notifications
/// and device changes. The journal hands events over on the recording thread (often an event
/// loop), so receiving only keeps the journal's batch (one reference to the array every reader
/// got) and rings the reader's bell; the reader picks the model's inputs out of it, and makes
/// the model's value of each, on its own thread.
package final class DeliveryFeed: JournalReader {
    /// One input for the model.
    package enum Input: Sendable, Equatable {
        /// An accepted notification's record, with its event's sequence and time.
        case notification(NotificationRecord, sequence: UInt64, receivedAtMilliseconds: Int64)
        case device(token: String, online: Bool, atMilliseconds: Int64)
    }

    private struct Pending {
        var batches: [[JournalEvent]] = []
        /// Notifications and delivery events in `batches`: what the limit counts.
        var events = 0
        /// Inputs left out because the reader fell this far behind.
        var overflow = 0
        /// The sequences of the notifications left out since the last drain: once the feed
        /// is full every later input is left out, so they lie in one range.
        var leftOut: ClosedRange<UInt64>?
        /// The sequence of the newest device change handed over.
        var lastDeviceChange: UInt64 = 0
    }

    /// Inputs waiting at most; beyond this the reader is far behind, and what cannot be kept
    /// is counted and reported rather than held without bound.
    package static let limit = 262_144

    private let pending = Mutex(Pending())
    package let bell = Doorbell()

    package init() {}

    /// Notifications, and the delivery events that carry device changes; refused
    /// notifications and frames never reach the model.
    package let wantedKinds: UInt32 = JournalEventKind.bits(.notification, .delivery)

    /// A batch, kept whole under one hold of the lock when it holds an event the model reads.
    package func read(_ batch: [JournalEvent]) {
        var kept = 0
        var deviceChange: UInt64?
        for event in batch where event.kind.bit & wantedKinds != 0 {
            kept += 1
            if case .delivery(let record) = event.kind, record.step.isDeviceStep { deviceChange = event.sequence }
        }
        guard kept > 0 else { return }
        let wasEmpty = pending.withLock { pending in
            let wasEmpty = pending.batches.isEmpty && pending.overflow == 0
            if let deviceChange { pending.lastDeviceChange = deviceChange }
            if pending.events < Self.limit {
                pending.batches.append(batch)
                pending.events += kept
            } else {
                // Far behind: the batch's inputs are counted and named, not kept.
                for event in batch {
                    guard let input = Self.input(event) else { continue }
                    pending.overflow += 1
                    if case .notification = input {
                        pending.leftOut = (pending.leftOut?.lowerBound ?? event.sequence)...event.sequence
                    }
                }
            }
            return wasEmpty
        }
        // The reader drains everything at once, so only the first batch since it last did
        // needs to wake it: under load the bell's lock is not taken for every read.
        if wasEmpty { bell.ring() }
    }

    /// The model's input an event carries, if any.
    package static func input(_ event: JournalEvent) -> Input? {
        switch event.kind {
        case .delivery(let record):
            // The model's own steps come back here too; only a device's change is an input.
            guard record.step.isDeviceStep else { return nil }
            return .device(token: record.deviceToken, online: record.step == .online, atMilliseconds: record.atMilliseconds)
        case .notification(let record):
            guard DeliveryNotification.entersModel(record) else { return nil }
            return .notification(record, sequence: event.sequence, receivedAtMilliseconds: event.wallTimeMilliseconds)
        case .connectionOpened, .connectionClosed, .tlsEstablished, .tlsFailed, .http2Frame, .legacyFrame, .fault,
             .feedbackTuple, .diagnosis, .broadcast, .channelOperation, .verdict:
            return nil
        }
    }

    /// The sequence of the newest device change the journal has handed over: the journal
    /// hands events over in order, so every notification recorded before it is in the feed.
    package var lastDeviceChange: UInt64 {
        pending.withLock { $0.lastDeviceChange }
    }

    /// Everything received since the last call, oldest first (the journal's batches, their
    /// inputs picked out by `input(_:)`), how many inputs were left out, and the sequences of
    /// the notifications among them.
    package func drain() -> (batches: [[JournalEvent]], overflow: Int, leftOut: ClosedRange<UInt64>?) {
        pending.withLock { pending in
            let lastDeviceChange = pending.lastDeviceChange
            defer { pending = Pending(lastDeviceChange: lastDeviceChange) }
            return (pending.batches, pending.overflow, pending.leftOut)
        }
    }
}
