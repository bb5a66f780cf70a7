import MockAPNsCore
/// One step of the delivery model as the journal keeps it: what became of an accepted
/// notification after its answer (stored, replaced, expired, discarded, delivered), or a
/// device going online or offline. Accepted notifications are the `notification` events
/// themselves; these events continue their story (see `DeliveryTimeline`) and name the
/// notification by its event's sequence, which holds its ids, topic and payload: one event
/// of these follows every accepted notification, so it carries nothing twice.
package struct DeliveryRecord: Sendable, Equatable {
    /// What happened.
    package var step: DeliveryStep
    /// Why, where a step has more than one cause.
    package var cause: DeliveryCause?
    /// The device token, lowercase.
    package var deviceToken: String
    /// The journal sequence of the notification's own event; `nil` for a device's step.
    package var notificationSequence: UInt64?
    /// When the step took effect, in milliseconds since 1970 by the server clock. A deadline
    /// (an expiry, a batch's release) takes effect at its own time, even when the server
    /// notices it later (the clock was moved past it).
    package var atMilliseconds: Int64
    /// `stored`: until when the notification is kept (its expiration, or the storage limit),
    /// or, held for power considerations, when its batch is released.
    package var untilMilliseconds: Int64?
    /// `superseded` and `collapsed`: the journal sequence of the newer notification that
    /// took its place.
    package var replacedBy: UInt64?
    /// `online` and `offline`: the scenario rule that changed the device, if one did.
    package var rule: String?

    package init(
        step: DeliveryStep, cause: DeliveryCause? = nil, deviceToken: String, notificationSequence: UInt64? = nil,
        atMilliseconds: Int64, untilMilliseconds: Int64? = nil, replacedBy: UInt64? = nil, rule: String? = nil
    ) {
        self.step = step
        self.cause = cause
        self.deviceToken = deviceToken
        self.notificationSequence = notificationSequence
        self.atMilliseconds = atMilliseconds
        self.untilMilliseconds = untilMilliseconds
        self.replacedBy = replacedBy
        self.rule = rule
    }

    /// A device going online or offline (its token compared without regard to letter case).
    package static func device(_ token: String, online: Bool, at milliseconds: Int64, rule: String? = nil) -> DeliveryRecord {
        DeliveryRecord(step: online ? .online : .offline, deviceToken: DeviceRegistry.canonical(token), atMilliseconds: milliseconds, rule: rule)
    }

    /// The words Apple's Push Notifications Console uses for this step, where it has some
    /// (its delivery log and metrics: "Stored - Device Offline", "Delivered to Device (From
    /// Storage)", "Discarded - Expired"); MockAPNs' own words, in the same style, elsewhere.
    package var consoleText: String {
        switch step {
        case .stored:
            switch cause {
            case .powerConsiderations?: return "Stored - Power Considerations"
            case .deviceOffline?, .fromStorage?, .expirationZero?, nil: return "Stored - Device Offline"
            }
        case .delivered:
            return cause == .fromStorage ? "Delivered to Device (From Storage)" : "Delivered to Device"
        case .expired:
            return "Discarded - Expired"
        case .discarded:
            return "Discarded - Not Stored (apns-expiration 0, device offline)"
        case .superseded:
            return "Discarded - Replaced in Storage by a Newer Notification"
        case .collapsed:
            return "Discarded - Collapsed (same apns-collapse-id)"
        case .online:
            return "Device Online"
        case .offline:
            return "Device Offline"
        }
    }
}

/// What the delivery model did with a notification, or to a device.
package enum DeliveryStep: String, CaseIterable, Sendable, Hashable {
    /// Kept by the server: the device was offline (one per app and device), or it is held
    /// for power considerations until its batch goes out.
    case stored
    /// Dropped from storage because a newer notification for the same app replaced it.
    case superseded
    /// Dropped because a newer notification with the same `apns-collapse-id` replaced it.
    case collapsed
    /// Its expiration (or the storage limit) passed before it could be delivered.
    case expired
    /// Never stored: `apns-expiration: 0` while the device was offline.
    case discarded
    /// Handed to the device.
    case delivered
    /// The device came online (a device's step, not a notification's).
    case online
    /// The device went offline (a device's step, not a notification's).
    case offline

    /// Whether this step is a device's rather than a notification's.
    package var isDeviceStep: Bool {
        switch self {
        case .online, .offline: true
        case .stored, .superseded, .collapsed, .expired, .discarded, .delivered: false
        }
    }
}

/// Why a step happened, where the step alone does not say.
package enum DeliveryCause: String, CaseIterable, Sendable, Hashable {
    /// `stored`: the device was offline.
    case deviceOffline
    /// `stored`: held with the device's other priority 5 and 1 (and background) notifications
    /// until the batch goes out.
    case powerConsiderations
    /// `delivered`: from storage (it had been stored or held first).
    case fromStorage
    /// `discarded`: `apns-expiration: 0` asks for one attempt and no storage.
    case expirationZero
}
