import MockAPNsCore
import Synchronization

/// What the delivery model reads from the journal, in journal order: accepted notifications
/// and device changes. The journal hands events over on the recording thread (often an event
/// loop), so receiving only keeps the few fields the model needs and rings the reader's bell.
final class DeliveryFeed: JournalSink {
    /// One input for the model.
    enum Input: Sendable, Equatable {
        case notification(DeliveryNotification)
        case device(token: String, online: Bool, atMilliseconds: Int64)
    }

    private struct Pending {
        var inputs: [Input] = []
        /// Inputs left out because the reader fell this far behind.
        var overflow = 0
        /// The sequence of the newest event handed over (of the kinds wanted).
        var lastSequence: UInt64 = 0
    }

    /// Inputs waiting at most; beyond this the reader is far behind, and what cannot be kept
    /// is counted and reported rather than held without bound.
    static let limit = 262_144

    private let pending = Mutex(Pending())
    let bell = Doorbell()

    /// Notifications, and the delivery events that carry device changes; refused
    /// notifications and frames never reach the model.
    let wantedKinds: UInt32 = JournalEventKind.bits(.notification, .delivery)

    func receive(_ event: JournalEvent) {
        let input: Input?
        if case .delivery(let record) = event.kind {
            input = record.step.isDeviceStep
                ? .device(token: record.deviceToken, online: record.step == .online, atMilliseconds: record.atMilliseconds) : nil
        } else {
            input = event.notification.flatMap(DeliveryNotification.init).map(Input.notification)
        }
        pending.withLock { pending in
            pending.lastSequence = event.sequence
            guard let input else { return }
            if pending.inputs.count < Self.limit {
                pending.inputs.append(input)
            } else {
                pending.overflow += 1
            }
        }
        if input != nil { bell.ring() }
    }

    /// The sequence of the newest event the journal has handed over: every wanted event up
    /// to it is in the feed (the journal hands them over in order).
    var lastSequence: UInt64 {
        pending.withLock { $0.lastSequence }
    }

    /// Everything received since the last call, oldest first, and how many were left out.
    func drain() -> (inputs: [Input], overflow: Int) {
        pending.withLock { pending in
            defer {
                pending.inputs.removeAll(keepingCapacity: true)
                pending.overflow = 0
            }
            return (pending.inputs, pending.overflow)
        }
    }
}
