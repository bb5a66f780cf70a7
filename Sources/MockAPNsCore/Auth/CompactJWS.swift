/// A JWS in compact serialization (RFC 7515 §7.1): `header.claims.signature`, each part
/// unpadded base64url, the first two JSON objects. The one reader of that form: provider
/// tokens (``DecodedProviderToken``), VAPID tokens and the redaction of recorded text all
/// go through it, each putting its own words on what it finds wrong.
///
/// Taking a token apart is cheap and checks only its shape; each part is decoded when asked,
/// so a caller that refuses on the header never decodes the claims.
package struct CompactJWS: Sendable {
    /// One of the three parts, for messages.
    package enum Part: String, Sendable {
        case header, claims, signature
    }

    /// Why a text is not a JWS, or one of its parts not what it must be.
    package enum Failure: Error, Sendable, Equatable {
        /// Not three dot-separated parts: how many there were.
        case partCount(Int)
        case notBase64URL(Part)
        case notUTF8(Part)
        case notJSON(Part, JSONFileError)
        /// A JSON value of another kind than an object: which kind.
        case notObject(Part, kind: String)
    }

    /// The three parts as sent (base64url text).
    package let header: Substring
    package let claims: Substring
    package let signature: Substring

    /// The parts of `token`: exactly three, separated by dots (any of them may be empty;
    /// decoding says what is wrong with one).
    package init(_ token: Substring) throws(Failure) {
        guard let firstDot = token.utf8.firstIndex(of: UInt8(ascii: ".")) else { throw .partCount(1) }
        let rest = token[token.index(after: firstDot)...]
        guard let secondDot = rest.utf8.firstIndex(of: UInt8(ascii: ".")) else { throw .partCount(2) }
        let last = token[token.index(after: secondDot)...]
        if last.utf8.contains(UInt8(ascii: ".")) {
            throw .partCount(3 + last.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: ".") ? 1 : 0) })
        }
        header = token[..<firstDot]
        claims = token[token.index(after: firstDot)..<secondDot]
        signature = last
    }

    /// `header "." claims`: the bytes the signature covers.
    package var signingInput: Substring {
        header.base[header.startIndex..<claims.endIndex]
    }

    /// The header's members.
    package func headerObject() throws(Failure) -> [String: JSONValue] {
        try Self.object(header, part: .header)
    }

    /// The claims' members.
    package func claimsObject() throws(Failure) -> [String: JSONValue] {
        try Self.object(claims, part: .claims)
    }

    /// The signature's bytes.
    package func signatureBytes() throws(Failure) -> [UInt8] {
        guard let bytes = Base64URL.decode(signature) else { throw .notBase64URL(.signature) }
        return bytes
    }

    private static func object(_ text: Substring, part: Part) throws(Failure) -> [String: JSONValue] {
        guard let bytes = Base64URL.decode(text) else { throw .notBase64URL(part) }
        guard let string = String(validating: bytes, as: UTF8.self) else { throw .notUTF8(part) }
        let node: JSONNode
        do {
            node = try JSONParser.parse(string)
        } catch {
            throw .notJSON(part, error)
        }
        guard case .object(let members) = node.value else { throw .notObject(part, kind: node.value.kindDescription) }
        // The parser refuses duplicate members, so this cannot lose one.
        return Dictionary(members.map { ($0.key, $0.value.value) }, uniquingKeysWith: { first, _ in first })
    }

    // MARK: Recognising a JWS by its shape

    /// Whether `part` has a JOSE header's shape: unpadded base64url whose bytes are a JSON
    /// object (`{`, anything, `}`, with JSON's whitespace around). Decoded as it is read,
    /// without a copy; a first byte that is no `{` ends it at once. This is how a token is
    /// recognised in text whatever surrounds it: by its structure, never by a prefix.
    package static func isHeaderShaped(_ part: some Collection<UInt8>) -> Bool {
        // `{}` is the shortest object: 2 bytes, 3 characters. One leftover character is no byte.
        guard part.count >= 3, part.count % 4 != 1 else { return false }
        var buffer: UInt32 = 0
        var bits = 0
        var opened = false
        var last: UInt8 = 0
        for character in part {
            guard let value = Base64URL.sextet(character) else { return false }
            buffer = (buffer << 6 | UInt32(value)) & 0xFFFF
            bits += 6
            guard bits >= 8 else { continue }
            bits -= 8
            let byte = UInt8(truncatingIfNeeded: buffer >> UInt32(bits))
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { continue }
            if !opened {
                guard byte == UInt8(ascii: "{") else { return false }
                opened = true
            }
            last = byte
        }
        return opened && last == UInt8(ascii: "}")
    }
}
