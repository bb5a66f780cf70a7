import MockAPNsCore
/// The delivery rules' numbers that Apple does not publish, with MockAPNs' defaults.
package struct DeliveryOptions: Sendable, Equatable {
    /// How long priority 5 and 1 notifications (and background pushes) to an online device
    /// are held before they go out together, in milliseconds. Apple says they "might get
    /// grouped and delivered in bursts" without saying when; `0` (the default, MockAPNs'
    /// choice) delivers them at once, so only a test that asks for batching sees it.
    package var batchDelayMilliseconds: Int64
    /// The longest a notification is stored for an offline device, in milliseconds, and how
    /// long one without `apns-expiration` is kept. Apple: "it may store the notification for
    /// 30 days or less"; 30 days is the default.
    package var maximumStorageMilliseconds: Int64

    /// Thirty days.
    package static let appleMaximumStorageMilliseconds: Int64 = 30 * 24 * 60 * 60 * 1000

    /// The range either setting may take: up to ten years, so deadlines never overflow.
    package static let range: ClosedRange<Int64> = 0...(10 * 366 * 24 * 60 * 60 * 1000)

    /// Options; by default no batching and Apple's storage limit of 30 days.
    package init(batchDelayMilliseconds: Int64 = 0, maximumStorageMilliseconds: Int64 = appleMaximumStorageMilliseconds) {
        self.batchDelayMilliseconds = min(max(batchDelayMilliseconds, Self.range.lowerBound), Self.range.upperBound)
        self.maximumStorageMilliseconds = min(max(maximumStorageMilliseconds, Self.range.lowerBound), Self.range.upperBound)
    }

    package static let `default` = DeliveryOptions()
}
