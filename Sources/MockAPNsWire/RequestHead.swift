/// One request's header block as MockAPNs reads it, whatever the transport (an HTTP/2 stream,
/// web push over HTTP/1.1): every field kept once, in arrival order, for the record, and the
/// fields a rule reads found as they arrive. The mouth appends each field as it decodes it
/// (nghttp2's header callback, the HTTP/1.1 decoder's head); every reader after it (the
/// validator, the scenario's facts, the broadcast and web push deciders, the upstream hop,
/// the record) asks the head for a field instead of walking the list again.
///
/// A field's place is kept, not its value: a lookup costs one load and no reference
/// counting, and the head itself holds no reference besides its list.
package struct RequestHead: Sendable, Equatable {
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

    /// Every field, pseudo-headers included, in arrival order (then trailers, if any): the
    /// request as sent, for the record and for whoever forwards it whole.
    package private(set) var fields: [HTTPHeader] = []
    /// Where each known field first came, plus one (0: not sent); 255 for a place past 254,
    /// which a lookup finds by searching from there (a list that long is rare and capped by
    /// the listener's header list limit).
    private var places = Places()
    /// Known fields sent more than once.
    package private(set) var repeated = FieldSet()
    /// Whether a field of a name MockAPNs does not read came more than once.
    package private(set) var repeatsOtherField = false

    package init() {}

    /// A head of `fields`, in order.
    package init(_ fields: [HTTPHeader]) {
        self.fields.reserveCapacity(fields.count)
        for field in fields { append(field) }
    }

    /// Makes room for `count` fields (a typical APNs request carries about ten).
    package mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// Adds the next field as it arrived.
    package mutating func append(_ field: HTTPHeader) {
        let index = fields.count
        fields.append(field)
        guard let known = field.name.withUTF8Bytes(Field.init) else {
            if !repeatsOtherField, Self.name(at: index, repeatsAnEarlierIn: fields) { repeatsOtherField = true }
            return
        }
        guard places[known] == 0 else {
            repeated.bits |= known.bit
            return
        }
        places[known] = UInt8(clamping: index + 1)
    }

    /// The value of `field`'s first occurrence; `nil` when it was not sent.
    package subscript(_ field: Field) -> String? {
        let place = places[field]
        guard place != 0 else { return nil }
        guard place == UInt8.max else { return fields[Int(place) - 1].value }
        // Past the places a byte holds: searched for from there.
        let name = field.name
        return fields[(Int(UInt8.max) - 1)...].first { $0.name.withUTF8Bytes { $0.equals(name) } }?.value
    }

    /// Whether `field` was sent.
    package func contains(_ field: Field) -> Bool {
        places[field] != 0
    }

    /// Whether a field of the same name came before the one at `index`. Quadratic, but only
    /// names MockAPNs does not read are compared (about three per request: a user agent, a
    /// content type and length), and only with earlier names of their length.
    private static func name(at index: Int, repeatsAnEarlierIn fields: [HTTPHeader]) -> Bool {
        let name = fields[index].name
        let length = name.utf8.count
        for earlier in fields[..<index] where earlier.name.utf8.count == length && earlier.name == name {
            return true
        }
        return false
    }

    /// One byte per known field, in three words: the head stays a few words long and is
    /// copied without reference counting.
    private struct Places: Sendable, Equatable {
        private var words: (UInt64, UInt64, UInt64) = (0, 0, 0)

        static func == (left: Places, right: Places) -> Bool {
            left.words == right.words
        }

        subscript(field: Field) -> UInt8 {
            get {
                let (word, shift) = Self.position(of: field)
                let value: UInt64 = switch word {
                case 0: words.0
                case 1: words.1
                default: words.2
                }
                return UInt8(truncatingIfNeeded: value >> shift)
            }
            set {
                let (word, shift) = Self.position(of: field)
                let mask = ~(UInt64(0xFF) << shift)
                let bits = UInt64(newValue) << shift
                switch word {
                case 0: words.0 = words.0 & mask | bits
                case 1: words.1 = words.1 & mask | bits
                default: words.2 = words.2 & mask | bits
                }
            }
        }

        private static func position(of field: Field) -> (word: Int, shift: UInt64) {
            (field.rawValue / 8, UInt64(field.rawValue % 8) * 8)
        }
    }
}
