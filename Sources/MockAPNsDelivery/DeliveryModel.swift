import MockAPNsCore
import MockAPNsJournal
/// What APNs does with a notification after it answers 200: Apple's storage and delivery
/// rules, as a value that is fed accepted notifications, device changes and the passing of
/// time, and says what happened to each notification. No clock of its own and no I/O: every
/// call says what time it is, so a test drives hours of storage in microseconds.
///
/// The rules (docs/delivery.md gives each one's source):
/// - A device is online unless told otherwise. An accepted notification to an online device
///   is delivered at once, unless it is power-aware (priority 5 or 1, or a background push)
///   and a batch delay is set: then it is held ("Stored - Power Considerations") and goes out
///   with the device's other held notifications when the batch is released.
/// - To an offline device, a notification is stored ("Stored - Device Offline"): one per app
///   (bundle id) and device, the newest replacing the older one ("superseded", or
///   "collapsed" when both carry the same `apns-collapse-id`). It is kept until its
///   `apns-expiration`, at most `maximumStorageMilliseconds`; then it is "expired".
/// - `apns-expiration: 0` means one attempt and no storage: delivered if the device is
///   online, "discarded" if it is not. An expiration already past behaves the same, except
///   that an offline device's notification is "expired".
/// - When a device comes online, what is stored for it is delivered, oldest first.
/// - Within a held batch, a notification with the same app and `apns-collapse-id` as an
///   earlier one replaces it ("collapsed").
package struct DeliveryModel: Sendable {
    package let options: DeliveryOptions
    /// Only devices that differ from the default (offline, or holding something) are kept,
    /// so a load test over a million tokens costs nothing here.
    private var devices: [String: Device] = [:]
    /// When each device next has something due.
    private var deadlines = DeadlineQueue()
    /// The deadlines the devices really have (the queue may hold stale ones besides).
    private var liveDeadlines = 0

    package init(options: DeliveryOptions = .default) {
        self.options = options
    }

    /// One step the model took, in the order it took them; `notification` is the one it
    /// concerns (its payload is what a forwarder hands on when the step is `delivered`).
    package struct Change: Sendable, Equatable {
        package var record: DeliveryRecord
        package var notification: DeliveryNotification
        /// Delivered on arrival to an online device that holds nothing for it: the usual case,
        /// and the one step that is not recorded. Every reader derives it from the
        /// notification's own record (`DeliveryTimeline`), so a push costs the journal one event.
        package var isOnArrival = false
    }

    private struct Device: Sendable {
        var online = true
        /// When it last went online or offline.
        var changedAt: Int64?
        /// The offline storage: one notification per app (bundle id; "" for none).
        var stored: [String: Kept] = [:]
        /// Held for power considerations until `batchReleaseAt`, in arrival order.
        var held: [Kept] = []
        var batchReleaseAt: Int64?

        var isDefault: Bool { online && stored.isEmpty && held.isEmpty }

        /// Every time something is due for it.
        var deadlineTimes: [Int64] {
            held.map(\.expiresAt) + stored.values.map(\.expiresAt) + (batchReleaseAt.map { [$0] } ?? [])
        }

        var deadlineCount: Int { held.count + stored.count + (batchReleaseAt == nil ? 0 : 1) }
    }

    private struct Kept: Sendable {
        var notification: DeliveryNotification
        /// When it expires: its expiration, or the storage limit.
        var expiresAt: Int64
    }

    // MARK: Input

    /// An accepted notification arriving at its event's time. Deadlines due by then are
    /// passed first, so the notification meets the device as it is at that moment.
    package mutating func receive(_ notification: DeliveryNotification) -> [Change] {
        var changes: [Change] = []
        receive(notification, into: &changes)
        return changes
    }

    /// `receive(_:)`, appending the changes to `changes`: a reader taking in a batch keeps one
    /// array for it instead of one per notification.
    package mutating func receive(_ notification: DeliveryNotification, into changes: inout [Change]) {
        let now = notification.receivedAtMilliseconds
        advance(to: now, into: &changes)
        let token = notification.deviceToken
        let expiresAt = storageDeadline(of: notification, at: now)
        let holds = expiresAt != nil && notification.isPowerAware && options.batchDelayMilliseconds > 0
        // No device held (the usual case under load) is known without hashing the token.
        guard holds || (!devices.isEmpty && devices[token] != nil) else {
            // The usual case: an online device with nothing waiting, which the model does not keep.
            changes.append(change(.delivered, notification, at: now, onArrival: true))
            return
        }
        var device = devices[token] ?? Device()
        if device.online {
            if let expiresAt, notification.isPowerAware, options.batchDelayMilliseconds > 0 {
                hold(notification, expiresAt: expiresAt, in: &device, at: now, changes: &changes)
            } else {
                changes.append(change(.delivered, notification, at: now, onArrival: true))
            }
        } else if notification.expiration == 0 {
            changes.append(change(.discarded, cause: .expirationZero, notification, at: now))
        } else if let expiresAt {
            store(Kept(notification: notification, expiresAt: expiresAt), in: &device, at: now, changes: &changes)
        } else {
            changes.append(change(.expired, notification, at: now))
        }
        keep(device, for: token)
    }

    /// Whether a notification of this priority and push type, arriving now, is delivered on
    /// arrival with nothing to keep, whatever its device: no device is offline or holding
    /// anything, and it is not one a batch delay holds back. The model's check before a
    /// notification's value is made: under load a reader that forwards nothing passes the
    /// notification by on this alone (`receive` would take the same step, not recorded).
    package func deliversOnArrival(priority: Int?, pushType: String?) -> Bool {
        devices.isEmpty && deadlines.earliest == nil
            && (options.batchDelayMilliseconds <= 0 || !DeliveryNotification.isPowerAware(priority: priority, pushType: pushType))
    }

    /// A device going online or offline at `now`. Coming online delivers what is stored for it.
    package mutating func setOnline(_ token: String, _ online: Bool, at now: Int64) -> [Change] {
        var changes = advance(to: now)
        let token = DeviceRegistry.canonical(token)
        var device = devices[token] ?? Device()
        device.changedAt = now
        if online, !device.online {
            let waiting = device.stored.values.sorted { $0.notification.sequence < $1.notification.sequence }
            device.stored = [:]
            for kept in waiting {
                changes.append(change(.delivered, cause: .fromStorage, kept.notification, at: now))
            }
        }
        device.online = online
        keep(device, for: token)
        return changes
    }

    /// Passes every deadline due by `now`: expiries and batch releases, each at its own time.
    package mutating func advance(to now: Int64) -> [Change] {
        var changes: [Change] = []
        advance(to: now, into: &changes)
        return changes
    }

    /// `advance(to:)`, appending the changes to `changes`.
    package mutating func advance(to now: Int64, into changes: inout [Change]) {
        guard let next = deadlines.earliest, next <= now else { return }
        var due: [Change] = []
        for token in deadlines.removeDue(by: now).sorted() {
            guard var device = devices[token] else { continue }
            passDeadlines(of: &device, upTo: now, changes: &due)
            keep(device, for: token)
        }
        // Devices are independent; merged by time (each device's own order kept), the journal
        // reads in the order things happened.
        changes += due.enumerated().sorted { ($0.element.record.atMilliseconds, $0.offset) < ($1.element.record.atMilliseconds, $1.offset) }
            .map(\.element)
    }

    /// Forgets every device: all online again, nothing stored or held.
    package mutating func removeAll() -> Int {
        defer {
            devices = [:]
            deadlines.removeAll()
            liveDeadlines = 0
        }
        return devices.count
    }

    // MARK: What the model holds

    /// When the model next wants `advance(to:)`: no later than the earliest expiry or batch
    /// release (earlier when what was due then went first, say delivered when its device came
    /// back; advancing then finds nothing); `nil` when nothing waits.
    package var nextDeadline: Int64? { deadlines.earliest }

    /// Every device that is offline or holds notifications, by token.
    package var devicesHeld: [DeviceDeliveryState] {
        devices.keys.sorted().map { state(of: $0) }
    }

    /// One device's state (a device never told otherwise is online and holds nothing).
    package func state(of token: String) -> DeviceDeliveryState {
        let token = DeviceRegistry.canonical(token)
        let device = devices[token] ?? Device()
        return DeviceDeliveryState(
            deviceToken: token, online: device.online, changedAtMilliseconds: device.changedAt,
            stored: device.stored.values.sorted { $0.notification.sequence < $1.notification.sequence }
                .map { DeviceDeliveryState.Kept(notification: $0.notification, expiresAtMilliseconds: $0.expiresAt) },
            held: device.held.map { DeviceDeliveryState.Kept(notification: $0.notification, expiresAtMilliseconds: $0.expiresAt) },
            batchReleaseAtMilliseconds: device.batchReleaseAt
        )
    }

    // MARK: Rules

    /// Until when `notification` may be kept, counted from its arrival; `nil` when it may not
    /// be kept at all (`apns-expiration` 0, or already past).
    private func storageDeadline(of notification: DeliveryNotification, at now: Int64) -> Int64? {
        let limit = Self.adding(notification.receivedAtMilliseconds, options.maximumStorageMilliseconds)
        guard let expiration = notification.expirationMilliseconds else { return limit }
        guard notification.expiration != 0, expiration > now else { return nil }
        return min(expiration, limit)
    }

    /// Holds a power-aware notification for the device's next batch.
    private mutating func hold(
        _ notification: DeliveryNotification, expiresAt: Int64, in device: inout Device, at now: Int64, changes: inout [Change]
    ) {
        if let collapseID = notification.collapseID,
           let earlier = device.held.firstIndex(where: {
               $0.notification.collapseID == collapseID && $0.notification.bundleID == notification.bundleID
           }) {
            let replaced = device.held.remove(at: earlier).notification
            changes.append(change(.collapsed, replaced, at: now, replacedBy: notification.sequence))
        }
        let release = device.batchReleaseAt ?? Self.adding(now, options.batchDelayMilliseconds)
        if device.batchReleaseAt == nil { deadlines.insert(release, token: notification.deviceToken) }
        device.batchReleaseAt = release
        device.held.append(Kept(notification: notification, expiresAt: expiresAt))
        deadlines.insert(expiresAt, token: notification.deviceToken)
        changes.append(change(.stored, cause: .powerConsiderations, notification, at: now, until: release))
    }

    /// Stores a notification for an offline device: one per app, the newest kept.
    private mutating func store(_ kept: Kept, in device: inout Device, at now: Int64, changes: inout [Change]) {
        let app = kept.notification.bundleID ?? ""
        if let older = device.stored[app]?.notification {
            let sameCollapseID = older.collapseID != nil && older.collapseID == kept.notification.collapseID
            changes.append(change(sameCollapseID ? .collapsed : .superseded, older, at: now, replacedBy: kept.notification.sequence))
        }
        device.stored[app] = kept
        deadlines.insert(kept.expiresAt, token: kept.notification.deviceToken)
        changes.append(change(.stored, cause: .deviceOffline, kept.notification, at: now, until: kept.expiresAt))
    }

    /// Passes a device's deadlines due by `now`, earliest first. An expiry at the moment its
    /// batch is released comes first: at its expiration a notification is no longer valid.
    private mutating func passDeadlines(of device: inout Device, upTo now: Int64, changes: inout [Change]) {
        while true {
            let heldExpiry = device.held.indices.min { device.held[$0].expiresAt < device.held[$1].expiresAt }
            let storedExpiry = device.stored.min {
                ($0.value.expiresAt, $0.value.notification.sequence) < ($1.value.expiresAt, $1.value.notification.sequence)
            }
            let heldTime = heldExpiry.map { device.held[$0].expiresAt } ?? .max
            let storedTime = storedExpiry?.value.expiresAt ?? .max
            let releaseTime = device.batchReleaseAt ?? .max
            let earliest = min(heldTime, storedTime, releaseTime)
            guard earliest <= now else { return }
            if heldTime == earliest, let index = heldExpiry {
                let expired = device.held.remove(at: index)
                changes.append(change(.expired, expired.notification, at: earliest))
                if device.held.isEmpty { device.batchReleaseAt = nil }
            } else if storedTime == earliest, let (app, expired) = storedExpiry {
                device.stored[app] = nil
                changes.append(change(.expired, expired.notification, at: earliest))
            } else {
                release(&device, at: earliest, changes: &changes)
            }
        }
    }

    /// A batch going out: delivered if the device is online, else stored as any notification
    /// for an offline device is.
    private mutating func release(_ device: inout Device, at time: Int64, changes: inout [Change]) {
        let batch = device.held
        device.held = []
        device.batchReleaseAt = nil
        for kept in batch {
            if device.online {
                changes.append(change(.delivered, cause: .fromStorage, kept.notification, at: time))
            } else {
                store(kept, in: &device, at: time, changes: &changes)
            }
        }
    }

    /// `time + amount`, stopping at the largest time rather than overflowing (times come from
    /// callers, who may pass any value).
    private static func adding(_ time: Int64, _ amount: Int64) -> Int64 {
        let (sum, overflow) = time.addingReportingOverflow(amount)
        return overflow ? Int64.max : sum
    }

    /// Puts `device` back (forgetting it when it is back to the default), and rebuilds the
    /// deadline queue when stale entries outnumber the live ones.
    private mutating func keep(_ device: Device, for token: String) {
        let index = devices.index(forKey: token)
        let before = index.map { devices.values[$0].deadlineCount } ?? 0
        switch (index, device.isDefault) {
        case (let index?, true): devices.remove(at: index)
        case (let index?, false): devices.values[index] = device
        case (nil, false): devices[token] = device
        case (nil, true): break
        }
        liveDeadlines += device.deadlineCount - before
        if deadlines.count > 2 * liveDeadlines + 1024 {
            deadlines.replace(with: devices.flatMap { token, device in device.deadlineTimes.map { (time: $0, token: token) } })
        }
    }

    private func change(
        _ step: DeliveryStep, cause: DeliveryCause? = nil, _ notification: DeliveryNotification, at time: Int64,
        until: Int64? = nil, replacedBy: UInt64? = nil, onArrival: Bool = false
    ) -> Change {
        Change(
            record: DeliveryRecord(
                step: step, cause: cause, deviceToken: notification.deviceToken, notificationSequence: notification.sequence,
                atMilliseconds: time, untilMilliseconds: until, replacedBy: replacedBy
            ),
            notification: notification, isOnArrival: onArrival
        )
    }
}

