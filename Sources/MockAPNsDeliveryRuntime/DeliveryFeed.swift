import MockAPNsCore
import MockAPNsJournal
import Synchronization
import MockAPNsDelivery

/// What the delivery model reads from the journal, in journal order: accepted notifications
/// and device changes. The journal hands events over on the recording thread (often an event
/// loop), so receiving only keeps the record (one reference) and rings the reader's bell; the
/// reader makes the model's value of it on its own thread.
package final class DeliveryFeed: JournalReader {
    /// One input for the model.
    package enum Input: Sendable, Equatable {
        /// An accepted notification's record, with its event's sequence and time.
        case notification(NotificationRecord, sequence: UInt64, receivedAtMilliseconds: Int64)
        case device(token: String, online: Bool, atMilliseconds: Int64)
    }

    private struct Pending {
        var inputs: [Input] = []
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

    /// Notifications, and the delivery events that carry device changes; refused
    /// notifications and frames never reach the model.
    package let wantedKinds: UInt32 = JournalEventKind.bits(.notification, .delivery)

    /// A batch under one hold of the lock.
    package func read(_ batch: [JournalEvent]) {
        var inputs: [(Input, sequence: UInt64)] = []
        for event in batch {
            if let input = Self.input(event) { inputs.append((input, event.sequence)) }
        }
        hand(over: inputs)
    }

    /// The model's input an event carries, if any.
    private static func input(_ event: JournalEvent) -> Input? {
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

    private func hand<Inputs: Collection<(Input, sequence: UInt64)>>(over inputs: Inputs) {
        guard !inputs.isEmpty else { return }
        let wasEmpty = pending.withLock { pending in
            let wasEmpty = pending.inputs.isEmpty && pending.overflow == 0
            for (input, sequence) in inputs {
                if case .device = input { pending.lastDeviceChange = sequence }
                if pending.inputs.count < Self.limit {
                    pending.inputs.append(input)
                } else {
                    pending.overflow += 1
                    if case .notification = input {
                        pending.leftOut = (pending.leftOut?.lowerBound ?? sequence)...sequence
                    }
                }
            }
            return wasEmpty
        }
        // The reader drains everything at once, so only the first input since it last did
        // needs to wake it: under load the bell's lock is not taken for every notification.
        if wasEmpty { bell.ring() }
    }

    /// The sequence of the newest device change the journal has handed over: the journal
    /// hands events over in order, so every notification recorded before it is in the feed.
    package var lastDeviceChange: UInt64 {
        pending.withLock { $0.lastDeviceChange }
    }

    /// Everything received since the last call, oldest first, how many were left out, and
    /// the sequences of the notifications among them.
    package func drain() -> (inputs: [Input], overflow: Int, leftOut: ClosedRange<UInt64>?) {
        pending.withLock { pending in
            defer {
                pending.inputs.removeAll(keepingCapacity: true)
                pending.overflow = 0
                pending.leftOut = nil
            }
            return (pending.inputs, pending.overflow, pending.leftOut)
        }
    }
}
