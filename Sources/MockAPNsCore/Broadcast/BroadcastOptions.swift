/// Every broadcast rule where Apple's behaviour is undocumented or unconfirmed, as a setting
/// (docs/broadcast-protocol.md says what each default rests on).
public struct BroadcastOptions: Sendable, Equatable {
    /// Channels one bundle id may have in one environment. Apple: "up to 10,000 channels for
    /// your app in the development and production environment, respectively".
    public var channelLimit: Int
    /// The longest channel id accepted before `BadChannelId`. Apple names a limit without
    /// its value; default 64 characters.
    public var maximumChannelIDLength: Int
    /// Random bytes in a generated channel id (16 give 24 base64 characters). Unverified.
    public var channelIDByteCount: Int
    /// Whether `"message-storage-policy": "1"` (a JSON string, as node-apn's README sends it)
    /// is accepted like the number. Default `true`.
    public var acceptsStoragePolicyStrings: Bool
    /// Whether `push-type` must be spelled `LiveActivity` exactly. node-apn sends
    /// `liveactivity`; default `false` (any letter case).
    public var pushTypeCaseSensitive: Bool
    /// The reason for a missing or invalid `message-storage-policy` (Apple names none).
    /// Default `BadMessageStoragePolicy`, MockAPNs' own.
    public var badStoragePolicyReason: Reason
    /// The reason the management API gives for a bundle id the credentials do not cover.
    /// Apple's server was seen answering `TopicMismatch` (forum, 2024). Default `.topicMismatch`.
    public var bundleNotCoveredReason: Reason
    /// Bundle ids for which broadcast is "not enabled": their requests get `FeatureNotEnabled`.
    public var disabledBundleIDs: Set<String>
    /// The `apns-priority` values a broadcast may carry; others get `BadPriority`. Live
    /// Activities use 5 and 10. Default `[5, 10]`.
    public var allowedPriorities: Set<Priority>
    /// The body limit of a broadcast, in bytes. Client documentation quotes 5 KB; default 5120.
    public var payloadLimit: Int

    /// The settings MockAPNs starts with.
    public static let `default` = BroadcastOptions()

    public init(
        channelLimit: Int = 10_000,
        maximumChannelIDLength: Int = 64,
        channelIDByteCount: Int = 16,
        acceptsStoragePolicyStrings: Bool = true,
        pushTypeCaseSensitive: Bool = false,
        badStoragePolicyReason: Reason = .badMessageStoragePolicy,
        bundleNotCoveredReason: Reason = .topicMismatch,
        disabledBundleIDs: Set<String> = [],
        allowedPriorities: Set<Priority> = [.powerAware, .immediate],
        payloadLimit: Int = 5120
    ) {
        self.channelLimit = channelLimit
        self.maximumChannelIDLength = maximumChannelIDLength
        self.channelIDByteCount = channelIDByteCount
        self.acceptsStoragePolicyStrings = acceptsStoragePolicyStrings
        self.pushTypeCaseSensitive = pushTypeCaseSensitive
        self.badStoragePolicyReason = badStoragePolicyReason
        self.bundleNotCoveredReason = bundleNotCoveredReason
        self.disabledBundleIDs = disabledBundleIDs
        self.allowedPriorities = allowedPriorities
        self.payloadLimit = payloadLimit
    }
}
