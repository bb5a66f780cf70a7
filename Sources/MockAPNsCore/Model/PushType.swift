/// The value of `apns-push-type`, with the topic suffix Apple requires for each.
package enum PushType: String, CaseIterable, Sendable, Hashable, Codable {
    case alert
    case background
    case voip
    case complication
    case fileprovider
    case location
    case liveactivity
    case pushtotalk
    case widgets
    case controls
    case mdm

    /// The suffix `apns-topic` must carry for this push type (appended to the bundle id).
    /// `nil` for `mdm`, whose topic is whatever the MDM certificate names.
    package var topicSuffix: String? {
        switch self {
        case .alert, .background: return ""
        case .voip: return ".voip"
        case .complication: return ".complication"
        case .fileprovider: return ".pushkit.fileprovider"
        case .location: return ".location-query"
        case .liveactivity: return ".push-type.liveactivity"
        case .pushtotalk: return ".voip-ptt"
        case .widgets: return ".push-type.widgets"
        case .controls: return ".push-type.controls"
        case .mdm: return nil
        }
    }

    /// Every non-empty suffix, longest first, so a topic's bundle id can be recovered.
    package static let suffixesLongestFirst: [(suffix: String, type: PushType)] =
        allCases.compactMap { type in
            guard let suffix = type.topicSuffix, !suffix.isEmpty else { return nil }
            return (suffix, type)
        }.sorted { $0.suffix.count > $1.suffix.count }
}
