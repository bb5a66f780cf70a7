/// The one base64 decoder and encoder of the project. Base64url (RFC 4648 §5) is what JWTs
/// (RFC 7515 §2: `-` and `_`, no padding), VAPID keys and web push subscriptions use; the
/// standard alphabet (`+`, `/`) is accepted only where a peer is known to send it (a page's
/// `applicationServerKey`). Strict by default: a token a real JOSE library would reject is
/// refused here too.
package enum Base64URL {
    /// Which two characters stand for 62 and 63.
    package enum Alphabet: Sendable {
        /// `-` and `_` (RFC 4648 §5).
        case url
        /// `+` and `/` (RFC 4648 §4).
        case standard
    }

    /// The bytes encoded by `text`, or `nil` if it is not unpadded base64url.
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        decode(bytes: text.utf8)
    }

    /// The bytes encoded by `text` in `alphabet`; with `allowingPadding`, trailing `=` (only as
    /// many as the length calls for) is accepted too. `nil` for anything else.
    package static func decode(_ text: some StringProtocol, alphabet: Alphabet, allowingPadding: Bool) -> [UInt8]? {
        var characters = Array(text.utf8)[...]
        if allowingPadding {
            var padding = 0
            while characters.last == UInt8(ascii: "=") {
                characters.removeLast()
                padding += 1
            }
            // Padding, when present, must make the length a multiple of four.
            if padding > 0, padding > 2 || (characters.count + padding) % 4 != 0 { return nil }
        }
        return decode(bytes: characters, alphabet: alphabet)
    }

    /// The bytes encoded by the characters `input`, or `nil` if they are not unpadded base64
    /// in `alphabet`.
    package static func decode(bytes input: some Collection<UInt8>, alphabet: Alphabet = .url) -> [UInt8]? {
        // A single leftover character carries only 6 bits: never a whole byte.
        guard input.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for character in input {
            guard let value = sextet(character, alphabet) else { return nil }
            // Only the last 16 bits are ever needed: a byte is taken as soon as 8 are there.
            buffer = (buffer << 6 | UInt32(value)) & 0xFFFF
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return output
    }

    /// Encodes bytes as unpadded base64url.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8 | UInt32(byte)) & 0xFFFF
            bits += 8
            while bits >= 6 {
                bits -= 6
                output.append(alphabet[Int(buffer >> UInt32(bits) & 0x3F)])
            }
        }
        if bits > 0 {
            output.append(alphabet[Int(buffer << UInt32(6 - bits) & 0x3F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Whether every character of `text` is in the base64url alphabet (RFC 8030's Topic rule).
    package static func isURLAlphabet(_ text: some StringProtocol) -> Bool {
        text.utf8.allSatisfy { sextet($0) != nil }
    }

    /// The six bits a character stands for in `alphabet`; `nil` for any other byte.
    package static func sextet(_ character: UInt8, _ alphabet: Alphabet = .url) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): return alphabet == .url ? 62 : nil
        case UInt8(ascii: "_"): return alphabet == .url ? 63 : nil
        case UInt8(ascii: "+"): return alphabet == .standard ? 62 : nil
        case UInt8(ascii: "/"): return alphabet == .standard ? 63 : nil
        default: return nil
        }
    }
}
