/// The base64url alphabet of JWTs (RFC 7515 §2): `-` and `_` instead of `+` and `/`, no
/// padding. Strict on purpose: a token a real JOSE library would reject must be refused here too.
package enum ProviderTokenBase64URL {
    /// The bytes encoded by `text`, or `nil` if `text` is not unpadded base64url.
    static func decode(_ text: Substring) -> [UInt8]? {
        decode(bytes: text.utf8)
    }

    /// The bytes encoded by the base64url characters `input`, or `nil` if they are not
    /// unpadded base64url.
    static func decode(bytes input: some Collection<UInt8>) -> [UInt8]? {
        // A single leftover character carries only 6 bits: never a whole byte.
        guard input.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for character in input {
            guard let value = sextet(character) else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return output
    }

    /// Encodes bytes as unpadded base64url (used by tests and tools that mint tokens).
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
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

    /// The six bits a base64url character stands for; `nil` for any other byte.
    static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): return 62
        case UInt8(ascii: "_"): return 63
        default: return nil
        }
    }
}
