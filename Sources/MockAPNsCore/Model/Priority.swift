/// The value of `apns-priority`.
package enum Priority: Int, CaseIterable, Sendable, Hashable, Codable {
    /// Prioritize the device's power over everything; never wakes the device.
    case powerFirst = 1
    /// Power-aware delivery: may be grouped and throttled. Required for background pushes.
    case powerAware = 5
    /// Immediate delivery. Apple's default when the header is absent.
    case immediate = 10
}
