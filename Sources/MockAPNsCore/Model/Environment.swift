/// The APNs environment a server, a certificate, a key or a device token belongs to.
public enum APNsEnvironment: String, CaseIterable, Sendable, Hashable, Codable {
    /// `api.sandbox.push.apple.com`: development builds.
    case sandbox
    /// `api.push.apple.com`: App Store, TestFlight and ad-hoc builds.
    case production
}
