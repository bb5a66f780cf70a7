/// The request header names APNs gives a meaning to. Every other name is ignored (Apple:
/// APNs ignores headers it does not define), except by the duplicate-header rule.
enum HTTP2HeaderName: Int, CaseIterable, Sendable {
    case method
    case path
    case scheme
    case authority
    case authorization
    case apnsID
    case apnsExpiration
    case apnsPriority
    case apnsTopic
    case apnsPushType
    case apnsCollapseID

    /// The name as it travels (a static string: comparing with it touches no heap memory).
    var text: StaticString {
        switch self {
        case .method: return ":method"
        case .path: return ":path"
        case .scheme: return ":scheme"
        case .authority: return ":authority"
        case .authorization: return "authorization"
        case .apnsID: return "apns-id"
        case .apnsExpiration: return "apns-expiration"
        case .apnsPriority: return "apns-priority"
        case .apnsTopic: return "apns-topic"
        case .apnsPushType: return "apns-push-type"
        case .apnsCollapseID: return "apns-collapse-id"
        }
    }

    /// Classifies a header name as received. HTTP/2 sends names in lowercase (a peer sending
    /// uppercase breaks the protocol), so the match is exact.
    ///
    /// This runs for every header of every request: the length and one distinguishing byte
    /// pick the only candidate, and one byte comparison confirms it.
    init?(_ name: String) {
        let match: HTTP2HeaderName? = name.withUTF8Bytes { bytes in
            let candidate: HTTP2HeaderName
            switch bytes.count {
            case 5: candidate = .path
            case 7:
                switch bytes[1] {
                case UInt8(ascii: "m"): candidate = .method
                case UInt8(ascii: "s"): candidate = .scheme
                default: candidate = .apnsID
                }
            case 10: candidate = bytes[0] == UInt8(ascii: ":") ? .authority : .apnsTopic
            case 13: candidate = bytes[0] == UInt8(ascii: "a") && bytes[1] == UInt8(ascii: "u")
                ? .authorization : .apnsPriority
            case 14: candidate = .apnsPushType
            case 15: candidate = .apnsExpiration
            case 16: candidate = .apnsCollapseID
            default: return nil
            }
            return bytes.equals(candidate.text) ? candidate : nil
        }
        guard let match else { return nil }
        self = match
    }

    /// This name's bit in a set of seen names.
    var bit: UInt16 { 1 << UInt16(rawValue) }
}