/// One device as the delivery model sees it: online or not, and what waits for it.
public struct DeviceDeliveryState: Sendable, Equatable {
    /// The device token, as the pushes named it.
    public var deviceToken: String
    /// Whether the device is online: a notification to it is delivered at once.
    public var online: Bool
    /// When it last went online or offline; `nil` if it never changed.
    public var changedAtMilliseconds: Int64?
    /// Stored while it is offline: one per app, oldest first.
    public var stored: [Kept]
    /// Held for power considerations, in arrival order, until `batchReleaseAtMilliseconds`.
    public var held: [Kept]
    /// When the held notifications go out together (`nil`: none held).
    public var batchReleaseAtMilliseconds: Int64?

    /// A notification waiting, and when it expires.
    public struct Kept: Sendable, Equatable {
        package var notification: DeliveryNotification
        /// When it expires unless delivered (its `apns-expiration`, or the storage limit).
        public var expiresAtMilliseconds: Int64

        /// The journal sequence of the notification's record.
        public var sequence: UInt64 { notification.sequence }
        /// The `apns-unique-id` APNs gave it (`deliveryLog(_:)` takes it).
        public var uniqueID: String? { notification.uniqueID?.text }
        /// Its `apns-collapse-id`: a newer one with the same id replaces it.
        public var collapseID: String? { notification.collapseID }
    }
}
