/// Apple's pairing of push types with `apns-topic` suffixes (apns-protocol A.4).
///
/// A topic is a bundle id, optionally followed by the suffix of one push type
/// (`com.example.app.voip`). The rules here only read the text of the topic; which topics a
/// connection may use is the decision core's job.
public enum TopicRules {
    /// Whether `topic` is well-formed: non-empty printable ASCII without spaces, and not a bare
    /// suffix with no bundle id in front (`.voip`). Anything else is `BadTopic`.
    public static func isWellFormed(_ topic: String) -> Bool {
        let bytes = topic.utf8
        guard !bytes.isEmpty else { return false }
        for byte in bytes where byte <= 0x20 || byte >= 0x7F {
            return false
        }
        if let suffix = suffix(of: topic), suffix.length == bytes.count {
            return false
        }
        return true
    }

    /// The push-type suffix `topic` ends with, if any, with its length in bytes. The longest
    /// matching suffix wins, so `.voip-ptt` is not mistaken for `.voip`.
    public static func suffix(of topic: String) -> (type: PushType, length: Int)? {
        let bytes = topic.utf8
        for (suffix, type) in PushType.suffixesLongestFirst {
            let suffixBytes = suffix.utf8
            if bytes.count >= suffixBytes.count,
               bytes.suffix(suffixBytes.count).elementsEqual(suffixBytes) {
                return (type, suffixBytes.count)
            }
        }
        return nil
    }

    /// The bundle id part of `topic`: the topic without its push-type suffix.
    public static func bundleID(of topic: String) -> Substring {
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
    public static func check(
        pushType: PushType?,
        topic: String,
        missingSuffixReason: Reason
    ) -> Reason? {
        guard let pushType, let required = pushType.topicSuffix else { return nil }
        let actual = suffix(of: topic)?.type
        if required.isEmpty {
            return actual == nil ? nil : .invalidPushType
        }
        switch actual {
        case pushType: return nil
        case nil: return missingSuffixReason
        default: return .invalidPushType
        }
    }
}
