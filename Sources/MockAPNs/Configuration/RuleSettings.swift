import MockAPNsCore

// The configuration sections for behaviour Apple does not document precisely
// (apns-protocol.md marks it "unverified"): each is a choice with a documented default.

extension ValidationOptions {
    /// Reads the `validation` section:
    ///
    /// ```json
    /// "validation": {
    ///   "acceptUppercaseTokens": true, "minimumTokenBytes": 32, "maximumTokenBytes": 100,
    ///   "acceptUppercaseApnsIds": true, "payloadLimit": 4096, "voipPayloadLimit": 5120,
    ///   "nonObjectPayload": "accept", "backgroundWithPriority10": "BadPriority",
    ///   "missingTopicSuffixReason": "TopicDisallowed", "topicNotAllowedReason": "TopicDisallowed",
    ///   "locationWithCertificateReason": "TopicDisallowed", "liveActivityWithCertificate": "TopicDisallowed",
    ///   "payloadRules": "diagnose", "duplicateHeaders": "allHeaders"
    /// }
    /// ```
    ///
    /// A policy is `"accept"` or the name of the `Reason` to refuse with.
    mutating func read(_ reader: inout JSONObjectReader) throws(JSONFileError) {
        if let value = try reader.bool("acceptUppercaseTokens") { acceptsUppercaseDeviceTokens = value }
        let minimum = try reader.integer("minimumTokenBytes", in: 1...100).map(Int.init) ?? deviceTokenByteLengths.lowerBound
        let maximum = try reader.integer("maximumTokenBytes", in: 1...100).map(Int.init) ?? deviceTokenByteLengths.upperBound
        guard minimum <= maximum else {
            throw JSONFileError(path: reader.path(of: "minimumTokenBytes"), position: reader.position,
                                message: "minimumTokenBytes (\(minimum)) is larger than maximumTokenBytes (\(maximum))")
        }
        deviceTokenByteLengths = minimum...maximum
        if let value = try reader.bool("acceptUppercaseApnsIds") { acceptsUppercaseAPNsIDs = value }
        if let value = try reader.integer("payloadLimit", in: 1...1_048_576) { payloadLimit = Int(value) }
        if let value = try reader.integer("voipPayloadLimit", in: 1...1_048_576) { voipPayloadLimit = Int(value) }
        if let value = try Self.policy(&reader, "nonObjectPayload") { nonObjectPayload = value }
        if let value = try Self.policy(&reader, "backgroundWithPriority10") { backgroundWithImmediatePriority = value }
        if let value = try reader.oneOf("missingTopicSuffixReason", Reason.self) { missingTopicSuffixReason = value }
        if let value = try reader.oneOf("topicNotAllowedReason", Reason.self) { topicNotAllowedReason = value }
        if let value = try reader.oneOf("locationWithCertificateReason", Reason.self) { locationPushWithCertificateReason = value }
        if let value = try Self.policy(&reader, "liveActivityWithCertificate") { liveActivityWithCertificate = value }
        if let value = try reader.oneOf("payloadRules", PayloadRuleMode.self) { payloadRules = value }
        if let value = try reader.oneOf("duplicateHeaders", DuplicateHeaderSetting.self) {
            duplicateHeaderScope = value == .allHeaders ? .allHeaders : .appleHeaders
        }
        try reader.finish(allowed: [
            "acceptUppercaseTokens", "minimumTokenBytes", "maximumTokenBytes", "acceptUppercaseApnsIds",
            "payloadLimit", "voipPayloadLimit", "nonObjectPayload", "backgroundWithPriority10",
            "missingTopicSuffixReason", "topicNotAllowedReason", "locationWithCertificateReason",
            "liveActivityWithCertificate", "payloadRules", "duplicateHeaders",
        ])
    }

    /// `"accept"` or a reason name (shared by every section with such a setting).
    static func policy(_ reader: inout JSONObjectReader, _ key: String) throws(JSONFileError) -> RulePolicy? {
        guard let node = reader.node(key) else { return nil }
        if case .string(let text) = node.value {
            if text == "accept" { return .accept }
            if let reason = Reason(rawValue: text) { return .reject(reason) }
        }
        throw reader.invalid(key, node, "expected \"accept\" or a reason name such as \"BadPriority\"")
    }

    private enum DuplicateHeaderSetting: String, CaseIterable {
        case allHeaders
        case appleHeaders
    }
}

extension ProviderTokenPolicy {
    /// Reads the `providerTokens` section:
    ///
    /// ```json
    /// "providerTokens": {
    ///   "maximumAgeSeconds": 3600, "futureToleranceSeconds": 60,
    ///   "minimumUpdateIntervalSeconds": 1200, "earlyUpdateBlocksConnection": true,
    ///   "otherTeamReason": "InvalidProviderToken"
    /// }
    /// ```
    mutating func read(_ reader: inout JSONObjectReader) throws(JSONFileError) {
        let day: Int64 = 86_400
        if let value = try reader.integer("maximumAgeSeconds", in: 1...(365 * day)) { maximumTokenAgeSeconds = value }
        if let value = try reader.integer("futureToleranceSeconds", in: 0...(365 * day)) { futureIssuedAtToleranceSeconds = value }
        if let value = try reader.integer("minimumUpdateIntervalSeconds", in: 0...(365 * day)) { minimumTokenUpdateIntervalSeconds = value }
        if let value = try reader.bool("earlyUpdateBlocksConnection") { earlyUpdateBlocksConnection = value }
        if let value = try reader.oneOf("otherTeamReason", Reason.self) { otherTeamReason = value }
        try reader.finish(allowed: [
            "maximumAgeSeconds", "futureToleranceSeconds", "minimumUpdateIntervalSeconds",
            "earlyUpdateBlocksConnection", "otherTeamReason",
        ])
    }
}
