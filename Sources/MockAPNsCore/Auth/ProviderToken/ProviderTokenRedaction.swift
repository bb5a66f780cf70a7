/// How provider tokens (JWTs) appear in what the server records and prints: the journal, the
/// JSONL file, the access log, the dashboard and log lines.
public enum ProviderTokenRecording: String, Sendable, Hashable, CaseIterable, Codable {
    /// The header and claims, readable; the signature replaced by `<signature removed>`, so a
    /// recorded token cannot be replayed (the default).
    case withoutSignature
    /// Whole tokens, signature included (`--journal-provider-tokens whole`): a token in the
    /// journal can be used again until it expires.
    case whole
    /// Every token replaced by `<redacted>` (`--redact-tokens`).
    case redacted

    /// `text` as it may be recorded under this setting.
    public func apply(_ text: String) -> String {
        switch self {
        case .withoutSignature: ProviderTokenRedaction.removeSignatures(text)
        case .whole: text
        case .redacted: ProviderTokenRedaction.redact(text)
        }
    }
}

/// Hides provider tokens (JWTs), or their signatures, in text the server prints or records.
///
/// Whatever carries a token is covered, not only the `authorization` header: a library's
/// error message quoting a header value (`value: [bearer eyJ…]`), a diagnosis, a log line.
/// Two shapes are tokens: the word after `bearer ` (any letter case), and any run of
/// base64url characters and dots that starts with `eyJ` (every JWT does: it is `{"` in
/// base64url). Device tokens are hex and stay readable.
package enum ProviderTokenRedaction {
    /// What replaces a token.
    package static let placeholder = "<redacted>"
    /// What replaces a JWT's signature.
    package static let signaturePlaceholder = "<signature removed>"

    /// `text` with every provider token replaced; the same string when there is none.
    package static func redact(_ text: String) -> String {
        replacingTokens(in: text) { _ in Array(placeholder.utf8) }
    }

    /// `text` with the signature of every JWT in it (its third dot-separated part) replaced
    /// by `<signature removed>`: the header and claims stay readable, and the token cannot be
    /// used again. A token that is not three parts is not a JWT that can be replayed, and
    /// stays as it is.
    package static func removeSignatures(_ text: String) -> String {
        replacingTokens(in: text) { token in
            guard let first = token.firstIndex(of: UInt8(ascii: ".")),
                  let second = token[(first + 1)...].firstIndex(of: UInt8(ascii: ".")) else { return Array(token) }
            return Array(token[...second]) + Array(signaturePlaceholder.utf8)
        }
    }

    /// `text` with each token replaced by what `replacement` makes of its bytes.
    private static func replacingTokens(in text: String, with replacement: (ArraySlice<UInt8>) -> [UInt8]) -> String {
        // Most text (every other header value of every request) holds no token: that is
        // found by one pass over its bytes in place, without copying them.
        var text = text
        guard text.withUTF8({ containsToken($0) }) else { return text }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if startsBearer(bytes, at: index) {
                out.append(contentsOf: bytes[index..<index + bearer.count])
                index += bearer.count
                let end = tokenEnd(bytes, from: index)
                if end > index {
                    out.append(contentsOf: replacement(bytes[index..<end]))
                    index = end
                }
                continue
            }
            if startsJWT(bytes, at: index) {
                let end = jwtEnd(bytes, from: index)
                out.append(contentsOf: replacement(bytes[index..<end]))
                index = end
                continue
            }
            out.append(bytes[index])
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `bearer ` as bytes, compared in any letter case.
    private static let bearer: [UInt8] = Array("bearer ".utf8)

    /// Whether `bytes` hold `bearer ` (any case) or the start of a JWT. Only a `b`/`B` or an
    /// `e` can begin either, so the other bytes cost one comparison each.
    private static func containsToken(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for index in bytes.indices {
            switch bytes[index] {
            case UInt8(ascii: "b"), UInt8(ascii: "B"):
                if startsBearer(bytes, at: index) { return true }
            case UInt8(ascii: "e"):
                if startsJWT(bytes, at: index) { return true }
            default:
                continue
            }
        }
        return false
    }

    private static func startsBearer<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, at index: Bytes.Index) -> Bool
    where Bytes.Index == Int {
        let word = bearer
        guard index + word.count <= bytes.endIndex else { return false }
        for offset in 0..<word.count where bytes[index + offset] | 0x20 != word[offset] | 0x20 {
            return false
        }
        return true
    }

    private static func startsJWT<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, at index: Bytes.Index) -> Bool
    where Bytes.Index == Int {
        guard index + 3 <= bytes.endIndex, bytes[index] == UInt8(ascii: "e"), bytes[index + 1] == UInt8(ascii: "y"),
              bytes[index + 2] == UInt8(ascii: "J") else { return false }
        // Inside a longer word (`keyeyJ`) it is not the start of a token.
        return index == bytes.startIndex || !isWordByte(bytes[index - 1])
    }

    /// The end of the credential after `bearer `: up to whitespace, a control character, or
    /// the punctuation that closes a quoted value.
    private static func tokenEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "\"")
                || byte == UInt8(ascii: ",") || byte == UInt8(ascii: ";") {
                break
            }
            index += 1
        }
        return index
    }

    private static func jwtEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count, isJWTByte(bytes[index]) || bytes[index] == UInt8(ascii: ".") { index += 1 }
        return index
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        isJWTByte(byte) && byte != UInt8(ascii: "=")
    }

    private static func isJWTByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }
}
