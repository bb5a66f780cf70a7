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

    /// Classifies a header name as received. HTTP/2 sends names in lowercase (a peer sending
    /// uppercase breaks the protocol), so the match is exact.
    ///
    /// Dispatching on the length first keeps this to at most three comparisons of short
    /// ASCII strings, since it runs for every header of every request.
    init?(_ name: String) {
        switch name.utf8.count {
        case 5:
            guard name == ":path" else { return nil }
            self = .path
        case 7:
            switch name {
            case ":method": self = .method
            case "apns-id": self = .apnsID
            case ":scheme": self = .scheme
            default: return nil
            }
        case 10:
            switch name {
            case "apns-topic": self = .apnsTopic
            case ":authority": self = .authority
            default: return nil
            }
        case 13:
            switch name {
            case "apns-priority": self = .apnsPriority
            case "authorization": self = .authorization
            default: return nil
            }
        case 14:
            guard name == "apns-push-type" else { return nil }
            self = .apnsPushType
        case 15:
            guard name == "apns-expiration" else { return nil }
            self = .apnsExpiration
        case 16:
            guard name == "apns-collapse-id" else { return nil }
            self = .apnsCollapseID
        default:
            return nil
        }
    }

    /// This name's bit in a set of seen names.
    var bit: UInt16 { 1 << UInt16(rawValue) }
}
