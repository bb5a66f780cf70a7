import MockAPNsCore
/// Every broadcast rule where Apple's behaviour is undocumented or unconfirmed, as a setting
/// (docs/broadcast-protocol.md says what each default rests on).
package struct BroadcastOptions: Sendable, Equatable {
    /// Channels one bundle id may have in one environment. Documented: "up to 10,000
    /// channels for your app in the development and production environment, respectively"
    /// ("Sending channel management requests to APNs").
    package var channelLimit: Int
    /// The longest channel id accepted before `BadChannelId`. Apple names a limit ("greater
    /// than the allowed length") without its value and says not to assume an id's size;
    /// MockAPNs' choice: 64 characters.
    package var maximumChannelIDLength: Int
    /// Random bytes in a generated channel id (16 give 24 base64 characters). MockAPNs'
    /// choice: Apple documents base64 ids of no fixed size.
    package var channelIDByteCount: Int
    /// Whether `"message-storage-policy": "1"` (a JSON string, as node-apn's README sends it)
    /// is accepted like the number. MockAPNs' choice: `true`.
    package var acceptsStoragePolicyStrings: Bool
    /// Whether `push-type` (create body) and `apns-push-type` (broadcast header) must be
    /// spelled exactly as Apple's tables do (`LiveActivity`, `Liveactivity`). Apple's own
    /// examples use `liveactivity` and `LiveActivity` for the same value, so the default is
    /// `false` (any letter case).
    package var pushTypeCaseSensitive: Bool
    /// The reason for a missing or invalid `message-storage-policy`. Apple names none;
    /// MockAPNs' choice is `BadRequestParams`, the documented reason nearest to it
    /// (`BadMessageStoragePolicy`, MockAPNs' own name, is available).
    package var badStoragePolicyReason: Reason
    /// The reason for a bundle id the credentials do not cover. Documented: 403
    /// `TopicMismatch` ("Handling error responses from Apple Push Notification service").
    package var bundleNotCoveredReason: Reason
    /// Bundle ids for which broadcast is "not enabled": their requests get `FeatureNotEnabled`.
    package var disabledBundleIDs: Set<String>
    /// The `apns-priority` values a broadcast may carry; others get `BadPriority`.
    /// Documented: 10, 5 and 1 ("Sending broadcast push notification requests to APNs").
    package var allowedPriorities: Set<Priority>
    /// The body limit of a broadcast, in bytes. Documented: 5 KB (5,120 bytes).
    package var payloadLimit: Int
    /// The reason for a method the path does not take. Apple lists both 404 `BadPath`
    /// ("either the HTTP/2 method or the HTTP/2 path is incorrect") and 405
    /// `MethodNotAllowed` ("the specified :method value isn't allowed"); MockAPNs' choice is
    /// the one that names the method alone.
    package var wrongMethodReason: Reason
    /// Whether a broadcast without `apns-expiration` or `apns-priority` (both "Required" in
    /// Apple's header table, with no refusal named for their absence) is refused with
    /// `BadExpirationDate` / `BadPriority`. MockAPNs' choice: `false`, accepted with a
    /// `broadcast.missingRequiredHeader` diagnosis.
    package var refusesMissingRequiredHeaders: Bool
    /// What to do with an `apns-topic` that names another app than the path (Apple documents
    /// no topic header for broadcasts). MockAPNs' choice: `.accept`, with a
    /// `broadcast.topicForOtherApp` diagnosis.
    package var topicForOtherApp: RulePolicy
    /// What to do with a broadcast payload or a create body that is not a JSON object.
    /// Documented: `BadRequestPayload` ("The JSON Request payload is unparseable").
    package var unparseableBody: RulePolicy
    /// What to do with an attribute of the create body other than `message-storage-policy`
    /// and `push-type`. Documented: `BadRequestParams` ("an unrecognizable attribute").
    package var unknownBodyAttribute: RulePolicy

    /// The settings MockAPNs starts with.
    package static let `default` = BroadcastOptions()

    package init(
        channelLimit: Int = 10_000,
        maximumChannelIDLength: Int = 64,
        channelIDByteCount: Int = 16,
        acceptsStoragePolicyStrings: Bool = true,
        pushTypeCaseSensitive: Bool = false,
        badStoragePolicyReason: Reason = .badRequestParams,
        bundleNotCoveredReason: Reason = .topicMismatch,
        disabledBundleIDs: Set<String> = [],
        allowedPriorities: Set<Priority> = [.powerFirst, .powerAware, .immediate],
        payloadLimit: Int = 5120,
        wrongMethodReason: Reason = .methodNotAllowed,
        refusesMissingRequiredHeaders: Bool = false,
        topicForOtherApp: RulePolicy = .accept,
        unparseableBody: RulePolicy = .reject(.badRequestPayload),
        unknownBodyAttribute: RulePolicy = .reject(.badRequestParams)
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
        self.wrongMethodReason = wrongMethodReason
        self.refusesMissingRequiredHeaders = refusesMissingRequiredHeaders
        self.topicForOtherApp = topicForOtherApp
        self.unparseableBody = unparseableBody
        self.unknownBodyAttribute = unknownBodyAttribute
    }

    /// Whether `text` names the Live Activity push type under `pushTypeCaseSensitive`: one
    /// of Apple's `spellings` exactly, or any letter case of them.
    func isLiveActivityPushType(_ text: String, spellings: [String]) -> Bool {
        pushTypeCaseSensitive ? spellings.contains(text) : spellings.contains { $0.lowercased() == text.lowercased() }
    }

    /// The spellings of the push type in Apple's broadcast pages: the header table's
    /// `Liveactivity` and the samples' `liveactivity` ("Sending broadcast push notification
    /// requests to APNs").
    static let headerPushTypeSpellings = ["Liveactivity", "liveactivity"]
    /// The create body's spelling ("Sending channel management requests to APNs").
    static let bodyPushTypeSpellings = ["LiveActivity"]
}
