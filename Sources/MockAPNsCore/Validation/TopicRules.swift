/// Apple's pairing of push types with `apns-topic` suffixes (apns-protocol A.4).
///
/// A topic is a bundle id, optionally followed by the suffix of one push type
/// (`com.example.app.voip`). The rules here only read the text of the topic; which topics a
/// connection may use is the decision core's job.
package enum TopicRules {
    /// Whether `topic` is well-formed: non-empty printable ASCII without spaces, and not a bare
    /// suffix with no bundle id in front (`.voip`). Anything else is `BadTopic`.
    package static func isWellFormed(_ topic: String) -> Bool {
        if case .wellFormed = classify(topic) { return true }
        return false
    }

    /// The push-type suffix `topic` ends with, if any, with its length in bytes. The longest
    /// matching suffix wins, so `.voip-ptt` is not mistaken for `.voip`.
    package static func suffix(of topic: String) -> (type: PushType, length: Int)? {
        topic.withUTF8Bytes(suffix(in:))
    }

    /// The bundle id part of `topic`: the topic without its push-type suffix.
    package static func bundleID(of topic: String) -> Substring {
        guard let suffix = suffix(of: topic) else { return topic[...] }
        let end = topic.utf8.index(topic.utf8.endIndex, offsetBy: -suffix.length)
        return topic[..<end]
    }

    /// Checks that `pushType` suits `topic`, returning the reason to refuse it, if any.
    ///
    /// - No push type, or `mdm` (whose topic is whatever the MDM certificate names): no rule.
    /// - `alert` and `background` need a bare bundle id. A topic carrying another type's suffix
    ///   gets `InvalidPushType`, as seen live for `.voip` topics sent as `alert`/`background`.
    /// - Every other type needs its own suffix. A topic carrying another type's suffix gets
    ///   `InvalidPushType`; a topic with no suffix at all gets `missingSuffixReason`
    ///   (`TopicDisallowed` by default, as seen live for missing `.voip`/`.complication`).
    package static func check(
        pushType: PushType?,
        topic: String,
        missingSuffixReason: Reason
    ) -> Reason? {
        check(pushType: pushType, topicSuffix: suffix(of: topic)?.type, missingSuffixReason: missingSuffixReason)
    }

    // MARK: - One pass for the validator

    /// What the validator needs to know about a topic, found in one scan.
    package enum Shape {
        case malformed
        case wellFormed(suffix: PushType?)
    }

    package static func classify(_ topic: String) -> Shape {
        topic.withUTF8Bytes { bytes in
            guard !bytes.isEmpty else { return .malformed }
            for byte in bytes where byte <= 0x20 || byte >= 0x7F {
                return .malformed
            }
            let suffix = suffix(in: bytes)
            if let suffix, suffix.length == bytes.count { return .malformed }
            return .wellFormed(suffix: suffix?.type)
        }
    }

    /// `check(pushType:topic:missingSuffixReason:)` with the topic's suffix already found.
    static func check(pushType: PushType?, topicSuffix: PushType?, missingSuffixReason: Reason) -> Reason? {
        guard let pushType, let required = pushType.topicSuffix else { return nil }
        if required.isEmpty {
            return topicSuffix == nil ? nil : .invalidPushType
        }
        switch topicSuffix {
        case pushType: return nil
        case nil: return missingSuffixReason
        default: return .invalidPushType
        }
    }

    /// Every push-type suffix, longest first so `.voip-ptt` wins over `.voip`. Kept as
    /// static strings for a heap-free scan; `PushType.topicSuffix` stays the vocabulary, and a
    /// test checks the two agree.
    static let suffixes: [(text: StaticString, type: PushType)] = [
        (".push-type.liveactivity", .liveactivity),
        (".pushkit.fileprovider", .fileprovider),
        (".push-type.controls", .controls),
        (".push-type.widgets", .widgets),
        (".location-query", .location),
        (".complication", .complication),
        (".voip-ptt", .pushtotalk),
        (".voip", .voip),
    ]

    private static func suffix(in bytes: UnsafeBufferPointer<UInt8>) -> (type: PushType, length: Int)? {
        for (suffix, type) in suffixes where bytes.hasSuffix(suffix) {
            return (type, suffix.utf8CodeUnitCount)
        }
        return nil
    }
}
