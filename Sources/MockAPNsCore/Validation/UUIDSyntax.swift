/// The canonical textual UUID: 32 hex digits grouped 8-4-4-4-12 by hyphens, 36 bytes in all.
///
/// This is the form `apns-id` must take. Braces, URNs, missing hyphens and surrounding
/// whitespace are all refused. The version and variant digits are not checked: Apple asks for
/// "a canonical UUID", and clients are free to send any of them.
package enum UUIDSyntax {
    /// The length of the canonical form in bytes.
    static let length = 36

    /// Whether `text` is a canonical UUID; uppercase letters count only if `allowsUppercase`.
    package static func isCanonical(_ text: String, allowsUppercase: Bool) -> Bool {
        text.withUTF8Bytes { bytes in
            guard bytes.count == length else { return false }
            // Hex digits are the common case; a hyphen counts only where the form puts one,
            // so exactly four of them means all four are in place.
            var hyphens = 0
            for offset in 0..<length {
                let byte = bytes[offset]
                if HexDigits.isHexDigit(byte, allowsUppercase: allowsUppercase) { continue }
                guard byte == UInt8(ascii: "-"), isHyphenPosition(offset) else { return false }
                hyphens += 1
            }
            return hyphens == 4
        }
    }

    /// Whether the byte at `offset` of the canonical form is a hyphen.
    @inline(__always)
    static func isHyphenPosition(_ offset: Int) -> Bool {
        offset == 8 || offset == 13 || offset == 18 || offset == 23
    }
}

/// A canonical UUID as its 128 bits and the case of its letters: the 36-byte text in 17 bytes,
/// given back byte for byte (`text`). Only a UUID whose letters are all one case has one: a
/// mixed-case one cannot be written back from the bits, so it stays text.
package struct UUIDBits: Sendable, Hashable {
    package var high: UInt64
    package var low: UInt64
    package var uppercase: Bool

    package init(high: UInt64, low: UInt64, uppercase: Bool) {
        self.high = high
        self.low = low
        self.uppercase = uppercase
    }

    /// The bits of `text`, when it is a canonical UUID with letters of one case; `nil` otherwise.
    /// A UUID without letters reads as lowercase (its text is the same either way).
    package init?(_ text: String) {
        let parsed: (UInt64, UInt64, Bool)? = text.withUTF8Bytes { bytes in
            guard bytes.count == UUIDSyntax.length else { return nil }
            var words: (UInt64, UInt64) = (0, 0)
            var nibbles = 0
            var sawLower = false
            var sawUpper = false
            for offset in 0..<UUIDSyntax.length {
                let byte = bytes[offset]
                if UUIDSyntax.isHyphenPosition(offset) {
                    guard byte == UInt8(ascii: "-") else { return nil }
                    continue
                }
                let value: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte &- UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte &- UInt8(ascii: "a") &+ 10; sawLower = true
                case UInt8(ascii: "A")...UInt8(ascii: "F"): value = byte &- UInt8(ascii: "A") &+ 10; sawUpper = true
                default: return nil
                }
                if nibbles < 16 {
                    words.0 = words.0 << 4 | UInt64(value)
                } else {
                    words.1 = words.1 << 4 | UInt64(value)
                }
                nibbles &+= 1
            }
            guard !(sawLower && sawUpper) else { return nil }
            return (words.0, words.1, sawUpper)
        }
        guard let parsed else { return nil }
        self.init(high: parsed.0, low: parsed.1, uppercase: parsed.2)
    }

    /// The canonical text, in the letter case it was read in.
    package var text: String {
        UUIDSyntax.text(high: high, low: low, uppercase: uppercase)
    }
}

extension UUIDSyntax {
    /// The canonical text of 128 bits: a table lookup per nibble, the hyphens at their fixed
    /// places (after nibbles 8, 12, 16 and 20), no check per character.
    static func text(high: UInt64, low: UInt64, uppercase: Bool) -> String {
        let digits: StaticString = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
        return String(unsafeUninitializedCapacity: length) { buffer in
            guard buffer.count >= length else { return 0 }
            digits.withUTF8Buffer { digits in
                var output = 0
                for nibbleIndex in 0..<32 {
                    if nibbleIndex == 8 || nibbleIndex == 12 || nibbleIndex == 16 || nibbleIndex == 20 {
                        buffer[output] = UInt8(ascii: "-")
                        output &+= 1
                    }
                    let word = nibbleIndex < 16 ? high : low
                    let shift = UInt64(60 &- 4 &* (nibbleIndex & 15))
                    buffer[output] = digits[Int((word >> shift) & 0xF)]
                    output &+= 1
                }
            }
            return length
        }
    }
}
