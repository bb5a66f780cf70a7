/// Every request rule where Apple's behaviour is not documented or not confirmed, as a setting.
///
/// The defaults are MockAPNs' best reading of the evidence (see `apns-protocol.md`); each
/// property says what it was based on. Change them to match what a provider under test needs.
package struct ValidationOptions: Sendable, Equatable {
    /// Whether `A-F` is accepted in the device token of `:path`. Apple's tokens are lowercase
    /// hex; users report APNs accepted uppercase in the binary era. Default `true`. Accepted
    /// tokens are always lowercased in `PushRequest.deviceToken`.
    package var acceptsUppercaseDeviceTokens: Bool

    /// The allowed device-token length in bytes (two hex digits per byte). Apple: "don't make
    /// assumptions"; the 2018 binary API allowed up to 100 bytes; 32 is the classic size.
    /// Default `32...100`.
    package var deviceTokenByteLengths: ClosedRange<Int>

    /// Whether `A-F` is accepted in `apns-id`. Apple asks for lowercase, yet Apple itself
    /// generates uppercase ids and common clients send `UUID().uuidString` (uppercase).
    /// Default `true`. The value is echoed byte for byte either way.
    package var acceptsUppercaseAPNsIDs: Bool

    /// The body limit for every push type except VoIP, in bytes. Apple: 4096.
    package var payloadLimit: Int

    /// The body limit for VoIP pushes, in bytes. Apple: 5120.
    package var voipPayloadLimit: Int

    /// What to do with a body that is not a JSON object (not JSON at all, or a top-level
    /// array, string, number, `true`, `false` or `null`). Apple's behaviour is unknown; it
    /// accepts JSON of the wrong structure with 200, so the default is `.accept`.
    package var nonObjectPayload: RulePolicy

    /// What to do with `apns-push-type: background` and `apns-priority: 10`. Apple calls it
    /// "an error" without naming the response. Default `.reject(.badPriority)`.
    package var backgroundWithImmediatePriority: RulePolicy

    /// The reason for a push type whose required topic suffix is missing (for example
    /// `apns-push-type: voip` with a topic lacking `.voip`). Live reports of missing
    /// `.voip`/`.complication` suffixes show `TopicDisallowed`. Default `.topicDisallowed`.
    package var missingTopicSuffixReason: Reason

    /// The reason for a topic the credentials do not cover (a topic outside the client
    /// certificate's list, or outside a topic-specific key's list). pushy's mock says
    /// `BadTopic`; live reports show `TopicDisallowed`. Default `.topicDisallowed`.
    package var topicNotAllowedReason: Reason

    /// The reason for `apns-push-type: location` on a certificate connection. Apple allows
    /// location pushes with provider tokens only and does not name the error. Default
    /// `.topicDisallowed`.
    package var locationPushWithCertificateReason: Reason

    /// What to do with `apns-push-type: liveactivity` (or a `.push-type.liveactivity` topic)
    /// on a certificate connection. Apple's guidance for Live Activities is token-based
    /// authentication ("Starting and updating Live Activities with ActivityKit push
    /// notifications"); the answer to a certificate is not documented. Default
    /// `.reject(.topicDisallowed)`, as `location` pushes are refused.
    package var liveActivityWithCertificate: RulePolicy

    /// Whether payload mistakes APNs accepts (`PayloadTypeRules`: a Live Activity without
    /// `event`, a background push with an alert, ...) are only journaled as `payload.*`
    /// diagnoses (`.diagnose`, the default, what Apple does) or also refused.
    package var payloadRules: PayloadRuleMode

    /// Which repeated headers count as `DuplicateHeaders`. Apple: "one or more headers are
    /// repeated", with no exception named. Default `.allHeaders`.
    package var duplicateHeaderScope: DuplicateHeaderScope

    /// The letter case of `apns-id` values the server generates. Apple was seen returning
    /// uppercase (pushy #184, 2016). Default `.uppercase`.
    package var generatedAPNsIDCase: UUIDLetterCase

    /// The settings MockAPNs starts with; see each property for its value and why.
    package static let `default` = ValidationOptions()

    package init(
        acceptsUppercaseDeviceTokens: Bool = true,
        deviceTokenByteLengths: ClosedRange<Int> = 32...100,
        acceptsUppercaseAPNsIDs: Bool = true,
        payloadLimit: Int = 4096,
        voipPayloadLimit: Int = 5120,
        nonObjectPayload: RulePolicy = .accept,
        backgroundWithImmediatePriority: RulePolicy = .reject(.badPriority),
        missingTopicSuffixReason: Reason = .topicDisallowed,
        topicNotAllowedReason: Reason = .topicDisallowed,
        locationPushWithCertificateReason: Reason = .topicDisallowed,
        liveActivityWithCertificate: RulePolicy = .reject(.topicDisallowed),
        payloadRules: PayloadRuleMode = .diagnose,
        duplicateHeaderScope: DuplicateHeaderScope = .allHeaders,
        generatedAPNsIDCase: UUIDLetterCase = .uppercase
    ) {
        self.acceptsUppercaseDeviceTokens = acceptsUppercaseDeviceTokens
        self.deviceTokenByteLengths = deviceTokenByteLengths
        self.acceptsUppercaseAPNsIDs = acceptsUppercaseAPNsIDs
        self.payloadLimit = payloadLimit
        self.voipPayloadLimit = voipPayloadLimit
        self.nonObjectPayload = nonObjectPayload
        self.backgroundWithImmediatePriority = backgroundWithImmediatePriority
        self.missingTopicSuffixReason = missingTopicSuffixReason
        self.topicNotAllowedReason = topicNotAllowedReason
        self.locationPushWithCertificateReason = locationPushWithCertificateReason
        self.liveActivityWithCertificate = liveActivityWithCertificate
        self.payloadRules = payloadRules
        self.duplicateHeaderScope = duplicateHeaderScope
        self.generatedAPNsIDCase = generatedAPNsIDCase
    }
}

/// Whether a rule whose outcome Apple does not document lets the request through.
package enum RulePolicy: Sendable, Equatable {
    /// The request passes this rule.
    case accept
    /// The request is refused with this reason.
    case reject(Reason)
}

/// Which header names the duplicate-header rule looks at.
package enum DuplicateHeaderScope: Sendable, Equatable {
    /// Any header name that appears twice, whether Apple defines it or not.
    case allHeaders
    /// Only pseudo-headers and the headers Apple defines (`apns-*`, `authorization`); other
    /// headers are ignored entirely, repeated or not.
    case appleHeaders
}

/// Letter case for generated UUIDs.
package enum UUIDLetterCase: Sendable, Equatable {
    case uppercase
    case lowercase
}
