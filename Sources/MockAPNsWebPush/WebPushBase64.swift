import MockAPNsCore

/// The base64 forms web push uses: base64url for keys, tokens and JWT segments (RFC 7515
/// §2), and standard base64 because pages also pass `applicationServerKey` that way. Core's
/// strict JWT decoder is internal to it, so this module keeps its own small decoder; encoding
/// reuses Core's.
enum WebPushBase64 {
    /// Unpadded base64url, as RFC 8291/8292 and `PushSubscription.toJSON()` write it.
    static func encodeURL(_ bytes: some Sequence<UInt8>) -> String {
        ProviderTokenBase64URL.encode(bytes)
    }

    /// The bytes of base64url `text`; with `allowingPadding`, trailing `=` (only as many as
    /// the length calls for) is accepted too. `nil` for anything else.
    static func decodeURL(_ text: Substring, allowingPadding: Bool = false) -> [UInt8]? {
        decode(text, allowingPadding: allowingPadding, alphabet: urlSextet)
    }

    /// The bytes of standard base64 `text` (`+`, `/`), padding optional.
    static func decodeStandard(_ text: Substring) -> [UInt8]? {
        decode(text, allowingPadding: true, alphabet: standardSextet)
    }

    private static func decode(_ text: Substring, allowingPadding: Bool, alphabet: (UInt8) -> UInt8?) -> [UInt8]? {
        var characters = Array(text.utf8)
        if allowingPadding {
            var padding = 0
            while characters.last == UInt8(ascii: "=") {
                characters.removeLast()
                padding += 1
            }
            // Padding, when present, must make the length a multiple of four.
            if padding > 0, padding > 2 || (characters.count + padding) % 4 != 0 { return nil }
        }
        // A single leftover character carries only 6 bits: never a whole byte.
        guard characters.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(characters.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for character in characters {
            guard let value = alphabet(character) else { return nil }
            buffer = (buffer << 6 | UInt32(value)) & 0xFFFFFF
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return output
    }

    /// Whether every character of `text` is in the base64url alphabet (RFC 8030's Topic rule).
    static func isURLAlphabet(_ text: some StringProtocol) -> Bool {
        text.utf8.allSatisfy { urlSextet($0) != nil }
    }

    private static func urlSextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: commonSextet(character)
        }
    }

    private static func standardSextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: commonSextet(character)
        }
    }

    private static func commonSextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        default: nil
        }
    }
}
