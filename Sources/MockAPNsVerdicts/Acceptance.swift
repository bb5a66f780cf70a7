import MockAPNsCore
import MockAPNsJournal

/// Where a notification was accepted, and the `apns-id` its provider gave it, as a fingerprint
/// (kept for up to `AcceptedNotifications.capacity` notifications, so not as a string).
struct Acceptance: Sendable {
    var connection: UInt64
    /// The fingerprint of the accepted request's `apns-id`; nil when it carried none.
    var apnsID: UInt64?

    init(connection: UInt64, apnsID: String?) {
        self.connection = connection
        self.apnsID = apnsID.map(Self.fingerprint)
    }

    /// Whether `record` carries the accepted request's own `apns-id`.
    func named(by record: NotificationRecord) -> Bool {
        guard let apnsID, let sent = record.requestAPNsID else { return false }
        return Self.fingerprint(sent) == apnsID
    }

    private static func fingerprint(_ apnsID: String) -> UInt64 {
        var hash = Fingerprint()
        hash.add(apnsID.utf8)
        return hash.finished
    }
}
