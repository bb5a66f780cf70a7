/// The header fields MockAPNs reads, and sets of them.
extension RequestHead {
    /// A header field some rule of MockAPNs reads. Every other name is kept in the list and
    /// otherwise ignored (Apple: APNs ignores headers it does not define), except by the
    /// duplicate-header rule.
    package enum Field: Int, CaseIterable, Sendable {
        // Pseudo-headers (HTTP/2); HTTP/1.1's request line fills the same places.
        case method, scheme, authority, path
        case authorization
        // The provider API's own fields.
        case apnsID, apnsExpiration, apnsPriority, apnsTopic, apnsPushType, apnsCollapseID
        // Broadcast push and channel management.
        case apnsChannelID, apnsRequestID
        // Web push (RFC 8030, RFC 8291, RFC 8292) and HTTP/1.1.
        case host, ttl, urgency, topic, contentEncoding, cryptoKey, encryption

        /// The name as it travels, in lowercase (a static string: comparing with it touches no
        /// heap memory).
        package var name: StaticString {
            switch self {
            case .method: ":method"
            case .scheme: ":scheme"
            case .authority: ":authority"
            case .path: ":path"
            case .authorization: "authorization"
            case .apnsID: "apns-id"
            case .apnsExpiration: "apns-expiration"
            case .apnsPriority: "apns-priority"
            case .apnsTopic: "apns-topic"
            case .apnsPushType: "apns-push-type"
            case .apnsCollapseID: "apns-collapse-id"
            case .apnsChannelID: "apns-channel-id"
            case .apnsRequestID: "apns-request-id"
            case .host: "host"
            case .ttl: "ttl"
            case .urgency: "urgency"
            case .topic: "topic"
            case .contentEncoding: "content-encoding"
            case .cryptoKey: "crypto-key"
            case .encryption: "encryption"
            }
        }

        /// Classifies a field name as received. HTTP/2 sends names in lowercase (a peer
        /// sending uppercase breaks the protocol) and the HTTP/1.1 mouth lowercases them, so
        /// the match is exact. This runs for every field of every request: the length and one
        /// or two bytes pick the only candidate, and one comparison confirms it.
        package init?(_ name: UnsafeBufferPointer<UInt8>) {
            let candidate: Field
            switch name.count {
            case 3: candidate = .ttl
            case 4: candidate = .host
            case 5: candidate = name[0] == UInt8(ascii: ":") ? .path : .topic
            case 7:
                switch name[1] {
                case UInt8(ascii: "m"): candidate = .method
                case UInt8(ascii: "s"): candidate = .scheme
                case UInt8(ascii: "r"): candidate = .urgency
                default: candidate = .apnsID
                }
            case 10:
                switch name[0] {
                case UInt8(ascii: ":"): candidate = .authority
                case UInt8(ascii: "a"): candidate = .apnsTopic
                case UInt8(ascii: "c"): candidate = .cryptoKey
                default: candidate = .encryption
                }
            case 13: candidate = name[1] == UInt8(ascii: "u") ? .authorization : .apnsPriority
            case 14: candidate = .apnsPushType
            case 15:
                switch name[5] {
                case UInt8(ascii: "c"): candidate = .apnsChannelID
                case UInt8(ascii: "r"): candidate = .apnsRequestID
                default: candidate = .apnsExpiration
                }
            case 16: candidate = name[0] == UInt8(ascii: "a") ? .apnsCollapseID : .contentEncoding
            default: return nil
            }
            guard name.equals(candidate.name) else { return nil }
            self = candidate
        }

        /// This field's bit in a ``FieldSet``.
        var bit: UInt32 { 1 << UInt32(rawValue) }
    }

    /// A set of fields, as a bit mask.
    package struct FieldSet: Sendable, Equatable {
        package var bits: UInt32
        package init(_ fields: [Field] = []) { bits = fields.reduce(0) { $0 | $1.bit } }
        package func contains(_ field: Field) -> Bool { bits & field.bit != 0 }
        package var isEmpty: Bool { bits == 0 }
        package func intersection(_ other: FieldSet) -> FieldSet { FieldSet(bits: bits & other.bits) }
        package func subtracting(_ other: FieldSet) -> FieldSet { FieldSet(bits: bits & ~other.bits) }
        private init(bits: UInt32) { self.bits = bits }
    }
}
